package repair

import (
	"strconv"
	"strings"

	"github.com/repilot-lsp/repilot-lsp/javalex"
)

// equivKeyer computes the deduplication key of candidates for one hunk site:
// two candidates with the same key are one candidate (dedupe,
// validator.add), and a candidate with the buggy hunk's key is the buggy
// hunk. It is built once per repair: the prefix is lexed once.
//
// The equivalence (sound: two texts with the same key, each put between the
// site's prefix and suffix, are the same Java program, JLS 3 and 14) is
// equality of the hunks' token sequences (javalex, exact token texts, so
// whitespace inside string, char and text-block literals counts) after
//
//   - whitespace between tokens is dropped (JLS 3.6: it only separates
//     tokens, and the tokens are compared, not the text), except that
//     "non-sealed" written without whitespace is marked (javac rejects
//     "non - sealed");
//   - line and block comments are dropped (JLS 3.7: a comment is
//     whitespace); Javadoc comments are kept (they can mark an element
//     deprecated);
//   - a ';' of the hunk is dropped when it is a removable empty statement
//     (JLS 14.6): the code token before it (in the hunk or the prefix) is a
//     ';' that is outside every parenthesis and bracket (so not in a for or
//     try-with-resources header), the code token after it (in the hunk or
//     the suffix) is not "else" or "import", and the statement that ';'
//     ends can complete normally (JLS 14.22; an unreachable empty statement
//     is a compile error): its tokens, back to the previous ';' or unmatched
//     '{' outside parentheses, brackets and braces, hold none of return,
//     throw, break, continue, yield, do, while, for, if, else, switch, case,
//     default, try, catch, finally, synchronized, import, package and "->".
//
// A hunk whose tokens include an Invalid or unterminated one, a comment
// holding a Unicode escape (JLS 3.3 translates "\u000a" before comments are
// recognised), or a literal holding the escape of a backslash, a quote or a
// line terminator (javac reads "\u005c\"" as an escaped quote, so the literal
// runs on past where javalex ends it), and every hunk when the prefix ends inside a comment or text
// block or holds such a token or comment itself, is keyed by its exact
// text: equal only to itself.
type equivKeyer struct {
	prefix []javalex.Token // the prefix's code tokens
	depth  int             // open parentheses and brackets at the end of the prefix
	next   string          // the suffix's first code token, "" at the end
	raw    bool            // the prefix ends inside a token: exact texts only
}

// newEquivKeyer lexes the site's prefix and the start of its suffix.
func newEquivKeyer(site hunkSite) *equivKeyer {
	k := &equivKeyer{}
	all := javalex.Lex(site.Prefix)
	if n := len(all); n > 0 && all[n-1].Unterminated {
		k.raw = true
	}
	for _, t := range all {
		// An Invalid token (a Unicode escape outside a literal, JLS 3.3)
		// or an escape in a comment: the prefix's tokens are not known.
		if t.Kind == javalex.Invalid || t.Kind.IsComment() && strings.Contains(t.Text, `\u`) || escapesADelimiter(t) {
			k.raw = true
		}
		if t.Kind.IsComment() {
			continue
		}
		k.prefix = append(k.prefix, t)
		k.depth += parenDelta(t)
	}
	lx := javalex.NewLexer(site.Suffix)
	for {
		t, ok := lx.Next()
		if !ok {
			break
		}
		if !t.Kind.IsComment() {
			k.next = t.Text
			break
		}
	}
	return k
}

// MatchKey returns the key under which two hunks are the same fix: bench
// repair's exact match of a patch with the developer's (docs/bug-corpus.md,
// "correct"). It is the hunk's Java tokens (javalex), so the whitespace
// between tokens does not count ("a+b" is "a + b") and a token boundary
// does ("x+ +y" is not "x++y"); string, char and text-block literals are
// compared exactly ("a  b" is not "a b"), and the whitespace inside a
// comment is collapsed. Unlike equivKeyer it drops nothing and needs no
// site: comments count and a ';' is never removed.
func MatchKey(hunk string) string {
	var b strings.Builder
	for _, t := range javalex.Lex(hunk) {
		text := t.Text
		if t.Kind.IsComment() {
			text = strings.Join(strings.Fields(text), " ")
		}
		// Length-prefixed, so that no two token sequences share a key.
		b.WriteString(strconv.Itoa(len(text)))
		b.WriteByte(':')
		b.WriteString(text)
	}
	return b.String()
}

// escapesADelimiter reports whether t is a string, char or text-block
// literal holding a Unicode escape (JLS 3.3: a backslash, one or more 'u',
// four hex digits) of a backslash, a double or single quote, CR or LF.
// javac translates escapes before it finds tokens, so such a literal ends
// elsewhere for javac than for javalex, which does not translate them. An
// escape that is not eligible (an odd run of backslashes before it) counts
// too: the answer errs on the side of exact texts.
func escapesADelimiter(t javalex.Token) bool {
	if t.Kind != javalex.String && t.Kind != javalex.Char && t.Kind != javalex.TextBlock {
		return false
	}
	s := t.Text
	for i := strings.Index(s, `\u`); i >= 0; i = strings.Index(s, `\u`) {
		s = strings.TrimLeft(s[i+1:], "u")
		if len(s) < 4 {
			return false
		}
		if v, err := strconv.ParseUint(s[:4], 16, 16); err == nil {
			switch v {
			case '\\', '"', '\'', '\r', '\n':
				return true
			}
		}
	}
	return false
}

// nonSealed reports whether code[i] is the '-' of "non-sealed" written
// without whitespace: javac takes the contextual keyword only so (JLS 3.9;
// JavacParser checks that the three tokens touch), while "non - sealed" is
// an error, so the spacing there is part of the key.
func nonSealed(code []javalex.Token, i int) bool {
	if i == 0 || i+1 >= len(code) || code[i].Text != "-" || code[i].Kind != javalex.Operator {
		return false
	}
	p, n := code[i-1], code[i+1]
	return p.Text == "non" && n.Text == "sealed" && p.End == code[i].Start && code[i].End == n.Start
}

// parenDelta is +1 for '(' and '[', -1 for ')' and ']', 0 otherwise.
func parenDelta(t javalex.Token) int {
	if t.Kind != javalex.Operator {
		return 0
	}
	switch t.Text {
	case "(", "[":
		return 1
	case ")", "]":
		return -1
	}
	return 0
}

// mayNotComplete are the tokens after which equivKeyer does not assume that
// a statement ending in ';' completes normally (JLS 14.22), or that a ';'
// after it is an empty statement at all.
var mayNotComplete = map[string]bool{
	"return": true, "throw": true, "break": true, "continue": true, "yield": true,
	"do": true, "while": true, "for": true, "if": true, "else": true, "switch": true,
	"case": true, "default": true, "try": true, "catch": true, "finally": true,
	"synchronized": true, "import": true, "package": true, "->": true,
}

// key returns text's deduplication key (see equivKeyer).
func (k *equivKeyer) key(text string) string {
	rawKey := "raw:" + text
	if k.raw {
		return rawKey
	}
	var code []javalex.Token
	for _, t := range javalex.Lex(text) {
		if t.Kind == javalex.Invalid || t.Unterminated || escapesADelimiter(t) {
			return rawKey
		}
		if t.Kind.IsComment() {
			if strings.Contains(t.Text, `\u`) {
				return rawKey
			}
			if t.Kind != javalex.Javadoc {
				continue
			}
		}
		code = append(code, t)
	}
	// ctx is the prefix's code tokens then the hunk's, for looking back.
	ctx := append(k.prefix[:len(k.prefix):len(k.prefix)], code...)
	var b strings.Builder
	depth := k.depth
	for i, t := range code {
		at := len(k.prefix) + i
		if depth == 0 && k.removableEmpty(ctx, at, code, i) {
			continue
		}
		depth += parenDelta(t)
		// Length-prefixed, so that no two token sequences share a key.
		b.WriteString(strconv.Itoa(len(t.Text)))
		b.WriteByte(':')
		b.WriteString(t.Text)
		if nonSealed(code, i) {
			b.WriteByte('~') // no length starts with '~'
		}
	}
	return b.String()
}

// removableEmpty reports whether ctx[at] (code[i], outside parentheses and
// brackets) is a ';' that equivKeyer drops: see its doc comment.
func (k *equivKeyer) removableEmpty(ctx []javalex.Token, at int, code []javalex.Token, i int) bool {
	if ctx[at].Text != ";" || ctx[at].Kind != javalex.Operator || at == 0 {
		return false
	}
	if p := ctx[at-1]; p.Kind != javalex.Operator || p.Text != ";" {
		return false
	}
	next := k.next
	if i+1 < len(code) {
		next = code[i+1].Text
	}
	if next == "else" || next == "import" {
		return false
	}
	// The statement the previous ';' ends: back to a ';' or an unmatched
	// '{' outside parentheses, brackets and braces.
	depth := 0
	for j := at - 2; j >= 0; j-- {
		t := ctx[j]
		if t.Kind == javalex.Operator {
			switch t.Text {
			case ")", "]", "}":
				depth++
			case "(", "[":
				depth--
			case "{":
				if depth == 0 {
					return true
				}
				depth--
			case ";":
				if depth == 0 {
					return true
				}
			}
		}
		if depth < 0 {
			return false // an unmatched '(' or '[': not a statement
		}
		if (t.Kind == javalex.Keyword || t.Kind == javalex.Ident || t.Kind == javalex.Operator) && mayNotComplete[t.Text] {
			return false
		}
	}
	return true
}
