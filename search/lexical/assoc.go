package lexical

// assoc.go learns, from the repository's own doc comments, which name terms
// the words of a description predict ("remove" -> del, pop, discard), and
// expands lexical queries with them. This is query expansion with a
// translation model (Berger and Lafferty, "Information Retrieval as
// Statistical Translation", SIGIR 1999) estimated from the repository itself,
// RepoRift's "information injection" of repository context (Jain et al.
// 2024) without a model: the documented units are the parallel corpus,
// their doc words the source language, their name terms the target.

import (
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/repilot-lsp/repilot-lsp/search/binenc"
	"github.com/repilot-lsp/repilot-lsp/search/tokenize"
	"github.com/repilot-lsp/repilot-lsp/search/units"
)

// Defaults of Assoc (tuned on a Go standard library subset only, never on
// the reported Python or Java code bases: search/README.md).
const (
	DefaultAssocWeight  = 0.5 // query weight of all expansions of one query word together
	DefaultAssocMinPair = 2   // documented units that must share a word and a term
	DefaultAssocTop     = 4   // expansion terms per query word
	DefaultAssocLift    = 2.0 // P(term | word) / P(term) at least this
	// DefaultAssocReweight is the exponent of the query-word reweighting
	// (Assoc.SelfExp), with the multiplier clipped to
	// [DefaultAssocReweightMin, DefaultAssocReweightMax] before.
	DefaultAssocReweight    = 0.5
	DefaultAssocReweightMin = 0.25
	DefaultAssocReweightMax = 2.0
)

// Assoc is a co-occurrence model of doc words and name terms over the
// documented units of a workspace. Each unit counts once per (word, term)
// pair (document frequencies, not term frequencies). It is safe for
// concurrent use.
//
// Expansions never use the doc comments of the units excluded at query
// time: their contribution is subtracted from the counts, which is exactly
// the model that would have been learned without them (leave-one-out). The
// benchmark excludes each query's target, whose doc is the query.
type Assoc struct {
	an tokenize.Analyzer
	// Weight is the total query weight of one query word's expansions
	// (0: off); each expansion term gets Weight × P(term | word) /
	// Σ P(term' | word) over the word's kept expansions.
	Weight float64
	// MinPair is the least number of documented units in which a word and
	// a term co-occur for the pair to count.
	MinPair int
	// Top is the number of expansion terms kept per query word.
	Top int
	// Lift is the least P(term | word) / P(term) of a kept pair.
	Lift float64
	// SelfExp, SelfMin and SelfMax shape Reweight (SelfExp 0: off).
	SelfExp, SelfMin, SelfMax float64
	// Sentence restricts the doc words to the doc's first sentence.
	Sentence bool

	mu    sync.RWMutex
	units map[string]assocUnit
	nw    map[string]int32            // documented units whose doc has the word
	nt    map[string]int32            // documented units whose name has the term
	nwt   map[string]map[string]int32 // units with both
	// A model read from a snapshot keeps each unit and each word's nwt
	// encoded (package binenc) until it is used: a warm CLI run reads a few
	// words' pairs, not the 190,000 of a 10,000-unit code base. A key is
	// in the decoded map or in the raw one, never both.
	unitsRaw     map[string]string // unit ID -> its words, terms and self (strs, strs, strs)
	nwtRaw       map[string]string // word -> its pairs (counts)
	nself        map[string]int32  // units whose doc and code both have the word
	selfN, selfD int64             // Σ nself, Σ nw: the prior rate

	candMu sync.Mutex
	cands  map[string][]assocCand // per word, pairs with count >= MinPair, count descending; reset by add
	n      int32                  // documented units
}

type assocCand struct {
	t string
	c int32 // units with the word and the term
}

type assocUnit struct {
	words, terms []string // distinct, sorted
	self         []string // doc words that are also terms of the unit's code (sorted)
}

// NewAssoc returns an empty model using the analyzer an (the lexical
// index's, so that expansion terms are index terms) and the defaults.
func NewAssoc(an tokenize.Analyzer) *Assoc {
	return &Assoc{an: an, Weight: DefaultAssocWeight, MinPair: DefaultAssocMinPair, Top: DefaultAssocTop,
		Lift: DefaultAssocLift, SelfExp: DefaultAssocReweight, SelfMin: DefaultAssocReweightMin, SelfMax: DefaultAssocReweightMax,
		units: map[string]assocUnit{}, nw: map[string]int32{}, nt: map[string]int32{}, nwt: map[string]map[string]int32{}, nself: map[string]int32{},
		unitsRaw: map[string]string{}, nwtRaw: map[string]string{}}
}

// distinct returns the sorted distinct terms of texts.
func (a *Assoc) distinct(texts ...string) []string {
	set := map[string]struct{}{}
	for _, t := range texts {
		a.an.Each(t, func(term string, _ int) { set[term] = struct{}{} })
	}
	out := make([]string, 0, len(set))
	for t := range set {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// Upsert adds the units (their docs and names), replacing those with the
// same ID; units without a doc only remove an older version.
func (a *Assoc) Upsert(us []units.Unit) {
	type prepared struct {
		id string
		u  assocUnit
	}
	batch := make([]prepared, 0, len(us))
	for i := range us {
		u := &us[i]
		var au assocUnit
		if doc := strings.TrimSpace(u.Doc); doc != "" {
			if a.Sentence {
				doc = units.FirstSentence(doc)
			}
			au.words = a.distinct(doc)
			code := map[string]bool{}
			for _, t := range []string{u.Name, u.Signature, u.Code} {
				a.an.Each(t, func(term string, _ int) { code[term] = true })
			}
			for _, w := range au.words {
				if code[w] {
					au.self = append(au.self, w)
				}
			}
			au.terms = a.distinct(u.Name)
		}
		batch = append(batch, prepared{u.ID, au})
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, p := range batch {
		a.remove(p.id)
		if len(p.u.words) == 0 || len(p.u.terms) == 0 {
			continue
		}
		a.units[p.id] = p.u
		a.add(p.u, 1)
	}
}

// Delete removes units by ID.
func (a *Assoc) Delete(ids []string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, id := range ids {
		a.remove(id)
	}
}

func (a *Assoc) remove(id string) {
	if old, ok := a.unit(id); ok {
		a.add(old, -1)
		delete(a.units, id)
		delete(a.unitsRaw, id)
	}
}

// excluded returns the units of the model named in ids (those it has), whose
// docs a query leaves out. The caller holds a.mu.
func (a *Assoc) excluded(ids []string) []assocUnit {
	var ex []assocUnit
	for _, id := range ids {
		if u, ok := a.unit(id); ok {
			ex = append(ex, u)
		}
	}
	return ex
}

// contains reports whether the sorted s holds x (an assocUnit's words,
// terms or self).
func contains(s []string, x string) bool {
	_, ok := slices.BinarySearch(s, x)
	return ok
}

// unit returns a unit of the model, decoding it if it is still encoded
// (without keeping the decoded copy: the caller may hold a.mu for reading
// only).
func (a *Assoc) unit(id string) (assocUnit, bool) {
	if u, ok := a.units[id]; ok {
		return u, true
	}
	raw, ok := a.unitsRaw[id]
	if !ok {
		return assocUnit{}, false
	}
	d := &binenc.Decoder{S: raw}
	return assocUnit{words: d.Strs(), terms: d.Strs(), self: d.Strs()}, true
}

// pairs returns the word's nwt map for changing it, decoding it first if it
// is still encoded; nil when the word has none. The caller holds a.mu.
func (a *Assoc) pairs(w string) map[string]int32 {
	if m := a.nwt[w]; m != nil {
		return m
	}
	raw, ok := a.nwtRaw[w]
	if !ok {
		return nil
	}
	m := decodeCounts(&binenc.Decoder{S: raw})
	a.nwt[w] = m
	delete(a.nwtRaw, w)
	return m
}

// eachPair calls f for each term paired with the word and its count,
// reading an encoded word without decoding it into a map (the caller may
// hold a.mu for reading only).
func (a *Assoc) eachPair(w string, f func(t string, c int32)) {
	if m := a.nwt[w]; m != nil {
		for t, c := range m {
			f(t, c)
		}
		return
	}
	if raw, ok := a.nwtRaw[w]; ok {
		d := &binenc.Decoder{S: raw}
		for n := d.Count(5); n > 0; n-- {
			t := d.Str()
			f(t, d.I32())
		}
	}
}

func (a *Assoc) add(u assocUnit, d int32) {
	a.candMu.Lock()
	a.cands = nil
	a.candMu.Unlock()
	a.n += d
	for _, w := range u.self {
		if a.nself[w] += d; a.nself[w] <= 0 {
			delete(a.nself, w)
		}
	}
	a.selfN += int64(d) * int64(len(u.self))
	a.selfD += int64(d) * int64(len(u.words))
	for _, t := range u.terms {
		a.nt[t] += d
	}
	for _, w := range u.words {
		a.nw[w] += d
		m := a.pairs(w)
		if m == nil {
			m = map[string]int32{}
			a.nwt[w] = m
		}
		for _, t := range u.terms {
			if m[t] += d; m[t] <= 0 {
				delete(m, t)
			}
		}
		if a.nw[w] <= 0 {
			delete(a.nw, w)
			delete(a.nwt, w)
			delete(a.nwtRaw, w)
		}
	}
}

// Len is the number of documented units in the model.
func (a *Assoc) Len() int {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return int(a.n)
}

// Expand returns the expansion terms of the query terms with their query
// weights (terms of the query itself are not returned), leaving out the
// docs of the units named in exclude. Nil when Weight is 0.
func (a *Assoc) Expand(queryTerms []string, exclude []string) map[string]float64 {
	if a.Weight <= 0 || len(queryTerms) == 0 {
		return nil
	}
	a.mu.RLock()
	defer a.mu.RUnlock()
	ex := a.excluded(exclude)
	inQuery := map[string]bool{}
	for _, q := range queryTerms {
		inQuery[q] = true
	}
	n := float64(a.n) - float64(len(ex))
	if n <= 0 {
		return nil
	}
	type cand struct {
		t string
		p float64
	}
	out := map[string]float64{}
	seen := map[string]bool{}
	for _, w := range queryTerms {
		if seen[w] {
			continue
		}
		seen[w] = true
		nw := float64(a.nw[w])
		var exw []assocUnit
		for _, u := range ex {
			if contains(u.words, w) {
				nw--
				exw = append(exw, u)
			}
		}
		if nw < float64(a.MinPair) {
			continue
		}
		var cs []cand
		for _, pc := range a.candidates(w) {
			if len(cs) >= a.Top && float64(pc.c)/nw < cs[a.Top-1].p {
				break // counts only fall from here, and exclusion only lowers them
			}
			t := pc.t
			if inQuery[t] {
				continue
			}
			nt := float64(a.nt[t])
			cf := float64(pc.c)
			for _, u := range exw {
				if contains(u.terms, t) {
					cf--
				}
			}
			for _, u := range ex {
				if contains(u.terms, t) {
					nt--
				}
			}
			if cf < float64(a.MinPair) || nt <= 0 {
				continue
			}
			p := cf / nw
			if p/(nt/n) < a.Lift {
				continue
			}
			cs = append(cs, cand{t, p})
			sort.SliceStable(cs, func(i, j int) bool { return cs[i].p > cs[j].p })
		}
		sort.Slice(cs, func(i, j int) bool {
			if cs[i].p != cs[j].p {
				return cs[i].p > cs[j].p
			}
			return cs[i].t < cs[j].t
		})
		if len(cs) > a.Top {
			cs = cs[:a.Top]
		}
		sum := 0.0
		for _, c := range cs {
			sum += c.p
		}
		for _, c := range cs {
			out[c.t] += a.Weight * c.p / math.Max(sum, 1)
		}
	}
	return out
}

// Reweight returns a multiplier for each query term that the docs have
// seen: how much more (or less) often than the average doc word the word
// also occurs in the code of the unit it documents, clipped to
// [SelfMin, SelfMax] and raised to SelfExp. Doc boilerplate ("specified",
// "returns", "given") rarely meets the code it describes and loses weight;
// words that name what the code does keep it. Units in exclude are left out.
func (a *Assoc) Reweight(queryTerms []string, exclude []string) map[string]float64 {
	if a.SelfExp <= 0 {
		return nil
	}
	a.mu.RLock()
	defer a.mu.RUnlock()
	ex := a.excluded(exclude)
	num, den := float64(a.selfN), float64(a.selfD)
	for _, u := range ex {
		num -= float64(len(u.self))
		den -= float64(len(u.words))
	}
	if den <= 0 || num <= 0 {
		return nil
	}
	p0 := num / den
	out := map[string]float64{}
	for _, w := range queryTerms {
		nw, ns := float64(a.nw[w]), float64(a.nself[w])
		for _, u := range ex {
			if contains(u.words, w) {
				nw--
			}
			if contains(u.self, w) {
				ns--
			}
		}
		if nw <= 0 {
			continue
		}
		const prior = 3 // pseudo-counts of the average rate
		p := (ns + prior*p0) / (nw + prior)
		r := math.Min(math.Max(p/p0, a.SelfMin), a.SelfMax)
		out[w] = math.Pow(r, a.SelfExp)
	}
	return out
}

// candidates returns the word's pairs with at least MinPair units, count
// descending (ties by term), computing them once per model version. The
// caller holds a.mu for reading.
func (a *Assoc) candidates(w string) []assocCand {
	a.candMu.Lock()
	defer a.candMu.Unlock()
	if a.cands == nil {
		a.cands = map[string][]assocCand{}
	}
	if cs, ok := a.cands[w]; ok {
		return cs
	}
	var cs []assocCand
	a.eachPair(w, func(t string, c int32) {
		if int(c) >= a.MinPair {
			cs = append(cs, assocCand{t, c})
		}
	})
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].c != cs[j].c {
			return cs[i].c > cs[j].c
		}
		return cs[i].t < cs[j].t
	})
	a.cands[w] = cs
	return cs
}
