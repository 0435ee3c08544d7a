package engine

// context.go classifies, from tokens alone, what surrounds a caret in a
// partial Java program: the open brackets and what each one is (a block, a
// class body, an anonymous class body, the arguments of a call, a lambda
// body, ...), and signs that the statement so far cannot parse. The engine is
// strict at a simple name only where this classification proves that the
// name must be a reference (Repilot Definition 3.4: a strict engine answers
// only where it is certain), and it answers unknown at a member site where
// JDT LS's own answer is known to be unreliable: inside lambda bodies whose
// parameters' types come from inference, inside anonymous class bodies, on
// receivers that contain a lambda, a method reference or a class body, and
// after a syntax error earlier in the same statement.
//
// The classification is conservative: a construct it does not recognise
// yields a frame of kind frameOther, and a position inside or after one is
// never strict.

import (
	"github.com/repilot-lsp/repilot-lsp/javalex"
)

// frameKind says what an open bracket is.
type frameKind uint8

const (
	frameOther       frameKind = iota // unrecognised: never strict inside
	frameBlock                        // method/constructor body, initializer, statement block, switch block
	frameClassBody                    // body of a named class, interface, enum or record
	frameAnonBody                     // body of an anonymous class (new T(...) {...})
	frameLambdaBlock                  // block body of a lambda (or of a switch rule "->")
	frameLambdaExpr                   // expression body of a lambda (or switch rule): no bracket, ends at , ) ] } ;
	frameArrayInit                    // {...} array initializer
	frameCallParen                    // arguments of a method or constructor call
	frameCtrlParen                    // header of if/while/for/switch/synchronized/catch/try
	frameAnnoParen                    // arguments of an annotation
	frameDeclParen                    // parameters of a method, constructor or record declaration
	frameOtherParen                   // grouping, cast, or lambda parameters
	frameBracket                      // [...]
)

// frame is one open bracket (or a lambda expression body).
type frame struct {
	kind frameKind
	open int // index of the opening token in the scanned slice; -1 when before it
	// params are the parameter names of a lambda frame; paramsUnknown when
	// they could not be collected (the lambda began before the scanned text).
	params        []string
	paramsUnknown bool
	newParen      bool // frameCallParen of "new T(": a "{" after its ")" is an anonymous class body
}

// scanState is the result of scanning tokens: the open frames and what the
// current statement holds so far.
type scanState struct {
	frames []frame
	// broken: a closing bracket did not match the innermost open one. JDT
	// LS's recovery after that is not trusted anywhere later in the text.
	broken bool
	// stmtErr: the statement under way has a sequence of tokens that no
	// Java statement has (a syntax error); reset at ; { }.
	stmtErr bool
	// instanceOf: an instanceof or a case pattern (a pattern may bind a
	// variable JDT LS's recovery does not see) appears in the scanned text
	// and its binding's scope may not have ended yet.
	instanceOf bool
	// patternScope is how many frames are open while every pattern seen
	// may still be in scope (valid when instanceOf): a binding's scope
	// ends, at the latest, with the innermost brace that encloses its
	// pattern (JLS 6.3.1, 6.3.2: the rest of an expression, the statements
	// after it in its block or its switch group or rule), so the flag
	// clears once that brace's frame, at index patternScope-1, is closed.
	// 0 when no brace encloses the pattern (the flag never clears).
	patternScope int
	// typeDecl: class/interface/enum/record seen since the last ; { }.
	typeDecl bool
	// throwsSeen: throws seen since the last ; { } (a method header).
	throwsSeen bool
	// lastClosed is the frame closed by the last ")" (valid when lastClosedOK).
	lastClosed   frame
	lastClosedOK bool
	// lambdaTyped holds what lambdaTypedNames found in the text before a
	// lexWindow (set by newLexWindow only; read-only).
	lambdaTyped lambdaTypedSet
}

func (s *scanState) clone() scanState {
	c := *s
	c.frames = append([]frame(nil), s.frames...)
	return c
}

func (s *scanState) top() frameKind {
	if len(s.frames) == 0 {
		return frameClassBody // top level of a compilation unit: declarations
	}
	return s.frames[len(s.frames)-1].kind
}

// inside reports whether any open frame has kind k.
func (s *scanState) inside(k frameKind) bool {
	for _, f := range s.frames {
		if f.kind == k {
			return true
		}
	}
	return false
}

// inLambda reports whether the position is inside a lambda body.
func (s *scanState) inLambda() bool {
	return s.inside(frameLambdaBlock) || s.inside(frameLambdaExpr)
}

// lambdaParams returns the parameter names of the enclosing lambdas, and
// false when some enclosing lambda's parameters are not known.
func (s *scanState) lambdaParams() ([]string, bool) {
	var out []string
	for _, f := range s.frames {
		if f.kind == frameLambdaBlock || f.kind == frameLambdaExpr {
			if f.paramsUnknown {
				return nil, false
			}
			out = append(out, f.params...)
		}
	}
	return out, true
}

// codeTokens drops comments (they separate nothing in Java's grammar).
func codeTokens(toks []javalex.Token) []javalex.Token {
	out := make([]javalex.Token, 0, len(toks))
	for _, t := range toks {
		if !t.Kind.IsComment() {
			out = append(out, t)
		}
	}
	return out
}

func isOp(t javalex.Token, op string) bool  { return t.Kind == javalex.Operator && t.Text == op }
func isKw(t javalex.Token, kw string) bool  { return t.Kind == javalex.Keyword && t.Text == kw }
func isWord(t javalex.Token, w string) bool { return t.Text == w && t.Kind.IsWord() }
func isLiteral(t javalex.Token) bool {
	switch t.Kind {
	case javalex.Number, javalex.String, javalex.Char, javalex.TextBlock:
		return true
	case javalex.Keyword:
		return t.Text == "true" || t.Text == "false" || t.Text == "null"
	}
	return false
}

// binaryOnly are operators that need an operand on both sides and cannot be
// followed by a closing bracket, ";" or another such operator. "<", ">",
// "&", "?" and "*" are left out: type arguments, bounds, wildcards and
// "import x.*" use them differently.
var binaryOnly = map[string]bool{
	"/": true, "%": true, "=": true, "==": true, "!=": true, "<=": true, ">=": true,
	"&&": true, "||": true, "+=": true, "-=": true, "*=": true, "/=": true, "%=": true,
	"&=": true, "|=": true, "^=": true, "<<=": true, ">>=": true, ">>>=": true,
	"|": true, "^": true, "<<": true, "->": true,
}

// scan runs the bracket classifier over code tokens toks (comments
// removed), continuing from st. It returns the state after toks.
func scan(st scanState, toks []javalex.Token) scanState {
	return scanTo(st, toks, len(toks))
}

// scanTo is scan over toks[:n] whose lookahead ("case P(", "record R")
// may see the tokens after n, as a scan of all of toks would: the state
// before a lexWindow must be the one a scan of the whole prefix passes
// through at the window's start.
func scanTo(st scanState, toks []javalex.Token, n int) scanState {
	for i := 0; i < n; i++ {
		t := toks[i]
		var prev javalex.Token
		if i > 0 {
			prev = toks[i-1]
		}
		st.checkAdjacent(toks, i)
		// A lambda expression body ends at a closer or separator of its level.
		if t.Kind == javalex.Operator {
			switch t.Text {
			case ",", ")", "]", "}", ";":
				for len(st.frames) > 0 && st.frames[len(st.frames)-1].kind == frameLambdaExpr {
					st.frames = st.frames[:len(st.frames)-1]
				}
			case "{":
				// "-> {": the expression body just opened is a block body.
				if n := len(st.frames); n > 0 && st.frames[n-1].kind == frameLambdaExpr && i > 0 && isOp(prev, "->") {
					f := st.frames[n-1]
					st.frames = st.frames[:n-1]
					f.kind = frameLambdaBlock
					f.open = i
					st.frames = append(st.frames, f)
					st.resetStmt()
					continue
				}
			}
		}
		switch {
		case t.Kind == javalex.Keyword && t.Text == "instanceof":
			st.sawPattern()
		case t.Kind == javalex.Keyword && (t.Text == "class" || t.Text == "interface" || t.Text == "enum"):
			if !(i > 0 && isOp(prev, ".")) {
				st.typeDecl = true
			}
		case t.Kind == javalex.Keyword && t.Text == "case" && i+2 < len(toks) && toks[i+1].Kind == javalex.Ident &&
			(toks[i+2].Kind == javalex.Ident || isOp(toks[i+2], "(") || isOp(toks[i+2], ".") || isOp(toks[i+2], "<")):
			st.sawPattern() // a type or record pattern may bind variables
		case t.Kind == javalex.Keyword && t.Text == "throws":
			st.throwsSeen = true
		case t.Kind == javalex.Ident && t.Text == "record" && i+1 < len(toks) && toks[i+1].Kind == javalex.Ident:
			st.typeDecl = true
		}
		if t.Kind != javalex.Operator {
			continue
		}
		switch t.Text {
		case "(":
			st.frames = append(st.frames, frame{kind: st.parenKind(toks, i), open: i, newParen: newBefore(toks, i)})
		case "[":
			st.frames = append(st.frames, frame{kind: frameBracket, open: i})
		case "{":
			st.frames = append(st.frames, frame{kind: st.braceKind(toks, i), open: i})
			st.resetStmt()
		case ")", "]", "}":
			want := map[string]frameKind{")": 0, "]": frameBracket, "}": 0}[t.Text]
			n := len(st.frames)
			if n == 0 {
				st.broken = true
				continue
			}
			f := st.frames[n-1]
			ok := false
			switch t.Text {
			case ")":
				ok = f.kind >= frameCallParen && f.kind <= frameOtherParen
			case "]":
				ok = f.kind == want
			case "}":
				ok = f.kind <= frameArrayInit && f.kind != frameLambdaExpr
			}
			if !ok {
				st.broken = true
			}
			st.frames = st.frames[:n-1]
			if t.Text == ")" {
				st.lastClosed, st.lastClosedOK = f, true
			}
			if t.Text == "}" {
				st.resetStmt()
				if st.instanceOf && len(st.frames) < st.patternScope {
					st.instanceOf, st.patternScope = false, 0 // every pattern's scope has ended
				}
			}
		case ";":
			st.resetStmt()
		case "->":
			if switchRule(toks, i) {
				continue // "case X ->": the rule's body is a statement of the switch block
			}
			f := frame{kind: frameLambdaExpr, open: i}
			switch {
			case i > 0 && prev.Kind == javalex.Ident:
				f.params = []string{prev.Text}
			case i > 0 && isOp(prev, ")") && st.lastClosedOK && st.lastClosed.open >= 0:
				for _, p := range toks[st.lastClosed.open+1 : i-1] {
					if p.Kind == javalex.Ident {
						f.params = append(f.params, p.Text)
					}
				}
			default:
				f.paramsUnknown = true // a switch rule ("case X ->") or unknown shape
			}
			st.frames = append(st.frames, f)
		}
	}
	return st
}

// switchRule reports whether the "->" at toks[i] is a switch rule's arrow
// ("case A, B ->", "default ->"), not a lambda's: a case or default keyword
// comes first in its statement.
func switchRule(toks []javalex.Token, i int) bool {
	for j := i - 1; j >= 0; j-- {
		t := toks[j]
		switch {
		case isKw(t, "case") || isKw(t, "default"):
			return true
		case isOp(t, ";") || isOp(t, "{") || isOp(t, "}") || isOp(t, "->") || isOp(t, "(") || isOp(t, "="):
			return false
		}
	}
	return false
}

// sawPattern records a pattern (instanceof, or a case label's type or
// record pattern) at the current frames: see patternScope.
func (st *scanState) sawPattern() {
	scope := 0
	for k := len(st.frames) - 1; k >= 0; k-- {
		if kind := st.frames[k].kind; kind <= frameArrayInit && kind != frameLambdaExpr {
			scope = k + 1 // only "{" opens these kinds
			break
		}
	}
	if !st.instanceOf || scope < st.patternScope {
		st.patternScope = scope
	}
	st.instanceOf = true
}

func (st *scanState) resetStmt() {
	st.stmtErr, st.typeDecl, st.throwsSeen = false, false, false
}

// checkAdjacent flags token pairs that no Java statement contains.
func (st *scanState) checkAdjacent(toks []javalex.Token, i int) {
	if i == 0 {
		return
	}
	p, t := toks[i-1], toks[i]
	switch {
	case isLiteral(p) && (t.Kind == javalex.Ident || isLiteral(t) || isOp(t, "(") || isOp(t, "{")):
		st.stmtErr = true
	case p.Kind == javalex.Operator && (binaryOnly[p.Text] || p.Text == "(") &&
		t.Kind == javalex.Operator && (binaryOnly[t.Text] || t.Text == ")" && p.Text != "(" ||
		t.Text == "]" || t.Text == ";" || t.Text == ","):
		st.stmtErr = true
	case isOp(p, ",") && isOp(t, ")"):
		st.stmtErr = true // no trailing comma in parentheses
	case p.Kind == javalex.Operator && (p.Text == "+" || p.Text == "-" || p.Text == "!" || p.Text == "~") &&
		t.Kind == javalex.Operator && (t.Text == ")" || t.Text == "]" || t.Text == ";" || t.Text == ","):
		st.stmtErr = true // an operator without its operand
	case i >= 2 && p.Kind == javalex.Ident && t.Kind == javalex.Ident && toks[i-2].Kind == javalex.Ident &&
		!isWord(toks[i-2], "record") && !isWord(toks[i-2], "sealed") && !isWord(toks[i-2], "permits"):
		st.stmtErr = true
	}
}

// newBefore reports whether the "(" at toks[i] follows "new T" (T possibly
// qualified, annotated or with type arguments): a constructor call.
func newBefore(toks []javalex.Token, i int) bool {
	j := i - 1
	depth := 0
	for ; j >= 0; j-- {
		t := toks[j]
		switch {
		case isOp(t, ">"):
			depth++
		case isOp(t, ">>"):
			depth += 2
		case isOp(t, ">>>"):
			depth += 3
		case isOp(t, "<"):
			depth--
		case depth > 0:
		case t.Kind == javalex.Ident || isOp(t, ".") || isOp(t, "@"):
		default:
			return isKw(t, "new")
		}
	}
	return false
}

// parenKind classifies the "(" at toks[i].
func (st *scanState) parenKind(toks []javalex.Token, i int) frameKind {
	if i == 0 {
		return frameOtherParen
	}
	p := toks[i-1]
	switch {
	case p.Kind == javalex.Keyword:
		switch p.Text {
		case "if", "while", "for", "switch", "synchronized", "catch", "try":
			return frameCtrlParen
		case "this", "super":
			return frameCallParen
		}
		return frameOtherParen
	case p.Kind == javalex.Ident:
		// @A( or @a.b.A(
		j := i - 1
		for j >= 2 && isOp(toks[j-1], ".") && toks[j-2].Kind == javalex.Ident {
			j -= 2
		}
		if j >= 1 && isOp(toks[j-1], "@") {
			return frameAnnoParen
		}
		if newBefore(toks, i) {
			return frameCallParen // new T(
		}
		if top := st.top(); (top == frameClassBody || top == frameAnonBody) && (i < 2 || declLead(toks[i-2])) {
			return frameDeclParen // a method or constructor header
		}
		if i >= 2 {
			pp := toks[i-2]
			if pp.Kind == javalex.Ident && pp.Text == "record" {
				return frameDeclParen
			}
			// "T name(" or "T> name(" or "T[] name(": a declaration, or
			// something this classifier does not know.
			if pp.Kind == javalex.Ident || isOp(pp, ">") || isOp(pp, "]") || isOp(pp, ">>") ||
				pp.Kind == javalex.Keyword && primitiveOrVoid[pp.Text] {
				return frameOtherParen
			}
		}
		return frameCallParen
	case isOp(p, ">"):
		if newBefore(toks, i) {
			return frameCallParen // new T<...>(
		}
	}
	return frameOtherParen
}

// declLead reports whether t, the token before "name(" in a class body, can
// precede a method or constructor header: a type's last token, a modifier,
// an annotation's end, or the end of the previous member.
func declLead(t javalex.Token) bool {
	switch t.Kind {
	case javalex.Ident:
		return true
	case javalex.Keyword:
		return t.Text != "return" && t.Text != "new" && t.Text != "throw"
	case javalex.Operator:
		switch t.Text {
		case ">", ">>", ">>>", "]", ")", "{", "}", ";":
			return true
		}
	}
	return false
}

var primitiveOrVoid = map[string]bool{
	"boolean": true, "byte": true, "char": true, "short": true, "int": true,
	"long": true, "float": true, "double": true, "void": true,
}

// braceKind classifies the "{" at toks[i].
func (st *scanState) braceKind(toks []javalex.Token, i int) frameKind {
	top := st.top()
	if i == 0 {
		if top == frameBlock || top == frameLambdaBlock {
			return frameBlock
		}
		return frameOther
	}
	p := toks[i-1]
	switch {
	case isOp(p, "->"):
		if switchRule(toks, i-1) {
			return frameBlock
		}
		return frameLambdaBlock
	case isOp(p, ")"):
		if !st.lastClosedOK {
			return frameOther
		}
		switch st.lastClosed.kind {
		case frameCtrlParen:
			return frameBlock
		case frameCallParen:
			if st.lastClosed.newParen {
				return frameAnonBody
			}
			return frameOther
		case frameDeclParen:
			if st.typeDecl {
				return frameClassBody // record R(...) {
			}
			return frameBlock // method or constructor body
		}
		return frameOther
	case isOp(p, "=") || isOp(p, "]"):
		return frameArrayInit
	case isOp(p, ",") || isOp(p, "{"):
		if top == frameArrayInit {
			return frameArrayInit
		}
		if isOp(p, "{") && (top == frameBlock || top == frameLambdaBlock) {
			return frameBlock
		}
		return frameOther
	case isOp(p, ";") || isOp(p, "}") || isOp(p, ":"):
		if top == frameBlock || top == frameLambdaBlock || top == frameClassBody || top == frameAnonBody {
			return frameBlock // a nested block, or an initializer in a class body
		}
		return frameOther
	case p.Kind == javalex.Keyword:
		switch p.Text {
		case "else", "try", "finally", "do", "static", "default":
			return frameBlock
		}
		return frameOther
	case p.Kind == javalex.Ident || isOp(p, ">") || isOp(p, ">>") || isOp(p, ">>>"):
		if st.typeDecl {
			return frameClassBody
		}
		if st.throwsSeen {
			return frameBlock
		}
	}
	return frameOther
}

// receiverStart returns the index of the first token of the receiver
// expression that ends at toks[r] (the token before a member-access dot):
// a chain of names, calls, array accesses, literals and this/super joined by
// dots, possibly starting with "new T(...)". It returns -1 when the shape is
// not recognised.
func receiverStart(toks []javalex.Token, r int) int {
	j := r
	for j >= 0 {
		t := toks[j]
		switch {
		case isOp(t, ")") || isOp(t, "]"):
			open := matchOpen(toks, j)
			if open < 0 {
				return -1
			}
			j = open
			// a call: the name before "(", or a cast/grouping: done.
			if isOp(t, ")") && j > 0 && (toks[j-1].Kind == javalex.Ident || isKw(toks[j-1], "this") || isKw(toks[j-1], "super")) {
				j--
			} else if isOp(t, "]") && j > 0 {
				j--
				continue // the array expression before "["
			}
		case t.Kind == javalex.Ident || t.Kind == javalex.Keyword || isLiteral(t):
		default:
			return -1
		}
		// j is the first token of an atom; continue over "new", a dot, or
		// explicit type arguments (".<T>m").
		if j > 0 && isKw(toks[j-1], "new") {
			j--
		}
		if j > 0 && isOp(toks[j-1], ">") {
			k := j - 1
			depth := 0
			for ; k >= 0; k-- {
				if isOp(toks[k], ">") {
					depth++
				} else if isOp(toks[k], "<") {
					depth--
					if depth == 0 {
						break
					}
				}
			}
			if k > 0 && isOp(toks[k-1], ".") {
				j = k - 1
				if j == 0 {
					return -1
				}
				j--
				continue
			}
			return j
		}
		if j > 0 && isOp(toks[j-1], ".") {
			if j < 2 {
				return -1
			}
			j -= 2
			continue
		}
		return j
	}
	return -1
}

// matchOpen returns the index of the bracket that the closer at toks[c]
// closes, or -1.
func matchOpen(toks []javalex.Token, c int) int {
	closeText := toks[c].Text
	openText := map[string]string{")": "(", "]": "[", "}": "{"}[closeText]
	depth := 0
	for k := c; k >= 0; k-- {
		t := toks[k]
		if t.Kind != javalex.Operator {
			continue
		}
		switch t.Text {
		case closeText:
			depth++
		case openText:
			depth--
			if depth == 0 {
				return k
			}
		}
	}
	return -1
}

// receiverUnreliable reports why JDT LS's member list for the dot after
// toks[r] cannot be trusted ("" when it can): see the file comment.
func receiverUnreliable(st *scanState, toks []javalex.Token, r int) string {
	if st.broken {
		return "unbalanced brackets earlier"
	}
	if st.stmtErr {
		return "syntax error earlier in the statement"
	}
	if st.inside(frameAnonBody) {
		return "inside an anonymous class body"
	}
	start := receiverStart(toks, r)
	if start < 0 {
		return "receiver shape not recognised"
	}
	params, known := st.lambdaParams()
	if st.inLambda() && !known {
		return "inside a lambda whose parameters are not known"
	}
	typed := lambdaTypedNames(toks, st.lambdaTyped)
	for _, t := range toks[start : r+1] {
		switch {
		case t.Kind == javalex.Ident && typed.vars[t.Text]:
			return "receiver uses a var local initialised from a lambda or method reference"
		case isOp(t, "::"):
			return "method reference in the receiver"
		case isOp(t, "->"):
			return "lambda in the receiver"
		case isOp(t, "{") || isOp(t, "}"):
			return "class body or block in the receiver"
		case t.Kind == javalex.Ident:
			for _, p := range params {
				if p == t.Text {
					return "receiver uses a lambda parameter"
				}
			}
		}
	}
	return ""
}

// simpleMode says how strictly a simple name (an identifier not after a dot)
// is judged.
type simpleMode uint8

const (
	// simpleNone: a declaration name, label, element name, or a position
	// this classifier does not know: never judged.
	simpleNone simpleMode = iota
	// simpleEnd: a reference, but the identifier may still turn out to be a
	// lambda parameter ("x -> ...") or a label: judged only when it has
	// ended and the next character rules those out.
	simpleEnd
	// simplePrefix: a reference where no lambda, label or declaration can
	// start (an operand of a binary or unary operator, an array index):
	// every prefix is judged.
	simplePrefix
	// simpleNewType: the type after "new": every prefix is judged against
	// the types (and packages) JDT LS lists there.
	simpleNewType
	// simpleNever: a name right after a name among a call's arguments or
	// in an array index ("max(a, readings i"), or right after a call
	// ("max(a, b) i"): no Java expression puts two names side by side, or a
	// name after a call (JLS 15; the exceptions, a pattern's binding after
	// "instanceof T" and "case R(...) when", are ruled out before), so every
	// prefix is infeasible without asking JDT LS.
	simpleNever
)

func (m simpleMode) String() string {
	return [...]string{"none", "end", "prefix", "new-type", "never"}[m]
}

// prefixOps are operators after which an operand follows and no lambda,
// label or declaration can start. ">" and its longer forms are left out
// (List<T> name declares name), and so are "=" and the compound assignments,
// "?" and ":" (a lambda may follow them).
var prefixOps = map[string]bool{
	"+": true, "-": true, "*": true, "/": true, "%": true, "==": true, "!=": true,
	"<=": true, ">=": true, "&&": true, "||": true, "&": true, "|": true, "^": true,
	"<<": true, "<": true, "!": true, "~": true, "++": true, "--": true,
}

// lambdaOps may be followed by a lambda ("x -> ..."), so a name after them
// is judged only when it ends.
var lambdaOps = map[string]bool{
	"=": true, "+=": true, "-=": true, "*=": true, "/=": true, "%=": true, "&=": true,
	"|=": true, "^=": true, "<<=": true, ">>=": true, ">>>=": true, "?": true, ":": true,
}

// simplePosition classifies the identifier at toks[i] (code tokens; toks[i]
// is not after a dot), given st, the state after toks[:i]. It returns the
// mode and, when the mode is simpleNone, why.
func simplePosition(st *scanState, toks []javalex.Token, i int) (simpleMode, string) {
	switch {
	case i == 0:
		return simpleNone, "no token before the name"
	case st.broken:
		return simpleNone, "unbalanced brackets earlier"
	case st.stmtErr:
		return simpleNone, "syntax error earlier in the statement"
	case st.inside(frameAnonBody):
		return simpleNone, "inside an anonymous class body"
	case st.inLambda():
		return simpleNone, "inside a lambda body"
	case st.instanceOf:
		return simpleNone, "a pattern may bind variables here"
	case st.inside(frameAnnoParen):
		return simpleNone, "annotation arguments"
	}
	prev := toks[i-1]
	if annotationEnd(toks, i-1) {
		// "new @A Bar(", "foo(new Outer.@A Inner())", "List<@A String>":
		// a type use that a type annotation precedes (JLS 9.7.4).
		return simpleNone, "a type after an annotation"
	}
	if isKw(prev, "new") {
		if i >= 2 && isOp(toks[i-2], ".") {
			return simpleNone, "qualified instance creation (outer.new Inner)"
		}
		return simpleNewType, ""
	}
	top := st.top()
	switch top {
	case frameBlock, frameCallParen, frameCtrlParen, frameBracket:
	default:
		return simpleNone, "not in a method body, call arguments or statement header"
	}
	switch prev.Kind {
	case javalex.Operator:
		switch {
		case prefixOps[prev.Text]:
			return simplePrefix, ""
		case prev.Text == "[" && top == frameBracket:
			return simplePrefix, ""
		case lambdaOps[prev.Text]:
			return simpleEnd, ""
		case prev.Text == "->" && top == frameBlock:
			return simpleEnd, "" // a switch rule's body
		case prev.Text == "(" && (top == frameCallParen || top == frameCtrlParen):
			return simpleEnd, ""
		case prev.Text == "," && top == frameCallParen:
			return simpleEnd, ""
		case prev.Text == ";" && (top == frameBlock || top == frameCtrlParen):
			return simpleEnd, ""
		case (prev.Text == "{" || prev.Text == "}") && top == frameBlock:
			return simpleEnd, ""
		case prev.Text == ")" && st.lastClosedOK && st.lastClosed.kind == frameCallParen:
			return simpleNever, "" // a call's result is never followed by a name
		case prev.Text == ")" && top == frameBlock && st.lastClosedOK &&
			(st.lastClosed.kind == frameCtrlParen || st.lastClosed.kind == frameOtherParen):
			return simpleEnd, "" // after if (...), for (...), or a cast
		}
	case javalex.Ident:
		if st.inForPattern(toks) {
			return simpleNone, "a record pattern in an enhanced for's header"
		}
		if top == frameCallParen || top == frameBracket {
			return simpleNever, ""
		}
	case javalex.Keyword:
		switch prev.Text {
		case "throw", "assert":
			return simplePrefix, ""
		case "return":
			return simpleEnd, ""
		case "else", "do":
			if top == frameBlock {
				return simpleEnd, ""
			}
		}
	}
	return simpleNone, "a declaration, label or position not known to be a reference"
}

// inForPattern reports whether the position may be inside a record pattern
// that starts an enhanced for's header, "for (Point(var x, var y) : ps)"
// (Java 20's preview, JEP 432), which scan classifies as a call's
// arguments: a for header's "(" directly encloses a frameCallParen whose "("
// follows only a (qualified, parameterized) type name, or the header began
// before the scanned tokens.
func (st *scanState) inForPattern(toks []javalex.Token) bool {
	for k := 0; k+1 < len(st.frames); k++ {
		ctrl, call := st.frames[k], st.frames[k+1]
		if ctrl.kind != frameCtrlParen || call.kind != frameCallParen {
			continue
		}
		if ctrl.open < 1 || call.open < 0 {
			return true // not known
		}
		if !isKw(toks[ctrl.open-1], "for") {
			continue
		}
		typeOnly := true
		for _, t := range toks[ctrl.open+1 : call.open] {
			if !(t.Kind == javalex.Ident || isOp(t, ".") || isOp(t, "<") || isOp(t, ">") ||
				isOp(t, ">>") || isOp(t, ",") || isOp(t, "?") || isOp(t, "@") || t.Kind == javalex.Keyword) {
				typeOnly = false
				break
			}
		}
		if typeOnly {
			return true
		}
	}
	return false
}

// annotationEnd reports whether toks[j] ends an annotation without
// arguments: the last name of "@A" or "@a.b.A" (an annotation with
// arguments ends at the ")" of a frameAnnoParen).
func annotationEnd(toks []javalex.Token, j int) bool {
	if j < 1 || toks[j].Kind != javalex.Ident {
		return false
	}
	for j >= 2 && isOp(toks[j-1], ".") && toks[j-2].Kind == javalex.Ident {
		j -= 2
	}
	return j >= 1 && isOp(toks[j-1], "@")
}

// contextualWords are identifiers that act as keywords somewhere (JLS 3.9
// "contextual keywords"), and "_": never judged as simple names.
var contextualWords = []string{
	"var", "yield", "record", "sealed", "permits", "non", "when", "module", "open",
	"exports", "requires", "to", "with", "transitive", "opens", "uses", "provides", "_",
}

// anyKeywordPrefix reports whether ident is a prefix of a reserved keyword,
// a literal (true, false, null) or a contextual keyword: such a name is
// never called infeasible in a simple-name position.
func anyKeywordPrefix(ident string) bool {
	for _, k := range contextualWords {
		if len(ident) <= len(k) && k[:len(ident)] == ident {
			return true
		}
	}
	for _, k := range javaKeywords {
		if len(ident) <= len(k) && k[:len(ident)] == ident {
			return true
		}
	}
	return false
}

// javaKeywords are the reserved keywords and literals (JLS 3.9, 3.10.3,
// 3.10.8), including the primitive types.
var javaKeywords = []string{
	"abstract", "assert", "boolean", "break", "byte", "case", "catch", "char", "class",
	"const", "continue", "default", "do", "double", "else", "enum", "extends", "final",
	"finally", "float", "for", "goto", "if", "implements", "import", "instanceof", "int",
	"interface", "long", "native", "new", "package", "private", "protected", "public",
	"return", "short", "static", "strictfp", "super", "switch", "synchronized", "this",
	"throw", "throws", "transient", "try", "void", "volatile", "while", "true", "false", "null",
}

// openCall is the argument list of a method call that a caret is in (see
// callArgs and innerCall).
type openCall struct {
	Open     int  // index of the call's "(" in the scanned tokens
	Args     int  // arguments so far: top-level commas + 1, or 0 when nothing follows "("
	Trailing bool // the last token is a top-level ",": the next argument has not begun
	// Simple: the call is a simple-name call "name(" (innerCall), not a
	// member call "recv.name(".
	Simple bool
}

// callArgs finds the call whose argument list is innermost at the end of
// toks (code tokens; st is the state after them) and counts its arguments,
// for the ")" or "," about to follow (arity.go). The call must be a member
// method call "recv.name(" opened inside toks (not "new T(", a simple-name
// call, this( or super(, or explicit type arguments "recv.<T>name("). A
// lambda expression body still open ends at that ")" or "," and is one
// argument; lambda parameters "(a, b) ->", nested calls and every other
// bracket are nested and not counted. ok is false when the count is not
// certain: brackets that did not match, any "<", ">", ">>" or ">>>" at the
// top level of the list (type arguments "new HashMap<A, B>()" put commas
// there, and "a < b, c > d" reads both ways), a character that starts no
// token (a backslash may begin a Unicode escape), or a call of another shape.
func callArgs(st *scanState, toks []javalex.Token) (openCall, bool) {
	call, ok := innerCall(st, toks)
	if !ok || call.Simple {
		return openCall{}, false
	}
	return call, true
}

// innerCall is callArgs for member method calls "recv.name(" and, as well,
// simple-name method calls "name(" (Simple set) whose name follows an
// operator that is not ".", "::", "@", "...", "]" or a closing ">" (in
// declarations a type ends there: "List<T> f(", "int[] f(") or one of the
// keywords return, throw, assert, else and do; never a name right after a
// name or another keyword ("record R(", "void f(", "public A(", "case
// P(": a record pattern).
// Whether the name is judged at all (a reference position) is the
// caller's to decide (checkArity, simpleSiteAt).
func innerCall(st *scanState, toks []javalex.Token) (openCall, bool) {
	if st.broken {
		return openCall{}, false
	}
	frames := st.frames
	for len(frames) > 0 && frames[len(frames)-1].kind == frameLambdaExpr {
		frames = frames[:len(frames)-1]
	}
	if len(frames) == 0 {
		return openCall{}, false
	}
	f := frames[len(frames)-1]
	open := f.open
	if f.kind != frameCallParen || f.newParen || open < 2 || open >= len(toks) || !isOp(toks[open], "(") ||
		toks[open-1].Kind != javalex.Ident {
		return openCall{}, false
	}
	call := openCall{Open: open}
	switch before := toks[open-2]; {
	case isOp(before, "."):
		if open < 3 {
			return openCall{}, false
		}
	case before.Kind == javalex.Operator:
		switch before.Text {
		case "::", "@", "...", "]", ">", ">>", ">>>":
			return openCall{}, false
		}
		call.Simple = true
	case before.Kind == javalex.Keyword:
		switch before.Text {
		case "return", "throw", "assert", "else", "do":
			call.Simple = true
		default:
			return openCall{}, false
		}
	default:
		return openCall{}, false
	}
	depth := 0
	for _, t := range toks[open+1:] {
		if t.Kind == javalex.Invalid {
			return openCall{}, false // a "\\" may begin a Unicode escape of "," or ")"
		}
		if t.Kind != javalex.Operator {
			continue
		}
		switch t.Text {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
			if depth < 0 {
				return openCall{}, false
			}
		case "<", ">", ">>", ">>>":
			if depth == 0 {
				return openCall{}, false
			}
		case ",":
			if depth == 0 {
				call.Args++
			}
		}
	}
	if depth != 0 {
		return openCall{}, false
	}
	if len(toks) > open+1 {
		call.Args++
		call.Trailing = isOp(toks[len(toks)-1], ",")
	}
	return call, true
}

// lambdaTypedSet is what lambdaTypedNames collects: the names of lambda
// parameters, and of local variables declared with "var" whose initializer
// (or for-each expression) has a lambda, a method reference, a lambda
// parameter's name, or such a variable's name.
type lambdaTypedSet struct {
	params map[string]bool
	vars   map[string]bool
}

// lambdaTypedNames returns the lambda parameters and lambda-typed var locals
// (lambdaTypedSet) of toks, added to those of before (which is not changed).
// JDT LS types such a local from inference, as it types a lambda parameter,
// and a receiver that uses one is treated like a lambda parameter (issue
// 14): JDT LS typed them right in every probe, but a local it typed as
// Object would have its valid members pruned. Names are collected without
// regard to scope, which can only make more receivers unknown.
func lambdaTypedNames(toks []javalex.Token, before lambdaTypedSet) lambdaTypedSet {
	out := lambdaTypedSet{params: map[string]bool{}, vars: map[string]bool{}}
	for n := range before.params {
		out.params[n] = true
	}
	for n := range before.vars {
		out.vars[n] = true
	}
	for i, t := range toks {
		if !isOp(t, "->") || i == 0 {
			continue
		}
		switch p := toks[i-1]; {
		case p.Kind == javalex.Ident:
			out.params[p.Text] = true
		case isOp(p, ")"):
			if open := matchOpen(toks, i-1); open >= 0 {
				for k := open + 1; k < i-1; k++ {
					if toks[k].Kind == javalex.Ident && (isOp(toks[k+1], ",") || isOp(toks[k+1], ")")) {
						out.params[toks[k].Text] = true
					}
				}
			}
		}
	}
	for i := 0; i+2 < len(toks); i++ {
		if !isWord(toks[i], "var") || toks[i+1].Kind != javalex.Ident || !(isOp(toks[i+2], "=") || isOp(toks[i+2], ":")) {
			continue
		}
		depth := 0
	init:
		for j := i + 3; j < len(toks); j++ {
			t := toks[j]
			switch {
			case isOp(t, "(") || isOp(t, "[") || isOp(t, "{"):
				depth++
			case isOp(t, ")") || isOp(t, "]") || isOp(t, "}"):
				if depth--; depth < 0 {
					break init // the end of a for-each header
				}
			case isOp(t, ";") && depth == 0:
				break init
			case isOp(t, "->") || isOp(t, "::") ||
				t.Kind == javalex.Ident && (out.params[t.Text] || out.vars[t.Text]):
				out.vars[toks[i+1].Text] = true
				break init
			}
		}
	}
	return out
}
