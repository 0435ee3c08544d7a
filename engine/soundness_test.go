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
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/internal/forcetok"
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
