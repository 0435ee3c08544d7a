// This file defines the workspace component: counts of the identifiers of
// the whole workspace, so that names declared or used in other files of the
// project (a record's accessor, a helper class's method) are proposed where
// an identifier is likely, after '.' above all.

package ngram

import (
	"cmp"
	"slices"
)

// Workspace component. The file cache (cache.go) models the localness of
// one file; a project has a second, wider scope of its own names, which the
// n-gram model knows only as counts drowned among the JDK's (". percentOff"
// seen twice against ". get" seen tens of thousands of times). Hellendoorn
// and Devanbu ("Are deep neural networks the best choice for modeling source
// code?", FSE 2017) nest such scoped caches (file, then project) over an
// n-gram model. Here the project scope is a kind cache over the workspace's
// identifiers, built at training time:
//
//	P_ws(w | h) = P_KN(Ident | h)·P_proj(w | p),
//	P_proj(w | p) = μ·c(p w)/c(p •) + (1-μ)·c(w)/c(•),  μ = c(p •)/(c(p •)+cacheKappa),
//
// with counts over the workspace's identifier tokens, p the token before
// (by model id). After p = "." the first term is the project's member-name
// distribution: the names it accesses as members, and the names it declares
// (counted once more as if after '.', see declaresAfter), so that a record
// component or a method never yet called from another file is proposed. Other kinds keep P_KN(w |
// h) in this part. Its weight grows with the project's evidence about the
// position, as the file cache's context part does:
//
//	b(h) = wsWeight·c(p •)/(c(p •) + wsKappa),
//
// so after '.', where a project writes its own names hundreds of times, the
// project's members get about wsWeight of the mass, and after a token the
// project rarely follows with an identifier, little. With a completion
// engine pruning infeasible names, what matters is that the project's
// feasible members are among the top candidates at all; the engine then
// removes the rest (Repilot's division of labour).
const (
	wsWeight = 0.3
	wsKappa  = 20.0
)

// identStats counts the workspace's identifier tokens by model id.
type identStats struct {
	total  float64
	count  map[uint32]uint32
	bigram map[uint64]uint32 // prev<<32 | w
	left   map[uint32]uint32 // c(prev •Ident)
	// Set by finish.
	followers map[uint32][]uint32 // identifiers seen after prev, ascending
	byCount   []uint32            // identifiers, most frequent first (ties: id)
	uniFrom   []float64           // uniFrom[i] = max of P1 over byCount[i:]
}

func newIdentStats() *identStats {
	return &identStats{count: map[uint32]uint32{}, bigram: map[uint64]uint32{}, left: map[uint32]uint32{}}
}

// add counts identifier w after the token prev (noRaw: none).
func (s *identStats) add(prev, w uint32) {
	s.total++
	s.count[w]++
	if prev != noRaw {
		s.bigram[uint64(prev)<<32|uint64(w)]++
		s.left[prev]++
	}
}

// finish builds the iteration orders; uni is the model's unigram
// distribution (for the search bounds of Next).
func (s *identStats) finish(uni []float64) *identStats {
	s.followers = map[uint32][]uint32{}
	for k := range s.bigram {
		p := uint32(k >> 32)
		s.followers[p] = append(s.followers[p], uint32(k))
	}
	for _, f := range s.followers {
		slices.Sort(f)
	}
	for w := range s.count {
		s.byCount = append(s.byCount, w)
	}
	slices.SortFunc(s.byCount, func(a, b uint32) int {
		if c := cmp.Compare(s.count[b], s.count[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	s.uniFrom = make([]float64, len(s.byCount))
	best := 0.0
	for i := len(s.byCount) - 1; i >= 0; i-- {
		best = max(best, uni[s.byCount[i]])
		s.uniFrom[i] = best
	}
	return s
}

// empty reports whether the workspace had no identifiers.
func (s *identStats) empty() bool { return s == nil || s.total == 0 }

// mu is the weight of the bigram term after prev.
func (s *identStats) mu(prev uint32) (mu, left float64) {
	if prev == noRaw {
		return 0, 0
	}
	left = float64(s.left[prev])
	return left / (left + cacheKappa), left
}

// prob is P_proj(w | prev) for an identifier w (0 for one the workspace
// lacks).
func (s *identStats) prob(prev, w uint32) float64 {
	if s.empty() {
		return 0
	}
	p := 0.0
	mu, left := s.mu(prev)
	if mu > 0 {
		p = mu * float64(s.bigram[uint64(prev)<<32|uint64(w)]) / left
	}
	return p + (1-mu)*float64(s.count[w])/s.total
}

// weight is b(h), the workspace part's weight after the token prev.
func (s *identStats) weight(prev uint32) float64 {
	if s.empty() || prev == noRaw {
		return 0
	}
	left := float64(s.left[prev])
	return wsWeight * left / (left + wsKappa)
}
