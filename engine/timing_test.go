package engine

// timing_test.go measures what an engine decision costs against a real JDT
// LS, with and without the per-site member-list cache, forcing a few lines
// through Check token by token. The numbers are logged (go test -v); the
// assertions only check that the cache saves requests.

import (
	"slices"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/internal/forcetok"
)

var timedLines = []string{
	ind + "names.add(g.getName().trim().toUpperCase());\n",
	ind + "System.out.println(g.greet() + s.length() + names.count());\n",
	ind + "String t = Greeter.of(s).getName().substring(1);\n",
}

// forceLines runs Check over every token of every line (javalex tokens, then
// 3-byte chunks) and returns each decision's duration, and separately those
// of decisions that consulted a member list (at a strict site).
func forceLines(t *testing.T, e *JDT, h Hunk) (all, site []time.Duration, _ Stats) {
	t.Helper()
	ctx := ctxT(t)
	s, err := e.Open(ctx, h)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, line := range timedLines {
		for _, toks := range [][]string{forcetok.LexTokens(line), forcetok.Chunks(line, 3)} {
			gen := ""
			for _, tok := range toks {
				before := s.Stats()
				began := time.Now()
				out, err := s.Check(ctx, gen, tok)
				d := time.Since(began)
				all = append(all, d)
				if after := s.Stats(); after.Requests+after.SiteHits+after.Errors > before.Requests+before.SiteHits+before.Errors {
					site = append(site, d)
				}
				if err != nil {
					t.Fatal(err)
				}
				if out == Infeasible {
					t.Fatalf("a token of a compilable line was pruned: %q after %q", tok, gen)
				}
				gen += tok
			}
		}
	}
	return all, site, s.Stats()
}

func percentile(d []time.Duration, p float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[int(p*float64(len(s)-1))]
}

func TestDecisionTimings(t *testing.T) {
	eng, root := sharedJDT(t)
	h, _ := hunkAt(t, root, "src/demo/Main.java", "names.add(g.getName());")
	// Warm JDT LS up on these receivers first (its first answers on a type
	// pay for indexing), with an engine of its own so the cache starts cold.
	forceLines(t, NewJDT(eng.Client()), h)

	cached, cachedSite, cst := forceLines(t, NewJDT(eng.Client()), h)
	uncached, uncachedSite, ust := forceLines(t, NewJDT(eng.Client(), WithSiteCache(0)), h)
	report := func(name string, all, site []time.Duration, st Stats) {
		t.Logf("%-14s %d decisions, median %v (p90 %v); %d at strict sites, median %v (p90 %v, max %v); %.2f JDT LS requests per check (%s)",
			name, len(all), percentile(all, 0.5).Round(time.Microsecond), percentile(all, 0.9).Round(time.Microsecond),
			len(site), percentile(site, 0.5).Round(time.Microsecond), percentile(site, 0.9).Round(time.Microsecond),
			percentile(site, 1).Round(time.Millisecond), float64(st.Requests)/float64(st.Checks), describe(st))
	}
	report("site cache", cached, cachedSite, cst)
	report("no site cache", uncached, uncachedSite, ust)
	if cst.Requests >= ust.Requests || cst.Checks != ust.Checks {
		t.Errorf("the cache saved no requests: %s vs %s", describe(cst), describe(ust))
	}
	tm := eng.Client().Timings()
	if tm.Completions > 0 {
		t.Logf("shadow JDT LS: spawn->ServiceReady %v; %d completions, mean %v, max %v",
			shared.took.Round(time.Millisecond), tm.Completions,
			(tm.CompletionTotal / time.Duration(tm.Completions)).Round(time.Millisecond), tm.CompletionMax.Round(time.Millisecond))
	}
}
