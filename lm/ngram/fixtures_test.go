// A quality check on the repository's bug fixtures (testdata/bugs, format of
// shared/bug-corpus.md): force-decode each developer fix through Next and
// count how often each of its tokens is among the candidates the repair loop
// asks for.

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
	rendered      string  // the text Next's candidates laid out
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
	var total, inTop, exact int
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
		f := forceDecode(t, m, fim, fx.FixedHunk, k)
		total += f.tokens
		inTop += f.inTop
		if f.inTop == f.tokens && f.rendered == fx.FixedHunk {
			exact++
		}
		t.Logf("%-28s %2d/%2d fix tokens in top %d, log-prob of those %.1f (%.2f/token)", fx.ID, f.inTop, f.tokens, k, f.logProb, f.logProb/math.Max(1, float64(f.inTop)))
	}
	t.Logf("%d/%d fix tokens in the top %d; %d/%d fixes reproduced exactly (layout included)", inTop, total, k, exact, len(files))
	if inTop*10 < total*7 {
		t.Errorf("only %d of %d fix tokens among the top %d candidates", inTop, total, k)
	}
}
