// Package ngram is the embedded, offline default language model of
// repilot-lsp: an n-gram model over Java lexical tokens with interpolated
// modified Kneser-Ney smoothing (Chen and Goodman 1998), a cache component
// over the current file (Tu, Su and Devanbu, "On the Localness of
// Software", FSE 2014) and one over the workspace's identifiers
// (workspace.go), one over the members accessed on the declared type of
// the receiver before a "." (typed.go), and, when the FIM context carries
// the buggy hunk
// (lm.FIM.Buggy), a copy component that makes sampled hunks mostly
// near-copies of it with model-driven edits, as an LLM shown the buggy line
// writes them (copy.go). It is pure Go, runs in-process and implements
// lm.Model.
//
// Vocabulary: javalex tokens with comments dropped, and a NEWLINE
// pseudo-token between lines so that the model learns line structure. Tokens
// seen only once in their part of the training data (the JDK, or the
// workspace) are replaced by a class per kind (<id>, <num>, <str>, <chr>,
// <txt>, <unk>), except the workspace's identifiers, which are all kept: a
// name declared once in another file of the project is the kind of name a
// fix needs. A session proposes the current file's own rare tokens in place
// of their class through the cache component.
//
// Order: 4 by default. Trained on java.base and scored on 30 held-out
// java.sql files (16,500 tokens, no cache), perplexity was 45.5 at order 3,
// 38.5 at order 4 and 36.9 at order 5, with tables of 16, 33 and 58 MB:
// order 5 buys 4% for 1.7 times the memory. Java statements are short, and
// three tokens of context ("for ( int", "; i <") already identify most
// syntactic positions.
//
// Use:
//
//	m, err := ngram.Train(ctx, ngram.Sources{Roots: []string{root}},
//		ngram.Options{UseJDK: true, CacheDir: filepath.Join(userCache, "repilot-lsp", "ngram")})
//	sess, err := m.Start(ctx, lm.FIM{Prefix: before, Suffix: after, Indent: "        ", Buggy: buggyLines})
//	cands, err := sess.Next(ctx, generatedSoFar, 20)
//
// Training on java.base takes several seconds the first time and about a
// second once its counts are in CacheDir; Model.Sources says what was used.
//
// Architecture invariant: the model proposes text and probabilities only; it
// knows nothing of LSP, JDT LS or the completion engine.
package ngram

import (
	"fmt"
	"slices"
	"sort"

	"github.com/repilot-lsp/repilot-lsp/javalex"
)

// Model is a trained n-gram model. It is immutable and safe for concurrent
// use; sessions opened with Start are not (one goroutine each, as lm.Session
// requires).
type Model struct {
	order   int
	vocab   []string          // id -> token text (specials first)
	ids     map[string]uint32 // token text -> id
	kinds   []javalex.Kind    // id -> token kind (Invalid for specials)
	levels  []level           // index 0 = order 1
	uni     []float64         // P1(w): interpolated unigram (with uniform) per id
	uniKind [numOpen]float64  // sum of uni over the words of each open kind
	byUni   []uint32          // proposable ids sorted by uni, most probable first
	sources []SourceInfo
	ws      *identStats // the workspace's identifiers (workspace.go); nil without a workspace
	typed   *typedStats // members by declared receiver type (typed.go)
	// lineStart is the context of a typical line start (the baseline of the
	// end-of-middle likelihood ratio, see endProb).
	lineStart []uint32
}

// Name identifies the model in reports: "ngram-4" for order 4.
func (m *Model) Name() string { return fmt.Sprintf("ngram-%d", m.order) }

// Order is the n-gram order (context = Order-1 tokens).
func (m *Model) Order() int { return m.order }

// VocabSize is the number of vocabulary entries (specials included).
func (m *Model) VocabSize() int { return len(m.vocab) }

// Sources describes the training data the model was built from.
func (m *Model) Sources() []SourceInfo { return slices.Clone(m.sources) }

// NGrams returns the number of trie nodes per order (index 0 = unigrams),
// context-only nodes included.
func (m *Model) NGrams() []int {
	out := make([]int, len(m.levels))
	for i, lv := range m.levels {
		out[i] = len(lv.count)
	}
	return out
}

// SizeBytes is the approximate memory held by the model's tables (trie
// arrays and vocabulary), in bytes.
func (m *Model) SizeBytes() int64 {
	var n int64
	for _, lv := range m.levels {
		n += int64(len(lv.word)+len(lv.count)+len(lv.child)+len(lv.denom))*4 + int64(len(lv.gammaNum))*8
	}
	n += int64(len(m.uni))*8 + int64(len(m.byUni))*4
	for _, s := range m.vocab {
		n += int64(len(s)) + 16 + 24 // string header + map entry, roughly
	}
	return n
}

// newModel finishes a model from its vocabulary and top-order counts.
func newModel(order int, vocab []string, top gramCounts, sources []SourceInfo) *Model {
	m := &Model{order: order, vocab: vocab, sources: sources}
	m.ids = make(map[string]uint32, len(vocab))
	m.kinds = make([]javalex.Kind, len(vocab))
	for i, s := range vocab {
		m.ids[s] = uint32(i)
		if i >= int(numSpecial) {
			if toks := javalex.Lex(s); len(toks) > 0 {
				m.kinds[i] = toks[0].Kind
			}
		}
	}
	m.kinds[idClassID], m.kinds[idClassNum], m.kinds[idClassStr] = javalex.Ident, javalex.Number, javalex.String
	m.kinds[idClassChr], m.kinds[idClassTxt] = javalex.Char, javalex.TextBlock
	m.levels = build(top, order, len(vocab))
	lv := &m.levels[0]
	var total float64
	var gammaNum float64
	for _, c := range lv.count {
		total += float64(c)
		if c > 0 {
			gammaNum += lv.disc[min(c, 3)]
		}
	}
	m.uni = make([]float64, len(vocab))
	uniform := 1 / float64(len(vocab))
	for w, c := range lv.count {
		p := uniform
		if total > 0 {
			p = gammaNum / total * uniform
			if c > 0 {
				p += (float64(c) - lv.disc[min(c, 3)]) / total
			}
		}
		m.uni[w] = p
	}
	for w, p := range m.uni {
		if k := openIndex(m.kinds[w]); k >= 0 {
			m.uniKind[k] += p
		}
	}
	for w := numSpecial; w < uint32(len(vocab)); w++ {
		m.byUni = append(m.byUni, w)
	}
	m.byUni = append(m.byUni, idNewline)
	m.lineStart = m.typicalLineStart()
	sort.SliceStable(m.byUni, func(a, b int) bool { return m.uni[m.byUni[a]] > m.uni[m.byUni[b]] })
	return m
}

// typicalLineStart returns the most frequent context of Order-1 tokens that
// ends with NEWLINE (in Java, usually ") ; NEWLINE"), so that the
// end-of-middle baseline uses as much context as the evidence it is compared
// with.
func (m *Model) typicalLineStart() []uint32 {
	k := m.order - 1
	best, bestDenom := -1, uint32(0)
	if k == 1 {
		return []uint32{idNewline}
	}
	lv := &m.levels[k-1]
	for i, w := range lv.word {
		if w == idNewline && lv.denom[i] > bestDenom {
			best, bestDenom = i, lv.denom[i]
		}
	}
	if best < 0 {
		return []uint32{idNewline}
	}
	// Walk up the parents to recover the context's words.
	out := make([]uint32, k)
	node := best
	for j := k; j >= 1; j-- {
		if j == 1 {
			out[0] = uint32(node)
			break
		}
		out[j-1] = m.levels[j-1].word[node]
		parent := &m.levels[j-2]
		node = sort.Search(len(parent.child)-1, func(p int) bool { return parent.child[p+1] > uint32(node) })
	}
	return out
}

// ctxNodes are the trie nodes of the contexts of one prediction: nodes[j] is
// the node of the last j tokens in level j (index into levels[j-1]), or -1
// when that context was never seen. nodes[0] is unused.
type ctxNodes [maxOrder]int

// findContexts locates the contexts formed by the suffixes of hist (oldest
// first; only the last Order-1 ids matter). A shorter hist gives only the
// shorter contexts: callers pad with <s> where the text really starts.
func (m *Model) findContexts(hist []uint32) ctxNodes {
	if len(hist) > m.order-1 {
		hist = hist[len(hist)-(m.order-1):]
	}
	var nodes ctxNodes
	for j := 1; j < m.order; j++ {
		nodes[j] = -1
		if j <= len(hist) {
			nodes[j] = m.lookup(hist[len(hist)-j:])
		}
	}
	return nodes
}

// padded returns the last Order-1 ids of <s>^(Order-1) + ids.
func (m *Model) padded(ids []uint32) []uint32 {
	n := m.order - 1
	out := make([]uint32, 0, n)
	for i := len(ids); i < n; i++ {
		out = append(out, idStart)
	}
	return append(out, ids[max(0, len(ids)-n):]...)
}

// lookup returns the node index of the n-gram g in level len(g), or -1.
func (m *Model) lookup(g []uint32) int {
	if len(g) == 0 || int(g[0]) >= len(m.vocab) {
		return -1
	}
	node := int(g[0])
	for k := 1; k < len(g); k++ {
		node = m.child(k, node, g[k])
		if node < 0 {
			return -1
		}
	}
	return node
}

// child returns the index in level k+1 of the extension of node (in level k)
// by word w, or -1.
func (m *Model) child(k, node int, w uint32) int {
	lv := &m.levels[k-1]
	lo, hi := int(lv.child[node]), int(lv.child[node+1])
	words := m.levels[k].word[lo:hi]
	i, found := slices.BinarySearch(words, w)
	if !found {
		return -1
	}
	return lo + i
}

// interp holds, for one context, the weight of each order's discounted term
// in the interpolated distribution:
//
//	P(w|h) = Σ_{j=1}^{n-1} coef[j]·α_j(w) + coef[0]·P1(w)
//
// where α_j(w) = max(c(h_j w) - D(c), 0)/denom(h_j) for the context h_j of
// the last j tokens, coef[n-1] = 1, and coef[j-1] = coef[j]·gamma(h_j)
// (gamma = 1 and α = 0 for an unseen context, i.e. full backoff).
type interp struct {
	nodes ctxNodes
	coef  [maxOrder]float64
}

func (m *Model) newInterp(hist []uint32) interp {
	it := interp{nodes: m.findContexts(hist)}
	c := 1.0
	for j := m.order - 1; j >= 1; j-- {
		it.coef[j] = c
		if node := it.nodes[j]; node >= 0 {
			lv := &m.levels[j-1]
			if d := lv.denom[node]; d > 0 {
				c *= lv.gammaNum[node] / float64(d)
			} else {
				it.nodes[j] = -1
			}
		}
	}
	it.coef[0] = c
	return it
}

// alpha is the discounted term of word w after context node (level j).
func (m *Model) alpha(j, node int, w uint32) float64 {
	i := m.child(j, node, w)
	if i < 0 {
		return 0
	}
	return m.alphaAt(j, node, i)
}

// alphaAt is alpha for child index i (in level j+1) of node (in level j).
func (m *Model) alphaAt(j, node, i int) float64 {
	c := m.levels[j].count[i]
	if c == 0 {
		return 0
	}
	lv := &m.levels[j-1]
	return (float64(c) - m.levels[j].disc[min(c, 3)]) / float64(lv.denom[node])
}

// prob is P_KN(w | context) for the context of it.
func (m *Model) prob(it *interp, w uint32) float64 {
	p := it.coef[0] * m.uni[w]
	for j := 1; j < m.order; j++ {
		if node := it.nodes[j]; node >= 0 {
			p += it.coef[j] * m.alpha(j, node, w)
		}
	}
	return p
}

// scanUnion calls fn, in ascending id order, for every word w with a
// positive count after the last token of the context, with its probability
// P_KN(w | context). Every word with a positive count after a longer context
// also follows the last token alone, so these are all the words whose
// probability is more than the unigram term coef[0]·P1(w); the walk keeps
// cursors into the longer contexts' (equally sorted) follower lists.
func (m *Model) scanUnion(it *interp, fn func(w uint32, p float64)) {
	n1 := it.nodes[1]
	if n1 < 0 {
		return
	}
	lo2, hi2 := int(m.levels[0].child[n1]), int(m.levels[0].child[n1+1])
	words2, counts2 := m.levels[1].word, m.levels[1].count
	var cur, end [maxOrder]int
	for j := 2; j < m.order; j++ {
		if node := it.nodes[j]; node >= 0 {
			cur[j], end[j] = int(m.levels[j-1].child[node]), int(m.levels[j-1].child[node+1])
		}
	}
	for i := lo2; i < hi2; i++ {
		if counts2[i] == 0 {
			continue
		}
		w := words2[i]
		p := it.coef[0]*m.uni[w] + it.coef[1]*m.alphaAt(1, n1, i)
		for j := 2; j < m.order; j++ {
			if it.nodes[j] < 0 {
				continue
			}
			words := m.levels[j].word
			for cur[j] < end[j] && words[cur[j]] < w {
				cur[j]++
			}
			if cur[j] < end[j] && words[cur[j]] == w {
				p += it.coef[j] * m.alphaAt(j, it.nodes[j], cur[j])
			}
		}
		fn(w, p)
	}
}

// inUnion reports whether w is one of the words scanUnion visits.
func (m *Model) inUnion(it *interp, w uint32) bool {
	n1 := it.nodes[1]
	if n1 < 0 {
		return false
	}
	i := m.child(1, n1, w)
	return i >= 0 && m.levels[1].count[i] > 0
}

// kindMass returns, per open kind, P_KN(next token has that kind | context):
// the union words' probabilities plus the unigram term of all others.
func (m *Model) kindMass(it *interp) [numOpen]float64 {
	var mass, uniSeen [numOpen]float64
	m.scanUnion(it, func(w uint32, p float64) {
		if k := openIndex(m.kinds[w]); k >= 0 {
			mass[k] += p
			uniSeen[k] += m.uni[w]
		}
	})
	for k := range mass {
		mass[k] += it.coef[0] * max(0, m.uniKind[k]-uniSeen[k])
	}
	return mass
}

// id maps a stream token to its vocabulary id: the token's own id, or its
// class when the token is rare.
func (m *Model) id(t streamTok) uint32 {
	if id, ok := m.ids[t.Text]; ok {
		return id
	}
	return classOf(t.Kind)
}
