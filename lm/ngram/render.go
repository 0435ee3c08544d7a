// This file lays out proposed tokens as text: the whitespace before each
// token, so that concatenated candidate texts are valid, conventionally
// spaced Java, and the indentation of generated lines.

package ngram

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/repilot-lsp/repilot-lsp/javalex"
)

// layout is what the renderer needs to know about the text before the caret
// (FIM prefix + generated).
type layout struct {
	atLineStart   bool      // the text is empty or ends with a line break
	trailingSpace bool      // the text ends with blanks after something on the line
	prev, prev2   streamTok // the last two code tokens (Text "" when absent)
	lineFirst     string    // first token of the current line
	angle         int       // open generic '<' on the current line
	angleOpened   bool      // prev is a '<' that opened type arguments
	angleClosed   bool      // prev closed type arguments
	hunkStart     bool      // nothing generated yet: the hunk's first line
	depth         int       // braces opened minus closed in generated
	level0        int       // -1 when the hunk's first line starts with '}'
	parens        int       // ( and [ opened minus closed in generated (>= 0)
	caseDepth     int       // depth of the last "case ...:" or "default:" line in generated, or -1<<30
	indent        string    // FIM.Indent: indentation of the hunk's first line
	unit          string    // one indentation step of the file
}

// isWordish reports whether tokens of kind k are words or literals for
// spacing purposes.
func isWordish(k javalex.Kind) bool {
	switch k {
	case javalex.Ident, javalex.Keyword, javalex.Number, javalex.String, javalex.Char, javalex.TextBlock:
		return true
	}
	return false
}

// modifiers may precede a generic method's type parameters: "public <T> T f()".
var modifiers = map[string]bool{"public": true, "protected": true, "private": true, "static": true,
	"final": true, "abstract": true, "synchronized": true, "default": true, "native": true}

// opensGeneric reports whether '<' after token p opens type arguments: after
// a capitalised identifier (List<), a dot (Collections.<T>emptyList()), a
// modifier (public <T>), or inside other type arguments.
func opensGeneric(p streamTok, angle int) bool {
	if p.Kind == javalex.Ident {
		r, _ := utf8.DecodeRuneInString(p.Text)
		return unicode.IsUpper(r) || angle > 0
	}
	return p.Text == "." || modifiers[p.Text] || (angle > 0 && (p.Text == "," || p.Text == "?" || p.Text == "&"))
}

// operandKeywords are the keywords that end an operand (this - x, null == y).
var operandKeywords = map[string]bool{"this": true, "super": true, "true": true, "false": true, "null": true}

// unaryContext reports whether an operator after token p is prefix/unary
// (-x, ++i, return -1): p is absent, an operator other than a closing ) ]
// or a postfix ++ --, or a keyword that does not end an operand.
func unaryContext(p streamTok) bool {
	switch {
	case p.Text == "":
		return true
	case p.Kind == javalex.Keyword:
		return !operandKeywords[p.Text]
	case isWordish(p.Kind):
		return false
	}
	return p.Text != ")" && p.Text != "]" && p.Text != "++" && p.Text != "--"
}

// space returns the whitespace to put before token text c (kind ck) when
// the caret is not at a line start, following conventional Java layout:
// "if (", "a = b", "f(x)", "a.b", "a[i]", "i++", "-x", "List<String> xs",
// "case X:". Whatever the convention says, two tokens that would lex
// differently when joined ("a" "b", "-" "-", "1" ".") are kept apart.
func (l *layout) space(c string, ck javalex.Kind) string {
	if l.trailingSpace || l.prev.Text == "" {
		return ""
	}
	s := l.conventionalSpace(c, ck)
	if s == "" && !joinsCleanly(l.prev.Text, c) {
		s = " "
	}
	return s
}

func (l *layout) conventionalSpace(c string, ck javalex.Kind) string {
	p, pt := l.prev, l.prev.Text
	switch pt {
	case ".", "::", "(", "[", "@", "!", "~":
		return ""
	case "+", "-", "++", "--":
		if unaryContext(l.prev2) {
			return ""
		}
	case "<":
		if l.angleOpened {
			return ""
		}
	}
	switch c {
	case ")", "]", ";", ",", ".", "::", "...", "[":
		return ""
	case "(":
		if p.Kind == javalex.Ident || pt == "this" || pt == "super" || l.angleClosed {
			return ""
		}
	case "++", "--":
		if !unaryContext(p) {
			return ""
		}
	case "<":
		if opensGeneric(p, l.angle) && !modifiers[pt] {
			return ""
		}
	case ">", ">>", ">>>":
		if l.angle > 0 {
			return ""
		}
	case ":":
		if l.lineFirst == "case" || l.lineFirst == "default" || (p.Kind == javalex.Ident && l.lineFirst == pt) {
			return ""
		}
	case "}":
		if pt == "{" {
			return ""
		}
	}
	return " "
}

// joinsCleanly reports whether a followed directly by b lexes as the two
// tokens a and b.
func joinsCleanly(a, b string) bool {
	toks := javalex.Lex(a + b)
	return len(toks) == 2 && toks[0].Text == a && toks[1].Text == b
}

// lineIndent is the indentation of a new line whose first token is c:
// FIM.Indent for the hunk's first line; later lines are indented one unit
// per brace level relative to the first line (a line starting with '}'
// dedents), one more unit for the statements under a "case ...:" label of the
// hunk, plus two units while a ( or [ opened in the hunk is still open.
func (l *layout) lineIndent(c string) string {
	if l.hunkStart {
		return l.indent
	}
	lvl := l.depth
	if c == "}" {
		lvl--
	}
	d := lvl - l.level0
	if l.caseDepth == l.depth && c != "}" && c != "case" && c != "default" {
		d++ // statements of a switch case
	}
	if l.parens > 0 {
		d += 2
	}
	return shiftIndent(l.indent, l.unit, d)
}

// shiftIndent adds d units to indent (removes -d units for d < 0).
func shiftIndent(indent, unit string, d int) string {
	if d >= 0 {
		return indent + strings.Repeat(unit, d)
	}
	for ; d < 0; d++ {
		switch {
		case strings.HasSuffix(indent, unit):
			indent = indent[:len(indent)-len(unit)]
		case len(indent) >= len(unit):
			indent = indent[:len(indent)-len(unit)]
		default:
			return ""
		}
	}
	return indent
}

// indentUnit guesses the file's indentation step from the lines of text:
// the most frequent increase of leading whitespace between consecutive
// non-blank lines ("\t", "  ", "    ", ...). It defaults to four spaces, or a
// tab when indent holds one.
func indentUnit(text, indent string) string {
	counts := map[string]int{}
	prev := ""
	for line := range strings.Lines(text) {
		trimmed := strings.TrimLeft(line, " \t")
		if strings.TrimSpace(trimmed) == "" || strings.HasPrefix(trimmed, "*") {
			continue // blank line or Javadoc continuation
		}
		lead := line[:len(line)-len(trimmed)]
		if len(lead) > len(prev) && strings.HasPrefix(lead, prev) {
			if d := lead[len(prev):]; d == "\t" || strings.Trim(d, " ") == "" && len(d) <= 8 {
				counts[d]++
			}
		}
		prev = lead
	}
	best, bestN := "", 0
	for d, n := range counts {
		if n > bestN || n == bestN && (len(d) < len(best) || len(d) == len(best) && d < best) {
			best, bestN = d, n
		}
	}
	if best == "" {
		if strings.Contains(indent, "\t") {
			return "\t"
		}
		return "    "
	}
	return best
}
