// Package fuse combines the ranked lists of several retrieval streams into
// one ranking with reciprocal rank fusion (Cormack, Clarke and Büttcher,
// "Reciprocal Rank Fusion outperforms Condorcet and individual Rank Learning
// Methods", SIGIR 2009): score(d) = sum over lists i of w_i / (k + rank_i(d)),
// rank 1-based, k = 60 in the paper. RRF uses ranks only, so streams whose
// scores are on different scales (BM25, cosine) combine without calibration.
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
			a.s.Score += l.Weight / (k + float64(rank))
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
