package lexical

// snapshot.go writes an index's state to disk and reads it back, so that a
// warm CLI run skips analysing every unit again (the analysis is most of a
// warm build: search/README.md). The snapshot holds the analysed state,
// not the parameters: the caller keys it by everything that shapes the
// analysis (the units and the tuning) and sets the parameters as usual.

import (
	"bufio"
	"bytes"
	"io"
	"math"

	"github.com/repilot-lsp/repilot-lsp/search/binenc"
)

// WriteState writes the index's analysed state (package binenc): per term its
// text, df and postings; per document its fields; the run-together
// surfaces and the vocabulary.
func (x *BM25) WriteState(w io.Writer) error {
	x.mu.RLock()
	defer x.mu.RUnlock()
	terms := make([]string, len(x.postings))
	for term, t := range x.termIDs {
		if int(t) < len(terms) {
			terms[t] = term
		}
	}
	e := &binenc.Encoder{W: bufio.NewWriter(w)}
	e.Int(len(terms))
	var block bytes.Buffer
	for t, term := range terms {
		e.Str(term)
		df := int32(0)
		if t < len(x.df) {
			df = x.df[t]
		}
		e.I32(df)
		// Each term's postings are one string, so that a reader can keep
		// them encoded until a query needs them (BM25.postingsOf).
		if x.postRaw != nil && x.postRaw[t] != "" {
			e.Str(x.postRaw[t]) // as read: the same encoding
			continue
		}
		block.Reset()
		if err := encodePostings(&block, x.postings[t]); err != nil {
			return err
		}
		e.Int(block.Len())
		e.W.Write(block.Bytes())
	}
	e.F64(x.totalLen)
	e.F64(x.totalNL)
	e.Int(x.alive)
	e.Int(len(x.docs))
	for _, d := range x.docs {
		e.Str(d.id)
		e.F32(d.len)
		e.F32(d.nameLen)
		if d.termsRaw != "" {
			e.Str(d.termsRaw) // as read: the same encoding
		} else {
			block.Reset()
			be := &binenc.Encoder{W: bufio.NewWriter(&block)}
			be.I32s(d.terms)
			be.W.Flush()
			e.Int(block.Len())
			e.W.Write(block.Bytes())
		}
		e.Strs(d.surfaces)
		e.Strs(d.name)
		e.Int(d.nName)
		e.Bool(d.alive)
	}
	e.Int(len(x.surfaces))
	for w, sf := range x.surfaces {
		e.Str(w)
		e.Str(sf.term)
		e.Int(sf.refs)
	}
	e.Int(len(x.vocab))
	for v := range x.vocab {
		e.Str(v)
	}
	return e.W.Flush()
}

// ReadState replaces the index's state with one WriteState wrote at the
// start of data and returns the rest of data. The strings of the state
// are substrings of data. The index must have been made with the same
// analyzer, weights, NameB and ShortFields, and ContainerCover as the one
// written (the caller's key). A damaged state is an error and leaves the
// index as it was.
func (x *BM25) ReadState(data string) (string, error) {
	d := &binenc.Decoder{S: data}
	// Each count is checked against the fewest bytes an item takes (a term:
	// text, df and postings, 6; a document, 14), so that a damaged count
	// allocates at most a few times the file's size.
	nTerms := d.Count(6)
	termIDs := make(map[string]int32, nTerms)
	postings := make([][]posting, nTerms)
	postRaw := make([]string, nTerms)
	df := make([]int32, nTerms)
	for t := 0; t < nTerms && d.Err == nil; t++ {
		termIDs[d.Str()] = int32(t)
		df[t] = d.I32()
		postRaw[t] = d.Str()
	}
	totalLen, totalNL := d.F64(), d.F64()
	alive := d.Int()
	nDocs := d.Count(14)
	docs := make([]bm25Doc, nDocs)
	byID := make(map[string]int32, nDocs)
	for i := 0; i < nDocs && d.Err == nil; i++ {
		doc := &docs[i]
		doc.id = d.Str()
		doc.len, doc.nameLen = d.F32(), d.F32()
		// The term ids are needed only to delete the doc: decoded then
		// (bm25Doc.termIDsIn, which drops ids out of range).
		doc.termsRaw = d.Str()
		doc.surfaces = d.Strs()
		doc.name = d.Strs()
		doc.nName = d.Int()
		doc.alive = d.Bool()
		if doc.alive {
			byID[doc.id] = int32(i)
		}
	}
	nSurf := d.Count(3)
	surfaces := make(map[string]*surface, nSurf)
	for i := 0; i < nSurf && d.Err == nil; i++ {
		w := d.Str()
		surfaces[w] = &surface{term: d.Str(), refs: d.Int()}
	}
	nVocab := d.Count(1)
	vocab := make(map[string]struct{}, nVocab)
	for i := 0; i < nVocab && d.Err == nil; i++ {
		vocab[d.Str()] = struct{}{}
	}
	if d.Err != nil {
		return "", d.Err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.termIDs, x.postings, x.postRaw, x.df, x.docs, x.byID = termIDs, postings, postRaw, df, docs, byID
	x.totalLen, x.totalNL, x.alive, x.surfaces, x.vocab = totalLen, totalNL, alive, surfaces, vocab
	x.segMu.Lock()
	x.segs, x.segVocab = nil, 0
	x.segMu.Unlock()
	return d.Rest(), nil
}

// Reset empties the index (its parameters stay).
func (x *BM25) Reset() {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.termIDs, x.postings, x.postRaw, x.df, x.docs, x.byID = map[string]int32{}, nil, nil, nil, nil, map[string]int32{}
	x.totalLen, x.totalNL, x.alive, x.surfaces, x.vocab = 0, 0, 0, map[string]*surface{}, map[string]struct{}{}
	x.segMu.Lock()
	x.segs, x.segVocab = nil, 0
	x.segMu.Unlock()
}

type stateError string

func (e stateError) Error() string { return string(e) }

const errBadState = stateError("lexical: the saved index state is inconsistent")

// WriteState writes the model's units and counts (package binenc).
func (a *Assoc) WriteState(w io.Writer) error {
	a.mu.RLock()
	defer a.mu.RUnlock()
	e := &binenc.Encoder{W: bufio.NewWriter(w)}
	e.Uvarint(uint64(a.n))
	e.Uvarint(uint64(a.selfN))
	e.Uvarint(uint64(a.selfD))
	e.Int(len(a.units) + len(a.unitsRaw))
	for id, u := range a.units {
		e.Str(id)
		e.Strs(u.words)
		e.Strs(u.terms)
		e.Strs(u.self)
	}
	for id, raw := range a.unitsRaw {
		e.Str(id)
		e.W.WriteString(raw) // still as it was read: the same encoding
	}
	counts := func(m map[string]int32) {
		e.Int(len(m))
		for k, v := range m {
			e.Str(k)
			e.I32(v)
		}
	}
	counts(a.nw)
	counts(a.nt)
	counts(a.nself)
	e.Int(len(a.nwt) + len(a.nwtRaw))
	for w, m := range a.nwt {
		e.Str(w)
		counts(m)
	}
	for w, raw := range a.nwtRaw {
		e.Str(w)
		e.W.WriteString(raw)
	}
	return e.W.Flush()
}

func decodeCounts(d *binenc.Decoder) map[string]int32 {
	n := d.Count(5)
	m := make(map[string]int32, n)
	for i := 0; i < n && d.Err == nil; i++ {
		k := d.Str()
		m[k] = d.I32()
	}
	return m
}

// ReadState replaces the model's units and counts with those WriteState
// wrote at the start of data and returns the rest of data (the strings are
// substrings of data; the caller keys the state by the units and the
// analyzer). Units and pairs stay encoded until used (Assoc.unitsRaw);
// their structure is checked here. A damaged state is an error and leaves
// the model as it was.
func (a *Assoc) ReadState(data string) (string, error) {
	d := &binenc.Decoder{S: data}
	n := d.Uvarint()
	selfN, selfD := d.Uvarint(), d.Uvarint()
	if n > math.MaxInt32 || selfN > math.MaxInt64 || selfD > math.MaxInt64 {
		d.Fail()
	}
	skipStrs := func() {
		for k := d.Count(1); k > 0; k-- {
			d.Str()
		}
	}
	nUnits := d.Count(4)
	unitsRaw := make(map[string]string, nUnits)
	for i := 0; i < nUnits && d.Err == nil; i++ {
		id := d.Str()
		unitsRaw[id] = d.Skip(func() { skipStrs(); skipStrs(); skipStrs() })
	}
	nw, nt, nself := decodeCounts(d), decodeCounts(d), decodeCounts(d)
	nWords := d.Count(2)
	nwtRaw := make(map[string]string, nWords)
	for i := 0; i < nWords && d.Err == nil; i++ {
		w := d.Str()
		nwtRaw[w] = d.Skip(func() {
			for k := d.Count(5); k > 0; k-- {
				d.Str()
				d.I32()
			}
		})
	}
	if d.Err != nil {
		return "", d.Err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.units, a.unitsRaw, a.nw, a.nt, a.nself = map[string]assocUnit{}, unitsRaw, nw, nt, nself
	a.nwt, a.nwtRaw = map[string]map[string]int32{}, nwtRaw
	a.selfN, a.selfD, a.n = int64(selfN), int64(selfD), int32(n)
	a.candMu.Lock()
	a.cands = nil
	a.candMu.Unlock()
	return d.Rest(), nil
}

// Reset empties the model (its parameters stay).
func (a *Assoc) Reset() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.units, a.nw, a.nt = map[string]assocUnit{}, map[string]int32{}, map[string]int32{}
	a.nwt, a.nself = map[string]map[string]int32{}, map[string]int32{}
	a.unitsRaw, a.nwtRaw = map[string]string{}, map[string]string{}
	a.selfN, a.selfD, a.n = 0, 0, 0
	a.candMu.Lock()
	a.cands = nil
	a.candMu.Unlock()
}

// encodePostings writes a term's postings: their count, then per posting
// the gap to the previous doc number times 8 plus which of the three
// frequencies follow (most postings carry one), then those frequencies.
func encodePostings(w *bytes.Buffer, ps []posting) error {
	e := &binenc.Encoder{W: bufio.NewWriter(w)}
	e.Int(len(ps))
	prev := int32(-1)
	for _, p := range ps {
		flags := uint64(0)
		if p.tf != 0 {
			flags |= 1
		}
		if p.tfs != 0 {
			flags |= 2
		}
		if p.tfn != 0 {
			flags |= 4
		}
		gap := int64(p.doc) - int64(prev)
		if gap <= 0 {
			return errBadState // postings out of order: never written by Upsert
		}
		e.Uvarint(uint64(gap)<<3 | flags)
		prev = p.doc
		if flags&1 != 0 {
			e.F32(p.tf)
		}
		if flags&2 != 0 {
			e.F32(p.tfs)
		}
		if flags&4 != 0 {
			e.F32(p.tfn)
		}
	}
	return e.W.Flush()
}

// decodePostings reads what encodePostings wrote. Postings of a damaged
// block are dropped from the first one that does not fit (a doc number
// not below nDocs, or bytes missing), never trusted.
func decodePostings(raw string, nDocs int) []posting {
	d := &binenc.Decoder{S: raw}
	n := d.Count(1)
	out := make([]posting, 0, n)
	doc := int64(-1)
	for i := 0; i < n; i++ {
		v := d.Uvarint()
		doc += int64(v >> 3)
		if v>>3 == 0 || doc >= int64(nDocs) {
			break
		}
		p := posting{doc: int32(doc)}
		if v&1 != 0 {
			p.tf = d.F32()
		}
		if v&2 != 0 {
			p.tfs = d.F32()
		}
		if v&4 != 0 {
			p.tfn = d.F32()
		}
		if d.Err != nil {
			break
		}
		out = append(out, p)
	}
	return out
}
