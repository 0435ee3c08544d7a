package repair

// firstcompilable_test.go checks Request.FirstCompilable: validation goes
// best Score first and stops after the first compilable candidate; sampling
// and the verdicts of the candidates it checked are those of a full
// validation.

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/engine"
)

func TestFirstCompilableStopsBestFirst(t *testing.T) {
	// Sampled in the order the model's randomness gives; by Score: bad (does
	// not compile), ok1, ok2, old (all compile).
	next := table(map[string][]tok{
		"":    {{"bad", 0.5, false}, {"ok1", 0.25, false}, {"ok2", 0.15, false}, {"old", 0.1, false}},
		"bad": {{";", 1, true}}, "ok1": {{";", 1, true}}, "ok2": {{";", 1, true}}, "old": {{";", 1, true}},
	})
	newComp := func() *fakeCompiler {
		return &fakeCompiler{errs: func(text string) []engine.CompileError {
			if strings.Contains(text, "bad;") {
				return []engine.CompileError{{Line: 3, Message: "cannot find symbol bad"}}
			}
			return nil
		}}
	}
	opts := variant(t, "base", func(o *Options) { o.Samples = 60; o.KeepTop = 100 })

	fullComp := newComp()
	full := run(t, service(&fakeModel{next: next}, &fakeEngine{}, fullComp), request(opts))
	req := request(opts)
	req.FirstCompilable = true
	firstComp := newComp()
	first := run(t, service(&fakeModel{next: next}, &fakeEngine{}, firstComp), req)

	// Sampling is unchanged: the same candidates with the same scores.
	sorted := func(ps []Patch) []string { h := hunks(ps); slices.Sort(h); return h }
	if !reflect.DeepEqual(sorted(first.Candidates), sorted(full.Candidates)) || len(full.Candidates) != 4 {
		t.Fatalf("candidates %q with FirstCompilable, %q without; want the same 4", sorted(first.Candidates), sorted(full.Candidates))
	}
	// The buggy file, bad, then ok1: three compile checks instead of five.
	if firstComp.calls != 3 || first.Stats.CompileChecks != 3 || fullComp.calls != 5 {
		t.Fatalf("compile checks: %d (stats %d) with FirstCompilable, %d without; want 3 and 5",
			firstComp.calls, first.Stats.CompileChecks, fullComp.calls)
	}
	byHunk := map[string]Patch{}
	for _, p := range full.Candidates {
		byHunk[p.Hunk] = p
	}
	want := map[string]bool{"bad;\n": false, "ok1;\n": true} // checked: compilable
	for _, p := range first.Candidates {
		if c, checked := want[p.Hunk]; checked {
			if p.Unvalidated || p.Compilable != c || !reflect.DeepEqual(p.NewErrors, byHunk[p.Hunk].NewErrors) {
				t.Errorf("checked %q: %+v; want the full validation's verdict %+v", p.Hunk, p, byHunk[p.Hunk])
			}
			continue
		}
		if !p.Unvalidated || p.Compilable || !reflect.DeepEqual(p.NewErrors, []string{NotValidatedStopped}) {
			t.Errorf("unchecked %q: %+v; want Unvalidated, not compilable, %q", p.Hunk, p, NotValidatedStopped)
		}
		if p.Score != byHunk[p.Hunk].Score {
			t.Errorf("%q: score %v, %v without FirstCompilable", p.Hunk, p.Score, byHunk[p.Hunk].Score)
		}
	}
	if got := first.Candidates[0]; got.Hunk != "ok1;\n" || !got.Compilable {
		t.Errorf("first candidate %+v; want the compilable ok1 ranked first", got)
	}
}
