package repair

// interrupt_test.go checks that a repair whose context ends during sampling or
// validation returns what it found: a partial Result with Interrupted set,
// the validated candidates with their verdicts and the others marked
// Unvalidated, together with an error wrapping ctx.Err().

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/engine"
	"github.com/repilot-lsp/repilot-lsp/lm"
)

// oneTokenModel finishes every sample with one end token: one model call per
// sample under the base variant (no memo), so the hook's call number is the
// sample number. "    int x = 1;\n" is the buggy line (dropped by dedupe).
func oneTokenModel() *fakeModel {
	return &fakeModel{next: table(map[string][]tok{"": {
		{"    int x = 2;\n", 0.4, true},
		{"    int x = 3;\n", 0.3, true},
		{"    int x = 4;\n", 0.2, true},
		{"    int x = 1;\n", 0.1, true},
	}})}
}

// twoIsWrong is a fakeCompiler's errs: one compile error in a text with
// oneTokenModel's "    int x = 2;\n", none otherwise.
func twoIsWrong(text string) []engine.CompileError {
	if strings.Contains(text, "int x = 2;") {
		return []engine.CompileError{{Line: 3, Message: "two is wrong"}}
	}
	return nil
}

// checkPartial checks what every interrupted Result shares: the error, the
// flag, Candidates as long as Stats.Unique, ranked, Patches its first KeepTop.
func checkPartial(t *testing.T, res *Result, err error, keep int) {
	t.Helper()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want one wrapping context.Canceled", err)
	}
	if res == nil || !res.Interrupted {
		t.Fatalf("result %+v; want a partial result with Interrupted set", res)
	}
	if len(res.Candidates) != res.Stats.Unique {
		t.Fatalf("%d candidates, Stats.Unique %d", len(res.Candidates), res.Stats.Unique)
	}
	ranked := slices.Clone(res.Candidates)
	rank(ranked)
	if !reflect.DeepEqual(ranked, res.Candidates) {
		t.Fatalf("candidates not ranked: %q", hunks(res.Candidates))
	}
	if want := res.Candidates[:min(keep, len(res.Candidates))]; !reflect.DeepEqual(res.Patches, want) {
		t.Fatalf("patches %q, want the first %d candidates %q", hunks(res.Patches), keep, hunks(want))
	}
}

// TestInterruptedWhileSamplingKeepsCandidates: the candidates sampled
// before the interruption were validated between samples and keep their
// verdicts; with FirstCompilable, which validates after sampling, they come
// back unvalidated.
func TestInterruptedWhileSamplingKeepsCandidates(t *testing.T) {
	for _, first := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		m := oneTokenModel()
		m.hook = func(call int) {
			if call == 8 {
				cancel()
			}
		}
		comp := &fakeCompiler{errs: twoIsWrong}
		r := request(variant(t, "base", func(o *Options) { o.Samples = 20; o.KeepTop = 2 }))
		r.FirstCompilable = first
		res, err := service(m, &fakeEngine{}, comp).Repair(ctx, r, nil)
		checkPartial(t, res, err, 2)
		// Sample 8 draws from the distribution fetched before the cancellation
		// took effect; sample 9 stops at once.
		if res.Stats.Samples < 7 || res.Stats.Samples > 8 || res.Stats.Samples != res.Stats.Completed {
			t.Fatalf("first=%v: stats %+v; want 7 or 8 completed samples of 20", first, res.Stats)
		}
		if !strings.Contains(err.Error(), "of 20 samples") {
			t.Errorf("err = %q, want it to say how many of the 20 samples ran", err)
		}
		if len(res.Candidates) == 0 {
			t.Fatal("no candidates kept from the samples that finished")
		}
		wantCalls := 1 + res.Stats.Unique // the buggy file, then each candidate as it came
		if first {
			wantCalls = 0
		}
		if comp.calls != wantCalls {
			t.Errorf("first=%v: %d compile checks, want %d", first, comp.calls, wantCalls)
		}
		total := res.Stats.SameAsBuggy
		for _, p := range res.Candidates {
			switch {
			case p.Diff == "":
				t.Errorf("candidate %+v has no diff", p)
			case first && (!p.Unvalidated || p.Compilable || !reflect.DeepEqual(p.NewErrors, []string{NotValidated})):
				t.Errorf("candidate %+v; want it unvalidated", p)
			case !first && (p.Unvalidated || p.Compilable != !strings.Contains(p.Hunk, "int x = 2;")):
				t.Errorf("candidate %+v; want it validated, with its verdict", p)
			}
			total += p.Count
		}
		if total != res.Stats.Samples {
			t.Errorf("candidates count %d samples (with %d same as buggy), stats say %d", total, res.Stats.SameAsBuggy, res.Stats.Samples)
		}
	}
}

// TestInterruptedWhileValidatingKeepsVerdicts: the interruption comes during
// the compile check of the second candidate, between samples: sampling
// stops, the first candidate keeps its verdict, the second comes back
// unvalidated.
func TestInterruptedWhileValidatingKeepsVerdicts(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	comp := &fakeCompiler{
		errs: twoIsWrong,
		fail: func(string) error {
			calls++ // call 1 is the buggy file; 2 and 3 are the first two candidates
			if calls == 3 {
				cancel()
				return context.Canceled
			}
			return nil
		},
	}
	opts := variant(t, "base", func(o *Options) { o.Samples = 30 })
	res, err := service(oneTokenModel(), &fakeEngine{}, comp).Repair(ctx, request(opts), nil)
	checkPartial(t, res, err, opts.KeepTop)
	if res.Stats.Samples >= 30 || res.Stats.Unique != 2 {
		t.Fatalf("stats %+v; want sampling stopped at the second unique candidate", res.Stats)
	}
	var checked, unchecked []Patch
	for _, p := range res.Candidates {
		if p.Unvalidated {
			unchecked = append(unchecked, p)
		} else {
			checked = append(checked, p)
		}
	}
	if len(checked) != 1 || len(unchecked) != 1 {
		t.Fatalf("%d validated and %d unvalidated candidates; want 1 and 1: %+v", len(checked), len(unchecked), res.Candidates)
	}
	if p := checked[0]; p.Compilable != !strings.Contains(p.Hunk, "int x = 2;") {
		t.Errorf("validated %q: Compilable %v (verdict not kept)", p.Hunk, p.Compilable)
	}
	if p := unchecked[0]; p.Compilable || !reflect.DeepEqual(p.NewErrors, []string{NotValidated}) {
		t.Errorf("unvalidated candidate %+v", p)
	}
}

// TestInterruptedDuringTestsKeepsCompileVerdict: a compilable candidate whose
// tests the interruption cut short stays compilable, untested, Unvalidated.
func TestInterruptedDuringTestsKeepsCompileVerdict(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "src", "A.java")
	os.MkdirAll(filepath.Dir(file), 0o755)
	if err := os.WriteFile(file, []byte(javaFile), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	comp := &fakeCompiler{errs: func(string) []engine.CompileError {
		if calls++; calls == 1 { // the first candidate: it compiles (no errors, so no check of the buggy file), then tests start cancelled
			cancel()
		}
		return nil
	}}
	r := request(variant(t, "base", func(o *Options) { o.Samples = 30 }))
	r.Root, r.File = root, file
	r.TestCmd = []string{"true"}
	res, err := service(oneTokenModel(), &fakeEngine{}, comp).Repair(ctx, r, nil)
	checkPartial(t, res, err, r.Options.KeepTop)
	p := res.Candidates[0]
	if !p.Compilable || !p.Unvalidated || p.Tested || len(p.NewErrors) != 0 {
		t.Fatalf("first candidate %+v; want compilable, untested, unvalidated", p)
	}
	for _, p := range res.Candidates[1:] {
		if p.Compilable || !p.Unvalidated {
			t.Errorf("later candidate %+v; want unvalidated", p)
		}
	}
	if res.Stats.Tested != 0 {
		t.Errorf("Stats.Tested = %d, want 0", res.Stats.Tested)
	}
}

// TestBackendFailureKeepsValidatedCandidates: a model (or shadow JDT LS) that
// fails during sampling after some candidates were validated between samples
// ends the repair with a partial Result that keeps their verdicts and an error
// wrapping the backend's; with FirstCompilable, where nothing is validated
// before the last sample, the Result is nil and the error the backend's.
func TestBackendFailureKeepsValidatedCandidates(t *testing.T) {
	gone := errors.New("server went away")
	for _, first := range []bool{false, true} {
		m := oneTokenModel()
		table := m.next
		m.next = func(g string) ([]lm.Candidate, error) {
			m.mu.Lock()
			calls := m.calls
			m.mu.Unlock()
			if calls >= 8 {
				return nil, gone
			}
			return table(g)
		}
		comp := &fakeCompiler{errs: twoIsWrong}
		r := request(variant(t, "base", func(o *Options) { o.Samples = 20; o.KeepTop = 2 }))
		r.FirstCompilable = first
		res, err := service(m, &fakeEngine{}, comp).Repair(context.Background(), r, nil)
		if !errors.Is(err, gone) {
			t.Fatalf("first=%v: err = %v, want one wrapping the model's", first, err)
		}
		if first {
			if res != nil {
				t.Errorf("first=true: result %+v, want nil", res)
			}
			continue
		}
		if res == nil || !res.Interrupted || len(res.Candidates) == 0 || len(res.Candidates) != res.Stats.Unique {
			t.Fatalf("result %+v; want a partial result with the validated candidates", res)
		}
		if !strings.Contains(err.Error(), "stopped after 7 of 20 samples") {
			t.Errorf("err = %q, want it to say how many of the 20 samples ran", err)
		}
		for _, p := range res.Candidates {
			if p.Unvalidated || p.Compilable != !strings.Contains(p.Hunk, "int x = 2;") {
				t.Errorf("candidate %+v; want it validated, with its verdict", p)
			}
		}
		if want := res.Candidates[:min(2, len(res.Candidates))]; !reflect.DeepEqual(res.Patches, want) {
			t.Errorf("patches %q, want the first 2 candidates", hunks(res.Patches))
		}
	}
}
