package lexical

// snapshot.go writes an index's state to disk and reads it back, so that a
// warm CLI run skips analysing every unit again (the analysis is most of a
// warm build: search/README.md). The snapshot holds the analysed state,
// not the parameters: the caller keys it by everything that shapes the
// analysis (the units and the tuning) and sets the parameters as usual.

import (
	"encoding/gob"
	"io"
)

// bm25State is BM25's analysed state in exported form, postings flattened
// (Off[t]..Off[t+1] are term t's).
type bm25State struct {
	Terms             []string
	Off               []int32
	Doc               []int32
	TF, TFS, TFN      []float32
	DF                []int32
	Docs              []bm25DocState
	TotalLen, TotalNL float64
	Alive             int
	SurfaceW          []string
	SurfaceT          []string
	SurfaceRefs       []int32
	Vocab             []string
}

type bm25DocState struct {
	ID           string
	Len, NameLen float32
	Terms        []int32
	Surfaces     []string
	Name         []string
	NName        int
	Alive        bool
}

// WriteState writes the index's analysed state (gob).
func (x *BM25) WriteState(w io.Writer) error {
	x.mu.RLock()
	defer x.mu.RUnlock()
	s := bm25State{Terms: make([]string, len(x.postings)), Off: make([]int32, 0, len(x.postings)+1), DF: x.df,
		TotalLen: x.totalLen, TotalNL: x.totalNL, Alive: x.alive}
	for term, t := range x.termIDs {
		s.Terms[t] = term
	}
	for _, ps := range x.postings {
		s.Off = append(s.Off, int32(len(s.Doc)))
		for _, p := range ps {
			s.Doc = append(s.Doc, p.doc)
			s.TF = append(s.TF, p.tf)
			s.TFS = append(s.TFS, p.tfs)
			s.TFN = append(s.TFN, p.tfn)
		}
	}
	s.Off = append(s.Off, int32(len(s.Doc)))
	s.Docs = make([]bm25DocState, len(x.docs))
	for i, d := range x.docs {
		s.Docs[i] = bm25DocState{d.id, d.len, d.nameLen, d.terms, d.surfaces, d.name, d.nName, d.alive}
	}
	for w, sf := range x.surfaces {
		s.SurfaceW = append(s.SurfaceW, w)
		s.SurfaceT = append(s.SurfaceT, sf.term)
		s.SurfaceRefs = append(s.SurfaceRefs, int32(sf.refs))
	}
	for v := range x.vocab {
		s.Vocab = append(s.Vocab, v)
	}
	return gob.NewEncoder(w).Encode(&s)
}

// ReadState replaces the index's state with one WriteState wrote. The
// index must have been made with the same analyzer, weights, NameB and
// ShortFields, and ContainerCover as the one written (the caller's key).
func (x *BM25) ReadState(r io.Reader) error {
	var s bm25State
	if err := gob.NewDecoder(r).Decode(&s); err != nil {
		return err
	}
	if len(s.Off) != len(s.Terms)+1 || len(s.DF) != len(s.Terms) || len(s.TF) != len(s.Doc) ||
		len(s.TFS) != len(s.Doc) || len(s.TFN) != len(s.Doc) || len(s.SurfaceT) != len(s.SurfaceW) ||
		len(s.SurfaceRefs) != len(s.SurfaceW) {
		return errBadState
	}
	termIDs := make(map[string]int32, len(s.Terms))
	postings := make([][]posting, len(s.Terms))
	for t, term := range s.Terms {
		termIDs[term] = int32(t)
		lo, hi := s.Off[t], s.Off[t+1]
		if lo < 0 || hi < lo || int(hi) > len(s.Doc) {
			return errBadState
		}
		ps := make([]posting, hi-lo)
		for i := range ps {
			j := lo + int32(i)
			if s.Doc[j] < 0 || int(s.Doc[j]) >= len(s.Docs) {
				return errBadState
			}
			ps[i] = posting{s.Doc[j], s.TF[j], s.TFS[j], s.TFN[j]}
		}
		postings[t] = ps
	}
	docs := make([]bm25Doc, len(s.Docs))
	byID := make(map[string]int32, len(s.Docs))
	for i, d := range s.Docs {
		for _, t := range d.Terms {
			if t < 0 || int(t) >= len(s.Terms) {
				return errBadState
			}
		}
		docs[i] = bm25Doc{id: d.ID, len: d.Len, nameLen: d.NameLen, terms: d.Terms, surfaces: d.Surfaces, name: d.Name,
			nName: d.NName, alive: d.Alive}
		if d.Alive {
			byID[d.ID] = int32(i)
		}
	}
	surfaces := make(map[string]*surface, len(s.SurfaceW))
	for i, w := range s.SurfaceW {
		surfaces[w] = &surface{term: s.SurfaceT[i], refs: int(s.SurfaceRefs[i])}
	}
	vocab := make(map[string]struct{}, len(s.Vocab))
	for _, v := range s.Vocab {
		vocab[v] = struct{}{}
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.termIDs, x.postings, x.df, x.docs, x.byID = termIDs, postings, s.DF, docs, byID
	x.totalLen, x.totalNL, x.alive, x.surfaces, x.vocab = s.TotalLen, s.TotalNL, s.Alive, surfaces, vocab
	x.segMu.Lock()
	x.segs, x.segVocab = nil, 0
	x.segMu.Unlock()
	return nil
}

// Reset empties the index (its parameters stay).
func (x *BM25) Reset() {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.termIDs, x.postings, x.df, x.docs, x.byID = map[string]int32{}, nil, nil, nil, map[string]int32{}
	x.totalLen, x.totalNL, x.alive, x.surfaces, x.vocab = 0, 0, 0, map[string]*surface{}, map[string]struct{}{}
	x.segMu.Lock()
	x.segs, x.segVocab = nil, 0
	x.segMu.Unlock()
}

type stateError string

func (e stateError) Error() string { return string(e) }

const errBadState = stateError("lexical: the saved index state is inconsistent")

// assocState is Assoc's state in exported form.
type assocState struct {
	IDs          []string
	Units        []assocUnitState
	NW, NT       map[string]int32
	NWT          map[string]map[string]int32
	NSelf        map[string]int32
	SelfN, SelfD int64
	N            int32
}

type assocUnitState struct {
	Words, Terms, Self []string
}

// WriteState writes the model's counts (gob).
func (a *Assoc) WriteState(w io.Writer) error {
	a.mu.RLock()
	defer a.mu.RUnlock()
	s := assocState{NW: a.nw, NT: a.nt, NWT: a.nwt, NSelf: a.nself, SelfN: a.selfN, SelfD: a.selfD, N: a.n}
	for id, u := range a.units {
		s.IDs = append(s.IDs, id)
		s.Units = append(s.Units, assocUnitState{u.words, u.terms, u.self})
	}
	return gob.NewEncoder(w).Encode(&s)
}

// ReadState replaces the model's counts with those WriteState wrote (the
// caller keys them by the units and the analyzer).
func (a *Assoc) ReadState(r io.Reader) error {
	var s assocState
	if err := gob.NewDecoder(r).Decode(&s); err != nil {
		return err
	}
	if len(s.IDs) != len(s.Units) {
		return errBadState
	}
	units := make(map[string]assocUnit, len(s.IDs))
	for i, id := range s.IDs {
		u := s.Units[i]
		units[id] = assocUnit{u.Words, u.Terms, u.Self}
	}
	nonNil := func(m map[string]int32) map[string]int32 {
		if m == nil {
			return map[string]int32{}
		}
		return m
	}
	if s.NWT == nil {
		s.NWT = map[string]map[string]int32{}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.units, a.nw, a.nt, a.nwt, a.nself = units, nonNil(s.NW), nonNil(s.NT), s.NWT, nonNil(s.NSelf)
	a.selfN, a.selfD, a.n = s.SelfN, s.SelfD, s.N
	a.candMu.Lock()
	a.cands = nil
	a.candMu.Unlock()
	return nil
}

// Reset empties the model (its parameters stay).
func (a *Assoc) Reset() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.units, a.nw, a.nt = map[string]assocUnit{}, map[string]int32{}, map[string]int32{}
	a.nwt, a.nself = map[string]map[string]int32{}, map[string]int32{}
	a.selfN, a.selfD, a.n = 0, 0, 0
	a.candMu.Lock()
	a.cands = nil
	a.candMu.Unlock()
}
