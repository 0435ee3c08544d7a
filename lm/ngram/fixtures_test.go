// A quality check on the repository's bug fixtures (testdata/bugs, format of
// docs/bug-corpus.md): force-decode each developer fix through Next, with
// and without the buggy hunk shown (FIM.Buggy), and count how often each of
// its tokens is among the candidates the repair loop asks for. The fix is
// read only here, to score the model; the model never sees it.

package ngram

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/lm"
)

type fixture struct {
	ID        string `json:"id"`
	File      string `json:"file"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	FixedHunk string `json:"fixed_hunk"`
}

// forced is the outcome of force-decoding one fix.
type forced struct {
	tokens, inTop int     // fix tokens (end included), and those among the top k
	logProb       float64 // sum over the tokens found
	exactLogProb  float64 // log-probability of the whole fix (all its tokens, top k or not)
	rendered      string  // the text Next's candidates laid out
}

// tokenProb is the probability Next gives token text tok (or the end of
// the middle) after generated, whether or not it is among the top k.
func tokenProb(s *session, generated, tok string, end bool) float64 {
	st := s.analyse(generated)
	d := s.prepare(st, generated)
	var p float64
	var isNext bool
	next := uint32(endID)
	if s.cp != nil && d.exact >= 0 && d.exact < len(s.cp.ids) {
		next = s.cp.ids[d.exact]
	}
	if end {
		p, isNext = d.endP(), next == endID
	} else {
		r := uint32(idNewline)
		if tok != newlineText {
			toks := lexStream(tok)
			if len(toks) != 1 {
				return 0
			}
			if r = s.raw(toks[0]); r == noRaw {
				return 0
			}
		}
		p, isNext = s.probOf(&d, r), next == r
	}
	if s.cp != nil {
		p = s.cp.applyExclusion(d.exact, p, isNext)
	}
	return p
}

// forceDecode feeds the fix's tokens one by one, taking Next's candidate
// for each when it is among the top k (its text then carries the layout),
// and the bare token otherwise.
func forceDecode(t *testing.T, m *Model, fim lm.FIM, fix string, k int) forced {
	sess, err := m.Start(context.Background(), fim)
	if err != nil {
		t.Fatal(err)
	}
	var f forced
	gen := ""
	toks := streamTexts(fix)
	for i := 0; i <= len(toks); i++ {
		c, err := sess.Next(context.Background(), gen, k)
		if err != nil {
			t.Fatal(err)
		}
		f.tokens++
		if i < len(toks) {
			f.exactLogProb += math.Log(tokenProb(sess.(*session), gen, toks[i], false))
		} else {
			f.exactLogProb += math.Log(tokenProb(sess.(*session), gen, "", true))
		}
		found := false
		for _, x := range c {
			if i == len(toks) && x.End || i < len(toks) && !x.End && strings.TrimLeft(x.Text, " \t") == toks[i] {
				f.inTop++
				f.logProb += x.LogProb
				gen += x.Text
				found = true
				break
			}
		}
		if !found && i < len(toks) {
			if toks[i] == newlineText {
				gen += "\n"
			} else {
				gen += " " + toks[i]
			}
		}
	}
	f.rendered = gen
	return f
}

func TestBugFixtures(t *testing.T) {
	m := jdkModel(t)
	files, _ := filepath.Glob("../../testdata/bugs/*/bug.json")
	if len(files) == 0 {
		t.Skip("no fixtures in testdata/bugs")
	}
	const k = 20 // the repair loop's default TopK
	var total, inTop, exact, inTop0, exact0, both int
	var lp, lp0 float64
	for _, bj := range files {
		var fx fixture
		b, err := os.ReadFile(bj)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &fx); err != nil {
			t.Fatalf("%s: %v", bj, err)
		}
		src, err := os.ReadFile(filepath.Join(filepath.Dir(bj), "project", fx.File))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitAfter(string(src), "\n")
		if fx.StartLine < 1 || fx.EndLine > len(lines) || fx.EndLine < fx.StartLine-1 {
			t.Fatalf("%s: bad line range", fx.ID)
		}
		first := ""
		if fx.StartLine <= len(lines) {
			first = lines[fx.StartLine-1]
		}
		fim := lm.FIM{
			Prefix: strings.Join(lines[:fx.StartLine-1], ""),
			Suffix: strings.Join(lines[fx.EndLine:], ""),
			Indent: first[:len(first)-len(strings.TrimLeft(first, " \t"))],
		}
		// Without and with the buggy hunk shown (the repair loop shows it).
		f0 := forceDecode(t, m, fim, fx.FixedHunk, k)
		fim.Buggy = strings.Join(lines[fx.StartLine-1:fx.EndLine], "")
		f := forceDecode(t, m, fim, fx.FixedHunk, k)
		total += f.tokens
		inTop += f.inTop
		inTop0 += f0.inTop
		if f.inTop == f.tokens && f.rendered == fx.FixedHunk {
			exact++
		}
		if f0.inTop == f0.tokens && f0.rendered == fx.FixedHunk {
			exact0++
		}
		if !math.IsInf(f.exactLogProb, 0) && !math.IsInf(f0.exactLogProb, 0) {
			both++
			lp += f.exactLogProb
			lp0 += f0.exactLogProb
		}
		t.Logf("%-28s %2d/%2d fix tokens in top %d, log-prob of the fix %6.1f (without the buggy hunk: %2d, %6.1f)",
			fx.ID, f.inTop, f.tokens, k, f.exactLogProb, f0.inTop, f0.exactLogProb)
	}
	t.Logf("with the buggy hunk: %d/%d fix tokens in the top %d; %d/%d fixes reproduced exactly (layout included)", inTop, total, k, exact, len(files))
	t.Logf("without: %d/%d fix tokens, %d/%d fixes; log-prob of the %d fixes the model can write: %.1f with, %.1f without",
		inTop0, total, exact0, len(files), both, lp, lp0)
	if inTop*10 < total*9 {
		t.Errorf("only %d of %d fix tokens among the top %d candidates", inTop, total, k)
	}
	if inTop0*10 < total*7 {
		t.Errorf("without the buggy hunk, only %d of %d fix tokens among the top %d candidates", inTop0, total, k)
	}
	// Most fixes are small edits of the buggy hunk: showing it must make
	// them far more likely (by e^(5 per fix) on average).
	if both == 0 || lp < lp0+5*float64(both) {
		t.Errorf("showing the buggy hunk did not raise the fixes' log-probability enough: %.1f with, %.1f without (%d fixes)", lp, lp0, both)
	}
}
