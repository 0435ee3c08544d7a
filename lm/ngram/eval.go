// This file defines Evaluate: the model's log-probability of a whole Java
// text, for perplexity measurements.

package ngram

import "math"

// Eval is the result of Evaluate: the number of stream tokens scored and
// the sum of their natural-log probabilities.
type Eval struct {
	Tokens  int
	LogProb float64
}

// Perplexity is exp(-LogProb/Tokens), or +Inf when nothing was scored.
func (e Eval) Perplexity() float64 {
	if e.Tokens == 0 {
		return math.Inf(1)
	}
	return math.Exp(-e.LogProb / float64(e.Tokens))
}

// Add returns the sum of two evaluations.
func (e Eval) Add(o Eval) Eval { return Eval{e.Tokens + o.Tokens, e.LogProb + o.LogProb} }

// Evaluate scores every stream token of text left to right (padded with <s>
// as in training). Rare tokens are scored as their class, so that the event
// space is the vocabulary and results are comparable between models with
// the same vocabulary. With cache set, each token's probability is the
// session's mixture of the n-gram model and a cache of the tokens before it
// in text (a dynamic cache: a token is never in the cache when it is scored).
func (m *Model) Evaluate(text string, cache bool) Eval {
	return m.evaluate(text, cache)
}

func (m *Model) evaluate(text string, cache bool) Eval {
	toks := lexStream(text)
	ids := make([]uint32, 0, len(toks)+m.order)
	for range m.order - 1 {
		ids = append(ids, idStart)
	}
	for _, t := range toks {
		ids = append(ids, m.id(t))
	}
	fc := newFileCache(m.order)
	header := headerLines(toks)
	var e Eval
	for i := m.order - 1; i < len(ids); i++ {
		w := ids[i]
		it := m.newInterp(ids[i-(m.order-1) : i])
		p := m.prob(&it, w)
		k := openIndex(m.kinds[w])
		if header[i-(m.order-1)] {
			k = -1 // package and import lines: see headerLines
		}
		hist := ids[max(m.order-1, i-(m.order-1)):i] // real tokens only
		if cache {
			var mass [numOpen]float64
			if k >= 0 && (fc.kindTotal[k] > 0 || k == 0 && !m.ws.empty()) {
				mass = m.kindMass(&it)
			}
			cc := fc.context(hist)
			p = fc.mix(&cc, w, k, p, &mass, m.wsPart(w, k, p, &mass, ids[i-1]), m.ws.weight(ids[i-1]))
		}
		fc.add(hist, w, k)
		e.Tokens++
		e.LogProb += math.Log(p)
	}
	return e
}

// unigramEval scores text with the maximum-likelihood unigram distribution
// of the training data (add-one smoothed over the vocabulary), the baseline
// of the perplexity tests.
func (m *Model) unigramEval(text string) Eval {
	top := &m.levels[m.order-1]
	counts := make([]float64, len(m.vocab))
	var total float64
	for i, w := range top.word {
		counts[w] += float64(top.count[i])
		total += float64(top.count[i])
	}
	var e Eval
	for _, t := range lexStream(text) {
		w := m.id(t)
		e.Tokens++
		e.LogProb += math.Log((counts[w] + 1) / (total + float64(len(m.vocab))))
	}
	return e
}
