// This file defines Start and the session: the next-token distribution for
// the middle of a FIM context, mixing the n-gram model with a cache of the
// current file's tokens, the workspace's identifiers and a copy of the buggy
// hunk, the end-of-middle candidate, and the layout of the proposed text.

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

	cp          *copyModel        // the buggy hunk (copy.go); nil when FIM.Buggy has no tokens
	declared    map[string]string // name -> declared type's simple name in the prefix and suffix (typed.go)
	endBrackets *brackets         // the buggy hunk's unmatched brackets; nil without one (see endProb)
	headScan    bracketScan       // the brackets of the prefix before tail
	// breaksInBrackets: the buggy hunk has a line break inside a "(" or
	// "[" it opened (see Next).
	breaksInBrackets bool
	// breaksMidStatement: the buggy hunk has a line break after a code
	// token that ends no statement (see stmtBreak and deadTokens).
	breaksMidStatement bool
	stamp              []uint32 // stamp[id] == epoch: id already scored in this Next
	epoch              uint32
}

// Start opens a session for one FIM context. It lexes the prefix and suffix
// once; Next then lexes only the generated text. The only error is ctx's,
// when it has already ended.
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
		header := headerLines(toks)
		for i, t := range toks {
			r := s.rawAdd(t)
			k := openIndex(t.Kind)
			if header[i] {
				k = -1 // package and import lines: see headerLines
			}
			s.cache.add(hist, r, k)
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
	s.headScan.feed(head)
	addRun(tail, slices.Clone(s.headRaw))
	addRun(suffix, nil)
	s.declared = declaredIn(head, tail, suffix)
	slices.Sort(s.vocabIDs)
	s.unit = indentUnit(lastLines(fim.Prefix, 300)+firstLines(fim.Suffix, 300), fim.Indent)
	if buggy := lexStream(fim.Buggy); len(buggy) > 0 {
		ids := make([]uint32, len(buggy))
		for i, t := range buggy {
			ids[i] = s.rawAdd(t) // after the file's tokens: their counts stay as they were
		}
		s.cp = newCopyModel(buggy, ids, func(text string) (uint32, bool) {
			id, ok := m.ids[text]
			return id, ok
		})
		b := bracketsOf(buggy)
		s.endBrackets = &b
		s.breaksInBrackets = breaksInBrackets(buggy)
		s.breaksMidStatement = breaksMidStatement(buggy)
		if err := s.computeRest(ctx); err != nil {
			return nil, err
		}
	} else if fim.Insert {
		s.endBrackets = &brackets{} // what an empty hunk leaves open: nothing
	}
	return s, nil
}

// maxExclusionTokens bounds the buggy hunks for which Start computes the
// exclusion of the buggy hunk (one distribution per token of it).
const maxExclusionTokens = 400

// computeRest computes Q_i (copyModel.rest) by following the buggy hunk
// token by token, laid out as Next lays it out.
func (s *session) computeRest(ctx context.Context) error {
	b := s.cp.toks
	if len(b) > maxExclusionTokens {
		return nil
	}
	p := make([]float64, len(b)+1)
	gen := ""
	for i := 0; i <= len(b); i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		st := s.analyse(gen)
		d := s.prepare(st, gen)
		if i == len(b) {
			p[i] = d.endP()
			break
		}
		p[i] = s.probOf(&d, s.cp.ids[i])
		gen += st.lay.render(b[i].Text, b[i].Kind)
	}
	rest := make([]float64, len(b)+2)
	rest[len(b)+1] = 1
	for i := len(b); i >= 0; i-- {
		rest[i] = p[i] * rest[i+1]
		if 1-rest[i] < 1e-9 {
			return nil // the model is certain to copy: nothing to condition on
		}
	}
	s.cp.rest = rest
	return nil
}

// brackets are the unmatched brackets of a token sequence: closers that
// close nothing in it (they close brackets of the text before), in order,
// and openers it leaves open, in order. A closer closes the last open
// bracket whatever its kind.
type brackets struct {
	closers, openers []string
}

func bracketsOf(toks []streamTok) brackets {
	var b brackets
	for _, t := range toks {
		switch t.Text {
		case "{", "(", "[":
			b.openers = append(b.openers, t.Text)
		case "}", ")", "]":
			if len(b.openers) > 0 {
				b.openers = b.openers[:len(b.openers)-1]
			} else {
				b.closers = append(b.closers, t.Text)
			}
		}
	}
	return b
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
	hist    []uint32 // ids of the last Order-1 stream tokens before the caret
	rawHist []uint32 // cache ids of the last Order-1 stream tokens (noRaw: a rare token not in the file)
	lay     layout
	lines   int         // line breaks in generated
	unmatch brackets    // the unmatched brackets of generated
	gen     []streamTok // the stream tokens of generated (those ending after the prefix's tail)
	recv    string      // x when the text ends with "x." (x a simple name), else ""
	// allHist and allRaw are hist and rawHist before the cut to Order-1
	// tokens; the context before gen[t] is allHist[:genAt+t].
	allHist, allRaw []uint32
	genAt           int
	// inner is the innermost bracket that the prefix and generated leave
	// open (text "" at the top level of the file).
	inner openBracket
	// prev is the last code token of the prefix and generated; closed,
	// when prev is a closer, the bracket it closed (nil otherwise).
	prev   string
	closed *openBracket
	// stmtName: prev is a simple name that starts a statement
	// (bracketScan.stmtName).
	stmtName bool
	// declName: prev is the name of a local variable declaration's first
	// declarator ("Foo x"; bracketScan.declName).
	declName bool
	// lambdaArrow, afterNew: see bracketScan.
	lambdaArrow, afterNew bool
	// stmtPrim: see bracketScan.
	stmtPrim bool
	// prevKind: prev's kind (bracketScan.prevKind).
	prevKind javalex.Kind
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
	st.allHist, st.allRaw = st.hist, st.rawHist
	st.genAt = len(s.headHist)
	for _, t := range toks {
		if t.End > len(s.tail) {
			break
		}
		st.genAt++
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
	var prev3 streamTok
	for i, t := range toks {
		if t.isNewline() {
			lineStart = i + 1
			continue
		}
		prev3, l.prev2, l.prev = l.prev2, l.prev, t
	}
	if l.prev.Text == "." && l.prev2.Kind == javalex.Ident && prev3.Text != "." {
		st.recv = l.prev2.Text
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
		st.gen = append(st.gen, t)
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
	st.unmatch = bracketsOf(st.gen)
	bs := s.headScan.clone()
	bs.feed(toks)
	if n := len(bs.stack); n > 0 {
		st.inner = bs.stack[n-1]
	}
	st.prev, st.stmtName, st.declName = bs.prev, bs.stmtName, bs.declName
	st.lambdaArrow, st.afterNew, st.stmtPrim = bs.lambdaArrow, bs.afterNew, bs.stmtPrim
	st.prevKind = bs.prevKind
	if bs.closedLast {
		st.closed = &bs.closed
	}
	return st
}

// breaksInBrackets reports whether toks hold a NEWLINE inside a "(" or
// "[" that toks opened.
func breaksInBrackets(toks []streamTok) bool {
	depth := 0
	for _, t := range toks {
		switch {
		case t.Text == "(" || t.Text == "[":
			depth++
		case t.Text == ")" || t.Text == "]":
			depth = max(0, depth-1)
		case t.isNewline() && depth > 0:
			return true
		}
	}
	return false
}

// stmtBreak reports whether a line break after the code token prev keeps
// to the lines of a hunk that breaks lines only between statements: prev
// ends a statement or a block (";", "{", "}"), a case or statement label
// (":", which also ends a ternary's middle: allowed, not needed), or there
// is no code token before it.
func stmtBreak(prev string) bool {
	switch prev {
	case "", ";", "{", "}", ":":
		return true
	}
	return false
}

// breaksMidStatement reports whether toks hold a NEWLINE after a code token
// of toks for which stmtBreak is false ("return a\n        || b;").
func breaksMidStatement(toks []streamTok) bool {
	prev := ""
	for _, t := range toks {
		if t.isNewline() {
			if !stmtBreak(prev) {
				return true
			}
			continue
		}
		prev = t.Text
	}
	return false
}

// openBracket is a bracket left open: its text, and for "(", whether it
// opens the header of a for or try statement, where ";" separates the
// header's parts, the keyword before it ("if", "while", ...: kw, "" after
// any other token), and whether it is an annotation's argument list or
// inside one (annot: "@A({1, 2})" holds an array initializer there).
type openBracket struct {
	text   string
	header bool
	kw     string
	annot  bool
	// angle: a "<" that may open type arguments came while this bracket
	// was the innermost (they may hold "," at its level: "instanceof
	// Map<K, V> m"): one after ".", "::" or "new" ("x.<K, V>f()"), or
	// any "<" once "instanceof" or "new" came at its level (typed). Any
	// other "<" there is a less-than, or opens the type arguments of a
	// method reference's type ("Map<K, V>::new"), which compiles only in
	// an assignment, invocation or cast context (JLS 15.13), none of
	// which is the top level of an if, while, switch or synchronized
	// header.
	angle, typed bool
	// newSeen: "new" came while this bracket was the innermost; ctor: the
	// bracket is a "(" opened inside a "(" or "[" that had seen "new", so
	// it may be a class instance creation's arguments, which an anonymous
	// class body may follow ("f(new Object() {"). A ";" at this bracket's
	// level ends the statement (or a for header's part) that "new" came
	// in: it clears newSeen, as no class instance creation spans a ";".
	newSeen, ctor bool
	// expr: "return", "throw" or an assignment operator came at this
	// bracket's level since its last ";", so the rest of the statement at
	// this level is an expression (JLS 14.17, 14.18, 15.26), where "{"
	// opens only a lambda body, an array initializer or an anonymous class
	// or switch body (syntaxDead).
	expr bool
	// semis, colon: the ";" and whether a ":" came at the top level of a
	// for header ("(" with kw "for"; forCloseDead).
	semis int
	colon bool
	// body: a "{" that may open a class, interface, enum, record or module
	// body (or is at the file's top level), where member modifiers go;
	// false for a "{" that opens a block (a method, constructor,
	// initializer or lambda body, a statement's block), a switch block or
	// an array initializer, none of which holds a modifier other than
	// final, abstract or strictfp (modifierDead). decl: a keyword that
	// declares a class, interface, enum, record or module ("class" not
	// after ".") came at this bracket's level since its last ";", "{" or
	// "}"; enumBody: this "{" opens an enum body (its constants come
	// before its first ";", each may have a class body: "A(1) {").
	body, decl, enumBody bool
	declEnum             bool // decl, and the keyword was "enum"
	// stmts: a "{" that opens a block or a switch block, where statements
	// go (not a class body, not an array initializer): one after a
	// header's ")" (not a class instance creation's), "->", "else", "do",
	// "try", "finally" or "static", after ";", "{", "}" or ":" inside
	// another such, or after a name in a class body (a method header's
	// throws clause, a compact constructor).
	stmts bool
	// callee: a "(" right after a name, ">" (">>", ">>>"), "this" or "super", which
	// may open an argument list or a declaration's parameters, so may
	// be empty; any other "(" is a parenthesized expression's, a cast's
	// or a lambda's parameters ("() ->"; lambdaArrow).
	callee bool
	// noLambda: a "(" right after an operator whose operand is no
	// assignment, invocation or cast context (lambdaless), where a lambda
	// may not stand (JLS 15.27), so "()" there cannot parse whatever
	// follows ("length - ()").
	noLambda bool
	// args: a "(" right after a name (not "record R(") or "this" or
	// "super", opened inside a block, a switch block, an array
	// initializer or a "(" or "[", so an argument list (no method,
	// constructor or record header opens there), which holds
	// expressions only (nameNameDead).
	args bool
	// inst: "instanceof" came at this bracket's level since its last
	// ";", so a type pattern may follow ("x instanceof Foo f").
	inst bool
	// caseLabel: "case" came at this bracket's level since its last ";",
	// ":" or "->" (a pattern may follow: "case Point(Foo f, Bar b)");
	// pattern: this "(" may hold a record pattern's components, being
	// opened where a pattern may stand (after "instanceof" or "case" at
	// the enclosing level, or inside another such "(") (JLS 14.30.1).
	caseLabel, pattern bool
	// exprStmt: the statement at this level since its last ";" is no
	// declaration: it started with "return", "throw", "this" or "super",
	// or a compound assignment operator came, or "=" right after the
	// statement's first name ("lo = "); lt: a "<" came at this level
	// since its last ";" (type arguments may hold ","). See commaDead.
	exprStmt, lt bool
	// quest: the "?" at this bracket's level not yet matched by a ":"
	// (colonDead).
	quest int
}

// lambdaless are the operators after which a "(" opens no lambda's
// parameters: the operands of unary, multiplicative, additive, shift,
// relational, equality, bitwise and conditional operators are in no
// assignment, invocation or cast context (JLS 15.27, 5.2-5.5).
var lambdaless = map[string]bool{"==": true, "!=": true, "&&": true, "||": true, "+": true, "-": true, "*": true,
	"/": true, "%": true, "<": true, "<=": true, ">=": true, "&": true, "|": true, "^": true, "<<": true, "!": true,
	"~": true, "++": true, "--": true}

// stmtNameDead are the tokens that may not follow a simple name that
// starts a statement (stmtName): a statement that starts with a name is a
// local variable declaration ("Foo x", "Foo<T> x", "Foo[] x", "Foo.Bar
// x"), a labeled statement ("l:") or an expression statement, which is an
// assignment, an increment or decrement, a method invocation or a class
// instance creation (JLS 14.4, 14.7, 14.8): after the name comes ".", "(",
// "[", "<", "@" (a type annotation), another name, ":", an assignment
// operator, "++" or "--", never a binary operator, "?", a closer, ",",
// ";" or "{" ("hi == 1 && ...", "x;", "size - 1;" cannot compile).
var stmtNameDead = []string{"==", "!=", "&&", "||", "+", "-", "*", "/", "%", ">", ">=", "<=",
	"&", "|", "^", "<<", ">>", ">>>", "?", "instanceof", "->", "::", ")", "]", "}", ",", ";", "{"}

// declKeywords are the tokens that start the header of a class,
// interface, enum, record or module declaration (JLS 8.1, 8.9, 8.10, 9.1,
// 7.7; "@interface" lexes as "@", "interface"); "record" and "module" are
// also identifiers, which only makes the scan take more braces for bodies.
var declKeywords = map[string]bool{"class": true, "interface": true, "enum": true, "record": true, "module": true}

// blockModifiers are the tokens that never come inside a block, a switch
// block, an array initializer or a bracket of an expression: the access
// modifiers and static, which a local class or interface may not have
// (JLS 14.3), and the field and method modifiers native, transient and
// volatile (JLS 8.3.1, 8.4.3); a local variable takes only final (JLS
// 14.4).
var blockModifiers = []string{"public", "protected", "private", "static", "native", "transient", "volatile"}

// declWords are the tokens modifierDead rules out somewhere: blockModifiers,
// throws (a method's or constructor's header, at a class body's level: JLS
// 8.4.6), implements (a class header, at the level of a block or class
// body: JLS 8.1.5), import and package (the top level of a compilation
// unit: JLS 7.4, 7.5).
var declWords = append(slices.Clone(blockModifiers), "throws", "implements", "import", "package")

// modifierDead reports whether tok may not come next where in is the
// innermost open bracket: import or package inside any bracket, implements
// inside a "(" or "[", a blockModifiers token or throws inside a "(", "["
// or a "{" that opens no class body (openBracket.body). "private final int
// n" in a method body, "f(a) throws" in a block and "g(x implements"
// cannot compile whatever follows.
func modifierDead(in openBracket, tok string) bool {
	switch tok {
	case "import", "package":
		return in.text != ""
	case "implements":
		return in.text == "(" || in.text == "["
	case "throws":
	default:
		if !slices.Contains(blockModifiers, tok) {
			return false
		}
	}
	return in.text == "(" || in.text == "[" || in.text == "{" && !in.body
}

// forCloseDead reports whether ")" may not close in, the innermost open
// bracket: a basic for header holds exactly two ";" at its top level and an
// enhanced one a ":" (JLS 14.14.1, 14.14.2), so "for (int i = 1; i < n)"
// cannot parse whatever follows. A ":" of a conditional expression in the
// header also allows ")" (strict: it never rules out a header javac
// accepts).
func forCloseDead(in openBracket) bool {
	return in.text == "(" && in.kw == "for" && !in.annot && !in.colon && in.semis != 2
}

// assignOps are Java's assignment operators (JLS 15.26).
var assignOps = map[string]bool{"=": true, "+=": true, "-=": true, "*=": true, "/=": true, "%=": true,
	"&=": true, "|=": true, "^=": true, "<<=": true, ">>=": true, ">>>=": true}

// bracketScan follows the brackets of a token stream: the brackets open
// (innermost last) and, when the last code token is a closer, the bracket
// it closed.
type bracketScan struct {
	stack []openBracket
	prev  string // the last code token ("" before any)
	// annotName: the tokens since the last "@" are a (qualified) name, so
	// a "(" now opens an annotation's arguments.
	annotName bool
	// closed is the bracket the last code token closed (closedLast), the
	// zero openBracket after any other token.
	closed     openBracket
	closedLast bool
	// file is the top level of the compilation unit (its decl flags).
	file openBracket
	// prevIdent: prev is an identifier. stmtName: prev is a simple name
	// that starts a statement in a block or switch block (after ";", "{",
	// "}", "else", "do" or an if, while or for header's ")", where the
	// level is a "{" with stmts and no expr); "yield" and "non" (of
	// "non-sealed") are left out.
	prevIdent, stmtName bool
	// declName: prev is a name right after a stmtName ("Foo x"), so a
	// local variable declaration's first declarator ("record R" is left
	// out: a local record's header).
	declName bool
	// lambdaArrow: prev is the ")" of an empty "(" that is no callee's
	// (openBracket.callee), so a lambda's parameters: "->" must follow
	// (JLS 15.27.1; "x = ();" cannot compile). afterNew: prev is "new" of
	// a class instance creation or array creation (not "::new"), which a
	// type follows, or type arguments (JLS 15.9, 15.10.1).
	lambdaArrow, afterNew bool
	// stmtPrim: prev is a primitive type or void that starts a statement
	// (where stmtName would hold for a name).
	stmtPrim bool
	// prevKind is prev's kind; prev2 the code token before prev.
	prevKind javalex.Kind
	prev2    string
}

// operandNext are the tokens after which an operand, a type, a statement
// or a closer comes, never a binary or assignment operator: the binary
// and assignment operators themselves (but ">", ">>", ">>>", which may
// close type arguments: "x instanceof List<?> == y", and "&", "?" of
// bounds and wildcards are left out where they are not needed), "+",
// "-", "!", "~", "<", "(", "[", ",", ";", "{", ":", "->", "return",
// "throw", "case" and "?". After them comes the start of an expression,
// a type, a statement or a closer (JLS 15, 14.5): no binaryDead.
var operandNext = map[string]bool{}

// binaryDead are the binary and assignment operators that never start an
// expression, a statement or a type ("+", "-" are unary too; "<" starts
// type arguments, "?" a wildcard, "&" nothing but is left with them).
var binaryDead = []string{"==", "!=", "&&", "||", "*", "/", "%", ">=", "<=", "instanceof", "|", "^", "<<",
	"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", ">>>="}

func init() {
	for _, w := range binaryDead {
		operandNext[w] = true
	}
	for _, w := range []string{"+", "-", "!", "~", "<", "(", "[", ",", ";", "{", ":", "->", "return", "throw", "case", "?"} {
		operandNext[w] = true
	}
}

// stmtPrimDead are the tokens that may not follow a primitive type or void
// that starts a statement: there it starts a local variable declaration
// ("int x", "int[] a", "int @A [] a") or a class literal's expression
// statement ("int.class.getName();") (JLS 14.4, 15.8.2): a name, "[",
// "@" or "." follows, never an operator, a bracket other than "[", ","
// or ";" ("int = 10;" cannot compile).
var stmtPrimDead = append(slices.Clone(stmtNameDead), "=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=",
	"<<=", ">>=", ">>>=", "(", "<", ":", "++", "--", "!", "~")

// level returns the innermost open bracket, or the file's top level.
func (b *bracketScan) level() *openBracket {
	if n := len(b.stack); n > 0 {
		return &b.stack[n-1]
	}
	return &b.file
}

// statementKeywords are the keywords whose "(" opens a statement's header
// (and, for switch, also a switch expression's).
var statementKeywords = map[string]bool{"if": true, "while": true, "for": true, "switch": true,
	"synchronized": true, "catch": true, "try": true}

// clone returns a copy of b that feeds without changing b.
func (b bracketScan) clone() bracketScan {
	b.stack = slices.Clone(b.stack)
	return b
}

// feed updates b by toks. A closer closes the innermost bracket whatever
// its kind; one with nothing open is ignored (closedLast stays false).
func (b *bracketScan) feed(toks []streamTok) {
	for _, t := range toks {
		if t.isNewline() {
			continue
		}
		closedLast, prevText := b.closedLast, b.prev
		lambdaArrow := false
		afterStmtName := b.stmtName && b.prev != "record"
		startsStmt := false
		switch b.prev {
		case ";", "{", "}", "else", "do":
			startsStmt = true
		case ")":
			startsStmt = closedLast && (b.closed.kw == "if" || b.closed.kw == "while" || b.closed.kw == "for")
		}
		b.closedLast = false
		annotName := false
		switch t.Text {
		case "(":
			o := openBracket{text: "(", header: b.prev == "for" || b.prev == "try", annot: b.annotName,
				callee:   b.prevIdent || b.prev == ">" || b.prev == ">>" || b.prev == ">>>" || b.prev == "this" || b.prev == "super",
				noLambda: lambdaless[b.prev]}
			if statementKeywords[b.prev] {
				o.kw = b.prev
			}
			if n := len(b.stack); n > 0 {
				o.annot = o.annot || b.stack[n-1].annot
				o.ctor = b.stack[n-1].newSeen
				l := b.stack[n-1]
				o.pattern = l.inst || l.caseLabel || l.pattern
				o.args = !o.annot && !o.pattern && (b.prevIdent && b.prev2 != "record" || b.prev == "this" || b.prev == "super") &&
					(l.text == "(" || l.text == "[" || l.text == "{" && !l.body && !l.annot)
			}
			b.stack = append(b.stack, o)
		case "[", "{":
			o := openBracket{text: t.Text}
			if n := len(b.stack); n > 0 && b.stack[n-1].annot {
				o.annot = true
			}
			if t.Text == "{" {
				// A class body's "{" comes after a declaration's header
				// (decl), an anonymous class's arguments (ctor), or an
				// enum constant ("A {", "A(1) {") before the enum
				// body's first ";"; at the file's top level only bodies
				// open.
				l := b.level()
				o.body = len(b.stack) == 0 || l.decl || b.prev == ")" && closedLast && b.closed.ctor ||
					l.enumBody && l.semis == 0
				o.enumBody = l.decl && l.declEnum
				l.decl, l.declEnum = false, false
				switch {
				case o.body:
				case b.prev == ")":
					o.stmts = closedLast && !b.closed.ctor
				case b.prev == "->" || b.prev == "else" || b.prev == "do" || b.prev == "try" || b.prev == "finally" || b.prev == "static":
					o.stmts = true
				case b.prev == ";" || b.prev == "{" || b.prev == "}" || b.prev == ":":
					o.stmts = l.stmts || l.body && len(b.stack) > 0
				case b.prevIdent:
					o.stmts = l.body && len(b.stack) > 0
				}
			}
			b.stack = append(b.stack, o)
		case ")", "]", "}":
			if n := len(b.stack); n > 0 {
				b.closed, b.closedLast = b.stack[n-1], true
				b.stack = b.stack[:n-1]
				lambdaArrow = t.Text == ")" && b.prev == "(" && !b.closed.callee
			}
		case "<":
			if n := len(b.stack); n > 0 && (b.stack[n-1].typed || b.prev == "." || b.prev == "::" || b.prev == "new") {
				b.stack[n-1].angle = true
			}
			if n := len(b.stack); n > 0 {
				b.stack[n-1].lt = true
			}
		case "instanceof", "new":
			if n := len(b.stack); n > 0 {
				b.stack[n-1].typed = true
				b.stack[n-1].newSeen = b.stack[n-1].newSeen || t.Text == "new"
				b.stack[n-1].inst = b.stack[n-1].inst || t.Text == "instanceof"
			}
		case ";":
			if n := len(b.stack); n > 0 {
				b.stack[n-1].newSeen, b.stack[n-1].expr, b.stack[n-1].inst, b.stack[n-1].caseLabel = false, false, false, false
				b.stack[n-1].exprStmt, b.stack[n-1].lt = false, false
				b.stack[n-1].semis++
			}
			l := b.level()
			l.decl, l.declEnum = false, false
		case "?":
			if n := len(b.stack); n > 0 {
				b.stack[n-1].quest++
			}
		case ":":
			if n := len(b.stack); n > 0 {
				b.stack[n-1].colon = true
				b.stack[n-1].quest = max(0, b.stack[n-1].quest-1)
				b.stack[n-1].caseLabel = false
			}
		case "->":
			if n := len(b.stack); n > 0 {
				b.stack[n-1].caseLabel = false
			}
		case "case":
			if n := len(b.stack); n > 0 {
				b.stack[n-1].caseLabel = true
			}
		case "@":
			annotName = true
		case ".":
			annotName = b.annotName
		case "return", "throw":
			if n := len(b.stack); n > 0 {
				b.stack[n-1].expr = true
				b.stack[n-1].exprStmt = true
			}
		default:
			if declKeywords[t.Text] && (t.Text != "class" || b.prev != ".") {
				l := b.level()
				l.decl, l.declEnum = true, t.Text == "enum"
			}
			if n := len(b.stack); n > 0 && assignOps[t.Text] {
				b.stack[n-1].expr = true
				b.stack[n-1].exprStmt = b.stack[n-1].exprStmt || t.Text != "=" || b.stmtName
			}
			annotName = b.annotName && t.Kind == javalex.Ident
		}
		b.annotName = annotName
		b.prev2 = b.prev
		b.prev = t.Text
		b.prevKind = t.Kind
		b.prevIdent = t.Kind == javalex.Ident
		l := b.level()
		atStmt := startsStmt && l.text == "{" && l.stmts && !l.expr
		b.stmtName = b.prevIdent && atStmt && t.Text != "yield" && t.Text != "non"
		b.stmtPrim = atStmt && primitiveTypes[t.Text]
		if atStmt && (t.Text == "this" || t.Text == "super") {
			l.exprStmt = true
		}
		b.declName = b.prevIdent && afterStmtName
		b.lambdaArrow = lambdaArrow
		b.afterNew = t.Text == "new" && prevText != "::"
	}
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

// modelCtx is the n-gram and cache context of one prediction: what the
// probability of any token under the mixture of filecache.go needs.
type modelCtx struct {
	it     interp
	mass   [numOpen]float64
	classP [numSpecial]float64 // P_KN of each rare-token class
	cc     cacheCtx
	prev   uint32  // model id of the token before the caret (workspace bigram)
	ws     float64 // the workspace part's weight b(h)
}

// ctxDist is what the probability of any next token after one generated
// text needs: the model's context, the end-of-middle probability and the
// copy component's prediction.
type ctxDist struct {
	modelCtx
	pEnd  float64 // the model's end-of-middle probability (0 when it may not end)
	endOK bool
	// base = (1-Λ)·(1-pEnd) scales the n-gram and cache mixture of every
	// token; copyP holds the copy component's mass per cache id, copyEnd
	// its END mass, lambda their total Λ.
	base    float64
	copyP   map[uint32]float64
	copyEnd float64
	lambda  float64
	// typedP is the receiver-type component's mass per model id after
	// "x." with x's type declared (typed.go), already scaled by the model
	// part's share; nil elsewhere.
	typedP map[uint32]float64
	typed  []memberEntry // typedP's members, most probable first
	exact  int           // i when the generated tokens equal B[0:i], else -1
	// scale[openIndex+1]: the mixture weight left to P_KN for a word that
	// is neither in the file nor among the workspace's identifiers.
	scale [numOpen + 1]float64
}

// modelAt computes the model's context after the histories hist and
// rawHist (only their last Order-1 ids matter). With keepUnion, s.union
// holds the words seen after the context, with their P_KN.
func (s *session) modelAt(hist, rawHist []uint32, keepUnion bool) modelCtx {
	m := s.m
	if len(hist) > m.order-1 {
		hist = hist[len(hist)-(m.order-1):]
	}
	if len(rawHist) > m.order-1 {
		rawHist = rawHist[len(rawHist)-(m.order-1):]
	}
	mc := modelCtx{it: m.newInterp(hist), prev: noRaw}
	if len(hist) > 0 {
		mc.prev = hist[len(hist)-1]
	}
	var uniSeen [numOpen]float64
	for c := idClassID; c <= idClassUnk; c++ {
		mc.classP[c] = mc.it.coef[0] * m.uni[c]
	}
	if keepUnion {
		s.union = s.union[:0]
	}
	m.scanUnion(&mc.it, func(w uint32, p float64) {
		if keepUnion {
			s.union = append(s.union, scored{w, p})
		}
		if k := openIndex(m.kinds[w]); k >= 0 {
			mc.mass[k] += p
			uniSeen[k] += m.uni[w]
		}
		if isClass(w) {
			mc.classP[w] = p
		}
	})
	for k := range mc.mass {
		mc.mass[k] += mc.it.coef[0] * max(0, m.uniKind[k]-uniSeen[k])
	}
	mc.cc = s.cache.context(rawHist)
	mc.ws = m.ws.weight(mc.prev)
	return mc
}

// pngOf is P_KN of a cache id that is not among the union words: the
// unigram term for a vocabulary word, the class's share for a rare token
// of the file (0 for one that is not in the file).
func (s *session) pngOf(mc *modelCtx, r uint32) float64 {
	nv := uint32(len(s.m.vocab))
	if r < nv {
		return mc.it.coef[0] * s.m.uni[r]
	}
	i := r - nv
	cl := classOf(s.localKind[i])
	if s.localCount[i] == 0 || s.classTotal[cl] == 0 {
		return 0
	}
	return mc.classP[cl] * float64(s.localCount[i]) / float64(s.classTotal[cl])
}

// pngFull is P_KN of any cache id.
func (s *session) pngFull(mc *modelCtx, r uint32) float64 {
	if r < uint32(len(s.m.vocab)) {
		return s.m.prob(&mc.it, r)
	}
	return s.pngOf(mc, r)
}

// mixOf is the n-gram and cache mixture probability of cache id r whose
// P_KN is png.
func (s *session) mixOf(mc *modelCtx, r uint32, png float64) float64 {
	_, kind := s.token(r)
	k := openIndex(kind)
	return s.cache.mix(&mc.cc, r, k, png, &mc.mass, s.m.wsPart(r, k, png, &mc.mass, mc.prev), mc.ws)
}

// prepare computes the distribution's ingredients after generated; it
// fills s.union with the words seen after the context.
func (s *session) prepare(st state, generated string) ctxDist {
	m := s.m
	d := ctxDist{exact: -1}
	if s.cp != nil {
		// Before modelAt(keepUnion): the forward pass may compute other
		// contexts.
		e := s.forward(&st)
		d.modelCtx = s.modelAt(st.hist, st.rawHist, true)
		if e.model == nil {
			mc := d.modelCtx
			e.model = &mc
		}
		mass, mut, total := s.cp.predict(e, s.plausibility(&d.modelCtx))
		d.pEnd, d.endOK = s.endProb(st, generated)
		n := len(s.cp.ids)
		if !d.endOK {
			total -= mass[n]
			mass[n] = 0
		}
		d.copyP = make(map[uint32]float64, n)
		pm := s.modelProb(&d.modelCtx)
		for j, r := range s.cp.ids {
			if mass[j] > 0 {
				d.copyP[r] += mass[j]
			}
			if mut[j] > 0 {
				for _, x := range s.cp.family[j] {
					d.copyP[x] += mut[j] * s.cp.mutation(j, x, pm)
				}
			}
		}
		d.copyEnd, d.lambda = mass[n], total
		d.exact = s.cp.exactPrefix(st.gen)
	} else {
		d.modelCtx = s.modelAt(st.hist, st.rawHist, true)
		d.pEnd, d.endOK = s.endProb(st, generated)
	}
	for k := -1; k < numOpen; k++ {
		sc := 1 - d.cc.weight - cacheWeightKind - d.ws
		if k < 0 || s.cache.kindTotal[k] == 0 {
			sc += cacheWeightKind
		}
		if k != 0 || m.ws.empty() {
			sc += d.ws
		}
		d.scale[k+1] = sc
	}
	d.base = (1 - d.lambda) * (1 - d.pEnd)
	if t, ok := s.declared[st.recv]; ok && st.recv != "" {
		if es, lam := m.typed.at(t); lam > 0 {
			d.typed = es
			d.typedP = make(map[uint32]float64, len(es))
			for _, e := range es {
				d.typedP[e.id] = d.base * lam * e.p
			}
			d.base *= 1 - lam
		}
	}
	return d
}

// forward returns the copy process's forward state after the generated
// tokens of st, extending the longest prefix already computed.
func (s *session) forward(st *state) *fwdEntry {
	c := s.cp
	keys := make([]string, len(st.gen)+1)
	for t := 1; t <= len(st.gen); t++ {
		keys[t] = keys[t-1] + "\x00" + st.gen[t-1].Text
	}
	t0 := len(st.gen)
	for ; t0 > 0; t0-- {
		if _, ok := c.fwd[keys[t0]]; ok {
			break
		}
	}
	if len(c.fwd) > copyMaxCachedFwds {
		start := c.fwd[""]
		clear(c.fwd)
		c.fwd[""] = start
		if t0 > 0 {
			t0 = 0
		}
	}
	e := c.fwd[keys[t0]]
	for t := t0; t < len(st.gen); t++ {
		if e.model == nil {
			at := st.genAt + t
			mc := s.modelAt(st.allHist[:at], st.allRaw[:at], false)
			e.model = &mc
		}
		e = c.step(e, st.gen[t], s.raw(st.gen[t]), s.modelProb(e.model), s.plausibility(e.model))
		c.fwd[keys[t+1]] = e
	}
	return e
}

// modelProb returns the n-gram and cache mixture probability of a cache id
// in the model context mc.
func (s *session) modelProb(mc *modelCtx) func(uint32) float64 {
	return func(r uint32) float64 { return s.mixOf(mc, r, s.pngFull(mc, r)) }
}

// plausibility returns the copy component's f(j') in the model context mc
// (see copy.go), computing each j' once.
func (s *session) plausibility(mc *modelCtx) plausibility {
	c := s.cp
	memo := make([]float64, len(c.ids))
	for j := range memo {
		memo[j] = -1
	}
	nv := uint32(len(s.m.vocab))
	return func(j int) float64 {
		if memo[j] >= 0 {
			return memo[j]
		}
		r := c.ids[j]
		f := 1.0
		if r < nv || s.localCount[r-nv] > 0 {
			p := s.mixOf(mc, r, s.pngFull(mc, r))
			f = p / (p + copyPlausible)
		}
		if !s.seenAfter(mc, c.toks[j]) {
			f *= copyUnseen
		}
		memo[j] = f
		return f
	}
}

// seenAfter reports whether the training data has token t after the last
// token of mc's context, or, for an identifier or a literal, whether the
// n-gram model gives its kind some mass there (a name the project uses once,
// after ">" in the buggy line, may follow ">=" as well). An unknown context
// counts as seen.
func (s *session) seenAfter(mc *modelCtx, t streamTok) bool {
	m := s.m
	if mc.it.nodes[1] < 0 || m.inUnion(&mc.it, m.id(t)) {
		return true
	}
	k := openIndex(t.Kind)
	return k >= 0 && mc.mass[k] >= copyKindSeen
}

// score is the probability of cache id r whose P_KN is png: the mixture
// scaled by base, plus the copy mass.
func (s *session) score(d *ctxDist, r uint32, png float64) float64 {
	return d.base*s.mixOf(&d.modelCtx, r, png) + d.copyP[r] + d.typedP[r]
}

// probOf is the probability of cache id r (any id, union word or not).
func (s *session) probOf(d *ctxDist, r uint32) float64 {
	return s.score(d, r, s.pngFull(&d.modelCtx, r))
}

// endP is the probability of the end-of-middle candidate.
func (d *ctxDist) endP() float64 {
	return (1-d.lambda)*d.pEnd + d.copyEnd
}

// mark records that cache id r was scored in this Next; it reports false
// when it already was.
func (s *session) mark(r uint32) bool {
	if int(r) >= len(s.stamp) {
		s.stamp = append(s.stamp, make([]uint32, int(r)+1-len(s.stamp)+len(s.localText))...)
	}
	if s.stamp[r] == s.epoch {
		return false
	}
	s.stamp[r] = s.epoch
	return true
}

// Next returns the k most probable next tokens after generated, best first,
// each with its text laid out (see render.go), plus the end-of-middle
// candidate when the hunk may end here. LogProbs are natural logs of the
// mixture probability (n-gram, caches, copy of the buggy hunk; see
// filecache.go, workspace.go and copy.go), with the end candidate's mass
// taken out of the rest and, after an exact prefix of the buggy hunk,
// conditioned on not reproducing it.
func (s *session) Next(ctx context.Context, generated string, k int) ([]lm.Candidate, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if k <= 0 {
		k = DefaultK
	}
	m := s.m
	st := s.analyse(generated)
	d := s.prepare(st, generated)
	// One more than asked: excluding the buggy hunk lowers one candidate.
	h := topK{k: k + 1}
	s.epoch++
	if s.epoch == 0 { // wrapped: clear the stamps
		clear(s.stamp)
		s.epoch = 1
	}
	dead := s.deadTokens(st)
	push := func(r uint32, png float64) {
		if s.mark(r) && !dead.has(r) {
			h.push(scored{r, s.score(&d, r, png)})
		}
	}
	// Words seen after this context (their P_KN from the union walk).
	for _, x := range s.union {
		if proposable(x.id) {
			push(x.id, x.p)
		}
	}
	// The file's vocabulary words and rare tokens.
	for _, r := range s.vocabIDs {
		push(r, d.it.coef[0]*m.uni[r])
	}
	nv := uint32(len(m.vocab))
	for i, c := range s.localCount {
		if c > 0 {
			r := nv + uint32(i)
			push(r, s.pngOf(&d.modelCtx, r))
		}
	}
	// The workspace's identifiers: those seen after the previous token,
	// then the others by count while their bound can beat the k-th best
	// (not in the file, so the file cache gives them nothing).
	if ws := m.ws; !ws.empty() {
		for _, w := range ws.followers[d.prev] {
			push(w, d.it.coef[0]*m.uni[w])
		}
		mu, _ := ws.mu(d.prev)
		sc := d.scale[openIndex(javalex.Ident)+1]
		for i, w := range ws.byCount {
			if d.base*(sc*d.it.coef[0]*ws.uniFrom[i]+d.ws*d.mass[0]*(1-mu)*float64(ws.count[w])/ws.total) <= h.min() {
				break
			}
			push(w, d.it.coef[0]*m.uni[w])
		}
	}
	// The receiver type's members (typed.go).
	for _, e := range d.typed {
		push(e.id, s.pngFull(&d.modelCtx, e.id))
	}
	// The buggy hunk's tokens and their mutations (the copy component's
	// candidates).
	if s.cp != nil {
		for j, r := range s.cp.ids {
			if d.copyP[r] > 0 {
				push(r, s.pngOf(&d.modelCtx, r))
			}
			for _, x := range s.cp.family[j] {
				if d.copyP[x] > 0 {
					push(x, s.pngOf(&d.modelCtx, x))
				}
			}
		}
	}
	// Everything else has the unigram term alone (times its kind's scale),
	// so walking by unigram probability can stop early.
	for _, w := range m.byUni {
		if d.base*d.it.coef[0]*m.uni[w] <= h.min() {
			break
		}
		push(w, d.it.coef[0]*m.uni[w])
	}

	items := h.items
	if pe := d.endP(); pe > 0 {
		items = append(items, scored{endID, pe})
	}
	if ex := d.exact; s.cp != nil && ex >= 0 {
		next := uint32(endID)
		if ex < len(s.cp.ids) {
			next = s.cp.ids[ex]
		}
		for i := range items {
			items[i].p = s.cp.applyExclusion(ex, items[i].p, items[i].id == next)
		}
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

// deadSet is what Next proposes none of after a state: the cache ids in
// ids and every id whose kind is in kinds, or, when only is set, every id
// but those in keep.
type deadSet struct {
	ids  []uint32
	only bool
	keep []uint32
	// kinds is a set of javalex kinds (bit 1<<kind); kindOf gives an
	// id's kind when kinds is not empty.
	kinds  uint32
	kindOf func(uint32) javalex.Kind
}

// has reports whether Next proposes no token r.
func (d deadSet) has(r uint32) bool {
	if d.only {
		return !slices.Contains(d.keep, r)
	}
	if d.kinds != 0 && r != idNewline && d.kinds&(1<<d.kindOf(r)) != 0 {
		return true
	}
	return slices.Contains(d.ids, r)
}

// literalKinds are the kinds of literals (JLS 3.10) but true, false and
// null, which lex as keywords (literalWords).
const literalKinds = 1<<javalex.Number | 1<<javalex.String | 1<<javalex.Char | 1<<javalex.TextBlock

// literalWords are the literals that lex as keywords.
var literalWords = []string{"true", "false", "null"}

// isLiteral reports whether a token of kind k and text is a literal.
func isLiteral(k javalex.Kind, text string) bool {
	return literalKinds&(1<<k) != 0 || slices.Contains(literalWords, text)
}

// adjacentDead returns the kinds (a deadSet.kinds set) and the words that
// may not follow the last code token prev (of kind prevKind) where in is
// the innermost open bracket, by three rules of the Java grammar:
//
//   - no literal follows a name, but "yield" ("yield 1;") and "when" (a
//     case guard: "case String s when "x".equals(s)"), and nothing
//     follows a literal that is a name or a literal (JLS 3.10, 14.21,
//     15.8.1: a literal is a primary, a name is never next to one);
//   - no name follows a name where only an expression goes (nameNameDead);
//   - no ":" in a "(" or "[" without a "?" before it at that level
//     (colonDead);
//   - no "," in a block's statement that is no declaration (commaDead).
func adjacentDead(in openBracket, prev string, prevKind javalex.Kind) (kinds uint32, words []string) {
	lit := isLiteral(prevKind, prev)
	if prevKind == javalex.Ident && prev != "yield" && prev != "when" || lit {
		kinds |= literalKinds
		words = append(words, literalWords...)
	}
	if lit || prevKind == javalex.Ident && nameNameDead(in) {
		kinds |= 1 << javalex.Ident
	}
	if colonDead(in) {
		words = append(words, ":")
	}
	if commaDead(in) {
		words = append(words, ",")
	}
	return kinds, words
}

// commaDead reports whether "," may not come next where in is the
// innermost open bracket: at a block's level a "," separates only the
// declarators of a local variable declaration (JLS 14.4; a switch label's
// constants come after "case", before "->" or ":", where no statement
// has started), so none comes in a statement that is no declaration
// (openBracket.exprStmt: "lo = mid + 1, hi", "return a, b"), unless a
// "<" came (type arguments: "f = Map.Entry<K, V>::getKey").
func commaDead(in openBracket) bool {
	return in.text == "{" && in.stmts && in.exprStmt && !in.lt && !in.caseLabel
}

// nameNameDead reports whether no name may follow a name where in is the
// innermost open bracket: only an expression goes there, where two names
// are next to each other only in a type pattern after "instanceof" ("x
// instanceof Foo f", JLS 15.20.2) or after "new" with a type annotation
// ("new @A Foo()"), both ruled in by openBracket.typed (inst at a block's
// level). The places: an argument list (openBracket.args), an if, while,
// switch or synchronized header, a "[" (an index or a dimension), and a
// block's statement after "return", "throw" or an assignment operator
// (openBracket.expr; a declarator's initializer too): "if
// (isNullOrEmpty typed)", "return a b" and "f(x y)" cannot parse whatever
// follows. A lambda's parameters ("(Foo x) ->") open with a "(" that is no
// argument list; a declaration's parameters open in a class body or after
// "record R".
func nameNameDead(in openBracket) bool {
	switch {
	case in.text == "(" && !in.annot && (in.args || in.kw == "if" || in.kw == "while" || in.kw == "switch" || in.kw == "synchronized"):
		return !in.typed
	case in.text == "[" && !in.annot:
		return !in.typed
	case in.text == "{" && in.stmts && in.expr:
		return !in.newSeen && !in.inst && !in.caseLabel
	}
	return false
}

// colonDead reports whether ":" may not come next where in is the
// innermost open bracket: inside a "(" or "[" a ":" ends only a
// conditional expression's middle operand (JLS 15.25), so it needs a "?"
// before it at that level (openBracket.quest; a wildcard's "?" counts too,
// which only rules in more), except in a for header ("for (Foo x : xs)",
// JLS 14.14.2); a switch's labels and a label's ":" are inside a "{".
func colonDead(in openBracket) bool {
	return (in.text == "(" && in.kw != "for" || in.text == "[") && in.quest == 0
}

// notStatementStart are tokens that start no statement and are not the ";"
// that ends a do statement (JLS 14.13). A statement starts with a keyword,
// a name, a literal, "(", "{", ";", "++", "--" or "@" (JLS 14.5); an
// expression statement is an assignment, an increment or decrement, a
// method invocation or a class instance creation (JLS 14.8), so neither
// "-x;" nor "!x;" is one, and type arguments come only after a "."
// (JLS 15.12), so no statement starts with "<".
var notStatementStart = []string{
	")", "]", "}", "[", ",", ".", "::", "->", "?", ":", "instanceof",
	"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", ">>>=",
	"==", "!=", "<", ">", "<=", ">=", "&&", "||", "&", "|", "^",
	"+", "-", "*", "/", "%", "<<", ">>", ">>>", "!", "~",
}

// deadTokens returns what Next proposes none of after st: the dead closers
// (deadClosers), ";" where Java has none, a line break where it would only
// lose the model its bracket, the tokens after which no text compiles
// (syntaxDead), and after a local variable's first declarator name all but
// declNameNext.
func (s *session) deadTokens(st state) deadSet {
	if d, ok := s.syntaxOnly(st); ok {
		return d
	}
	dead := s.deadClosers(st)
	if st.inner.text == "[" || st.inner.text == "(" && !st.inner.header {
		// ";" ends a statement or a declaration, never inside brackets
		// (a lambda's or an anonymous class's body opens "{" first),
		// except between the parts of a for or try header (JLS 14.14,
		// 14.20.3): "splitToList(line;" cannot parse whatever follows.
		if id, ok := s.m.ids[";"]; ok {
			dead = append(dead, id)
		}
	}
	hunk := s.cp != nil || s.fim.Insert
	if o := st.unmatch.openers; len(o) > 0 && o[len(o)-1] != "{" && hunk && !s.breaksInBrackets {
		// No line break inside a "(" or "[" the hunk opened, unless the
		// buggy hunk breaks a line inside one (an insertion has no
		// buggy lines, so none breaks one): a line break there is
		// only layout (every token sequence stays reachable on one
		// line), the hunk cannot end before the bracket closes, and a
		// model that breaks the line there has lost the bracket from its
		// context (three tokens) and seldom closes it.
		dead = append(dead, idNewline)
	}
	if in := st.inner.text; (in == "{" || in == "") && hunk && !s.breaksMidStatement && !stmtBreak(st.prev) {
		// No line break inside a statement at the level of a block or
		// class body (where no bracket of an expression is open) when
		// the buggy hunk breaks lines only between statements: Java's
		// syntax ignores line breaks, so every candidate stays reachable
		// with the statement on one line (candidates are compared after
		// whitespace normalisation); the hunk cannot end inside the
		// statement (a line break there lets the model offer its end,
		// which the file's parse then rejects: "return a || b" + NEWLINE,
		// "if (c)" + NEWLINE where the buggy line opens a block); and
		// the n-gram model, three tokens of context, loses the statement
		// across the break and seldom finishes it ("size =", a line
		// break, ".equals(...").
		dead = append(dead, idNewline)
	}
	dead = append(dead, s.syntaxDead(st)...)
	kinds, words := adjacentDead(st.inner, st.prev, st.prevKind)
	for _, w := range words {
		if id, ok := s.m.ids[w]; ok {
			dead = append(dead, id)
		}
	}
	if st.declName || st.lambdaArrow {
		// After "Foo x" at a statement's start: only declNameNext; after
		// a lambda's "()": only "->"; or a line break where the rules
		// above allow one.
		keep := []uint32{}
		if !slices.Contains(dead, idNewline) {
			keep = append(keep, idNewline)
		}
		next := declNameNext
		if st.lambdaArrow {
			next = []string{"->"}
		}
		for _, w := range next {
			if id, ok := s.m.ids[w]; ok && !slices.Contains(dead, id) {
				keep = append(keep, id)
			}
		}
		return deadSet{only: true, keep: keep}
	}
	return deadSet{ids: dead, kinds: kinds, kindOf: func(r uint32) javalex.Kind { _, k := s.token(r); return k }}
}

// newDead are the tokens that may not follow "new" (not "::new"): a type
// follows it, or type arguments ("<"), or a type annotation ("@") (JLS
// 15.9, 15.10.1).
var newDead = []string{"(", "[", "{", ")", "]", "}", ";", ",", ".", "::", "->", "?", ":", "=", "==", "!=",
	"&&", "||", "+", "-", "*", "/", "%", "!", "~", ">", ">=", "<=", "instanceof", "new"}

// declNameNext are the tokens that may follow the name of a local variable
// declaration's first declarator ("Foo x" at a statement's start, x a
// name: JLS 14.4): its initializer's "=", the declaration's ";", the next
// declarator's ",", or the dimensions of its type ("[", "@" of a type
// annotation on them: JLS 10.2).
var declNameNext = []string{"=", ";", ",", "[", "@"}

// syntaxOnly returns, after the ")" that closes the header of a switch,
// synchronized, catch or try-with-resources, that only "{" (or a line
// break) may follow: each of them is followed by a block or a switch block
// (JLS 14.11, 14.19, 14.20, 14.20.3; a switch expression too, JLS 15.28).
func (s *session) syntaxOnly(st state) (deadSet, bool) {
	c := st.closed
	if c == nil || c.text != "(" {
		return deadSet{}, false
	}
	switch c.kw {
	case "switch", "synchronized", "catch", "try":
		keep := []uint32{idNewline}
		if id, ok := s.m.ids["{"]; ok {
			keep = append(keep, id)
		}
		return deadSet{only: true, keep: keep}, true
	}
	return deadSet{}, false
}

// syntaxDead returns the cache ids of tokens after which no text makes the
// file compile, by three rules of the Java grammar:
//
//   - after the ")" that closes an if, while or for header comes a
//     statement (JLS 14.9, 14.12, 14.14) or, after a do statement's while,
//     ";": none of notStatementStart ("while (lo < hi) >>> 1");
//   - at the top level of an if, while, switch or synchronized header, an
//     expression: no "," (JLS 15.8.5; "while (lo < hi, {"), unless type
//     arguments may be open there (openBracket.angle: "instanceof
//     Map<K, V> m", "x.<K, V>f()");
//   - inside a "(" or "[", a "{" opens only a lambda body (after "->"), an
//     array initializer of an array creation (after "]"), an anonymous
//     class body (after the ")" of a class instance creation's arguments:
//     a "(" opened inside a bracket that had seen "new", openBracket.ctor)
//     or a switch block (after a switch header) (JLS 15.10.1, 15.9,
//     15.27.2, 15.28), except in a for or try header ("for (int[] a =
//     {1}; ...") and an annotation's arguments ("@A({1, 2})"), where it is
//     not ruled out: "while ((lo < hi) {", "if (a.size() {".
func (s *session) syntaxDead(st state) []uint32 {
	var words []string
	if c := st.closed; c != nil && c.text == "(" {
		switch c.kw {
		case "if", "while", "for":
			words = append(words, notStatementStart...)
		}
	}
	if in := st.inner; in.text == "(" && !in.angle && !in.annot {
		switch in.kw {
		case "if", "while", "switch", "synchronized":
			words = append(words, ",")
		}
	}
	if braceDead(st.inner, st.prev, st.closed) {
		words = append(words, "{")
	}
	if forCloseDead(st.inner) {
		words = append(words, ")")
	}
	if st.stmtName {
		words = append(words, stmtNameDead...)
	}
	if st.stmtPrim {
		words = append(words, stmtPrimDead...)
	}
	if in := st.inner; st.prev == "(" && in.text == "(" && in.noLambda {
		words = append(words, ")")
	}
	if operandNext[st.prev] {
		words = append(words, binaryDead...)
	}
	if st.afterNew {
		words = append(words, newDead...)
	}
	for _, w := range declWords {
		if modifierDead(st.inner, w) {
			words = append(words, w)
		}
	}
	var dead []uint32
	for _, w := range words {
		if id, ok := s.m.ids[w]; ok {
			dead = append(dead, id)
		}
	}
	return dead
}

// braceDead reports whether "{" may not come next where inner is the
// innermost open bracket, prev the last code token and closed, when prev
// is a closer, the bracket it closed. Inside a "(" or "[" (not a for or
// try header, not an annotation's arguments), in a for or try header,
// and at the level of a "{" whose statement has become an expression
// (openBracket.expr: after "return", "throw" or an assignment operator), a
// "{" opens only a lambda body (after "->"), an array initializer (after
// "]" of an array creation, or, outside a "(" or "[" that is no header,
// after a declarator's "=": "int[] a = {1};"), an anonymous
// class body (after a class instance creation's ")": closed.ctor) or a
// switch block (JLS 15.10.1, 10.6, 15.9, 15.27.2, 15.28). So
// "return a.isBefore(b) {", "int hi = Math.min(a, b) {" and "for (int i
// = 0; i < a.get(i) {" cannot parse whatever follows. Anywhere, no "{"
// follows an argument list's ")" (openBracket.args) unless it is a class
// instance creation's (ctor).
func braceDead(in openBracket, prev string, closed *openBracket) bool {
	if prev == ")" && closed != nil && closed.args && !closed.ctor {
		// After an argument list's ")" (a method invocation's, or an
		// explicit constructor invocation's: not a class instance
		// creation's, no declaration's or header's, not a record
		// pattern's), no "{" anywhere: "sb.append(n) {" cannot parse
		// whatever follows (JLS 15.12, 8.8.7.1).
		return true
	}
	switch {
	case (in.text == "(" || in.text == "[") && !in.header && !in.annot:
	case in.text == "{" && in.expr, in.text == "(" && in.header && !in.annot:
		if prev == "=" {
			return false
		}
	default:
		return false
	}
	switch {
	case prev == "->", prev == "]":
		return false
	case prev == ")" && (closed == nil || closed.ctor || closed.kw == "switch"):
		return false
	}
	return true
}

// deadClosers returns the cache ids of the closing brackets after which the
// hunk could never end or parse; Next proposes none of them (their mass is
// dropped, not spread over the rest). A closer must match the innermost
// bracket the hunk has opened. With no bracket of its own open: with a buggy hunk (or an insertion) the hunk
// must end with the buggy hunk's unmatched brackets (endProb); an unmatched
// closer stays unmatched whatever follows, so one that the buggy hunk's
// closers do not start with dooms the sample to run to its token limit
// ("}" as the first token of an inserted statement).
func (s *session) deadClosers(st state) []uint32 {
	if o := st.unmatch.openers; len(o) > 0 {
		// A closer must match the innermost bracket the hunk opened:
		// "get(i]" cannot parse whatever follows.
		want := closerOf(o[len(o)-1])
		var dead []uint32
		for _, c := range []string{"}", ")", "]"} {
			if id, ok := s.m.ids[c]; ok && c != want {
				dead = append(dead, id)
			}
		}
		return dead
	}
	b := s.endBrackets
	if b == nil {
		return nil
	}
	n := len(st.unmatch.closers)
	var dead []uint32
	for _, c := range []string{"}", ")", "]"} {
		if n < len(b.closers) && b.closers[n] == c {
			continue
		}
		if id, ok := s.m.ids[c]; ok {
			dead = append(dead, id)
		}
	}
	return dead
}

// closerOf returns the closing bracket of opener ("(", "[" or "{").
func closerOf(opener string) string {
	switch opener {
	case "(":
		return ")"
	case "[":
		return "]"
	}
	return "}"
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
// when the hunk may not end here: generated is neither empty nor ends with a
// line break, or its brackets do not fit. The buggy file's brackets
// balance, so a replacement must leave open what the replaced lines left
// open ("while (lo < hi) {" opens a block the suffix closes) and close what
// they closed of the prefix, no more: "} while (lo < hi) {" or "while (lo)
// < hi) {" for "while (lo < hi) {" cannot compile. Without a buggy hunk the
// hunk must close what it opens, and may close blocks of the prefix (FIM
// contexts without FIM.Buggy, from callers that do not say what the middle
// replaces); an insertion (FIM.Insert) must close exactly what it opens.
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
	fits := len(st.unmatch.openers) == 0
	if b := s.endBrackets; b != nil {
		fits = slices.Equal(st.unmatch.openers, b.openers) && slices.Equal(st.unmatch.closers, b.closers)
	}
	if !fits || (generated != "" && !strings.HasSuffix(generated, "\n")) {
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

// WholeWords reports true: the session's tokens are javalex tokens, and two
// identifiers in a row are laid out with a space between them (see
// lm.WholeWords).
func (s *session) WholeWords() bool { return true }
