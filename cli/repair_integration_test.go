package cli

// repair_integration_test.go runs the repair command end to end with a real
// JDT LS (the completion engine and compiler) and the real n-gram model on a
// fixture of testdata/bugs. One JDT LS serves every test of the package.
// Without JDT LS the tests fail, saying to run scripts/install-jdtls.sh,
// unless REPILOT_SKIP_JDTLS=1.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/corpus"
	"github.com/repilot-lsp/repilot-lsp/repair"
)

// integrationBug is the fixture the integration tests repair: a one-line hunk
// in a plain (build-file-less) project where 20 n-gram samples include
// compilable candidates (measured with the n-gram model as of lm/ngram
// 1d6beba and with its copy-aware successor).
const integrationBug = "../testdata/bugs/undo-stack-extra-decrement"

// integrationSeeds are tried in turn until one gives a compilable patch, so
// that a change of the model's distribution does not fail the test by bad
// luck; a broken pipeline (nothing compiles, wrong compile check) still does.
var integrationSeeds = []int64{0, 1, 2}

var real struct {
	once sync.Once
	r    repair.Repairer
	dir  string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if c, ok := real.r.(interface{ Close() error }); ok {
		c.Close()
	}
	if real.dir != "" {
		os.RemoveAll(real.dir)
	}
	os.Exit(code)
}

// realRepairer returns the package's shared repair service over a real JDT LS.
func realRepairer(t *testing.T) repair.Repairer {
	t.Helper()
	if os.Getenv("REPILOT_SKIP_JDTLS") == "1" {
		t.Skip("REPILOT_SKIP_JDTLS=1: skipping the JDT LS integration test")
	}
	real.once.Do(func() {
		real.dir, real.err = os.MkdirTemp("", "repilot-cli-test-*")
		if real.err != nil {
			return
		}
		real.r, real.err = buildRepairer(RepairConfig{StateDir: real.dir, MaxRoots: 1})
	})
	if real.err != nil {
		t.Fatalf("the repair integration tests need JDT LS: %v (run scripts/install-jdtls.sh, or set REPILOT_SKIP_JDTLS=1 to skip)", real.err)
	}
	return real.r
}

// sharedService hands the shared service to runRepair without letting it
// close the service.
type sharedService struct{ repair.Repairer }

func TestRepairCommandFindsCompilablePatch(t *testing.T) {
	r := realRepairer(t)
	old := newRepairer
	newRepairer = func(RepairConfig) (repair.Repairer, error) { return sharedService{r}, nil }
	defer func() { newRepairer = old }()

	bug, err := corpus.LoadBug(integrationBug)
	if err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(bug.FilePath())
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	f := repairFlags{project: bug.ProjectDir(), file: bug.File, lines: linesFlag(bug),
		sampling: defaultSampling(), keep: 20,
		variant: "full", testTimeout: time.Minute, jsonOut: true}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var res struct {
		Patches []jsonPatch  `json:"patches"`
		Stats   repair.Stats `json:"stats"`
	}
	var compilable *jsonPatch
	for _, seed := range integrationSeeds {
		f.sampling.seed = seed
		out.Reset()
		errb.Reset()
		if err := runRepair(ctx, f, nil, &out, &errb); err != nil {
			t.Fatalf("repair --json --seed %d: %v\nstderr:\n%s", seed, err, errb.String())
		}
		if err := json.Unmarshal(out.Bytes(), &res); err != nil {
			t.Fatalf("--json output: %v\n%s", err, out.String())
		}
		t.Logf("seed %d stats: %+v", seed, res.Stats)
		for i, p := range res.Patches {
			t.Logf("seed %d patch %d: compilable=%v score=%.3f %q", seed, i+1, p.Compilable, p.Score, p.Hunk)
			if p.Compilable && compilable == nil {
				compilable = &res.Patches[i]
			}
		}
		if compilable != nil {
			break
		}
	}
	if compilable == nil {
		t.Fatalf("no compilable patch with seeds %v", integrationSeeds)
	}
	if res.Stats.EngineCalls == 0 {
		t.Errorf("the completion engine was never consulted: %+v", res.Stats)
	}
	if !res.Patches[0].Compilable {
		t.Error("the first patch is not compilable although a compilable one exists")
	}
	// The diff applies to a copy of the project, and the project is untouched.
	after, _ := os.ReadFile(bug.FilePath())
	if !bytes.Equal(before, after) {
		t.Fatal("repair modified the project's file")
	}
	dir := t.TempDir()
	if err := bug.CopyProject(dir); err != nil {
		t.Fatal(err)
	}
	patchFile := filepath.Join(t.TempDir(), "p.diff")
	os.WriteFile(patchFile, []byte(compilable.Diff), 0o644)
	cmd := exec.Command("git", "apply", "--check", patchFile)
	cmd.Dir = dir
	if o, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git apply --check: %v\n%s\n%s", err, o, compilable.Diff)
	}
	// Without --json: the same patches as headed unified diffs.
	out.Reset()
	f.jsonOut = false
	if err := runRepair(ctx, f, nil, &out, &errb); err != nil {
		t.Fatalf("repair: %v", err)
	}
	if !strings.HasPrefix(out.String(), "# patch 1/") || !strings.Contains(out.String(), ": compilable;") ||
		!strings.Contains(out.String(), compilable.Diff) {
		t.Fatalf("text output lacks the compilable patch:\n%s", out.String())
	}
}

func linesFlag(b corpus.Bug) string { return fmt.Sprintf("%d-%d", b.StartLine, b.EndLine) }

// TestRealEngineDeterminismAndMemo checks, against the real engine, that equal
// seeds give equal candidates and that the memo saves engine calls without
// changing the candidates.
func TestRealEngineDeterminismAndMemo(t *testing.T) {
	r := realRepairer(t)
	bug, err := corpus.LoadBug(integrationBug)
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(bug.FilePath())
	if err != nil {
		t.Fatal(err)
	}
	run := func(variant string) *repair.Result {
		t.Helper()
		o, err := repair.DefaultOptions().WithVariant(variant)
		if err != nil {
			t.Fatal(err)
		}
		o.Samples, o.Seed, o.KeepTop = 12, 42, 100
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		res, err := r.Repair(ctx, repair.Request{Root: bug.ProjectDir(), File: bug.FilePath(), Text: string(text),
			StartLine: bug.StartLine, EndLine: bug.EndLine, Options: o}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	hunksOf := func(res *repair.Result) []string {
		var h []string
		for _, p := range res.Candidates {
			h = append(h, p.Hunk)
		}
		return h
	}
	a, b := run("full"), run("full")
	if !reflect.DeepEqual(hunksOf(a), hunksOf(b)) {
		t.Fatalf("same seed, different candidates:\n%q\n%q", hunksOf(a), hunksOf(b))
	}
	off, on := run("prune"), run("prune+memo")
	if !reflect.DeepEqual(hunksOf(off), hunksOf(on)) {
		t.Fatalf("memo changed the candidates:\noff %q\non  %q", hunksOf(off), hunksOf(on))
	}
	if on.Stats.EngineCalls >= off.Stats.EngineCalls {
		t.Fatalf("memo saved no engine calls: off %d, on %d", off.Stats.EngineCalls, on.Stats.EngineCalls)
	}
	t.Logf("engine calls: prune %d, prune+memo %d; model requests %d vs %d", off.Stats.EngineCalls, on.Stats.EngineCalls, off.Stats.LMRequests, on.Stats.LMRequests)
}
