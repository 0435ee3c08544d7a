// This file defines Start and the session: the next-token distribution for
// the middle of a FIM context, mixing the n-gram model with a cache of the
// current file's tokens, the end-of-middle candidate, and the layout of the
// proposed text.

package ngram

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strings"

	"github.com/repilot-lsp/repilot-lsp/javalex"
	"github.com/repilot-lsp/repilot-lsp/lm"
)

// DefaultK is the number of candidates Next returns when asked for k <= 0.
const DefaultK = 40

// End-of-middle prior: the hazard h(L) that a hunk ends after L generated
// lines, before looking at the suffix. h(0) is the chance of a deletion;
// for L >= 1, h(L) = 1 - endLineKeep^L, so hunks of one to three lines are
// the most likely (single-hunk bug fixes mostly are) and long generation
// becomes ever less likely.
const (
	endPriorEmpty = 0.05
	endLineKeep   = 0.6
	// endEvidenceWeight tempers the suffix likelihood ratio: a ratio of
	// n-gram probabilities over a few tokens is overconfident (it also
	// reflects how usual the context is, not only whether a line is
	// missing), so it moves the log-odds by half its log.
	endEvidenceWeight = 0.5
)

// session is one FIM context. It is used by one goroutine at a time.
//
// Cache ids: a vocabulary word's id, or len(vocab)+i for the i-th rare
// (out-of-vocabulary) token of the file.
type session struct {
	m         *Model
	fim       lm.FIM
	tail      string       // FIM.Prefix after its last line break
	headHist  []uint32     // ids of the last Order-1 stream tokens before tail, <s>-padded
	headLast  [2]streamTok // last two code tokens before tail (index 1 = last)
	headRaw   []uint32     // cache ids of the last Order-1 stream tokens before tail
	suffixIDs []uint32     // ids of the suffix's first Order-1 stream tokens
	unit      string       // indentation step of the file

	cache      *fileCache
	local      map[string]uint32 // rare token text -> cache id
	localText  []string
	localKind  []javalex.Kind
	localCount []uint32
	classTotal [numSpecial]uint32 // count of the file's rare tokens per class
	vocabIDs   []uint32           // vocabulary words in the file, ascending
	union      []scored           // scratch for Next
}

// Start opens a session for one FIM context. It lexes the prefix and suffix
// once; Next then lexes only the generated text.
func (m *Model) Start(ctx context.Context, fim lm.FIM) (lm.Session, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s := &session{m: m, fim: fim, cache: newFileCache(m.order), local: map[string]uint32{}}
	cut := strings.LastIndexAny(fim.Prefix, "\n\r") + 1
	s.tail = fim.Prefix[cut:]
	head := lexStream(fim.Prefix[:cut])
	tail := lexStream(s.tail)
	suffix := lexStream(fim.Suffix)

	ids := make([]uint32, 0, m.order)
	for _, t := range head[max(0, len(head)-(m.order-1)):] {
		ids = append(ids, m.id(t))
	}
	s.headHist = m.padded(ids)
	for _, t := range head {
		if !t.isNewline() {
			s.headLast[0], s.headLast[1] = s.headLast[1], t
		}
	}
	for i := 0; i < len(suffix) && i < m.order-1; i++ {
		s.suffixIDs = append(s.suffixIDs, m.id(suffix[i]))
	}

	inFile := map[uint32]bool{}
	addRun := func(toks []streamTok, hist []uint32) []uint32 {
		for _, t := range toks {
			r := s.rawAdd(t)
			s.cache.add(hist, r, openIndex(t.Kind))
			hist = append(hist, r)
			if len(hist) > m.order-1 {
				hist = hist[1:]
			}
			if r >= uint32(len(m.vocab)) {
				i := r - uint32(len(m.vocab))
				s.localCount[i]++
				s.classTotal[classOf(t.Kind)]++
			} else if !inFile[r] {
				inFile[r] = true
				s.vocabIDs = append(s.vocabIDs, r)
			}
		}
		return hist
	}
	s.headRaw = addRun(head, nil)
	addRun(tail, slices.Clone(s.headRaw))
	addRun(suffix, nil)
	slices.Sort(s.vocabIDs)
	s.unit = indentUnit(lastLines(fim.Prefix, 300)+firstLines(fim.Suffix, 300), fim.Indent)
	return s, nil
}

// rawAdd returns the cache id of t, registering rare tokens.
func (s *session) rawAdd(t streamTok) uint32 {
	if r := s.raw(t); r != noRaw {
		return r
	}
	r := uint32(len(s.m.vocab) + len(s.localText))
	s.local[t.Text] = r
	s.localText = append(s.localText, t.Text)
	s.localKind = append(s.localKind, t.Kind)
	s.localCount = append(s.localCount, 0)
	return r
}

// raw returns the cache id of t, or noRaw for a rare token not in the file.
func (s *session) raw(t streamTok) uint32 {
	if id, ok := s.m.ids[t.Text]; ok {
		return id
	}
	if r, ok := s.local[t.Text]; ok {
		return r
	}
	return noRaw
}

func lastLines(s string, n int) string {
	i := len(s)
	for ; n > 0 && i > 0; n-- {
		i = strings.LastIndexByte(s[:i], '\n')
		if i < 0 {
			return s
		}
	}
	return s[i:]
}

func firstLines(s string, n int) string {
	i := 0
	for ; n > 0; n-- {
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			return s
		}
		i += j + 1
	}
	return s[:i]
}

// state is what Next derives from the generated text.
type state struct {
	hist     []uint32 // ids of the last Order-1 stream tokens before the caret
	rawHist  []uint32 // cache ids of the last Order-1 stream tokens (noRaw: a rare token not in the file)
	lay      layout
	lines    int  // line breaks in generated
	balanced bool // every bracket opened in generated is closed
}

// analyse lexes tail+generated and derives the model context and layout.
func (s *session) analyse(generated string) state {
	m := s.m
	full := s.tail + generated
	toks := lexStream(full)
	st := state{}
	st.hist = append(st.hist, s.headHist...)
	st.rawHist = append(st.rawHist, s.headRaw...)
	for _, t := range toks {
		st.hist = append(st.hist, m.id(t))
		st.rawHist = append(st.rawHist, s.raw(t))
	}
	if len(st.hist) > m.order-1 {
		st.hist = st.hist[len(st.hist)-(m.order-1):]
	}
	if len(st.rawHist) > m.order-1 {
		st.rawHist = st.rawHist[len(st.rawHist)-(m.order-1):]
	}

	l := &st.lay
	l.indent, l.unit = s.fim.Indent, s.unit
	if full == "" {
		l.atLineStart = true
	} else {
		last := full[len(full)-1]
		l.atLineStart = last == '\n' || last == '\r'
		l.trailingSpace = !l.atLineStart && javalex.IsSpace(last)
	}
	l.prev, l.prev2 = s.headLast[1], s.headLast[0]
	lineStart := 0
	for i, t := range toks {
		if t.isNewline() {
			lineStart = i + 1
			continue
		}
		l.prev2, l.prev = l.prev, t
	}
	// Generic angle brackets and the first token of the current line.
	var p streamTok
	for i := lineStart; i < len(toks); i++ {
		t := toks[i]
		if i == lineStart {
			l.lineFirst = t.Text
		}
		l.angleOpened, l.angleClosed = false, false
		switch t.Text {
		case "<":
			if opensGeneric(p, l.angle) {
				l.angle++
				l.angleOpened = true
			}
		case ">", ">>", ">>>":
			if l.angle > 0 {
				l.angle = max(0, l.angle-len(t.Text))
				l.angleClosed = true
			}
		}
		p = t
	}
	// Brackets, switch labels and lines of the generated text only.
	st.lines = strings.Count(generated, "\n")
	var openers []string
	first, lineHead, lineLast := true, "", ""
	l.caseDepth = -1 << 30
	endLine := func() {
		if (lineHead == "case" || lineHead == "default") && lineLast == ":" {
			l.caseDepth = l.depth
		}
		lineHead = ""
	}
	for _, t := range toks {
		if t.End <= len(s.tail) {
			continue
		}
		if t.isNewline() {
			endLine()
			continue
		}
		if lineHead == "" {
			lineHead = t.Text
		}
		lineLast = t.Text
		if first && t.Text == "}" {
			l.level0 = -1
		}
		first = false
		switch t.Text {
		case "{", "(", "[":
			openers = append(openers, t.Text)
		case "}", ")", "]":
			if len(openers) > 0 {
				openers = openers[:len(openers)-1]
			}
		}
		switch t.Text {
		case "{":
			l.depth++
		case "}":
			l.depth--
			if l.caseDepth > l.depth {
				l.caseDepth = -1 << 30
			}
		case "(", "[":
			l.parens++
		case ")", "]":
			l.parens = max(0, l.parens-1)
		}
	}
	if l.atLineStart {
		endLine()
	}
	l.hunkStart = first
	st.balanced = len(openers) == 0
	return st
}

// scored is a proposal before rendering: a vocabulary id, or a cache id of
// a rare token (>= len(vocab)), or endID.
type scored struct {
	id uint32
	p  float64
}

const endID = math.MaxUint32 - 1

// topK keeps the k best proposals (a min-heap on p).
type topK struct {
	k     int
	items []scored
}

func (h *topK) min() float64 {
	if len(h.items) < h.k {
		return -1
	}
	return h.items[0].p
}

func (h *topK) push(x scored) {
	if len(h.items) < h.k {
		h.items = append(h.items, x)
		for i := len(h.items) - 1; i > 0; {
			parent := (i - 1) / 2
			if h.items[parent].p <= h.items[i].p {
				break
			}
			h.items[parent], h.items[i] = h.items[i], h.items[parent]
			i = parent
		}
		return
	}
	if x.p <= h.items[0].p {
		return
	}
	h.items[0] = x
	for i := 0; ; {
		l, r, small := 2*i+1, 2*i+2, i
		if l < len(h.items) && h.items[l].p < h.items[small].p {
			small = l
		}
		if r < len(h.items) && h.items[r].p < h.items[small].p {
			small = r
		}
		if small == i {
			break
		}
		h.items[i], h.items[small] = h.items[small], h.items[i]
		i = small
	}
}

// proposable reports whether vocabulary id w may be proposed as text.
func proposable(w uint32) bool { return w == idNewline || w >= numSpecial }

// Next returns the k most probable next tokens after generated, best first,
// each with its text laid out (see render.go), plus the end-of-middle
// candidate when the hunk may end here. LogProbs are natural logs of the
// mixture probability, with the end candidate's mass taken out of the rest.
func (s *session) Next(ctx context.Context, generated string, k int) ([]lm.Candidate, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if k <= 0 {
		k = DefaultK
	}
	m := s.m
	st := s.analyse(generated)
	it := m.newInterp(st.hist)
	h := topK{k: k}
	nv := uint32(len(m.vocab))

	// The words seen after this context, with the n-gram kind masses.
	var mass, uniSeen [numOpen]float64
	var classP [numSpecial]float64
	for c := idClassID; c <= idClassUnk; c++ {
		classP[c] = it.coef[0] * m.uni[c]
	}
	s.union = s.union[:0]
	m.scanUnion(&it, func(w uint32, p float64) {
		s.union = append(s.union, scored{w, p})
		if k := openIndex(m.kinds[w]); k >= 0 {
			mass[k] += p
			uniSeen[k] += m.uni[w]
		}
		if isClass(w) {
			classP[w] = p
		}
	})
	for k := range mass {
		mass[k] += it.coef[0] * max(0, m.uniKind[k]-uniSeen[k])
	}
	cc := s.cache.context(st.rawHist)
	push := func(r uint32, kind javalex.Kind, png float64) {
		h.push(scored{r, s.cache.mix(&cc, r, openIndex(kind), png, &mass)})
	}
	// A word not in the file gets nothing from the cache parts: the mixture
	// scales its n-gram probability by a factor that depends on its kind.
	var scale [numOpen + 1]float64 // index openIndex+1
	for k := -1; k < numOpen; k++ {
		scale[k+1] = 1 - cc.weight - cacheWeightKind
		if k < 0 || s.cache.kindTotal[k] == 0 {
			scale[k+1] += cacheWeightKind
		}
	}
	pushNew := func(w uint32, png float64) {
		if p := scale[openIndex(m.kinds[w])+1] * png; p > h.min() {
			h.push(scored{w, p})
		}
	}
	// Union words, merged (both ascending) with the file's vocabulary words.
	ci := 0
	for _, x := range s.union {
		for ; ci < len(s.vocabIDs) && s.vocabIDs[ci] < x.id; ci++ {
			r := s.vocabIDs[ci]
			push(r, m.kinds[r], it.coef[0]*m.uni[r])
		}
		switch {
		case ci < len(s.vocabIDs) && s.vocabIDs[ci] == x.id:
			push(x.id, m.kinds[x.id], x.p)
			ci++
		case proposable(x.id):
			pushNew(x.id, x.p)
		}
	}
	for ; ci < len(s.vocabIDs); ci++ {
		r := s.vocabIDs[ci]
		push(r, m.kinds[r], it.coef[0]*m.uni[r])
	}
	// The file's rare tokens share their class's probability by frequency.
	for i, c := range s.localCount {
		kind := s.localKind[i]
		cl := classOf(kind)
		if c == 0 || s.classTotal[cl] == 0 {
			continue
		}
		push(nv+uint32(i), kind, classP[cl]*float64(c)/float64(s.classTotal[cl]))
	}
	// Words neither seen after this context nor in the file have the
	// unigram term alone (times 1-cacheWeight for open kinds), so walking
	// them by unigram probability can stop early.
	for _, w := range m.byUni {
		bound := it.coef[0] * m.uni[w]
		if bound <= h.min() {
			break
		}
		if m.inUnion(&it, w) {
			continue
		}
		if _, ok := slices.BinarySearch(s.vocabIDs, w); ok {
			continue
		}
		pushNew(w, bound)
	}

	items := h.items
	if pEnd, ok := s.endProb(st, generated); ok {
		for i := range items {
			items[i].p *= 1 - pEnd
		}
		items = append(items, scored{endID, pEnd})
	}
	out := make([]lm.Candidate, 0, len(items))
	for _, x := range items {
		if x.p <= 0 {
			continue
		}
		if x.id == endID {
			out = append(out, lm.Candidate{Text: "", LogProb: math.Log(x.p), End: true})
			continue
		}
		text, kind := s.token(x.id)
		out = append(out, lm.Candidate{Text: st.lay.render(text, kind), LogProb: math.Log(x.p)})
	}
	slices.SortStableFunc(out, func(a, b lm.Candidate) int {
		if c := cmp.Compare(b.LogProb, a.LogProb); c != 0 {
			return c
		}
		return strings.Compare(a.Text, b.Text)
	})
	if len(out) > k {
		out = out[:k]
	}
	return out, nil
}

// token returns the text and kind of a vocabulary or cache id.
func (s *session) token(id uint32) (string, javalex.Kind) {
	nv := uint32(len(s.m.vocab))
	if id < nv {
		return s.m.vocab[id], s.m.kinds[id]
	}
	return s.localText[id-nv], s.localKind[id-nv]
}

// render returns the text to append for a token: "\n" for NEWLINE, else the
// token preceded by the line's indentation at a line start or by the
// conventional space.
func (l *layout) render(text string, kind javalex.Kind) string {
	if text == newlineText {
		return "\n"
	}
	if l.atLineStart {
		return l.lineIndent(text) + text
	}
	return l.space(text, kind) + text
}

// endProb returns the probability of the end-of-middle candidate, and false
// when the hunk may not end here (generated is neither empty nor ends with a
// line break, or a bracket opened in it is still open).
//
// Derivation. Under an order-n model the probability of the whole file
// prefix·middle·suffix differs between "the middle ends here" and "the
// middle goes on" only in the probabilities of the suffix's first n-1
// tokens: after them, their contexts lie entirely inside the suffix. So the
// evidence for ending here is
//
//	S = P(s1 | ctx)·P(s2 | ctx, s1)···P(s_{n-1} | ctx, s1..s_{n-2}),
//
// where ctx is the context at the caret. If the middle goes on, the suffix
// follows some later line whose context is unknown; its first tokens then
// have about the probability B they have after a typical line end (the same
// product with ctx = Model.lineStart, usually ") ; NEWLINE", so that both use
// as much context). With a prior hazard h(L) of ending after L generated
// lines (endPriorEmpty, endLineKeep), Bayes' rule gives
//
//	odds(end) = h(L)/(1-h(L)) · (S/B)^endEvidenceWeight,    P(end) = odds/(1+odds),
//
// and the remaining mass 1-P(end) goes to continuing. A suffix that fits
// here better than after an arbitrary line raises P(end); before anything
// was generated the small prior h(0) keeps the deletion from dominating
// unless the suffix fits much better here. An empty suffix (end of file)
// gives S/B = 1.
func (s *session) endProb(st state, generated string) (float64, bool) {
	if !st.balanced || (generated != "" && !strings.HasSuffix(generated, "\n")) {
		return 0, false
	}
	h := endPriorEmpty
	if st.lines > 0 {
		h = 1 - math.Pow(endLineKeep, float64(st.lines))
	}
	logS := s.m.seqLogProb(st.hist, s.suffixIDs)
	logB := s.m.seqLogProb(s.m.lineStart, s.suffixIDs)
	odds := h / (1 - h) * math.Exp(endEvidenceWeight*(logS-logB))
	return odds / (1 + odds), true
}

// seqLogProb is log P(seq | hist) under the n-gram model alone.
func (m *Model) seqLogProb(hist, seq []uint32) float64 {
	ctx := slices.Clone(hist)
	var lp float64
	for _, w := range seq {
		it := m.newInterp(ctx)
		lp += math.Log(m.prob(&it, w))
		ctx = append(ctx, w)
	}
	return lp
}
