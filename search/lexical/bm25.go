package lexical

// bm25.go is the hand-written backend: an in-memory inverted index scored
// with Okapi BM25F (see the package comment for why it is hand-written).

import (
	"container/heap"
	"context"
	"math"
	"strings"
	"sync"

	"github.com/repilot-lsp/repilot-lsp/search/binenc"
	"github.com/repilot-lsp/repilot-lsp/search/tokenize"
	"github.com/repilot-lsp/repilot-lsp/search/units"
)

// BM25 parameters (Robertson and Zaragoza 2009; Lucene's defaults).
const (
	BM25K1 = 1.2
	BM25B  = 0.75
)

// Defaults of BM25.Expand, BM25.NameBoost, BM25.ContainerCover and
// BM25.NameB (measured: search/README.md; ContainerCover and NameB were
// chosen on the tuning corpora only, never on the reported ones).
const (
	DefaultExpand         = 1.0
	DefaultNameBoost      = 0.5
	DefaultContainerCover = 0.25
	DefaultNameB          = 0.3
	// DefaultSynonyms and DefaultSynonymCover (BM25.Synonyms and
	// SynonymCover) were chosen on the realistic tuning sets and the
	// CodeSearchNet-style tuning corpora only (search/README.md, session
	// 15): weight 0.5 gained more realistic questions but cost the
	// CodeSearchNet-style ones, whose doc sentences already use the code's
	// own words.
	DefaultSynonyms     = 0.25
	DefaultSynonymCover = 1.0
)

type posting struct {
	doc int32
	tf  float32 // field-weighted term frequency in the length-normalised fields
	tfs float32 // field-weighted term frequency in the short fields (ShortFields)
	tfn float32 // field-weighted term frequency in the name field when it has its own b (NameB)
}

type bm25Doc struct {
	id       string
	len      float32  // field-weighted length in terms
	nameLen  float32  // field-weighted length of the name field (NameB >= 0)
	terms    []int32  // distinct term ids, to keep df exact on delete
	termsRaw string   // or, read from a snapshot and not needed yet, encoded (binenc I32s)
	surfaces []string // its names that are run-together words ("resetbuffer")
	name     []string // lower-case parts of its name, for the name boost
	nName    int      // name[nName:] are its container's
	alive    bool
}

// surface is a name written as one lower-case run ("resetbuffer",
// "isasyncgenfunction") with the term it is indexed as and the number of
// live units named so.
type surface struct {
	term string
	refs int
}

// BM25 is an in-memory BM25F index. The zero value is not usable; call
// NewBM25.
type BM25 struct {
	an tokenize.Analyzer
	w  Weights
	// K1 and B are the BM25 parameters (defaults BM25K1, BM25B).
	K1, B float64
	// Expand is the query weight of run-together name expansion (0: off).
	// Many names are lower-case words written together, which camelCase and
	// snake_case splitting cannot cut ("resetbuffer", "isasyncgenfunction").
	// Such a name is segmented into words the index has seen as parts of
	// split identifiers (fewest pieces wins: reset+buffer), and each query
	// word equal to a segment adds the name's term to the query with this
	// weight. Measured with bench search (search/README.md).
	Expand float64
	// NameBoost multiplies a unit's score by 1 + NameBoost × c, where c is
	// the fraction of its name's words that the query contains (run-together
	// names count by their segments). A function's name summarises it, so a
	// query that covers the name is strong evidence (0: off).
	NameBoost float64
	// Assoc, when set, expands queries with the name terms that the
	// repository's doc comments associate with the query's words (assoc.go).
	// The owner keeps it in step with the units (it needs their docs, which
	// the index may not see).
	Assoc *Assoc
	// ShortFields exempts the name and signature fields from length
	// normalisation (BM25F with b = 0 for them): a long body then no longer
	// dilutes a match in the unit's name.
	ShortFields bool
	// ContainerCover is the weight, in the name boost's coverage, of each
	// word of the unit's innermost container (its class or receiver type)
	// next to the name's own words (weight 1). A query that names the class
	// ("Returns the minimum of this BigInteger") then favours that class's
	// members over other classes' (0: the name alone). Constructors get no
	// name boost at all: their name is their class's, so covering it says
	// nothing about which member the query describes (a class unit keeps
	// its boost: there the name is the thing described).
	ContainerCover float64
	// NameB is the BM25F b of the name field (Robertson and Zaragoza 2009,
	// eq. 3.19: b per field): the name is length-normalised by its own
	// length against the average name length, not by the unit's whole
	// length, so a long body no longer dilutes a match in the name while a
	// name of many words still does (default DefaultNameB). Negative: the
	// name shares the unit's normalisation (b = B). With ShortFields the
	// signature is exempt and the name keeps NameB. Set it before the first
	// Upsert: it decides how terms are indexed.
	NameB float64
	// Synonyms is the query weight of each word that identifiers commonly
	// use for a query word (tokenize.Synonyms: "change" adds set, update
	// and replace; "call" adds invoke), added for terms the query does not
	// hold yet, neither its own nor the doc-mined expansion's (0: off). Such
	// a synonym covers a name word for the name boost at SynonymCover of a
	// query word's credit.
	Synonyms, SynonymCover float64

	mu       sync.RWMutex
	termIDs  map[string]int32
	postings [][]posting // by term id, doc numbers ascending
	// postRaw, for an index read from a snapshot, holds each term's
	// postings still encoded (postingsOf decodes on first use, under
	// postMu: a query reads a few dozen of 12,000 terms); "" once decoded.
	postRaw  []string
	postMu   sync.Mutex
	df       []int32   // alive documents per term
	docs     []bm25Doc // by doc number
	byID     map[string]int32
	totalLen float64 // over alive docs
	totalNL  float64 // name lengths over alive docs (NameB >= 0)
	alive    int
	surfaces map[string]*surface
	vocab    map[string]struct{} // lower-case parts of multi-part identifiers

	segMu    sync.Mutex
	segs     map[string][]string // segmentation cache of surfaces (nil: none)
	segVocab int                 // len(vocab) when segs was filled
}

// NewBM25 returns an empty index using the analyzer and field weights given.
func NewBM25(an tokenize.Analyzer, w Weights) *BM25 {
	return &BM25{an: an, w: w, K1: BM25K1, B: BM25B, Expand: DefaultExpand, NameBoost: DefaultNameBoost,
		ContainerCover: DefaultContainerCover, NameB: DefaultNameB,
		Synonyms: DefaultSynonyms, SynonymCover: DefaultSynonymCover,
		termIDs: map[string]int32{}, byID: map[string]int32{}, surfaces: map[string]*surface{},
		vocab: map[string]struct{}{}}
}

// Name implements Index.
func (x *BM25) Name() string { return "bm25" }

// Len implements Index.
func (x *BM25) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.alive
}

// analyze returns the weighted term frequencies of u (length-normalised
// fields, short fields, name with its own b) and the lengths of the
// length-normalised fields and of the name. It runs without the lock.
func (x *BM25) analyze(u *units.Unit, tf map[string][3]float32, surf *[]string) (length, nameLen float32) {
	tokenize.Words(u.Name, func(word string, parts []string) {
		w := strings.Trim(word, "_")
		if len(parts) == 1 && len(w) >= 6 && isLowerASCII(w) {
			*surf = append(*surf, w)
		}
	})
	fs := fields(u)
	for f, text := range fs {
		w := float32(x.w[f])
		if w == 0 || text == "" {
			continue
		}
		own := x.NameB >= 0 && Field(f) == FieldName
		short := x.ShortFields && (Field(f) == FieldName || Field(f) == FieldSignature)
		x.an.Each(text, func(term string, _ int) {
			v := tf[term]
			if own {
				v[2] += w
				nameLen += w
			} else if short {
				v[1] += w
			} else {
				v[0] += w
				length += w
			}
			tf[term] = v
		})
	}
	return length, nameLen
}

type analyzed struct {
	nName    int
	name     []string
	id       string
	tf       []termFreq
	len      float32
	nameLen  float32
	surfaces []string
	vocab    []string
}

// termFreq is one term of a unit and its weighted frequencies (analyze's
// three sums: length-normalised fields, short fields, name).
type termFreq struct {
	term string
	f    [3]float32
}

// maxReusedTerms bounds the terms of the map Upsert clears and reuses for
// the next unit: clearing a map costs its capacity, so one that a long unit
// grew is dropped instead.
const maxReusedTerms = 1024

func isLowerASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}

// Upsert implements Index.
func (x *BM25) Upsert(us []units.Unit) error {
	batch := make([]analyzed, len(us))
	// One map collects each unit's terms in turn; the batch keeps them as
	// slices (a map per unit, all alive until the batch is merged, cost
	// 4 KiB a unit: 250 MB for a generated file of 60,000 one-line methods).
	tf := make(map[string][3]float32, 64)
	for i := range us {
		if len(tf) > maxReusedTerms {
			tf = make(map[string][3]float32, 64)
		} else {
			clear(tf)
		}
		var surf []string
		l, nl := x.analyze(&us[i], tf, &surf)
		terms := make([]termFreq, 0, len(tf))
		for term, f := range tf {
			terms = append(terms, termFreq{term, f})
		}
		var vocab []string
		for _, text := range []string{us[i].Name, us[i].Signature, us[i].Code} {
			tokenize.Words(text, func(_ string, parts []string) {
				if len(parts) < 2 {
					return
				}
				for _, p := range parts {
					if len(p) >= 2 {
						vocab = append(vocab, strings.ToLower(p))
					}
				}
			})
		}
		var name []string
		if us[i].Kind == units.Constructor { // no name boost (see ContainerCover)
			batch[i] = analyzed{0, nil, us[i].ID, terms, l, nl, surf, vocab}
			continue
		}
		add := func(_ string, parts []string) {
			for _, p := range parts {
				p = strings.ToLower(p)
				if len(p) >= 2 && !tokenize.IsStopWord(p) {
					name = append(name, p)
				}
			}
		}
		tokenize.Words(us[i].Name, add)
		nName := len(name)
		if x.ContainerCover > 0 && us[i].Container != "" {
			c := us[i].Container
			if k := strings.LastIndexByte(c, '.'); k >= 0 {
				c = c[k+1:]
			}
			tokenize.Words(c, add)
		}
		batch[i] = analyzed{nName, name, us[i].ID, terms, l, nl, surf, vocab}
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, a := range batch {
		if old, ok := x.byID[a.id]; ok {
			x.kill(old)
		}
		n := int32(len(x.docs))
		for _, v := range a.vocab {
			x.vocab[v] = struct{}{}
		}
		d := bm25Doc{id: a.id, len: a.len, nameLen: a.nameLen, alive: true, terms: make([]int32, 0, len(a.tf)), surfaces: a.surfaces, name: a.name, nName: a.nName}
		for _, w := range a.surfaces {
			sf := x.surfaces[w]
			if sf == nil {
				term, _ := x.an.Part(w)
				sf = &surface{term: term}
				x.surfaces[w] = sf
			}
			sf.refs++
		}
		for _, tf := range a.tf {
			term, f := tf.term, tf.f
			t, ok := x.termIDs[term]
			if !ok {
				t = int32(len(x.postings))
				x.termIDs[term] = t
				x.postings = append(x.postings, nil)
				if x.postRaw != nil {
					x.postRaw = append(x.postRaw, "")
				}
				x.df = append(x.df, 0)
			}
			x.postings[t] = append(x.postingsOf(t), posting{n, f[0], f[1], f[2]})
			x.df[t]++
			d.terms = append(d.terms, t)
		}
		x.docs = append(x.docs, d)
		x.byID[a.id] = n
		x.totalLen += float64(a.len)
		x.totalNL += float64(a.nameLen)
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

// postingsOf returns term t's postings, decoding them if they are still
// encoded (postRaw). The caller holds x.mu, for reading or writing.
func (x *BM25) postingsOf(t int32) []posting {
	if x.postRaw == nil {
		return x.postings[t]
	}
	x.postMu.Lock()
	defer x.postMu.Unlock()
	if raw := x.postRaw[t]; raw != "" {
		x.postings[t] = decodePostings(raw, len(x.docs))
		x.postRaw[t] = ""
	}
	return x.postings[t]
}

// termIDs returns the doc's distinct term ids, decoding them if they are
// still encoded (ReadState checked them).
func (d *bm25Doc) termIDs() []int32 {
	if d.termsRaw == "" {
		return d.terms
	}
	dec := &binenc.Decoder{S: d.termsRaw}
	out := make([]int32, dec.Count(4))
	for i := range out {
		out[i] = dec.I32()
	}
	return out
}

// termIDsIn returns the doc's term ids below n (ids read from a damaged
// snapshot may not be: they are dropped rather than trusted).
func (d *bm25Doc) termIDsIn(n int) []int32 {
	ts := d.termIDs()
	out := ts[:0:0]
	for _, t := range ts {
		if t >= 0 && int(t) < n {
			out = append(out, t)
		}
	}
	return out
}

// kill marks doc n dead (its postings stay until the next compaction).
func (x *BM25) kill(n int32) {
	d := &x.docs[n]
	if !d.alive {
		return
	}
	d.alive = false
	for _, t := range d.termIDsIn(len(x.df)) {
		x.df[t]--
	}
	d.terms, d.termsRaw = nil, ""
	for _, w := range d.surfaces {
		if sf := x.surfaces[w]; sf != nil {
			if sf.refs--; sf.refs <= 0 {
				delete(x.surfaces, w)
			}
		}
	}
	d.surfaces = nil
	x.totalLen -= float64(d.len)
	x.totalNL -= float64(d.nameLen)
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
	for t := range x.postings {
		ps := x.postingsOf(int32(t))
		out := ps[:0]
		for _, p := range ps {
			if r := renum[p.doc]; r >= 0 {
				out = append(out, posting{r, p.tf, p.tfs, p.tfn})
			}
		}
		x.postings[t] = out
	}
	x.docs = docs
}

// Search implements Index.
func (x *BM25) Search(ctx context.Context, query string, k int) ([]Hit, error) {
	return x.SearchExcluding(ctx, query, k, nil)
}

// SearchExcluding is Search with the docs of the units named in exclude
// left out of the statistics mined from doc comments (Assoc): the
// benchmark's target must not inform its own query's expansion.
func (x *BM25) SearchExcluding(ctx context.Context, query string, k int, exclude []string) ([]Hit, error) {
	qw := map[string]float64{}
	var qterms []string
	x.an.Each(query, func(term string, _ int) {
		if qw[term] == 0 {
			qterms = append(qterms, term)
		}
		qw[term]++
	})
	if len(qw) == 0 || k <= 0 {
		return nil, nil
	}
	if x.Assoc != nil {
		for t, m := range x.Assoc.Reweight(qterms, exclude) {
			qw[t] *= m
		}
		for t, w := range x.Assoc.Expand(qterms, exclude) {
			qw[t] += w
		}
	}
	syn := x.synonymTerms(query, qw)
	for t := range syn {
		qw[t] += x.Synonyms
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	if x.alive == 0 {
		return nil, nil
	}
	words := x.queryWords(query)
	var extra map[string][]int32
	if x.Expand > 0 || x.NameBoost > 0 {
		extra = x.expand(words)
	}
	n := float64(x.alive)
	avgdl := x.totalLen / n
	avgnl := x.totalNL / n
	acc := make([]float32, len(x.docs))
	cov := make([]float64, len(x.docs)) // idf of the query's own terms each doc contains
	own := make(map[string]bool, len(qterms))
	var idfSum float64
	for _, t := range qterms {
		own[t] = true
		df := 0.0
		if id, ok := x.termIDs[t]; ok {
			df = float64(x.df[id])
		}
		idfSum += math.Log(1 + (n-df+0.5)/(df+0.5))
	}
	var touched []int32
	// BM25F (Robertson and Zaragoza 2009, eq. 3.19-3.20): the pseudo term
	// frequency is the short fields' plus the name's and the others'
	// divided by their length normalisations, then saturated with k1.
	add := func(doc int32, idf float64, q float64, tf, tfs, tfn float32) {
		d := &x.docs[doc]
		norm := float32(1 - x.B + x.B*float64(d.len)/avgdl)
		if acc[doc] == 0 {
			touched = append(touched, doc)
		}
		t := tfs + tf/norm
		if tfn != 0 {
			t += tfn / float32(1-x.NameB+x.NameB*float64(d.nameLen)/avgnl)
		}
		acc[doc] += float32(idf*q*(x.K1+1)) * t / (t + float32(x.K1))
	}
	for term, q := range qw {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		t, ok := x.termIDs[term]
		if ex := extra[term]; len(ex) > 0 {
			// The term's own postings plus those of the run-together names
			// that contain it, as if those names had been split.
			tfs := map[int32][3]float32{}
			if ok {
				for _, p := range x.postingsOf(t) {
					if x.docs[p.doc].alive {
						v := tfs[p.doc]
						v[0] += p.tf
						v[1] += p.tfs
						v[2] += p.tfn
						tfs[p.doc] = v
					}
				}
			}
			for _, e := range ex {
				if x.Expand == 0 {
					break
				}
				for _, p := range x.postingsOf(e) {
					if x.docs[p.doc].alive {
						v := tfs[p.doc]
						v[0] += float32(x.Expand) * p.tf
						v[1] += float32(x.Expand) * p.tfs
						v[2] += float32(x.Expand) * p.tfn
						tfs[p.doc] = v
					}
				}
			}
			df := float64(len(tfs))
			idf := math.Log(1 + (n-df+0.5)/(df+0.5))
			for doc, tf := range tfs {
				add(doc, idf, q, tf[0], tf[1], tf[2])
				if own[term] {
					cov[doc] += termIDF(n, x.df, t, ok)
				}
			}
			continue
		}
		if !ok || x.df[t] == 0 {
			continue
		}
		df := float64(x.df[t])
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for _, p := range x.postingsOf(t) {
			if x.docs[p.doc].alive {
				add(p.doc, idf, q, p.tf, p.tfs, p.tfn)
				if own[term] {
					cov[p.doc] += idf
				}
			}
		}
	}
	if x.NameBoost > 0 {
		terms := make(map[string]bool, len(qterms))
		for _, t := range qterms { // the query's own terms, not expansions
			terms[t] = true
		}
		x.segMu.Lock()
		memo := map[string]float64{} // name parts repeat across units: stem each once per query
		for _, doc := range touched {
			if c := x.nameCoverage(&x.docs[doc], words, terms, syn, memo); c > 0 {
				acc[doc] *= float32(1 + x.NameBoost*c)
			}
		}
		x.segMu.Unlock()
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
		out[i] = Hit{ID: x.docs[s.doc].id, Score: float64(s.score)}
		if idfSum > 0 {
			out[i].Match = min(1, cov[s.doc]/idfSum)
		}
	}
	return out, nil
}

// termIDF is the idf of term id t as idfSum counts it (df 0 when the term
// is not in the index: a run-together name's segment).
func termIDF(n float64, df []int32, t int32, ok bool) float64 {
	d := 0.0
	if ok {
		d = float64(df[t])
	}
	return math.Log(1 + (n-d+0.5)/(d+0.5))
}

// queryWords maps the lower-case words of a query (and the singular of
// plurals) to their terms.
func (x *BM25) queryWords(query string) map[string]string {
	words := map[string]string{}
	tokenize.Words(query, func(_ string, parts []string) {
		for _, p := range parts {
			p = strings.ToLower(p)
			term, ok := x.an.Part(p)
			if len(p) < 3 || !ok {
				continue
			}
			words[p] = term
			if len(p) > 4 && strings.HasSuffix(p, "s") {
				words[strings.TrimSuffix(p, "s")] = term // "buffers" meets "resetbuffer"
			}
		}
	})
	return words
}

// synonymTerms returns the terms of the synonyms of the query's words
// (tokenize.Synonyms) that the weighted query qw does not hold yet (its own
// terms and the doc-mined expansion's), when Synonyms > 0. A synonym that the analyzer drops as a stop word ("is",
// "to") is kept lower-case, as the analyzer keeps it inside a multi-part
// identifier ("isEmpty", "toArray").
func (x *BM25) synonymTerms(query string, qw map[string]float64) map[string]bool {
	if x.Synonyms <= 0 {
		return nil
	}
	out := map[string]bool{}
	tokenize.Words(query, func(_ string, parts []string) {
		for _, p := range parts {
			for _, w := range tokenize.Synonyms(strings.ToLower(p)) {
				t, ok := x.an.Part(w)
				if !ok {
					if t = strings.ToLower(w); len(t) < max(2, x.an.MinLen) {
						continue
					}
				}
				if _, own := qw[t]; !own {
					out[t] = true
				}
			}
		}
	})
	return out
}

// nameCoverage is the weighted fraction of a unit's name words (run-together
// names: their segments; container words weigh ContainerCover) that are
// query words, share their term, or are abbreviations of a query word
// ("min" for "minimum", tokenize.Expansion); a word covered by a synonym
// of a query word (syn) counts SynonymCover. The caller holds segMu.
func (x *BM25) nameCoverage(d *bm25Doc, words map[string]string, terms, syn map[string]bool, memo map[string]float64) float64 {
	var total, hit float64
	for i, w := range d.name {
		wt := 1.0
		if i >= d.nName {
			wt = x.ContainerCover
		}
		segs := x.segs[w]
		if len(segs) == 0 {
			segs = []string{w}
		}
		for _, s := range segs {
			if tokenize.IsStopWord(s) {
				continue
			}
			total += wt
			c, ok := memo[s]
			if !ok {
				switch {
				case x.covers(s, words, terms):
					c = 1
				case len(syn) > 0 && x.SynonymCover > 0 && x.covers(s, nil, syn):
					c = x.SynonymCover
				}
				if memo != nil {
					memo[s] = c
				}
			}
			hit += wt * c
		}
	}
	if total == 0 {
		return 0
	}
	return hit / total
}

// covers says whether the query holds the name part s: as a word, as a
// term (stemmed), or through one of s's abbreviation expansions.
func (x *BM25) covers(s string, words map[string]string, terms map[string]bool) bool {
	if _, ok := words[s]; ok {
		return true
	}
	if t, ok := x.an.Part(s); ok && terms[t] {
		return true
	}
	for _, w := range tokenize.Expansion(s) {
		if t, ok := x.an.Part(w); ok && terms[t] {
			return true
		}
	}
	return false
}

// expand maps query terms to the terms of run-together names that contain
// the query word as a segment (see BM25.Expand), filling the segmentation
// cache. The caller holds the read lock.
func (x *BM25) expand(words map[string]string) map[string][]int32 {
	if len(words) == 0 {
		return nil
	}
	x.segMu.Lock()
	defer x.segMu.Unlock()
	if x.segs == nil || len(x.vocab) > x.segVocab+x.segVocab/100 {
		x.segs, x.segVocab = map[string][]string{}, len(x.vocab)
	}
	out := map[string][]int32{}
	for s, sf := range x.surfaces {
		segs, ok := x.segs[s]
		if !ok {
			segs = x.segment(s)
			x.segs[s] = segs
		}
		t, ok := x.termIDs[sf.term]
		if !ok {
			continue
		}
		for _, seg := range segs {
			if term, ok := words[seg]; ok {
				out[term] = append(out[term], t)
			}
		}
	}
	return out
}

// segment cuts a run-together name into the fewest vocabulary words of two
// or more letters; nil when the name is a vocabulary word itself or cannot
// be covered by two or more of them.
func (x *BM25) segment(s string) []string {
	if _, ok := x.vocab[s]; ok {
		return nil
	}
	n := len(s)
	best := make([]int, n+1) // fewest pieces covering s[:i]; -1: impossible
	from := make([]int, n+1)
	for i := 1; i <= n; i++ {
		best[i] = -1
		for j := max(0, i-20); j <= i-2; j++ {
			if best[j] < 0 {
				continue
			}
			if _, ok := x.vocab[s[j:i]]; ok && (best[i] < 0 || best[j]+1 < best[i]) {
				best[i], from[i] = best[j]+1, j
			}
		}
	}
	if best[n] < 2 {
		return nil
	}
	var out []string
	for i := n; i > 0; i = from[i] {
		out = append(out, s[from[i]:i])
	}
	return out
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
