package engine

// situations_test.go runs the situation fixtures (testdata/project/src/demo/
// Sit*.java) against a real JDT LS: places where JDT LS's own completion is
// known to be unreliable (lambda parameters of inferred type, method
// references in call chains, anonymous classes, a compile error earlier in
// the statement, pattern variables) and simple names that are declarations,
// labels or lambda parameters. Each "/*^*/" marks a caret; the rest of its
// line is the true continuation, and no token of it may be pruned. The test
// also logs what JDT LS's answer alone (without the engine's
// unreliable-receiver rule) would have said at the caret.

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/internal/forcetok"
	"github.com/repilot-lsp/repilot-lsp/jdtls"
)

const caretMark = "/*^*/"

func TestSituationsNeverPruned(t *testing.T) {
	eng, root := sharedJDT(t)
	files, err := filepath.Glob(filepath.Join(root, "src", "demo", "Sit*.java"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no situation fixtures under %s: %v", root, err)
	}
	carets, rawPruned := 0, 0
	for _, path := range files {
		// One fixture file per subtest, each with its own time (ctxT).
		t.Run(filepath.Base(path), func(t *testing.T) {
			c, r := situationFile(t, eng, path)
			carets += c
			rawPruned += r
		})
	}
	t.Logf("situations: %d carets in %d files; JDT LS's answer alone would have pruned the true token at %d", carets, len(files), rawPruned)
}

// situationFile forces the true continuation at each caret of one fixture
// file through eng and returns the number of carets and of those where
// JDT LS's answer alone would have pruned the true first token.
func situationFile(t *testing.T, eng *JDT, path string) (carets, rawPruned int) {
	ctx := ctxT(t)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	for li, line := range lines {
		if !strings.Contains(line, caretMark) {
			continue
		}
		prefix := strings.ReplaceAll(strings.Join(lines[:li], ""), caretMark, "")
		suffix := strings.ReplaceAll(strings.Join(lines[li+1:], ""), caretMark, "")
		clean := strings.ReplaceAll(line, caretMark, "")
		h := Hunk{URI: jdtls.FileURI(path), Prefix: prefix, Suffix: suffix}
		s, err := eng.Open(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		// Each marker: its offset in the clean line.
		off, rest := 0, line
		for {
			i := strings.Index(rest, caretMark)
			if i < 0 {
				break
			}
			off += i
			rest = rest[i+len(caretMark):]
			carets++
			gen0, cont := clean[:off], clean[off:]
			where := filepath.Base(path) + ":" + strconv.Itoa(li+1) + " at " + strings.TrimSpace(gen0) + "|"
			first := ""
			for _, split := range [][]string{forcetok.LexTokens(cont), forcetok.Chunks(cont, 3)} {
				gen := gen0
				for k, tok := range split {
					if k == 0 && first == "" {
						first = tok
					}
					out, err := s.Check(ctx, gen, tok)
					if err != nil {
						t.Fatalf("%s: Check(%q, %q): %v", where, gen, tok, err)
					}
					if out == Infeasible {
						t.Errorf("%s: the true continuation's token %q after %q was pruned", where, tok, gen)
					}
					gen += tok
				}
			}
			got, _ := s.Check(ctx, gen0, first)
			trustEveryReceiver = true
			raw, err := s.Check(ctx, gen0, first)
			trustEveryReceiver = false
			if err != nil {
				t.Fatal(err)
			}
			if raw == Infeasible {
				rawPruned++
			}
			t.Logf("%-60s first token %-12q engine=%-10v JDT LS alone=%v", where, first, got, raw)
		}
		s.Close()
	}
	return carets, rawPruned
}
