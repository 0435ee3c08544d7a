package engine

// soundness_test.go forces every bug fixture's developer fix (testdata/bugs,
// docs/bug-corpus.md) through the engine token by token and requires that
// no token of it is pruned: a strict engine never calls a feasible token
// infeasible (Repilot Definition 3.4). Tokens are javalex tokens with the
// whitespace before each attached to it, and, separately, 3-byte chunks that
// cut identifiers anywhere (as a language model's tokens do), as
// internal/forcetok splits them for bench engine too. Where Complete knows
// the names at a caret inside an identifier, the fix's identifier must be
// among them (forceFix in corpus_test.go).
//
// The engine must engage on every fixture: in each token split of a fix
// with tokens, at least one decision is proven feasible (a strict check), so
// that no fixture passes by the engine answering Unknown throughout (a
// project JDT LS did not import, say). A fix with no token (a deletion)
// forces nothing; its end token is TestEndSoundOnBugCorpus's.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/corpus"
	"github.com/repilot-lsp/repilot-lsp/internal/forcetok"
	"github.com/repilot-lsp/repilot-lsp/javalex"
	"github.com/repilot-lsp/repilot-lsp/jdtls"
)

func TestSoundnessOnBugCorpus(t *testing.T) {
	// One JDT LS for all fixtures, shared with the subword test: each
	// project copy is a workspace folder.
	eng, bugs, roots := corpusJDT(t)
	t.Logf("JDT LS for %d projects ready in %v", len(bugs), corpusEngine.took.Round(time.Millisecond))
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()

	var total Stats
	var sum forced
	for i, b := range bugs {
		s := openFixture(ctx, t, eng, b, roots[i])
		bugFeasible := 0
		for _, split := range []struct {
			name string
			toks []string
		}{{"javalex", forcetok.LexTokens(b.FixedHunk)}, {"3-byte", forcetok.Chunks(b.FixedHunk, 3)}} {
			n := forceFix(ctx, t, s, b, split.name, split.toks)
			if len(split.toks) > 0 && n.feasible == 0 {
				t.Errorf("%s (%s tokens): none of %d decisions proven feasible: the engine did not engage on this fixture", b.ID, split.name, n.checks)
			}
			bugFeasible += n.feasible
			sum.checks += n.checks
			sum.feasible += n.feasible
			sum.unknown += n.unknown
		}
		st := s.Stats()
		t.Logf("%-28s %s feasible=%d", b.ID, describe(st), bugFeasible)
		addStats(&total, st)
		s.Close()
	}
	t.Logf("corpus: %d fixtures, %s; %d of %d decisions proven feasible, none pruned",
		len(bugs), describe(total), sum.feasible, sum.checks)
	t.Logf("corpus: %d decisions strict (proven feasible), %d unknown, 0 pruned", sum.checks-sum.unknown, sum.unknown)
	if sum.feasible == 0 {
		t.Error("no decision was proven feasible: the engine never engaged")
	}
}

// TestSoundnessMidStatement forces the rest of each fixture's fix from
// carets inside its statements (as ghost text asks: the prefix ends
// mid-statement), javalex tokens and 3-byte chunks, and requires that no
// token is pruned. There the names are judged from the scope list at the
// statement's start and the project's type index (simple.go, scopeAt and
// localNames); the test fails unless some session judged names that way.
func TestSoundnessMidStatement(t *testing.T) {
	eng, bugs, roots := corpusJDT(t)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	var sum forced
	local := 0
	for i, b := range bugs {
		path := filepath.Join(roots[i], filepath.FromSlash(b.File))
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		prefix, buggy, suffix, err := corpus.Split(string(data), b.StartLine, b.EndLine)
		if err != nil {
			t.Fatalf("%s: %v", b.ID, err)
		}
		for _, k := range midCarets(prefix, b.FixedHunk, 3) {
			s, err := eng.Open(ctx, Hunk{URI: jdtls.FileURI(path), Prefix: prefix + b.FixedHunk[:k], Buggy: buggy, Suffix: suffix})
			if err != nil {
				t.Fatal(err)
			}
			rest := b
			rest.FixedHunk = b.FixedHunk[k:]
			for _, split := range []struct {
				name string
				toks []string
			}{{"javalex", forcetok.LexTokens(rest.FixedHunk)}, {"3-byte", forcetok.Chunks(rest.FixedHunk, 3)}} {
				n := forceFix(ctx, t, s, rest, fmt.Sprintf("%s, caret %d", split.name, k), split.toks)
				sum.checks += n.checks
				sum.feasible += n.feasible
				sum.unknown += n.unknown
			}
			if js := s.(*jdtSession); js.scopeAt >= 0 && js.scopeAt < len(js.h.Prefix) && js.scope != nil && js.scope.ScopeComplete && js.index != nil {
				local++
			}
			s.Close()
		}
	}
	t.Logf("mid-statement carets: %d decisions, %d proven feasible, %d unknown, none pruned; %d sessions judged names from the statement start's scope list and the type index",
		sum.checks, sum.feasible, sum.unknown, local)
	if local == 0 {
		t.Error("no mid-statement session judged names from the statement start's scope list and the type index")
	}
}

// midCarets returns up to n offsets in fix (evenly spread over its javalex
// tokens) where prefix+fix[:k] ends inside a statement: after a token that
// is not ";", "{" or "}".
func midCarets(prefix, fix string, n int) []int {
	var cand []int
	for _, tk := range javalex.Lex(fix) {
		if tk.Kind == javalex.LineComment || tk.Kind == javalex.BlockComment || tk.End >= len(strings.TrimRight(fix, " \t\r\n")) {
			continue
		}
		switch tk.Text {
		case ";", "{", "}":
			continue
		}
		if statementStart(newLexWindow(prefix+fix[:tk.End])) == len(prefix)+tk.End {
			continue
		}
		cand = append(cand, tk.End)
	}
	if len(cand) <= n {
		return cand
	}
	out := make([]int, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, cand[(2*i+1)*len(cand)/(2*n)])
	}
	return out
}
