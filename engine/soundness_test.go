package engine

// soundness_test.go forces every bug fixture's developer fix (testdata/bugs,
// shared/bug-corpus.md) through the engine token by token and requires that
// no token of it is pruned: a strict engine never calls a feasible token
// infeasible (Repilot Definition 3.4). Tokens are javalex tokens with the
// whitespace before each attached to it, and, separately, 3-byte chunks that
// cut identifiers anywhere (as a language model's tokens do). Where Complete
// knows the names at a caret inside an identifier, the fix's identifier must
// be among them (Algorithm 3 must not complete towards a wrong name).

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/corpus"
	"github.com/repilot-lsp/repilot-lsp/javalex"
	"github.com/repilot-lsp/repilot-lsp/jdtls"
)

const corpusDir = "../testdata/bugs"

// lexTokens splits s into javalex tokens, each carrying the whitespace before
// it; trailing whitespace is a last token of its own.
func lexTokens(s string) []string {
	var out []string
	prev := 0
	for _, t := range javalex.Lex(s) {
		out = append(out, s[prev:t.End])
		prev = t.End
	}
	if prev < len(s) {
		out = append(out, s[prev:])
	}
	return out
}

// chunks splits s into n-byte pieces (on rune boundaries).
func chunks(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		k := min(n, len(s))
		for k < len(s) && !utf8RuneStart(s[k]) {
			k++
		}
		out = append(out, s[:k])
		s = s[k:]
	}
	return out
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// wordAt returns the identifier of s that contains (or starts at) offset i.
func wordAt(s string, i int) string {
	j := i
	for j < len(s) && isWordByte(s[j]) {
		j++
	}
	k := i
	for k > 0 && isWordByte(s[k-1]) {
		k--
	}
	return s[k:j]
}

func isWordByte(b byte) bool {
	return b == '_' || b == '$' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
}

func TestSoundnessOnBugCorpus(t *testing.T) {
	bugs, err := corpus.Load(corpusDir)
	if err != nil {
		t.Fatalf("loading the bug corpus: %v", err)
	}
	home := jdtHome(t)
	// One JDT LS for all fixtures: each project copy is a workspace folder.
	base := t.TempDir()
	var roots []string
	for _, b := range bugs {
		dst := filepath.Join(base, b.ID)
		if err := os.CopyFS(dst, os.DirFS(b.ProjectDir())); err != nil {
			t.Fatal(err)
		}
		roots = append(roots, dst)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	began := time.Now()
	eng, err := StartJDT(ctx, jdtls.Options{Home: home, Root: roots[0], Folders: roots[1:], StateDir: t.TempDir(),
		Stderr: os.Stderr, Settings: map[string]any{"java.import.maven.offline.enabled": true}},
		WithRequestTimeout(2*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	t.Logf("JDT LS for %d projects ready in %v", len(bugs), time.Since(began).Round(time.Millisecond))

	var total Stats
	var feasible, decisions, unknown int
	for i, b := range bugs {
		path := filepath.Join(roots[i], filepath.FromSlash(b.File))
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines := corpus.SplitLines(string(data))
		h := Hunk{URI: jdtls.FileURI(path),
			Prefix: strings.Join(lines[:b.StartLine-1], ""),
			Suffix: strings.Join(lines[b.EndLine:], "")}
		s, err := eng.Open(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		bugFeasible := 0
		for _, split := range []struct {
			name string
			toks []string
		}{{"javalex", lexTokens(b.FixedHunk)}, {"3-byte", chunks(b.FixedHunk, 3)}} {
			gen := ""
			for _, tok := range split.toks {
				out, err := s.Check(ctx, gen, tok)
				if err != nil {
					t.Fatalf("%s: Check(%q, %q): %v", b.ID, gen, tok, err)
				}
				decisions++
				if out == Feasible {
					feasible++
					bugFeasible++
				}
				if out == Unknown {
					unknown++
				}
				if out == Infeasible {
					t.Errorf("%s (%s tokens): the fix's token %q after %q was pruned", b.ID, split.name, tok, gen)
				}
				gen += tok
				if word := wordAt(b.FixedHunk, len(gen)); word != "" {
					c, err := s.Complete(ctx, gen)
					if err != nil {
						t.Fatalf("%s: Complete(%q): %v", b.ID, gen, err)
					}
					if c.Known && !contains(c.Names, word) {
						t.Errorf("%s: Complete(%q) = %q, lacks the fix's %q", b.ID, gen, c.Names, word)
					}
				}
			}
		}
		st := s.Stats()
		t.Logf("%-28s %s feasible=%d", b.ID, describe(st), bugFeasible)
		total.Checks += st.Checks
		total.Requests += st.Requests
		total.Errors += st.Errors
		total.SiteHits += st.SiteHits
		s.Close()
	}
	t.Logf("corpus: %d fixtures, %s; %d of %d decisions proven feasible, none pruned",
		len(bugs), describe(total), feasible, decisions)
	t.Logf("corpus: %d decisions strict (proven feasible), %d unknown, 0 pruned", decisions-unknown, unknown)
	if feasible == 0 {
		t.Error("no decision was proven feasible: the engine never engaged")
	}
}
