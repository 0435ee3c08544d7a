// This file builds the model's n-gram trie from raw n-gram counts and
// estimates interpolated modified Kneser-Ney parameters (Chen and Goodman,
// "An Empirical Study of Smoothing Techniques for Language Modeling", 1998,
// sections 3 and 4.1.6).

package ngram

import "slices"

// maxOrder is the largest supported n-gram order.
const maxOrder = 5

// key is an n-gram of word ids, oldest first; slots past the order are 0.
type key [maxOrder]uint32

// gramCounts is a list of distinct n-grams of one order, sorted
// lexicographically, with a count per n-gram.
type gramCounts struct {
	keys   []key
	counts []uint32
}

func cmpKey(a, b key) int {
	for i := range a {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

// appendGrams appends every order-n n-gram of ids, padded on the left with
// n-1 start tokens, to dst (one n-gram per token of ids).
func appendGrams(dst []key, ids []uint32, n int) []key {
	var k key
	for i := range n - 1 {
		k[i] = idStart
	}
	for _, id := range ids {
		k[n-1] = id
		dst = append(dst, k)
		copy(k[:n-1], k[1:n])
	}
	return dst
}

// countSorted sorts keys of order n over a vocabulary of vocabSize words and
// collapses equal keys into counts. keys is reused.
func countSorted(keys []key, n, vocabSize int) gramCounts {
	radixSort(keys, n, vocabSize)
	var g gramCounts
	out := keys[:0]
	for i, k := range keys {
		if i > 0 && k == out[len(out)-1] {
			g.counts[len(g.counts)-1]++
			continue
		}
		out = append(out, k)
		g.counts = append(g.counts, 1)
	}
	g.keys = slices.Clip(out)
	return g
}

// radixSort sorts keys of order n lexicographically: a stable counting sort
// per column, last column first (least significant digit first), with one
// bucket per word. It is several times faster than a comparison sort on the
// millions of n-grams of java.base.
func radixSort(keys []key, n, vocabSize int) {
	if len(keys) < 2 {
		return
	}
	buf := make([]key, len(keys))
	count := make([]int, vocabSize+1)
	src, dst := keys, buf
	for col := n - 1; col >= 0; col-- {
		clear(count)
		for i := range src {
			count[src[i][col]+1]++
		}
		for w := 1; w <= vocabSize; w++ {
			count[w] += count[w-1]
		}
		for i := range src {
			w := src[i][col]
			dst[count[w]] = src[i]
			count[w]++
		}
		src, dst = dst, src
	}
	if &src[0] != &keys[0] {
		copy(keys, src)
	}
}

// mergeCounts merges two sorted count lists, adding counts of equal n-grams.
func mergeCounts(a, b gramCounts) gramCounts {
	if len(b.keys) == 0 {
		return a
	}
	if len(a.keys) == 0 {
		return b
	}
	out := gramCounts{keys: make([]key, 0, len(a.keys)+len(b.keys)), counts: make([]uint32, 0, len(a.keys)+len(b.keys))}
	i, j := 0, 0
	for i < len(a.keys) || j < len(b.keys) {
		var c int
		switch {
		case i == len(a.keys):
			c = 1
		case j == len(b.keys):
			c = -1
		default:
			c = cmpKey(a.keys[i], b.keys[j])
		}
		switch {
		case c < 0:
			out.keys, out.counts = append(out.keys, a.keys[i]), append(out.counts, a.counts[i])
			i++
		case c > 0:
			out.keys, out.counts = append(out.keys, b.keys[j]), append(out.counts, b.counts[j])
			j++
		default:
			out.keys, out.counts = append(out.keys, a.keys[i]), append(out.counts, a.counts[i]+b.counts[j])
			i, j = i+1, j+1
		}
	}
	return out
}

// level is one order of the trie. Entries are sorted by (parent, word), which
// is the lexicographic order of their n-grams; the children of entry i (its
// extensions by one word, in the next level) are child[i]:child[i+1].
//
// count is the raw count for the highest order and the Kneser-Ney
// continuation count N1+(• g) for lower orders; 0 marks a node that exists
// only as a context (a prefix of a longer n-gram never seen as a suffix).
// For context levels, denom is the sum of the children's counts and gammaNum
// is D1·N1(h•) + D2·N2(h•) + D3+·N3+(h•), so that the backoff weight is
// gamma(h) = gammaNum/denom.
type level struct {
	word     []uint32 // last word of each n-gram (unused for order 1: index = word)
	count    []uint32
	child    []uint32 // len(count)+1 offsets into the next level; nil for the top level
	denom    []uint32
	gammaNum []float64
	disc     [4]float64 // discounts D1, D2, D3+ for counts at this level (index = min(c,3))
}

// build turns the order-n counts top (raw counts, padded as appendGrams
// does) over a vocabulary of vocabSize words into the trie levels, index 0 =
// order 1.
func build(top gramCounts, n, vocabSize int) []level {
	// Counts per order: raw counts at the top, continuation counts below.
	counts := make([]gramCounts, n+1) // index = order
	counts[n] = top
	for k := n - 1; k >= 2; k-- {
		counts[k] = suffixCounts(counts[k+1], k, vocabSize)
	}
	uni := make([]uint32, vocabSize)
	for i, kk := range counts[2].keys {
		if counts[2].counts[i] > 0 {
			uni[kk[1]]++
		}
	}
	// Context-only nodes: every prefix of an n-gram must be a node.
	for k := n - 1; k >= 2; k-- {
		counts[k] = withPrefixes(counts[k], counts[k+1], k)
	}
	levels := make([]level, n)
	levels[0] = level{count: uni}
	for k := 2; k <= n; k++ {
		lv := level{word: make([]uint32, len(counts[k].keys)), count: counts[k].counts}
		for i, kk := range counts[k].keys {
			lv.word[i] = kk[k-1]
		}
		levels[k-1] = lv
	}
	// Child offsets: level k's entries are the parents of level k+1's.
	for k := 1; k < n; k++ {
		parentCount := len(levels[k-1].count)
		child := make([]uint32, parentCount+1)
		next := counts[k+1].keys
		j := 0
		for i := range parentCount {
			child[i] = uint32(j)
			for j < len(next) && isParent(i, k, counts, next[j]) {
				j++
			}
		}
		child[parentCount] = uint32(j)
		if j != len(next) {
			panic("ngram: trie construction lost n-grams (unsorted or missing prefixes)")
		}
		levels[k-1].child = child
	}
	for k := range n {
		levels[k].disc = discounts(levels[k].count)
	}
	for k := 1; k < n; k++ {
		lv := &levels[k-1]
		next := &levels[k]
		lv.denom = make([]uint32, len(lv.count))
		lv.gammaNum = make([]float64, len(lv.count))
		for i := range lv.count {
			var sum uint32
			var g float64
			for _, c := range next.count[lv.child[i]:lv.child[i+1]] {
				sum += c
				if c > 0 {
					g += next.disc[min(c, 3)]
				}
			}
			lv.denom[i] = sum
			lv.gammaNum[i] = g
		}
	}
	return levels
}

// isParent reports whether entry i of order k is the k-prefix of the order
// k+1 n-gram next.
func isParent(i, k int, counts []gramCounts, next key) bool {
	if k == 1 {
		return next[0] == uint32(i)
	}
	p := counts[k].keys[i]
	for x := range k {
		if p[x] != next[x] {
			return false
		}
	}
	return true
}

// suffixCounts returns the order-k continuation counts from the order k+1
// list: for each k-gram g, the number of distinct words w with count(w g) > 0.
func suffixCounts(g gramCounts, k, vocabSize int) gramCounts {
	keys := make([]key, 0, len(g.keys))
	for i, kk := range g.keys {
		if g.counts[i] == 0 {
			continue
		}
		var s key
		copy(s[:k], kk[1:k+1])
		keys = append(keys, s)
	}
	return countSorted(keys, k, vocabSize)
}

// withPrefixes adds to the order-k list g (sorted) a count-0 entry for every
// k-prefix of the order k+1 list next that g lacks.
func withPrefixes(g, next gramCounts, k int) gramCounts {
	var prefixes []key
	var last key
	j := 0 // cursor in g: prefixes come in ascending order
	for i, kk := range next.keys {
		var p key
		copy(p[:k], kk[:k])
		if i > 0 && p == last {
			continue
		}
		last = p
		for j < len(g.keys) && cmpKey(g.keys[j], p) < 0 {
			j++
		}
		if j == len(g.keys) || g.keys[j] != p {
			prefixes = append(prefixes, p)
		}
	}
	if len(prefixes) == 0 {
		return g
	}
	return mergeCounts(g, gramCounts{keys: prefixes, counts: make([]uint32, len(prefixes))})
}

// discounts estimates the modified Kneser-Ney discounts D1, D2, D3+ from the
// count-of-counts n1..n4 of one order (Chen and Goodman 1998, eq. 26):
// Y = n1/(n1+2·n2), D1 = 1-2Y·n2/n1, D2 = 2-3Y·n3/n2, D3+ = 3-4Y·n4/n3.
// Degenerate estimates (tiny corpora) fall back to 0.5, 1, 1.5; each Di is
// kept in (0, i).
func discounts(counts []uint32) [4]float64 {
	var nc [5]float64
	for _, c := range counts {
		if c >= 1 && c <= 4 {
			nc[c]++
		}
	}
	d := [4]float64{0, 0.5, 1, 1.5}
	if nc[1] > 0 && nc[2] > 0 && nc[3] > 0 && nc[4] > 0 {
		y := nc[1] / (nc[1] + 2*nc[2])
		est := [4]float64{0, 1 - 2*y*nc[2]/nc[1], 2 - 3*y*nc[3]/nc[2], 3 - 4*y*nc[4]/nc[3]}
		for i := 1; i <= 3; i++ {
			if est[i] > 0 && est[i] < float64(i) {
				d[i] = est[i]
			}
		}
	}
	return d
}
