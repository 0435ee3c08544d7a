package cli

// repair_llama_test.go runs the repair command line end to end against a real
// llama.cpp llama-server (the random-weight deepseek-coder model of
// scripts/models/make-random.sh): flags -> backend.ModelConfig -> start-up check ->
// lm/openai model -> speculative guided decoding over the package's one real
// JDT LS engine. Team rules: no llama-server fails the test with how to build
// it unless REPILOT_SKIP_LLAMA=1; no JDT LS likewise unless
// REPILOT_SKIP_JDTLS=1.

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/backend"
	"github.com/repilot-lsp/repilot-lsp/corpus"
	"github.com/repilot-lsp/repilot-lsp/lm/openai/llamatest"
	"github.com/repilot-lsp/repilot-lsp/repair"
)

func TestRepairCommandWithLlamaServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	srv := llamatest.StartRandom(ctx, t, "deepseek-coder", "tiny", llamatest.Options{LogFile: filepath.Join(t.TempDir(), "llama-server.log")})
	bug, err := corpus.LoadBug(integrationBug)
	if err != nil {
		t.Fatal(err)
	}
	// The package's one JDT LS (team rule) serves as engine; the model is
	// whatever the command line configured.
	b := realBackends(ctx, t, bug.ProjectDir())
	eng, comp := b.Engine, b.Compiler
	var built []string
	var concurrency []int // Options.Concurrency of each request
	old := newRepairer
	newRepairer = func(cfg backend.Config) (repair.Repairer, error) {
		m, err := cfg.Model.Server()
		if err != nil || m == nil {
			t.Fatalf("the command line configured no model server: %v", err)
		}
		built = append(built, m.Name())
		return recordingRepairer{repair.NewService(repair.Backends{Model: m, Engine: eng, Compiler: comp}), &concurrency}, nil
	}
	defer func() { newRepairer = old }()
	t.Setenv("LLAMA_TEST_KEY", "sk-llama-test-secret")

	for _, speculate := range []bool{true, false} {
		args := []string{"repair", "--project", bug.ProjectDir(), "--file", bug.File, "--lines", linesFlag(bug),
			"--samples", "4", "--max-tokens", "16", "--seed", "1", "--json",
			"--model-base-url", srv.URL, "--api-key-env", "LLAMA_TEST_KEY", "--model-timeout", "2m",
			"--model-concurrency", "4"}
		if !speculate {
			args = append(args, "--no-speculate")
		}
		var out, errb bytes.Buffer
		Root.SetArgs(args)
		Root.SetOut(&out)
		Root.SetErr(&errb)
		err := Root.ExecuteContext(ctx)
		Root.SetArgs(nil)
		Root.SetOut(nil)
		Root.SetErr(nil)
		var res struct {
			Patches []jsonPatch  `json:"patches"`
			Stats   repair.Stats `json:"stats"`
		}
		if jerr := json.Unmarshal(out.Bytes(), &res); jerr != nil {
			t.Fatalf("--json output (command error: %v): %v\n%s\nstderr:\n%s", err, jerr, out.String(), errb.String())
		}
		// The random-weight model rarely ends a hunk: no patch is then an
		// error (exit status 1) after the JSON, and only then.
		if (err != nil) != (len(res.Patches) == 0) || err != nil && !strings.Contains(err.Error(), "no patch") {
			t.Fatalf("repilot-lsp %s: %d patches, error %v\nstderr:\n%s", strings.Join(args, " "), len(res.Patches), err, errb.String())
		}
		st := res.Stats
		t.Logf("speculate=%v: %+v; %d patches", speculate, st, len(res.Patches))
		if st.Samples != 4 || st.LMRequests == 0 || st.EngineCalls == 0 {
			t.Errorf("speculate=%v: the loop did not run on the server and the engine: %+v", speculate, st)
		}
		if speculate && (st.Proposals == 0 || st.LMRequests > int64(st.Samples+st.Resampled)+st.SpecRejected+st.SpecCuts) {
			t.Errorf("speculative: %d requests, %d proposals, %d samples + %d run again + %d rejections + %d cuts", st.LMRequests, st.Proposals, st.Samples, st.Resampled, st.SpecRejected, st.SpecCuts)
		}
		if st.TruncEndPruned+st.TruncEndNotDrawn+st.TruncNoEnd != st.Truncated {
			t.Errorf("speculate=%v: truncated samples %d, broken down as %d+%d+%d", speculate, st.Truncated, st.TruncEndPruned, st.TruncEndNotDrawn, st.TruncNoEnd)
		}
		if !speculate && st.Proposals != 0 {
			t.Errorf("--no-speculate made %d proposals", st.Proposals)
		}
		if !strings.Contains(errb.String(), "language model: model server "+srv.URL+" (") {
			t.Errorf("stderr does not name the model server:\n%s", errb.String())
		}
		if strings.Contains(out.String()+errb.String(), "sk-llama-test-secret") {
			t.Error("the API key was printed")
		}
	}
	if len(built) != 2 || !strings.Contains(built[0], "@"+srv.URL) {
		t.Errorf("models built: %q", built)
	}
	// --model-concurrency is how many samples run at once.
	if !slices.Equal(concurrency, []int{4, 4}) {
		t.Errorf("requests drew %v samples at once, want 4 (--model-concurrency 4) each", concurrency)
	}
	if _, err := os.Stat(bug.FilePath()); err != nil {
		t.Fatal(err)
	}
}

// recordingRepairer records the Options.Concurrency of each request.
type recordingRepairer struct {
	repair.Repairer
	concurrency *[]int
}

func (r recordingRepairer) Repair(ctx context.Context, req repair.Request, p repair.Progress) (*repair.Result, error) {
	*r.concurrency = append(*r.concurrency, req.Options.Concurrency)
	return r.Repairer.Repair(ctx, req, p)
}
