package lexical

// bm25.go is the hand-written backend: an in-memory inverted index scored
// with Okapi BM25F (see the package comment for why it exists next to bleve).

import (
	"container/heap"
	"context"
	"math"
	"sync"

	"github.com/repilot-lsp/repilot-lsp/search/tokenize"
	"github.com/repilot-lsp/repilot-lsp/search/units"
)

// BM25 parameters (Robertson and Zaragoza 2009; Lucene's defaults).
const (
	BM25K1 = 1.2
	BM25B  = 0.75
)

type posting struct {
	doc int32
	tf  float32 // field-weighted term frequency
}

type bm25Doc struct {
	id    string
	len   float32 // field-weighted length in terms
	terms []int32 // distinct term ids, to keep df exact on delete
	alive bool
}

// BM25 is an in-memory BM25F index. The zero value is not usable; call
// NewBM25.
type BM25 struct {
	an tokenize.Analyzer
	w  Weights

	mu       sync.RWMutex
	termIDs  map[string]int32
	postings [][]posting // by term id, doc numbers ascending
	df       []int32     // alive documents per term
	docs     []bm25Doc   // by doc number
	byID     map[string]int32
	totalLen float64 // over alive docs
	alive    int
}

// NewBM25 returns an empty index using the analyzer and field weights given.
func NewBM25(an tokenize.Analyzer, w Weights) *BM25 {
	return &BM25{an: an, w: w, termIDs: map[string]int32{}, byID: map[string]int32{}}
}

// Name implements Index.
func (x *BM25) Name() string { return "bm25" }

// Len implements Index.
func (x *BM25) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.alive
}

// analyze returns the weighted term frequencies and length of u. It runs
// without the lock.
func (x *BM25) analyze(u *units.Unit, tf map[string]float32) float32 {
	var length float32
	fs := fields(u)
	for f, text := range fs {
		w := float32(x.w[f])
		if w == 0 || text == "" {
			continue
		}
		x.an.Each(text, func(term string, _ int) {
			tf[term] += w
			length += w
		})
	}
	return length
}

type analyzed struct {
	id  string
	tf  map[string]float32
	len float32
}

// Upsert implements Index.
func (x *BM25) Upsert(us []units.Unit) error {
	batch := make([]analyzed, len(us))
	for i := range us {
		tf := make(map[string]float32, 64)
		batch[i] = analyzed{us[i].ID, tf, x.analyze(&us[i], tf)}
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, a := range batch {
		if old, ok := x.byID[a.id]; ok {
			x.kill(old)
		}
		n := int32(len(x.docs))
		d := bm25Doc{id: a.id, len: a.len, alive: true, terms: make([]int32, 0, len(a.tf))}
		for term, f := range a.tf {
			t, ok := x.termIDs[term]
			if !ok {
				t = int32(len(x.postings))
				x.termIDs[term] = t
				x.postings = append(x.postings, nil)
				x.df = append(x.df, 0)
			}
			x.postings[t] = append(x.postings[t], posting{n, f})
			x.df[t]++
			d.terms = append(d.terms, t)
		}
		x.docs = append(x.docs, d)
		x.byID[a.id] = n
		x.totalLen += float64(a.len)
		x.alive++
	}
	x.maybeCompact()
	return nil
}

// Delete implements Index.
func (x *BM25) Delete(ids []string) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, id := range ids {
		if n, ok := x.byID[id]; ok {
			x.kill(n)
			delete(x.byID, id)
		}
	}
	x.maybeCompact()
	return nil
}

// kill marks doc n dead (its postings stay until the next compaction).
func (x *BM25) kill(n int32) {
	d := &x.docs[n]
	if !d.alive {
		return
	}
	d.alive = false
	for _, t := range d.terms {
		x.df[t]--
	}
	d.terms = nil
	x.totalLen -= float64(d.len)
	x.alive--
}

// maybeCompact drops dead documents' postings once they are a third of all.
func (x *BM25) maybeCompact() {
	dead := len(x.docs) - x.alive
	if dead < 1024 || dead*3 < len(x.docs) {
		return
	}
	renum := make([]int32, len(x.docs))
	docs := make([]bm25Doc, 0, x.alive)
	for i, d := range x.docs {
		if d.alive {
			renum[i] = int32(len(docs))
			x.byID[d.id] = int32(len(docs))
			docs = append(docs, d)
		} else {
			renum[i] = -1
		}
	}
	for t, ps := range x.postings {
		out := ps[:0]
		for _, p := range ps {
			if r := renum[p.doc]; r >= 0 {
				out = append(out, posting{r, p.tf})
			}
		}
		x.postings[t] = out
	}
	x.docs = docs
}

// Search implements Index.
func (x *BM25) Search(ctx context.Context, query string, k int) ([]Hit, error) {
	qtf := map[string]int{}
	x.an.Each(query, func(term string, _ int) { qtf[term]++ })
	if len(qtf) == 0 || k <= 0 {
		return nil, nil
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	if x.alive == 0 {
		return nil, nil
	}
	n := float64(x.alive)
	avgdl := x.totalLen / n
	acc := make([]float32, len(x.docs))
	var touched []int32
	for term, q := range qtf {
		t, ok := x.termIDs[term]
		if !ok || x.df[t] == 0 {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		df := float64(x.df[t])
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		wq := float32(idf * float64(q) * (BM25K1 + 1))
		for _, p := range x.postings[t] {
			d := &x.docs[p.doc]
			if !d.alive {
				continue
			}
			norm := float32(BM25K1 * (1 - BM25B + BM25B*float64(d.len)/avgdl))
			if acc[p.doc] == 0 {
				touched = append(touched, p.doc)
			}
			acc[p.doc] += wq * p.tf / (p.tf + norm)
		}
	}
	h := &hitHeap{}
	for _, doc := range touched {
		s := acc[doc]
		if h.Len() < k {
			heap.Push(h, scored{doc, s})
		} else if s > (*h)[0].score || s == (*h)[0].score && doc < (*h)[0].doc {
			(*h)[0] = scored{doc, s}
			heap.Fix(h, 0)
		}
	}
	out := make([]Hit, h.Len())
	for i := len(out) - 1; i >= 0; i-- {
		s := heap.Pop(h).(scored)
		out[i] = Hit{x.docs[s.doc].id, float64(s.score)}
	}
	return out, nil
}

type scored struct {
	doc   int32
	score float32
}

// hitHeap is a min-heap by score (ties: higher doc number is smaller), so the
// k best stay, and equal scores rank in insertion order.
type hitHeap []scored

func (h hitHeap) Len() int { return len(h) }
func (h hitHeap) Less(i, j int) bool {
	if h[i].score != h[j].score {
		return h[i].score < h[j].score
	}
	return h[i].doc > h[j].doc
}
func (h hitHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *hitHeap) Push(v any)   { *h = append(*h, v.(scored)) }
func (h *hitHeap) Pop() any {
	old := *h
	v := old[len(old)-1]
	*h = old[:len(old)-1]
	return v
}
