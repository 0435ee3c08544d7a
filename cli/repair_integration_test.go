package cli

// repair_integration_test.go runs the repair command end to end with a real
// JDT LS (the completion engine and compiler) and the real n-gram model on a
// fixture of testdata/bugs. One JDT LS serves every test of the package: it
// imports every fixture's project as a workspace folder (backend.NewShared),
// so that the corpus test (corpus_integration_test.go) starts no server of
// its own. Without JDT LS the tests fail, saying to run
// scripts/install-jdtls.sh, unless REPILOT_SKIP_JDTLS=1; -short skips them.

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

	"github.com/repilot-lsp/repilot-lsp/backend"
	"github.com/repilot-lsp/repilot-lsp/corpus"
	"github.com/repilot-lsp/repilot-lsp/engine"
	"github.com/repilot-lsp/repilot-lsp/internal/realpart"
	"github.com/repilot-lsp/repilot-lsp/jdtls"
	"github.com/repilot-lsp/repilot-lsp/repair"
)

// integrationBug is the fixture the integration tests repair: a one-line hunk
// in a plain (build-file-less) project where 20 n-gram samples include
// compilable candidates (measured with the n-gram model as of lm/ngram
// 1d6beba and with its copy-aware successor).
const integrationBug = "../testdata/bugs/undo-stack-extra-decrement"

var real struct {
	once sync.Once
	r    *backend.Pool
	dir  string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if real.r != nil {
		real.r.Close()
	}
	if real.dir != "" {
		os.RemoveAll(real.dir)
	}
	os.Exit(code)
}

// realRepairer returns the package's shared repair service: one JDT LS over
// every fixture's project (testdata/bugs), started on the first repair, and
// the n-gram model trained per project (one project's at a time).
func realRepairer(t *testing.T) *backend.Pool {
	t.Helper()
	home, err := jdtls.ResolveHome("")
	realpart.JDTLS.Require(t, err)
	real.once.Do(func() {
		var bugs []corpus.Bug
		if bugs, real.err = corpus.Load("../testdata/bugs"); real.err != nil {
			return
		}
		roots := make([]string, len(bugs))
		for i, b := range bugs {
			roots[i] = b.ProjectDir()
		}
		if real.dir, real.err = os.MkdirTemp("", "repilot-cli-test-*"); real.err != nil {
			return
		}
		real.r, real.err = backend.NewShared(backend.Config{JDTLSHome: home, StateDir: real.dir, MaxRoots: 1}, roots)
	})
	if real.err != nil {
		t.Fatalf("the repair integration tests need JDT LS: %v (run scripts/install-jdtls.sh, or set REPILOT_SKIP_JDTLS=1 to skip)", real.err)
	}
	return real.r
}

// realBackends returns the shared service's backends for root (the shared
// JDT LS and root's model), starting them if needed.
func realBackends(ctx context.Context, t *testing.T, root string) repair.Backends {
	t.Helper()
	var b repair.Backends
	if err := realRepairer(t).Use(ctx, root, func(got repair.Backends) error { b = got; return nil }); err != nil {
		t.Fatal(err)
	}
	return b
}

// sharedService hands the shared service to runRepair without letting it
// close the service.
type sharedService struct{ repair.Repairer }

// replayService runs the first repair on the shared service and answers a
// second one with the same Result, after checking that the request is the
// same: runRepair's two output formats are checked on one repair.
type replayService struct {
	repair.Repairer
	req *repair.Request
	res *repair.Result
}

func (s *replayService) Repair(ctx context.Context, req repair.Request, progress repair.Progress) (*repair.Result, error) {
	if s.req != nil {
		// The text mode streams patches as found (OnPatch) and the JSON mode
		// does not; functions cannot be compared, and the rest must match.
		a, b := req, *s.req
		a.OnPatch, b.OnPatch = nil, nil
		if !reflect.DeepEqual(a, b) {
			return nil, fmt.Errorf("the second run asked another repair:\n%+v\nfirst:\n%+v", req, *s.req)
		}
		return s.res, nil
	}
	res, err := s.Repairer.Repair(ctx, req, progress)
	s.req, s.res = &req, res
	return res, err
}

func TestRepairCommandFindsCompilablePatch(t *testing.T) {
	r := realRepairer(t)
	replay := &replayService{Repairer: r}
	old := newRepairer
	newRepairer = func(backend.Config) (repair.Repairer, error) { return replay, nil }
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
		variant: "full", testTimeout: time.Minute, jsonOut: true, model: defaultModelFlags()}
	f.sampling.seed = corpusSeed(bug.ID)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var res struct {
		Patches []jsonPatch  `json:"patches"`
		Stats   repair.Stats `json:"stats"`
	}
	if err := runRepair(ctx, f, nil, &out, &errb); err != nil {
		t.Fatalf("repair --json --seed %d: %v\nstderr:\n%s", f.sampling.seed, err, errb.String())
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("--json output: %v\n%s", err, out.String())
	}
	t.Logf("seed %d stats: %+v", f.sampling.seed, res.Stats)
	var compilable *jsonPatch
	for i, p := range res.Patches {
		t.Logf("patch %d: compilable=%v score=%.3f %q", i+1, p.Compilable, p.Score, p.Hunk)
		if p.Compilable && compilable == nil {
			compilable = &res.Patches[i]
		}
	}
	if compilable == nil {
		t.Fatalf("no compilable patch with seed %d (corpusSeeds)", f.sampling.seed)
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
	// Without --json: the same patches as headed unified diffs. The same
	// flags must ask the same repair, whose Result replayService repeats.
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
// changing the candidates. Sampling is what it checks: the candidates are
// not compiled (noCompile), the determinism of validation being the
// compiler's.
func TestRealEngineDeterminismAndMemo(t *testing.T) {
	realRepairer(t)
	bug, err := corpus.LoadBug(integrationBug)
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(bug.FilePath())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	b := realBackends(ctx, t, bug.ProjectDir())
	svc := repair.NewService(repair.Backends{Model: b.Model, Engine: b.Engine, Compiler: noCompile{}})
	run := func(variant string) *repair.Result {
		t.Helper()
		o, err := repair.DefaultOptions().WithVariant(variant)
		if err != nil {
			t.Fatal(err)
		}
		o.Samples, o.Seed, o.KeepTop = 12, 42, 100
		res, err := svc.Repair(ctx, repair.Request{Root: bug.ProjectDir(), File: bug.FilePath(), Text: string(text),
			StartLine: bug.StartLine, EndLine: bug.EndLine, Options: o}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	// What sampling decides about each candidate: its text, model score,
	// token count and how many samples gave it.
	sampled := func(res *repair.Result) []string {
		var h []string
		for _, p := range res.Candidates {
			h = append(h, fmt.Sprintf("%q logprob=%v tokens=%d count=%d", p.Hunk, p.LogProb, p.Tokens, p.Count))
		}
		return h
	}
	a, b2 := run("full"), run("full")
	if len(a.Candidates) == 0 {
		t.Fatalf("seed 42 gave no candidate: %+v", a.Stats)
	}
	if !reflect.DeepEqual(sampled(a), sampled(b2)) {
		t.Fatalf("same seed, different candidates:\n%q\n%q", sampled(a), sampled(b2))
	}
	off, on := run("prune"), run("prune+memo")
	if !reflect.DeepEqual(sampled(off), sampled(on)) {
		t.Fatalf("memo changed the candidates:\noff %q\non  %q", sampled(off), sampled(on))
	}
	if on.Stats.EngineCalls >= off.Stats.EngineCalls {
		t.Fatalf("memo saved no engine calls: off %d, on %d", off.Stats.EngineCalls, on.Stats.EngineCalls)
	}
	t.Logf("engine calls: prune %d, prune+memo %d; model requests %d vs %d", off.Stats.EngineCalls, on.Stats.EngineCalls, off.Stats.LMRequests, on.Stats.LMRequests)
}

// noCompile is a compiler that reports no error without compiling: for
// tests of sampling, which validation does not change.
type noCompile struct{}

func (noCompile) CompileErrors(context.Context, string, string) ([]engine.CompileError, error) {
	return nil, nil
}
