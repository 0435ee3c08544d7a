// This file defines ContextAt: what kind of text a caret offset is in.

package javalex

// Context says what a caret position is inside: code, or a comment or
// literal where the completion engine has nothing to say.
type Context uint8

const (
	// Code: between tokens, or inside an identifier, keyword, number or operator.
	Code Context = iota
	// InLineComment: inside a // comment (including its end, before the newline).
	InLineComment
	// InBlockComment: inside a /* */ comment.
	InBlockComment
	// InJavadoc: inside a /** */ comment.
	InJavadoc
	// InString: inside a string literal.
	InString
	// InChar: inside a character literal.
	InChar
	// InTextBlock: inside a text block.
	InTextBlock
)

var contextNames = [...]string{
	Code: "Code", InLineComment: "InLineComment", InBlockComment: "InBlockComment",
	InJavadoc: "InJavadoc", InString: "InString", InChar: "InChar", InTextBlock: "InTextBlock",
}

// String returns the context's name, e.g. "InString".
func (c Context) String() string {
	if int(c) < len(contextNames) {
		return contextNames[c]
	}
	return "Context(?)"
}

// ContextAt returns the context of the caret at byte offset offset of src
// (0 <= offset <= len(src); outside that range it is clamped). The caret is
// inside a token t when t.Start < offset < t.End, and also when offset ==
// t.End for a line comment (typing there extends the comment) or for an
// unterminated literal or comment. A caret right after a closing quote, or
// before an opening one, is in Code. ContextAt lexes src only up to offset.
func ContextAt(src string, offset int) Context {
	t, ok := TokenAt(src, offset)
	if !ok {
		return Code
	}
	return contextOf(t.Kind)
}

// TokenAt returns the token containing offset under the same rule as
// ContextAt (a caret at a token's end is inside it only for line comments
// and unterminated tokens), or ok=false when offset is between tokens.
// Offsets outside [0, len(src)] are clamped.
func TokenAt(src string, offset int) (Token, bool) {
	offset = max(0, min(offset, len(src)))
	l := NewLexer(src)
	for {
		t, ok := l.Next()
		if !ok || t.Start >= offset {
			return Token{}, false
		}
		if offset < t.End || (offset == t.End && (t.Unterminated || t.Kind == LineComment)) {
			return t, true
		}
	}
}

func contextOf(k Kind) Context {
	switch k {
	case LineComment:
		return InLineComment
	case BlockComment:
		return InBlockComment
	case Javadoc:
		return InJavadoc
	case String:
		return InString
	case Char:
		return InChar
	case TextBlock:
		return InTextBlock
	}
	return Code
}
