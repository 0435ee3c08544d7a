package enginebench

// enginebench_test.go runs the benchmark against a real JDT LS on the
// repository's corpus (testdata/bugs): one JDT LS for the package, started on
// first use and stopped in TestMain. TestPruningPower asserts issue 3's
// targets (member-access mutants pruned >= 90%, no mutant pruned before its
// mutated identifier, no token of an unmutated "new" line pruned; the
// unmutated fixes themselves are engine's TestSoundnessOnBugCorpus's);
// BenchmarkDecision measures a decision with and without the site cache (no
// timed assertion anywhere).

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/corpus"
	"github.com/repilot-lsp/repilot-lsp/engine"
	"github.com/repilot-lsp/repilot-lsp/internal/realpart"
	"github.com/repilot-lsp/repilot-lsp/jdtls"
)

const corpusDir = "../../testdata/bugs"

var ws struct {
	once sync.Once
	w    *Workspace
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if ws.w != nil {
		ws.w.Close()
	}
	os.Exit(code)
}

// workspace returns the package's JDT LS over the corpus; it fails when JDT
// LS is missing (run scripts/install-jdtls.sh) unless REPILOT_SKIP_JDTLS=1.
func workspace(t testing.TB) *Workspace {
	t.Helper()
	home, err := jdtls.ResolveHome("")
	realpart.JDTLS.Require(t, err)
	ws.once.Do(func() {
		bugs, err := corpus.Load(corpusDir)
		if err != nil {
			ws.err = err
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		ws.w, ws.err = Start(ctx, bugs, home, os.Stderr)
	})
	if ws.err != nil {
		t.Fatalf("starting JDT LS on %s: %v", corpusDir, ws.err)
	}
	return ws.w
}

func TestPruningPower(t *testing.T) {
	w := workspace(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	rep, err := Run(ctx, w, Options{Seed: 1, SkipFixSoundness: true})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	rep.Print(&out, testing.Verbose())
	t.Logf("JDT LS %s\n%s", w.Engine.Client().Timings().Ready.Round(time.Millisecond), out.String())

	if rep.Soundness.Pruned > 0 {
		t.Errorf("%d tokens of unmutated \"new\" lines or ends of fixes and lines were pruned: %q", rep.Soundness.Pruned, rep.Soundness.PrunedAt)
	}
	if rep.Soundness.Hunks == 0 || rep.Soundness.Feasible == 0 {
		t.Errorf("no decision on the %d unmutated \"new\" lines was proven feasible: the engine never engaged", rep.Soundness.Hunks)
	}
	if rep.Soundness.Ends < rep.Fixtures {
		t.Errorf("%d hunk ends checked for %d fixes: each fix's end must be", rep.Soundness.Ends, rep.Fixtures)
	}
	for _, k := range rep.Kinds {
		if k.Early > 0 {
			t.Errorf("%s: %d mutants pruned before the mutated identifier (a token shared with the fix)", k.Kind, k.Early)
		}
	}
	m := rep.Member
	if m.Mutants < 20 {
		t.Errorf("only %d member-access mutants were confirmed: too few to measure", m.Mutants)
	}
	if m.Rate() < 0.9 {
		var kept []string
		for _, mr := range rep.Mutants {
			if mr.Kind.IsMember() && !mr.Pruned {
				kept = append(kept, mr.Bug+": "+mr.Orig+" -> "+mr.Repl)
			}
		}
		t.Errorf("member-access pruning %.1f%% (%d of %d) < 90%%; kept: %q", 100*m.Rate(), m.Pruned, m.Mutants, kept)
	}
}

// BenchmarkDecision forces every fix of the corpus (whole Java tokens and
// 3-byte chunks) through a fresh engine per iteration (its site cache
// starts empty, as at the start of a repair), with and without the site
// cache, and reports time per decision and JDT LS requests per token.
func BenchmarkDecision(b *testing.B) {
	w := workspace(b)
	ctx := context.Background()
	var fixtures []fixture
	for i, bug := range w.Bugs {
		f, err := loadFixture(bug, w.Roots[i], -1)
		if err != nil {
			b.Fatal(err)
		}
		fixtures = append(fixtures, f)
	}
	// Warm JDT LS up on every receiver once (its first answers pay for
	// indexing).
	if _, err := timeFixes(ctx, w, fixtures, "warm-up", nil); err != nil {
		b.Fatal(err)
	}
	for _, mode := range []struct {
		name string
		opts []engine.JDTOption
	}{{"cache", nil}, {"no-cache", []engine.JDTOption{engine.WithSiteCache(0)}}} {
		b.Run(mode.name, func(b *testing.B) {
			var decisions int
			var requests int64
			var med []time.Duration
			b.ResetTimer()
			for b.Loop() {
				sp, err := timeFixes(ctx, w, fixtures, mode.name, append(mode.opts, engine.WithRequestTimeout(2*time.Minute)))
				if err != nil {
					b.Fatal(err)
				}
				decisions += sp.Decisions
				requests += sp.Requests
				med = append(med, sp.Median)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(decisions), "ns/decision")
			b.ReportMetric(float64(Percentile(med, 0.5).Nanoseconds()), "median-ns/decision")
			b.ReportMetric(float64(requests)/float64(decisions), "requests/token")
		})
	}
}
