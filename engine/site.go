package engine

// site.go decides, from the text alone, whether a caret is at a *strict
// site*: inside (or at the start of) the identifier that follows a
// member-access dot, where JDT LS's member list is complete, so that a name
// outside it cannot compile (Repilot Definition 3.4, a strict completion
// engine may only answer where it is certain), unless the receiver is one
// JDT LS is known to get wrong (context.go). It also finds the simple name
// at a caret (simpleSiteAt), which context.go classifies. Everywhere else
// the engine answers unknown.

import (
	"strings"
	"unicode/utf8"

	"github.com/repilot-lsp/repilot-lsp/javalex"
)

// windowTokens is how many tokens of the hunk's prefix are lexed again with
// every query (the rest of the prefix cannot change the answer; see
// lexWindow).
const windowTokens = 64

// lexWindow is the tail of a hunk's prefix that site analysis lexes together
// with the generated text. It starts at a token boundary of the prefix, so
// lexing Text+generated gives the same tokens as lexing the whole file up to
// the caret (the lexer keeps no state between tokens).
type lexWindow struct {
	Text   string // Prefix[Anchor:]
	Anchor int    // byte offset of Text in the prefix (and in the file)
	// pre is the bracket classification (context.go) after Prefix[:Anchor];
	// token indexes in it are void (open = -1).
	pre scanState
}

func newLexWindow(prefix string) lexWindow {
	toks := javalex.Lex(prefix)
	anchor := 0
	var pre scanState
	if len(toks) > windowTokens {
		k := len(toks) - windowTokens
		anchor = toks[k].Start
		code := codeTokens(toks)
		pre = scanTo(scanState{}, code, len(codeTokens(toks[:k])))
		pre.lambdaTyped = lambdaTypedNames(codeTokens(toks[:k]), lambdaTypedSet{})
		for i := range pre.frames {
			pre.frames[i].open = -1
			if k := pre.frames[i].kind; (k == frameLambdaBlock || k == frameLambdaExpr) && len(pre.frames[i].params) == 0 {
				pre.frames[i].paramsUnknown = true
			}
		}
		pre.lastClosed.open = -1
	}
	return lexWindow{Text: prefix[anchor:], Anchor: anchor, pre: pre}
}

// trustEveryReceiver turns off the unreliable-receiver rule (a test switch:
// situations_test.go measures what JDT LS alone would have pruned).
var trustEveryReceiver = false

// site is where a caret is, as far as strictness goes.
type site struct {
	// Strict: the caret is in the identifier right after a member-access dot
	// (whitespace may separate them), in code, and JDT LS's member list
	// there is trusted (receiverUnreliable found nothing).
	Strict bool
	// DotEnd is the file offset just after the dot (valid when Strict).
	DotEnd int
	// Ident is the identifier typed so far between the dot and the caret
	// ("" right after the dot or its whitespace).
	Ident string
	// Why says why a member-access site is not strict ("" when it is, or
	// when there is no member-access dot at all).
	Why string
}

// siteAt analyses the caret at the end of w.Text+generated (generated is the
// hunk text so far, possibly with part of a token).
func siteAt(w lexWindow, generated string) site {
	src := w.Text + generated
	toks := javalex.Lex(src)
	caret := len(src)
	n := len(toks)
	if n == 0 {
		return site{}
	}
	last := toks[n-1]
	// A caret at the end of a line comment or of an unterminated literal or
	// comment is inside it (javalex.ContextAt's rule), not in code.
	if last.End == caret && (last.Unterminated || last.Kind == javalex.LineComment) {
		return site{}
	}
	i := n - 1 // index of the token before the identifier
	ident := ""
	if last.End == caret && (last.Kind == javalex.Ident || last.Kind == javalex.Keyword) {
		ident = last.Text
		i = n - 2
	}
	if i < 1 || toks[i].Kind != javalex.Operator || toks[i].Text != "." {
		return site{}
	}
	if !memberAccessReceiver(toks, i-1, w.Anchor > 0) {
		return site{}
	}
	dotEnd := w.Anchor + toks[i].End
	code := codeTokens(toks[:i-1+1])
	st := scan(w.pre.clone(), code)
	if why := receiverUnreliable(&st, code, len(code)-1); why != "" && !trustEveryReceiver {
		return site{DotEnd: dotEnd, Ident: ident, Why: why}
	}
	return site{Strict: true, DotEnd: dotEnd, Ident: ident}
}

// simpleSite is a caret in (or right after) a simple name: an identifier not
// after a member-access dot.
type simpleSite struct {
	Mode       simpleMode
	Why        string // why Mode is simpleNone
	IdentStart int    // file offset of the identifier's first byte
	Ident      string
	NewStart   int // simpleNewType: file offset of the "new" keyword
	// HunkStart: the name is put at the hunk start, as a statement of its
	// own ("name;"), to list the names in scope there (simple.go).
	HunkStart bool
	// CtrlParen: the name is inside a statement header's parentheses
	// ("for (", "if (", ...), where Java 20's preview record patterns of
	// the enhanced for ("for (Point(var x, var y) : ps)") put a type
	// before "(" (session.go, typeCalled).
	CtrlParen bool
}

// simpleSiteAt analyses the identifier that ends at the end of
// w.Text+generated, or, with ended, the last code token when it is an
// identifier followed only by whitespace or comments. ok is false when there
// is no such identifier, or it follows a dot, "::" or "@", or it is a
// keyword.
func simpleSiteAt(w lexWindow, generated string, ended bool) (simpleSite, bool) {
	src := w.Text + generated
	raw := javalex.Lex(src)
	if len(raw) == 0 {
		return simpleSite{}, false
	}
	last := raw[len(raw)-1]
	if last.End == len(src) && (last.Unterminated || last.Kind == javalex.LineComment) {
		return simpleSite{}, false
	}
	toks := codeTokens(raw)
	n := len(toks)
	if n == 0 {
		return simpleSite{}, false
	}
	id := toks[n-1]
	if id.Kind != javalex.Ident || (!ended && id.End != len(src)) {
		return simpleSite{}, false
	}
	if n >= 2 {
		if p := toks[n-2]; isOp(p, ".") || isOp(p, "::") || isOp(p, "@") || isOp(p, "...") {
			return simpleSite{}, false
		}
	}
	if n < 2 && w.Anchor > 0 {
		return simpleSite{}, false
	}
	st := scan(w.pre.clone(), toks[:n-1])
	mode, why := simplePosition(&st, toks, n-1)
	if mode != simpleNone && st.typeDecl {
		mode, why = simpleNone, "in a type declaration's header"
	}
	if mode == simpleNever && !ended && strings.HasPrefix("instanceof", id.Text) {
		// "foo(o inst", "if (f() inst": the name may still become the
		// keyword instanceof, which follows an operand (JLS 15.20.2).
		mode, why = simpleNone, "may still become instanceof"
	}
	ss := simpleSite{Mode: mode, Why: why, IdentStart: w.Anchor + id.Start, Ident: id.Text, CtrlParen: st.top() == frameCtrlParen}
	if mode == simpleNewType {
		ss.NewStart = w.Anchor + toks[n-2].Start
	}
	return ss, true
}

// lastCode returns the last code token of w.Text+generated and whether the
// caret is in code (not inside a comment or an unterminated literal), and
// the code tokens.
func lastCode(w lexWindow, generated string) ([]javalex.Token, bool) {
	src := w.Text + generated
	raw := javalex.Lex(src)
	if n := len(raw); n > 0 {
		last := raw[n-1]
		if last.End == len(src) && (last.Unterminated || last.Kind == javalex.LineComment) {
			return nil, false
		}
	}
	return codeTokens(raw), true
}

// memberAccessReceiver reports whether toks[r], the token before a dot, ends
// an expression, type or package name whose members follow the dot: an
// identifier; this, super or class (Outer.this.x, super.m(), Foo.class.y);
// a closing ")" or "]"; or a complete string literal or text block. Not a
// number ("1." is a literal), not a char, not "...", and not a name in an
// import, package or module declaration or right after another name (whose
// member list JDT answers differently, or not at all).
// truncated says toks does not start at the beginning of the file: a name
// chain reaching the first token is then of unknown context.
func memberAccessReceiver(toks []javalex.Token, r int, truncated bool) bool {
	t := toks[r]
	switch t.Kind {
	case javalex.Ident:
	case javalex.Keyword:
		if t.Text != "this" && t.Text != "super" && t.Text != "class" {
			return false
		}
	case javalex.Operator:
		return t.Text == ")" || t.Text == "]"
	case javalex.String, javalex.TextBlock:
		return !t.Unterminated
	default:
		return false
	}
	// Walk back over a dotted name a.b.c to what precedes it.
	j := r
	for j >= 2 && toks[j-1].Kind == javalex.Operator && toks[j-1].Text == "." &&
		(toks[j-2].Kind == javalex.Ident || toks[j-2].Kind == javalex.Keyword) {
		j -= 2
	}
	if j == 0 {
		return !truncated
	}
	prev := toks[j-1]
	if prev.Kind == javalex.Keyword && (prev.Text == "import" || prev.Text == "package") {
		return false
	}
	// A name right after another name starts no expression, except after
	// the contextual keywords yield and when: it is a declaration's type
	// or name, "import module java.base" (Java 25), or a module-info
	// directive ("requires java.sql"), where JDT LS lists no members.
	if prev.Kind == javalex.Ident && prev.Text != "yield" && prev.Text != "when" {
		return false
	}
	if prev.Kind == javalex.Keyword && prev.Text == "static" && j >= 2 && toks[j-2].Text == "import" {
		return false
	}
	return true
}

// afterDotKeywords may follow a member-access dot without being members:
// Outer.this, Outer.super.m(), Foo.class, outer.new Inner(). JDT LS does not
// always list them, so an identifier that could still become one of them is
// never called infeasible.
var afterDotKeywords = []string{"this", "super", "class", "new"}

func keywordPrefix(ident string) bool {
	for _, k := range afterDotKeywords {
		if strings.HasPrefix(k, ident) {
			return true
		}
	}
	return false
}

// part is one piece of a token split at identifier boundaries: a run of
// identifier characters, a run of whitespace, or one other character.
type part struct {
	Text  string
	Ident bool // identifier characters (javalex.IsIdentPart)
	Space bool // whitespace (javalex.IsSpace)
}

// splitToken splits an LM token at identifier boundaries: "ize()" -> "ize",
// "(", ")"; ".getNa" -> ".", "getNa"; " (x" -> " ", "(", "x".
func splitToken(tok string) []part {
	var out []part
	for i := 0; i < len(tok); {
		r, size := utf8.DecodeRuneInString(tok[i:])
		j := i + size
		switch {
		case javalex.IsIdentPart(r):
			for j < len(tok) {
				r2, s2 := utf8.DecodeRuneInString(tok[j:])
				if !javalex.IsIdentPart(r2) {
					break
				}
				j += s2
			}
			out = append(out, part{Text: tok[i:j], Ident: true})
		case r < utf8.RuneSelf && javalex.IsSpace(byte(r)):
			for j < len(tok) && javalex.IsSpace(tok[j]) {
				j++
			}
			out = append(out, part{Text: tok[i:j], Space: true})
		default:
			out = append(out, part{Text: tok[i:j]})
		}
		i = j
	}
	return out
}
