package search

// leader.go: a dense leader far ahead of the stream's second unit is fused
// first (Tuning.DenseMargin).

import "github.com/repilot-lsp/repilot-lsp/search/fuse"

// DefaultDenseMargin is Tuning.DenseMargin's default, a cosine margin of
// bge-small-en-v1.5 chosen on the realistic tuning sets only
// (search/README.md, session 17): margins 0.025-0.035 gave the same
// rankings, 0.02 and 0.04 one question fewer at Success@1.
const DefaultDenseMargin = 0.03

// denseLeaderFirst applies Tuning.DenseMargin to a fused ranking: when the
// dense stream's first unit scores at least margin above its second (cosine
// similarity, so the stream is sure of its answer where reciprocal rank
// fusion sees only ranks), that unit moves to the front of fused, the units
// before it moving down by one. setOf maps an ID to what fused ranks (the
// ID itself, or its overload set's representative with
// Tuning.FuseOverloads: a fused entry matches when setOf agrees). A dense
// list of weight 0, fewer than two units or no scores, or margin <= 0,
// leaves fused as it is. Only the order changes; scores stay each entry's
// own, so after the move they need not decrease.
func denseLeaderFirst(fused []fuse.Scored, lists []fuse.List, margin float64, setOf func(string) string) []fuse.Scored {
	if margin <= 0 {
		return fused
	}
	for _, l := range lists {
		if l.Name != StreamDense || l.Weight <= 0 || len(l.IDs) < 2 || len(l.Scores) < 2 {
			continue
		}
		if l.Scores[0]-l.Scores[1] < margin {
			return fused
		}
		lead := setOf(l.IDs[0])
		for i, f := range fused {
			if setOf(f.ID) == lead {
				copy(fused[1:i+1], fused[:i])
				fused[0] = f
				break
			}
		}
	}
	return fused
}

// DefaultLoneLeaderAt is Tuning.LoneLeaderAt's default: the last place of
// the first page (search/README.md, session 19: chosen on the realistic
// tuning sets, it found one more Commons Collections question in the
// first 10 and moved no other; the CodeSearchNet-style tuning code bases
// gained 10 questions at Success@10 and lost none).
const DefaultLoneLeaderAt = 10

// loneLeaders applies Tuning.LoneLeaderAt to a fused ranking: a stream's
// first unit that no other stream's list holds (the other streams have it
// beyond their Depth: they say nothing for it, where reciprocal rank
// fusion reads silence as a vote against) moves up to position at
// (1-based) when it fused below it; a second such leader goes to at+1, in
// the order of lists. Units that both streams rank about 20th no longer
// push a unit that one stream ranks first off the first page (RRF: 2/80
// against 1/61). setOf maps an ID to what fused ranks, as for
// denseLeaderFirst. Lists of weight 0 neither lead nor hold; with fewer
// than two lists, or at <= 0, fused is returned as it is. Scores stay
// each entry's own.
func loneLeaders(fused []fuse.Scored, lists []fuse.List, at int, setOf func(string) string) []fuse.Scored {
	if at <= 0 || len(fused) <= at {
		return fused
	}
	var live []fuse.List
	for _, l := range lists {
		if l.Weight > 0 && len(l.IDs) > 0 {
			live = append(live, l)
		}
	}
	if len(live) < 2 {
		return fused
	}
	next := at - 1
	for i, l := range live {
		lead := setOf(l.IDs[0])
		held := false
		for j, o := range live {
			if j == i {
				continue
			}
			for _, id := range o.IDs {
				if setOf(id) == lead {
					held = true
					break
				}
			}
		}
		if held {
			continue
		}
		for p, f := range fused {
			if setOf(f.ID) != lead {
				continue
			}
			if p > next {
				copy(fused[next+1:p+1], fused[next:p])
				fused[next] = f
				next++
			}
			break
		}
	}
	return fused
}
