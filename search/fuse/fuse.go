// Package fuse combines the ranked lists of several retrieval streams into
// one ranking. RRF is reciprocal rank fusion (Cormack, Clarke and Büttcher,
// "Reciprocal Rank Fusion outperforms Condorcet and individual Rank Learning
// Methods", SIGIR 2009): score(d) = sum over lists i of w_i / (k + rank_i(d)),
// rank 1-based, k = 60 in the paper. RRF uses ranks only, so streams whose
// scores are on different scales (BM25, cosine) combine without calibration.
// Convex is the convex combination of min-max normalised scores that Bruch,
// Gai and Ingber ("An Analysis of Fusion Functions for Hybrid Retrieval",
// ACM TOIS 2023) found better than RRF for lexical + dense retrieval: it
// keeps how far apart a stream's scores are, which ranks throw away.
package fuse

import "sort"

// DefaultK is the RRF constant of Cormack et al. (2009).
const DefaultK = 60

// List is one stream's ranking: IDs best first, with the stream's weight
// (1 when unsure; 0 drops the list).
type List struct {
	Name   string
	Weight float64
	IDs    []string
	// Scores are the stream's scores of IDs (same length, non-increasing;
	// any scale). Convex needs them; RRF ignores them.
	Scores []float64
}

// Scored is a fused result.
type Scored struct {
	ID    string
	Score float64
	// Ranks gives the 1-based rank of the ID in each list that has it.
	Ranks map[string]int
}

// RRF fuses lists with constant k (k <= 0: DefaultK). The result holds every
// ID of every list with positive weight, best first; ties are broken by the
// best rank the ID has in any list, then by the order of the lists, then by
// ID, so the result is deterministic.
func RRF(lists []List, k float64) []Scored {
	if k <= 0 {
		k = DefaultK
	}
	return fuse(lists, func(li, r int) float64 { return lists[li].Weight / (k + float64(r+1)) })
}

// Convex fuses lists by the weighted sum of their min-max normalised
// scores: score(d) = sum over lists i of w_i * (s_i(d) - min_i) / (max_i -
// min_i), min and max over the list's own scores (what it returned: its
// top Depth), and 0 for a list that does not hold d. A list whose scores
// are all equal counts 1 for each of its IDs. With two lists of weights
// 1 - a and a, this is Bruch et al.'s convex combination with parameter a.
// A list without Scores (or with fewer than its IDs) is an error of the
// caller and panics. The result and its tie-breaking are RRF's.
func Convex(lists []List) []Scored {
	norm := make([]struct{ lo, span float64 }, len(lists))
	for i, l := range lists {
		if len(l.Scores) < len(l.IDs) {
			panic("fuse.Convex: list " + l.Name + " has fewer scores than IDs")
		}
		if len(l.IDs) == 0 {
			continue
		}
		lo, hi := l.Scores[0], l.Scores[0]
		for _, x := range l.Scores[:len(l.IDs)] {
			lo, hi = min(lo, x), max(hi, x)
		}
		norm[i].lo, norm[i].span = lo, hi-lo
	}
	return fuse(lists, func(li, r int) float64 {
		l, n := lists[li], norm[li]
		if n.span <= 0 {
			return l.Weight
		}
		return l.Weight * (l.Scores[r] - n.lo) / n.span
	})
}

// Grouped returns l ranked by groups instead of IDs: each ID replaced by
// key(ID), a group listed once, at the rank of its first (best) member,
// with that member's score. Fusing grouped lists ranks groups by the best
// rank each stream gives any of their members, so two members that are
// each first in one stream make a group that is first in both (the units
// a search shows as one hit, such as an overload set). l itself is not
// changed.
func Grouped(l List, key func(id string) string) List {
	out := List{Name: l.Name, Weight: l.Weight, IDs: make([]string, 0, len(l.IDs))}
	if l.Scores != nil {
		out.Scores = make([]float64, 0, len(l.IDs))
	}
	seen := make(map[string]bool, len(l.IDs))
	for i, id := range l.IDs {
		k := key(id)
		if seen[k] {
			continue
		}
		seen[k] = true
		out.IDs = append(out.IDs, k)
		if l.Scores != nil && i < len(l.Scores) {
			out.Scores = append(out.Scores, l.Scores[i])
		}
	}
	return out
}

// fuse adds up score(list index, 0-based rank) over the lists with
// positive weight and sorts the result.
func fuse(lists []List, score func(li, r int) float64) []Scored {
	type acc struct {
		s        Scored
		bestRank int
		firstIn  int
	}
	byID := map[string]*acc{}
	var order []*acc
	for li, l := range lists {
		if l.Weight <= 0 {
			continue
		}
		for r, id := range l.IDs {
			rank := r + 1
			a := byID[id]
			if a == nil {
				a = &acc{s: Scored{ID: id, Ranks: map[string]int{}}, bestRank: rank, firstIn: li}
				byID[id] = a
				order = append(order, a)
			}
			if _, dup := a.s.Ranks[l.Name]; dup {
				continue // an ID listed twice in one list counts once
			}
			a.s.Ranks[l.Name] = rank
			a.s.Score += score(li, r)
			if rank < a.bestRank {
				a.bestRank = rank
			}
		}
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if a.s.Score != b.s.Score {
			return a.s.Score > b.s.Score
		}
		if a.bestRank != b.bestRank {
			return a.bestRank < b.bestRank
		}
		if a.firstIn != b.firstIn {
			return a.firstIn < b.firstIn
		}
		return a.s.ID < b.s.ID
	})
	out := make([]Scored, len(order))
	for i, a := range order {
		out[i] = a.s
	}
	return out
}
