// This file defines the cache component: counts of the current file's tokens
// and the mixture of the n-gram model with them.

package ngram

// Cache component. A file repeats its own identifiers, literals and idioms,
// which a corpus model can only guess. Two parts are mixed with the n-gram
// model P_KN:
//
//  1. A cache n-gram model (Tu, Su and Devanbu, "On the Localness of
//     Software", FSE 2014): P_ctx(w | h) = c(h_j w)/c(h_j •) for the longest
//     context h_j (the last j tokens, Order-1 >= j >= 2) that occurs in the
//     file, with weight a(h) = cacheWeightCtx·c(h_j •)/(c(h_j •)+cacheKappa),
//     and weight 0 when no such context occurs. Unlike a unigram cache, it
//     never proposes a token where the file never had it.
//
//  2. A kind cache: the n-gram model decides whether an identifier (number,
//     string, char, text block) comes next, the file which one:
//     P_kind(w | h) = P_KN(K | h)·P_file(w | K, p), where K is w's kind, p
//     the token before w, and
//     P_file(w | K, p) = μ·c(p w)/c(p •K) + (1-μ)·c(w)/c(K), μ = c(p •K)/(c(p •K)+cacheKappa).
//     Closed kinds (keywords, operators, NEWLINE), and kinds the file has no
//     token of, keep P_KN(w | h) in this part.
//
//  3. The workspace component P_ws (workspace.go): the same kind cache at
//     the scope of the whole project.
//
//     P(w | h) = (1 - a(h) - cacheWeightKind - b(h))·P_KN(w | h) + a(h)·P_ctx(w | h)
//     + cacheWeightKind·P_kind(w | h) + b(h)·P_ws(w | h)
//
// Each part is a distribution, so the mixture is one. The cache holds the
// tokens of FIM.Prefix and FIM.Suffix (not the hunk, not the generated
// text). The weights were chosen on held-out files (perplexity of java.time
// and of the test workspace) and on the repository's bug fixtures (the
// probability of the developer's fix), and keep sampled hunks syntactic:
// TestEnd samples hunks the way the repair loop does.
const (
	cacheWeightCtx  = 0.4
	cacheWeightKind = 0.2
	cacheKappa      = 2.0
)

// noRaw stands for "no previous token" or a token unknown to the cache.
const noRaw = ^uint32(0)

// ctxKey is a context of 1 to maxOrder-1 cache ids.
type ctxKey struct {
	n   uint8
	ids [maxOrder - 1]uint32
}

func makeKey(hist []uint32) ctxKey {
	k := ctxKey{n: uint8(len(hist))}
	copy(k.ids[:], hist)
	return k
}

// fileCache counts one file's tokens by cache id (see session).
type fileCache struct {
	order     int
	ctx       map[ctxKey]uint32            // c(h •), contexts of 2..order-1 tokens
	next      map[ctxKey]map[uint32]uint32 // c(h w)
	count     map[uint32]uint32            // c(w) for open kinds
	kindTotal [numOpen]float64             // c(K)
	bigram    map[uint64]uint32            // prev<<32 | w: c(p w) for open kinds
	leftKind  map[uint64]uint32            // prev<<3 | kind: c(p •K)
}

func newFileCache(order int) *fileCache {
	return &fileCache{order: order, ctx: map[ctxKey]uint32{}, next: map[ctxKey]map[uint32]uint32{},
		count: map[uint32]uint32{}, bigram: map[uint64]uint32{}, leftKind: map[uint64]uint32{}}
}

// add counts token w of open kind index k (k < 0: closed) after the tokens
// hist (cache ids, oldest first; noRaw entries end the usable context).
func (c *fileCache) add(hist []uint32, w uint32, k int) {
	for j := 2; j <= min(c.order-1, len(hist)); j++ {
		h := hist[len(hist)-j:]
		if h[0] == noRaw {
			break
		}
		key := makeKey(h)
		c.ctx[key]++
		m := c.next[key]
		if m == nil {
			m = map[uint32]uint32{}
			c.next[key] = m
		}
		m[w]++
	}
	if k < 0 {
		return
	}
	c.count[w]++
	c.kindTotal[k]++
	if len(hist) > 0 && hist[len(hist)-1] != noRaw {
		prev := hist[len(hist)-1]
		c.bigram[uint64(prev)<<32|uint64(w)]++
		c.leftKind[uint64(prev)<<3|uint64(k)]++
	}
}

// cacheCtx is the cache's view of one prediction context.
type cacheCtx struct {
	followers map[uint32]uint32 // c(h_j w) of the longest matched context, or nil
	total     float64           // c(h_j •)
	weight    float64           // a(h)
	prev      uint32            // the token before the caret, or noRaw
}

// context finds the longest context of hist the file has seen.
func (c *fileCache) context(hist []uint32) cacheCtx {
	cc := cacheCtx{prev: noRaw}
	if len(hist) > 0 {
		cc.prev = hist[len(hist)-1]
	}
	for j := min(c.order-1, len(hist)); j >= 2; j-- {
		h := hist[len(hist)-j:]
		if containsRaw(h, noRaw) {
			continue
		}
		key := makeKey(h)
		if n := c.ctx[key]; n > 0 {
			cc.followers, cc.total = c.next[key], float64(n)
			cc.weight = cacheWeightCtx * cc.total / (cc.total + cacheKappa)
			break
		}
	}
	return cc
}

func containsRaw(h []uint32, x uint32) bool {
	for _, v := range h {
		if v == x {
			return true
		}
	}
	return false
}

// probKind is P_file(w | K, p) for open kind index k.
func (c *fileCache) probKind(prev, w uint32, k int) float64 {
	if c.kindTotal[k] == 0 {
		return 0
	}
	uni := float64(c.count[w]) / c.kindTotal[k]
	if prev == noRaw {
		return uni
	}
	left := float64(c.leftKind[uint64(prev)<<3|uint64(k)])
	if left == 0 {
		return uni
	}
	mu := left / (left + cacheKappa)
	return mu*float64(c.bigram[uint64(prev)<<32|uint64(w)])/left + (1-mu)*uni
}

// mix is P(w | h) for a word w of open kind index k (k < 0: closed) whose
// n-gram probability is png, given the cache context, the n-gram kind
// masses, and wsp, the workspace part P_ws(w | h) (see Model.wsPart), of
// weight ws (identStats.weight).
func (c *fileCache) mix(cc *cacheCtx, w uint32, k int, png float64, mass *[numOpen]float64, wsp, ws float64) float64 {
	p := (1-cc.weight-cacheWeightKind-ws)*png + ws*wsp
	if cc.followers != nil {
		p += cc.weight * float64(cc.followers[w]) / cc.total
	}
	if k >= 0 && c.kindTotal[k] > 0 {
		p += cacheWeightKind * mass[k] * c.probKind(cc.prev, w, k)
	} else {
		p += cacheWeightKind * png
	}
	return p
}

// wsPart is the workspace part P_ws(w | h) of the mixture for a word w of
// open kind index k whose n-gram probability is png: the project's share of
// the identifier mass for identifiers, png for every other kind, and png
// for identifiers too when the model has no workspace identifiers (so that
// the mixture then reduces to the file cache's).
func (m *Model) wsPart(w uint32, k int, png float64, mass *[numOpen]float64, prev uint32) float64 {
	if k != 0 || m.ws.empty() {
		return png
	}
	return mass[0] * m.ws.prob(prev, w)
}
