// Package javalex is a Java lexer for source text that may be partial or
// broken, such as a hunk in the middle of generation. It never fails: every
// byte of the input is either whitespace or inside exactly one token, and
// constructs that are cut off (a string, comment or text block without its
// closing delimiter) become tokens flagged Unterminated.
//
// The token grammar follows the Java Language Specification, Java SE 17,
// chapter 3 (Lexical Structure), with these documented simplifications:
//
//   - Unicode escapes (\uXXXX, JLS 3.3) are not translated before lexing; a
//     backslash outside a literal is an Invalid token.
//   - ">>" and ">>>" are always lexed as one operator (maximal munch, JLS 3.2)
//     even where they close nested type arguments (List<List<T>>); the parser,
//     not the lexer, splits them. Consumers that count angle brackets must
//     treat ">>" as two and ">>>" as three closers.
//   - Contextual keywords (var, yield, record, sealed, permits, module, ...)
//     and "_" are Ident; the literals true, false and null are Keyword.
//   - Malformed numbers ("1e", "0x") are still one Number token, so that a
//     caret after them is known to be inside a number.
//
// The lexer works on bytes of UTF-8 text; offsets are byte offsets. The
// repair engine uses ContextAt to answer "unknown" inside literals and
// comments, and lm/ngram uses Lex to build its vocabulary.
package javalex

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Kind classifies a Token.
type Kind uint8

const (
	// Invalid is a character that starts no Java token (e.g. '#', '\\', a
	// non-breaking space, or a byte that is not valid UTF-8).
	Invalid Kind = iota
	// Ident is an identifier (JLS 3.8), including contextual keywords.
	Ident
	// Keyword is a reserved keyword (JLS 3.9) or one of true, false, null.
	Keyword
	// Number is an integer or floating-point literal (JLS 3.10.1, 3.10.2).
	Number
	// String is a string literal "..." (JLS 3.10.5).
	String
	// Char is a character literal '...' (JLS 3.10.4).
	Char
	// TextBlock is a text block """...""" (JLS 3.10.6).
	TextBlock
	// Operator is an operator or separator (JLS 3.11, 3.12), e.g. "(", "::", ">>>=".
	Operator
	// LineComment is a // comment, without its line terminator.
	LineComment
	// BlockComment is a /* */ comment (not Javadoc).
	BlockComment
	// Javadoc is a /** */ comment (but "/**/" is a BlockComment).
	Javadoc
)

var kindNames = [...]string{
	Invalid: "Invalid", Ident: "Ident", Keyword: "Keyword", Number: "Number",
	String: "String", Char: "Char", TextBlock: "TextBlock", Operator: "Operator",
	LineComment: "LineComment", BlockComment: "BlockComment", Javadoc: "Javadoc",
}

// String returns the kind's name, e.g. "Ident".
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(?)"
}

// IsComment reports whether k is LineComment, BlockComment or Javadoc.
func (k Kind) IsComment() bool {
	return k == LineComment || k == BlockComment || k == Javadoc
}

// IsWord reports whether tokens of kind k are word-like (Ident, Keyword,
// Number): two adjacent word-like tokens need whitespace between them.
func (k Kind) IsWord() bool {
	return k == Ident || k == Keyword || k == Number
}

// Token is one lexical token. Start and End are byte offsets into the source
// (Start < End, half-open); Text is src[Start:End]. Unterminated is set on a
// String, Char, TextBlock or BlockComment/Javadoc whose closing delimiter is
// missing: strings and chars then end at the end of the line, text blocks and
// block comments at the end of the input.
type Token struct {
	Kind         Kind
	Start, End   int
	Text         string
	Unterminated bool
}

// keywords are the reserved keywords of Java SE 17 (JLS 3.9) plus the
// literals true, false and null. "_" is omitted: it is an identifier again
// (unnamed variables) from Java 22.
var keywords = map[string]bool{
	"abstract": true, "assert": true, "boolean": true, "break": true, "byte": true,
	"case": true, "catch": true, "char": true, "class": true, "const": true,
	"continue": true, "default": true, "do": true, "double": true, "else": true,
	"enum": true, "extends": true, "final": true, "finally": true, "float": true,
	"for": true, "goto": true, "if": true, "implements": true, "import": true,
	"instanceof": true, "int": true, "interface": true, "long": true, "native": true,
	"new": true, "package": true, "private": true, "protected": true, "public": true,
	"return": true, "short": true, "static": true, "strictfp": true, "super": true,
	"switch": true, "synchronized": true, "this": true, "throw": true, "throws": true,
	"transient": true, "try": true, "void": true, "volatile": true, "while": true,
	"true": true, "false": true, "null": true,
}

// IsKeyword reports whether word is a reserved keyword or true/false/null.
func IsKeyword(word string) bool { return keywords[word] }

// operators lists the operators and separators longest first, so the first
// match is the maximal munch (JLS 3.2).
var operators = []string{
	">>>=",
	">>>", "<<=", ">>=", "...",
	"->", "::", "==", ">=", "<=", "!=", "&&", "||", "++", "--", "<<", ">>",
	"+=", "-=", "*=", "/=", "&=", "|=", "^=", "%=",
	"(", ")", "{", "}", "[", "]", ";", ",", ".", "@",
	"=", ">", "<", "!", "~", "?", ":", "+", "-", "*", "/", "&", "|", "^", "%",
}

// opsByFirst lists, per first byte, the operators starting with it, longest
// first.
var opsByFirst [256][]string

func init() {
	for _, op := range operators {
		opsByFirst[op[0]] = append(opsByFirst[op[0]], op)
	}
}

// IsSpace reports whether b is Java whitespace (JLS 3.6): space, tab, form
// feed, CR or LF.
func IsSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\f' || b == '\r' || b == '\n'
}

// IsIdentStart reports whether r may start a Java identifier: a letter, a
// letter number, a currency symbol ($) or a connector punctuation (_). This
// approximates Character.isJavaIdentifierStart.
func IsIdentStart(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '_' || r == '$'
	}
	return unicode.IsLetter(r) || unicode.Is(unicode.Nl, r) || unicode.Is(unicode.Sc, r) || unicode.Is(unicode.Pc, r)
}

// IsIdentPart reports whether r may continue a Java identifier: an identifier
// start, a digit, or a combining mark. This approximates
// Character.isJavaIdentifierPart (it omits the ignorable control characters).
func IsIdentPart(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '$'
	}
	return IsIdentStart(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r)
}

// Lexer produces the tokens of a source text one at a time. The zero value is
// not usable; use NewLexer.
type Lexer struct {
	src string
	pos int
}

// NewLexer returns a Lexer positioned at the start of src.
func NewLexer(src string) *Lexer { return &Lexer{src: src} }

// Lex returns all tokens of src in order, comments included. Tokens are
// non-empty, ordered and non-overlapping; the gaps between them hold only
// whitespace (see IsSpace).
func Lex(src string) []Token {
	l := NewLexer(src)
	toks := make([]Token, 0, len(src)/4+1)
	for {
		t, ok := l.Next()
		if !ok {
			return toks
		}
		toks = append(toks, t)
	}
}

// LexCode is Lex without comment tokens.
func LexCode(src string) []Token {
	toks := Lex(src)
	out := toks[:0]
	for _, t := range toks {
		if !t.Kind.IsComment() {
			out = append(out, t)
		}
	}
	return out
}

// Next returns the next token, or ok=false at the end of the input.
func (l *Lexer) Next() (tok Token, ok bool) {
	s := l.src
	i := l.pos
	for i < len(s) && IsSpace(s[i]) {
		i++
	}
	if i >= len(s) {
		l.pos = i
		return Token{}, false
	}
	start := i
	kind, end, unterminated := lexOne(s, i)
	l.pos = end
	return Token{Kind: kind, Start: start, End: end, Text: s[start:end], Unterminated: unterminated}, true
}

// lexOne lexes the token starting at s[i] (not whitespace) and returns its
// kind and end offset.
func lexOne(s string, i int) (Kind, int, bool) {
	c := s[i]
	switch {
	case c == '/' && i+1 < len(s) && s[i+1] == '/':
		j := i + 2
		for j < len(s) && s[j] != '\n' && s[j] != '\r' {
			j++
		}
		return LineComment, j, false
	case c == '/' && i+1 < len(s) && s[i+1] == '*':
		kind := BlockComment
		if i+2 < len(s) && s[i+2] == '*' && !(i+3 < len(s) && s[i+3] == '/') {
			kind = Javadoc
		}
		k := strings.Index(s[i+2:], "*/")
		if k < 0 {
			return kind, len(s), true
		}
		return kind, i + 2 + k + 2, false
	case c == '"':
		if strings.HasPrefix(s[i:], `"""`) {
			return lexTextBlock(s, i)
		}
		return lexQuoted(s, i, '"', String)
	case c == '\'':
		return lexQuoted(s, i, '\'', Char)
	case c >= '0' && c <= '9':
		return Number, lexNumber(s, i), false
	case c == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
		return Number, lexNumber(s, i), false
	case len(opsByFirst[c]) > 0:
		for _, op := range opsByFirst[c] {
			if strings.HasPrefix(s[i:], op) {
				return Operator, i + len(op), false
			}
		}
	}
	r, size := utf8.DecodeRuneInString(s[i:])
	if r == utf8.RuneError && size <= 1 {
		return Invalid, i + 1, false
	}
	if IsIdentStart(r) {
		j := i + size
		for j < len(s) {
			r, size := utf8.DecodeRuneInString(s[j:])
			if (r == utf8.RuneError && size <= 1) || !IsIdentPart(r) {
				break
			}
			j += size
		}
		if keywords[s[i:j]] {
			return Keyword, j, false
		}
		return Ident, j, false
	}
	return Invalid, i + size, false
}

// lexQuoted lexes a string or char literal opened by s[i]==quote. It ends at
// the closing quote, or (unterminated) before the line terminator or at the
// end of the input. A backslash escapes the next byte unless that is a line
// terminator.
func lexQuoted(s string, i int, quote byte, kind Kind) (Kind, int, bool) {
	j := i + 1
	for j < len(s) {
		switch s[j] {
		case quote:
			return kind, j + 1, false
		case '\n', '\r':
			return kind, j, true
		case '\\':
			if j+1 < len(s) && s[j+1] != '\n' && s[j+1] != '\r' {
				j++
			}
		}
		j++
	}
	return kind, len(s), true
}

// lexTextBlock lexes a text block opened by `"""` at s[i]; it ends after the
// closing `"""` or (unterminated) at the end of the input. An opening
// delimiter not followed by a line terminator is still lexed as a text block
// (javac rejects it).
func lexTextBlock(s string, i int) (Kind, int, bool) {
	j := i + 3
	for j < len(s) {
		switch s[j] {
		case '\\':
			j += 2
			continue
		case '"':
			if strings.HasPrefix(s[j:], `"""`) {
				return TextBlock, j + 3, false
			}
		}
		j++
	}
	return TextBlock, len(s), true
}

func isDigit(c byte) bool    { return c >= '0' && c <= '9' }
func isHexDigit(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// lexNumber lexes a numeric literal starting at s[i] (a digit, or '.'
// followed by a digit) and returns its end. It accepts decimal, hex (0x),
// binary (0b) and octal forms with underscores, a fraction, an exponent
// (e/E, or p/P for hex) and a type suffix (lLfFdD). A '.' after the integer
// digits always belongs to the number ("1." is a double literal).
func lexNumber(s string, i int) int {
	j := i
	digits := func(ok func(byte) bool) {
		for j < len(s) && (ok(s[j]) || s[j] == '_') {
			j++
		}
	}
	exponent := func(e1, e2 byte) {
		if j < len(s) && (s[j] == e1 || s[j] == e2) {
			j++
			if j < len(s) && (s[j] == '+' || s[j] == '-') && (j+1 >= len(s) || isDigit(s[j+1])) {
				j++
			}
			digits(isDigit)
		}
	}
	if s[j] == '0' && j+1 < len(s) && (s[j+1] == 'x' || s[j+1] == 'X') {
		j += 2
		digits(isHexDigit)
		if j < len(s) && s[j] == '.' {
			j++
			digits(isHexDigit)
		}
		exponent('p', 'P')
	} else if s[j] == '0' && j+1 < len(s) && (s[j+1] == 'b' || s[j+1] == 'B') {
		j += 2
		digits(func(c byte) bool { return c == '0' || c == '1' })
	} else {
		digits(isDigit)
		if j < len(s) && s[j] == '.' {
			j++
			digits(isDigit)
		}
		exponent('e', 'E')
	}
	if j < len(s) {
		switch s[j] {
		case 'l', 'L', 'f', 'F', 'd', 'D':
			j++
		}
	}
	return j
}
