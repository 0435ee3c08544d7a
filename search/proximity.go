package search

import (
	"sort"

	"github.com/repilot-lsp/repilot-lsp/search/lexical"
	"github.com/repilot-lsp/repilot-lsp/search/tokenize"
	"github.com/repilot-lsp/repilot-lsp/search/units"
)

// ProximityDepth is how many of the lexical stream's first hits the
// proximity boost (Tuning.Proximity) rescores: with the default weight a
// hit can gain at most a fifth of its score, and on the tuning sets
// rescoring 30 or all 100 gave the same rankings (search/README.md,
// session 16).
const ProximityDepth = 30

// proximityWindow is the largest distance, in words, at which two query
// words count as a phrase in a unit: 1, adjacent words (stop words do not
// count) or parts of one identifier (tokenize.Analyzer.Each gives them one
// position: "stack trace" matches getStackTrace and "the stack trace of").
const proximityWindow = 1

// queryPairs returns, for each pair of neighbouring words of the query
// (stop words dropped), the terms each of the two words may be indexed as
// (its stem, a compound's whole, an abbreviation's expansion). A pair of
// words with a term in common is left out: it says nothing about order.
func queryPairs(an tokenize.Analyzer, query string) [][2][]string {
	var words [][]string
	last := -1
	an.Each(query, func(term string, pos int) {
		if pos != last {
			words = append(words, nil)
			last = pos
		}
		words[len(words)-1] = append(words[len(words)-1], term)
	})
	var pairs [][2][]string
	for i := 0; i+1 < len(words); i++ {
		if !shareTerm(words[i], words[i+1]) {
			pairs = append(pairs, [2][]string{words[i], words[i+1]})
		}
	}
	return pairs
}

func shareTerm(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}

// proximityText is the part of a unit the proximity boost reads: its name
// with its container, its signature and its whole doc comment. Not its
// code: with the code the boost lost questions on the Python tuning set.
// Nor only the doc's first 1,000 or 2,000 bytes, which would halve its
// cost (BenchmarkProximityBoost: 30 hits with 2 KB docs, about 5 ms): a
// class's long doc holds the phrase further down, and the Commons Lang
// tuning set lost a question at Success@5 (search/README.md, session 16).
func proximityText(u *units.Unit) string {
	return u.Name + " " + u.Container + "\n" + u.Signature + "\n" + u.Doc
}

// phraseShare returns the fraction of pairs (queryPairs) whose two words
// occur in text at most proximityWindow words apart, in either order; 0
// when there are no pairs.
func phraseShare(an tokenize.Analyzer, pairs [][2][]string, text string) float64 {
	if len(pairs) == 0 {
		return 0
	}
	want := map[string]bool{}
	for _, p := range pairs {
		for _, side := range p {
			for _, t := range side {
				want[t] = true
			}
		}
	}
	pos := map[string][]int{}
	an.Each(text, func(term string, p int) {
		if want[term] {
			pos[term] = append(pos[term], p)
		}
	})
	near := func(a, b []string) bool {
		for _, x := range a {
			for _, px := range pos[x] {
				for _, y := range b {
					for _, py := range pos[y] {
						if d := px - py; d <= proximityWindow && d >= -proximityWindow {
							return true
						}
					}
				}
			}
		}
		return false
	}
	n := 0
	for _, p := range pairs {
		if near(p[0], p[1]) {
			n++
		}
	}
	return float64(n) / float64(len(pairs))
}

// proximityBoost rescores the first ProximityDepth lexical hits: each
// score is multiplied by 1 + weight × the share of the query's neighbouring
// word pairs that the unit's name, signature and doc hold as a phrase
// (phraseShare), and the hits are sorted again (stable: ties keep BM25F's
// order). BM25F scores words one by one, so "the stack trace of a
// throwable" scores the same for a unit whose doc says "the stack trace
// from a Throwable" and one that has "stack", "trace" and "throwable" in
// separate sentences; the phrase is evidence that the unit is about what
// the question asks (term proximity: Tao and Zhai, "An Exploration of
// Proximity Measures in Information Retrieval", SIGIR 2007, whose
// minimum-distance measure this is, per pair of neighbouring query words).
// The hits are not modified; weight <= 0 returns them as they are.
func proximityBoost(an tokenize.Analyzer, query string, hs []lexical.Hit, weight float64, unit func(id string) (units.Unit, bool)) []lexical.Hit {
	if weight <= 0 || len(hs) < 2 {
		return hs
	}
	pairs := queryPairs(an, query)
	if len(pairs) == 0 {
		return hs
	}
	n := min(len(hs), ProximityDepth)
	out := make([]lexical.Hit, len(hs))
	copy(out, hs)
	for i := range n {
		u, ok := unit(out[i].ID)
		if !ok {
			continue
		}
		out[i].Score *= 1 + weight*phraseShare(an, pairs, proximityText(&u))
	}
	sort.SliceStable(out[:n], func(i, j int) bool { return out[i].Score > out[j].Score })
	return out
}
