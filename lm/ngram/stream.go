// This file defines the model's token stream: javalex code tokens with
// comments dropped and a NEWLINE pseudo-token between lines, and the special
// vocabulary entries (start padding and the classes of rare tokens).

package ngram

import (
	"strings"

	"github.com/repilot-lsp/repilot-lsp/javalex"
)

// Special vocabulary ids. Their texts cannot be Java tokens: javalex splits
// "<s>" into three tokens, and no token's text is a bare line break.
const (
	idStart    uint32 = iota // <s>: padding before the first token of a file
	idNewline                // NEWLINE: one or more line breaks between two tokens
	idClassID                // rare identifier
	idClassNum               // rare number literal
	idClassStr               // rare string literal
	idClassChr               // rare char literal
	idClassTxt               // rare text block
	idClassUnk               // any other rare token (invalid characters, ...)
	numSpecial
)

// newlineText is the vocabulary text of the NEWLINE pseudo-token.
const newlineText = "\n"

var specialTexts = [numSpecial]string{"<s>", newlineText, "<id>", "<num>", "<str>", "<chr>", "<txt>", "<unk>"}

// classOf returns the class id that stands for a rare token of kind k.
func classOf(k javalex.Kind) uint32 {
	switch k {
	case javalex.Ident:
		return idClassID
	case javalex.Number:
		return idClassNum
	case javalex.String:
		return idClassStr
	case javalex.Char:
		return idClassChr
	case javalex.TextBlock:
		return idClassTxt
	}
	return idClassUnk
}

// isClass reports whether id is a rare-token class (never proposed as text).
func isClass(id uint32) bool { return id >= idClassID && id <= idClassUnk }

// streamTok is one token of the model's stream: a code token, or NEWLINE
// (Kind Invalid, Text "\n").
type streamTok struct {
	Text string
	Kind javalex.Kind
	// Start and End are byte offsets in the lexed text (for NEWLINE: the gap).
	Start, End int
}

// isNewline reports whether t is the NEWLINE pseudo-token.
func (t streamTok) isNewline() bool { return t.Text == newlineText }

// lexStream returns the model's tokens of src: code tokens with comments
// dropped, and a NEWLINE wherever the text between two code tokens (comments
// included) holds a line break. A trailing NEWLINE is emitted when the text
// after the last code token holds a line break; a leading one never is.
func lexStream(src string) []streamTok {
	toks := javalex.Lex(src)
	out := make([]streamTok, 0, len(toks)+len(toks)/4)
	prevEnd := -1
	for _, t := range toks {
		if t.Kind.IsComment() {
			continue
		}
		if prevEnd >= 0 && hasLineBreak(src[prevEnd:t.Start]) {
			out = append(out, streamTok{Text: newlineText, Kind: javalex.Invalid, Start: prevEnd, End: t.Start})
		}
		out = append(out, streamTok{Text: t.Text, Kind: t.Kind, Start: t.Start, End: t.End})
		prevEnd = t.End
	}
	if prevEnd >= 0 && hasLineBreak(src[prevEnd:]) {
		out = append(out, streamTok{Text: newlineText, Kind: javalex.Invalid, Start: prevEnd, End: len(src)})
	}
	return out
}

func hasLineBreak(s string) bool { return strings.ContainsAny(s, "\n\r") }

// Open kinds are the token kinds whose words a file chooses freely
// (identifiers and literals); the cache component predicts which word of an
// open kind comes, the n-gram model whether one comes.
const numOpen = 5

// openIndex returns the index of an open kind (0..numOpen-1), or -1 for a
// closed one (keywords, operators, NEWLINE, invalid characters).
func openIndex(k javalex.Kind) int {
	switch k {
	case javalex.Ident:
		return 0
	case javalex.Number:
		return 1
	case javalex.String:
		return 2
	case javalex.Char:
		return 3
	case javalex.TextBlock:
		return 4
	}
	return -1
}

// headerLines marks the tokens of toks that lie on package and import
// lines. Those lines name packages ("org . apache . commons . lang3"), so
// the kind caches leave them out: counted, "util" and "apache" would be
// proposed after every '.' as if they were members.
func headerLines(toks []streamTok) []bool {
	out := make([]bool, len(toks))
	header, lineStart := false, true
	for i, t := range toks {
		if t.isNewline() {
			lineStart = true
			continue
		}
		if lineStart {
			header = t.Text == "package" || t.Text == "import"
			lineStart = false
		}
		out[i] = header
	}
	return out
}
