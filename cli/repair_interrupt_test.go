package cli

// repair_interrupt_test.go checks that an interrupted repair command prints
// the partial result its Repairer returns (text and --json), with a first
// line saying how far it got, and still ends with "interrupted (SIGINT)"
// (exit status 130). A scripted Repairer stands in for JDT LS and the model.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/backend"
	"github.com/repilot-lsp/repilot-lsp/repair"
)

// interruptingRepairer sends SIGINT to the test process, waits for the
// command's context to end, and returns res with an error wrapping ctx.Err(),
// as repair.Service does when interrupted.
type interruptingRepairer struct{ res *repair.Result }

func (r interruptingRepairer) Repair(ctx context.Context, req repair.Request, progress repair.Progress) (*repair.Result, error) {
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		return nil, err
	}
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		return nil, errors.New("SIGINT did not cancel the repair's context")
	}
	return r.res, fmt.Errorf("repair interrupted after %d of %d samples: %w", r.res.Stats.Samples, req.Options.Samples, ctx.Err())
}

func runInterrupted(t *testing.T, res *repair.Result, jsonOut bool) (stdout string, err error) {
	t.Helper()
	root := writeProject(t)
	t.Setenv(EnvModelBaseURL, "")
	old := newRepairer
	newRepairer = func(backend.Config) (repair.Repairer, error) { return interruptingRepairer{res}, nil }
	defer func() { newRepairer = old }()
	f := repairFlags{project: root, file: "src/A.java", lines: "3", jsonOut: jsonOut, quiet: true, keep: 5, variant: "full",
		sampling: samplingFlags{samples: 20, maxTokens: 8, temperature: 1, topP: 1}, model: defaultModelFlags()}
	var out, errb bytes.Buffer
	err = runRepair(context.Background(), f, nil, &out, &errb)
	var ie *interruptedError
	if !errors.As(err, &ie) || ie.exitCode() != 130 {
		t.Fatalf("err = %v, want interrupted (SIGINT) with exit status 130", err)
	}
	return out.String(), err
}

func partialResult() *repair.Result {
	checked := repair.Patch{Hunk: "    return 2;\n", Diff: "--- a/src/A.java\n+++ b/src/A.java\n@@ -3 +3 @@\n-    return 1;\n+    return 2;\n",
		Compilable: true, Score: -1, Tokens: 3, Count: 2}
	unchecked := repair.Patch{Hunk: "    return 3;\n", Diff: "--- a/src/A.java\n+++ b/src/A.java\n@@ -3 +3 @@\n-    return 1;\n+    return 3;\n",
		Unvalidated: true, NewErrors: []string{repair.NotValidated}, Score: -2, Tokens: 3, Count: 1}
	ps := []repair.Patch{checked, unchecked}
	return &repair.Result{Patches: ps, Candidates: ps, Interrupted: true,
		Stats: repair.Stats{Samples: 7, Completed: 3, Unique: 2}}
}

func TestRepairInterruptedPrintsPartialResult(t *testing.T) {
	out, _ := runInterrupted(t, partialResult(), false)
	first, rest, _ := strings.Cut(out, "\n")
	if want := "# interrupted after 7 of 20 samples; 1 of 2 candidates validated"; first != want {
		t.Fatalf("first line %q, want %q; output:\n%s", first, want, out)
	}
	for _, want := range []string{
		"# patch 1/2: compilable;", "+    return 2;\n",
		"# patch 2/2: not validated (interrupted before its compile check);", "+    return 3;\n",
	} {
		if !strings.Contains(rest, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "#   "+repair.NotValidated) {
		t.Errorf("the not-validated marker is listed as a compile error:\n%s", out)
	}
}

func TestRepairInterruptedJSON(t *testing.T) {
	out, _ := runInterrupted(t, partialResult(), true)
	var got struct {
		Interrupted      bool   `json:"interrupted"`
		InterruptedAfter string `json:"interrupted_after"`
		Patches          []struct {
			Rank        int    `json:"rank"`
			Compilable  bool   `json:"compilable"`
			Unvalidated bool   `json:"unvalidated"`
			Hunk        string `json:"hunk"`
		} `json:"patches"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("--json output is not one JSON value: %v\n%s", err, out)
	}
	if !got.Interrupted || got.InterruptedAfter != "7 of 20 samples; 1 of 2 candidates validated" {
		t.Errorf("interrupted %v, interrupted_after %q", got.Interrupted, got.InterruptedAfter)
	}
	if len(got.Patches) != 2 || !got.Patches[0].Compilable || got.Patches[0].Unvalidated ||
		got.Patches[1].Compilable || !got.Patches[1].Unvalidated || got.Patches[1].Hunk != "    return 3;\n" {
		t.Errorf("patches %+v", got.Patches)
	}
	if first, _, _ := strings.Cut(out, "\n"); first != "{" {
		t.Errorf("first line %q: --json output must stay pure JSON", first)
	}
}

// TestRepairInterruptedWithNothingFound keeps the old output: no stdout, the
// error line alone.
func TestRepairInterruptedWithNothingFound(t *testing.T) {
	for _, jsonOut := range []bool{false, true} {
		out, err := runInterrupted(t, &repair.Result{Interrupted: true, Stats: repair.Stats{Samples: 2}}, jsonOut)
		if out != "" || err.Error() != "interrupted (SIGINT)" {
			t.Errorf("json %v: stdout %q, err %v; want nothing printed and the one-line error", jsonOut, out, err)
		}
	}
}
