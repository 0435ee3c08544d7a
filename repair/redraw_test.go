package repair

import (
	"math"
	"strings"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/engine"
)

// TestRedrawLineWhenEndPruned: when the end token drawn after a line is
// pruned (the file would not parse there), the sample draws that line
// again instead of writing on after it; the candidate's log-probability
// counts only the tokens it keeps, and the discarded tokens still count
// towards the token budget.
func TestRedrawLineWhenEndPruned(t *testing.T) {
	next := table(map[string][]tok{
		"":            {{"bad\n", 0.5, false}, {"good\n", 0.5, false}},
		"bad\n":       {{"", 0.9, true}, {"more", 0.1, false}},
		"good\n":      {{"", 1, true}},
		"bad\nmore":   {{"\n", 1, false}},
		"bad\nmore\n": {{"", 1, true}},
	})
	end := func(g string) (engine.Outcome, error) {
		if g == "bad\n" {
			return engine.Infeasible, nil
		}
		return engine.Unknown, nil
	}
	for _, v := range []string{"prune", "full"} {
		r := run(t, service(&fakeModel{next: next}, &fakeEngine{end: end}, nil), request(variant(t, v, nil)))
		st := r.Stats
		if st.LineRedraws == 0 {
			t.Fatalf("%s: no line redrawn (stats %+v)", v, st)
		}
		if st.Truncated != 0 || st.Completed != st.Samples {
			t.Errorf("%s: %d of %d samples completed, %d truncated; want all completed", v, st.Completed, st.Samples, st.Truncated)
		}
		var good *Patch
		for i, p := range r.Candidates {
			if p.Hunk == "good\n" {
				good = &r.Candidates[i]
			}
		}
		if good == nil {
			t.Fatalf("%s: no candidate good (got %q)", v, hunks(r.Candidates))
		}
		if want := math.Log(0.5); math.Abs(good.LogProb-want) > 1e-9 {
			t.Errorf("%s: LogProb of good = %g, want %g (the redrawn line's tokens not counted)", v, good.LogProb, want)
		}
		// 20 samples, each redraws "bad" with probability 0.45 per try: the
		// continuation after a pruned end (0.1 of the draws there) is rare.
		if n := st.Completed - good.Count; n > 6 {
			t.Errorf("%s: %d samples wrote on after the pruned end, want few", v, n)
		}
	}
	// Base never prunes: the end after "bad" is taken.
	r := run(t, service(&fakeModel{next: next}, &fakeEngine{end: end}, nil), request(variant(t, "base", nil)))
	if r.Stats.LineRedraws != 0 || !contains(hunks(r.Candidates), "bad\n") {
		t.Errorf("base: redraws %d, candidates %q; want none and bad among them", r.Stats.LineRedraws, hunks(r.Candidates))
	}

	// A model whose every line ends where the file cannot parse: the sample
	// redraws until the token budget, and is counted as truncated (the end
	// was pruned).
	always := table(map[string][]tok{"": {{"bad\n", 1, false}}, "bad\n": {{"", 1, true}}})
	r = run(t, service(&fakeModel{next: always}, &fakeEngine{end: end}, nil), request(variant(t, "full", func(o *Options) { o.Samples = 2 })))
	budget := DefaultOptions().TokenBudget("    int x = 1;\n") // line 3 of javaFile
	if st := r.Stats; st.Truncated != 2 || st.TruncEndPruned != 2 || st.Tokens != int64(2*budget) {
		t.Errorf("always bad: truncated %d (end pruned %d), tokens %d; want 2, 2, %d", st.Truncated, st.TruncEndPruned, st.Tokens, 2*budget)
	}
}

// TestLineMarksBack: back drops the last line, to the last token boundary
// at or before its start, and forgets the marks after it.
func TestLineMarksBack(t *testing.T) {
	m := lineMarks{0: 0, 4: -1, 6: -2, 9: -3}
	// "ab;\n" (4) "cd" (6) "e;\n" (9): the last line starts at 4.
	g, lp := m.back("ab;\ncde;\n")
	if g != "ab;\n" || lp != -1 {
		t.Fatalf("back = %q, %g; want \"ab;\\n\", -1", g, lp)
	}
	if _, ok := m[6]; ok {
		t.Fatal("mark 6 kept after going back to 4")
	}
	// A line break inside a token ("b;\n  c" as one token): back to the
	// boundary before it.
	m = lineMarks{0: 0, 1: -1, 7: -2}
	if g, lp := m.back("ab;\n  c\n"); g != "a" || lp != -1 {
		t.Fatalf("back = %q, %g; want \"a\", -1", g, lp)
	}
	// One line: back to the start.
	m = lineMarks{0: 0, 2: -1}
	if g, lp := m.back("x;\n"); g != "" || lp != 0 {
		t.Fatalf("back = %q, %g; want \"\", 0", g, lp)
	}
}

// TestRedrawGoesBackALine: when the end is pruned again after the line
// drawn again (the redraw went back to the same text twice), the sample
// drops one more line: an error in an earlier line is not repaired by
// drawing the last one again. Here every text after "bad\n" ends where the
// file cannot parse; a sample that only redrew its last line would run to
// its budget whenever it drew "bad\n" first (half of them).
func TestRedrawGoesBackALine(t *testing.T) {
	next := table(map[string][]tok{
		"":         {{"bad\n", 0.5, false}, {"good\n", 0.5, false}},
		"bad\n":    {{"x\n", 1, false}},
		"bad\nx\n": {{"", 1, true}},
		"good\n":   {{"", 1, true}},
	})
	end := func(g string) (engine.Outcome, error) {
		if strings.HasPrefix(g, "bad\n") {
			return engine.Infeasible, nil
		}
		return engine.Unknown, nil
	}
	r := run(t, service(&fakeModel{next: next}, &fakeEngine{end: end}, nil), request(variant(t, "full", nil)))
	st := r.Stats
	if st.LineRedraws == 0 {
		t.Fatalf("no line redrawn (stats %+v)", st)
	}
	if st.Truncated > 1 || !contains(hunks(r.Candidates), "good\n") {
		t.Errorf("%d of %d samples truncated, candidates %q; want at most 1 and good among them", st.Truncated, st.Samples,
			hunks(r.Candidates))
	}
}

// TestLineMarksRedraw: redraw goes back one line, and one more when it
// comes back to the text it went back to last.
func TestLineMarksRedraw(t *testing.T) {
	m := lineMarks{0: 0, 4: -1, 9: -2}
	last := "\x00"
	if g, _ := m.redraw("ab;\ncde;\n", &last); g != "ab;\n" {
		t.Fatalf("first redraw = %q, want \"ab;\\n\"", g)
	}
	m[9] = -3 // the line drawn again, to the same length
	if g, lp := m.redraw("ab;\nfgh;\n", &last); g != "" || lp != 0 {
		t.Fatalf("second redraw = %q, %g; want \"\", 0", g, lp)
	}
	m[4] = -1
	if g, _ := m.redraw("ab;\n", &last); g != "" {
		t.Fatalf("redraw of the only line = %q, want \"\"", g)
	}
}
