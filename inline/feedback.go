package inline

// feedback.go turns a rejected sample's compile errors into prefixes that no
// later sample of the request may start with (repair.GuidedSampler.Reject):
// a simple name that JDT LS cannot resolve, in a position that the text
// before and right after it fixes as an expression name, fails in every
// continuation, so the next samples spend their draws elsewhere. Session
// 13 found the n-gram model's next samples repeating the first one's
// unresolved name (bench/README.md, "Ghost text": "msg.length" with no msg
// in scope, again and again); the engine does not judge one- and
// two-letter names at a site of its own (engine minNameQuery,
// minQualifierAtSite).
//
// Why a prefix is rejected only when every continuation fails: JLS 6.5.2
// reclassifies a simple name by its syntactic context. The name must be the
// first simple-name occurrence of its identifier in the sample (nothing the
// sample wrote before it declares it), not after "." "::" or "@" (a member
// or annotation name), not where it may be a declared name (after a type,
// or a declarator's ","), and not after an "@" anywhere before it in the
// caret's line (an annotation's element name). The token after it must make it
// an expression name in every continuation: an operator no type, package,
// label or lambda parameter is followed by (";", "=", "+", "]", "?" and
// the like; never ")", ",", "<", ">", "[", "&", "|", ":" or "->", which
// casts, type arguments, array types, intersection and union types, labels
// and lambdas allow), where JDT LS's "X cannot be resolved to a variable"
// says no variable X is in scope (JLS 6.5.6.1); or "." after X where JDT
// LS's "X cannot be resolved" says X is neither a variable, a type nor a
// package (JLS 6.5.2: the qualifier of an ambiguous name). Names declared
// after the position cannot bring X into scope there (JLS 6.3: a local's
// scope starts at its declarator), and the document around the sample is
// the same for every sample of the request.

import (
	"strings"

	"github.com/repilot-lsp/repilot-lsp/engine"
	"github.com/repilot-lsp/repilot-lsp/javalex"
)

const (
	unresolvedVariable = " cannot be resolved to a variable"
	unresolvedName     = " cannot be resolved"
	primitiveField     = "primitive field"
)

// expressionFollowers are the operators after which a simple name can only
// be an expression name (see the file comment).
var expressionFollowers = map[string]bool{
	";": true, "=": true, "==": true, "!=": true, "+": true, "+=": true, "++": true,
	"-": true, "-=": true, "--": true, "*": true, "*=": true, "/": true, "/=": true,
	"%": true, "%=": true, "^": true, "^=": true, "&&": true, "||": true, "&=": true,
	"|=": true, "?": true, "]": true, "}": true,
}

// UnresolvedPrefixes returns the prefixes of generated (a sample's text as
// the sampler wrote it, healed part included) that no compilable sample
// starts with, read from errs, the new text's errors on the inserted lines.
// line is the text of the caret's line before generated starts (the
// document's, up to the model's split), caretLine its 1-based number.
// Prefixes end with the token after an unresolvable simple name (see the
// file comment for when one is taken); nil when none is.
func UnresolvedPrefixes(line, generated string, caretLine int, errs []engine.CompileError) []string {
	var names map[string]string // identifier -> message kind
	for _, e := range errs {
		x, kind, ok := unresolvedIn(e.Message)
		if !ok {
			continue
		}
		if names == nil {
			names = map[string]string{}
		}
		if k, seen := names[x]; !seen || k == unresolvedName { // the narrower reading wins
			names[x] = kind
		}
	}
	if len(names) == 0 {
		return nil
	}
	if strings.Contains(line, "*/") || strings.Contains(line, `"""`) {
		return nil // the line may start inside a comment or text block
	}
	raw := javalex.Lex(line + generated)
	if n := len(raw); n > 0 && raw[n-1].Unterminated {
		return nil // the sample ends inside a literal or comment
	}
	for _, t := range raw {
		if t.Start < len(line) && t.End > len(line) || t.Start < len(line) && t.Unterminated {
			return nil // the caret splits a token, or a literal or comment spans it
		}
	}
	var toks []javalex.Token
	annotated := false // an annotation on the line: names may be its elements'
	for _, t := range raw {
		if !t.Kind.IsComment() {
			toks = append(toks, t)
			annotated = annotated || isOpTok(t, "@")
		}
	}
	if annotated {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for i, t := range toks {
		if t.Start < len(line) {
			continue
		}
		if t.Kind != javalex.Ident || seen[t.Text] {
			continue
		}
		if i > 0 && isOpTok(toks[i-1], ".", "::", "@") {
			continue // a member or annotation name: no simple name
		}
		seen[t.Text] = true // its first simple-name occurrence
		kind, ok := names[t.Text]
		if !ok || i+1 >= len(toks) {
			continue
		}
		f := toks[i+1]
		if f.Kind != javalex.Operator {
			continue
		}
		arg := callArgument(toks, i) || afterOperator(toks, i)
		switch {
		case kind == primitiveField && f.Text == "." && !mayDeclare(toks, i):
		case kind == primitiveField:
			continue
		case arg && (f.Text == "," || f.Text == ")") && kind == unresolvedVariable:
		case mayDeclare(toks, i):
			continue
		case expressionFollowers[f.Text]:
		case f.Text == "." && kind == unresolvedName:
		default:
			continue
		}
		// The error must be on the line of this occurrence.
		at := caretLine + strings.Count(generated[:t.Start-len(line)], "\n")
		if !hasError(errs, at, t.Text, kind) {
			continue
		}
		out = append(out, (line + generated)[len(line):f.End])
	}
	return out
}

// callArgument reports whether the identifier toks[i] is a whole argument
// of a method or constructor call: right after the call's "(" or a ","
// at its top level, where the "(" follows an identifier (a method's or
// class's name; "if (", "for (" follow keywords, and a lambda's or a
// cast's "(" never follows an identifier), with no "<" at that level
// between them (the name could be a type argument: "f(List<A, X>::new").
// There a name followed by "," or ")" is an expression (JLS 15.12: an
// argument list holds expressions), never a type, lambda parameter or
// declared name.
func callArgument(toks []javalex.Token, i int) bool {
	if i == 0 || !isOpTok(toks[i-1], "(", ",") {
		return false
	}
	depth := 0
	for j := i - 1; j >= 0; j-- {
		t := toks[j]
		switch {
		case isOpTok(t, ")", "]", "}"):
			depth++
		case isOpTok(t, "(", "[", "{"):
			if depth > 0 {
				depth--
				continue
			}
			return isOpTok(t, "(") && j > 0 && toks[j-1].Kind == javalex.Ident
		case depth == 0 && isOpTok(t, "<", "<<", "->", "::", "?", ":"):
			return false
		}
	}
	return false
}

// hasError reports whether errs has an error of kind about the name x on
// line.
func hasError(errs []engine.CompileError, line int, x, kind string) bool {
	for _, e := range errs {
		if e.Line != line {
			continue
		}
		if y, k, ok := unresolvedIn(e.Message); ok && y == x && k == kind {
			return true
		}
	}
	return false
}

// unresolvedIn reads a JDT LS message about a simple name: "X cannot be
// resolved to a variable" (unresolvedVariable: no variable X in scope),
// "X cannot be resolved" (unresolvedName: X is no variable, type or
// package) or "The primitive type P of X does not have a field F"
// (primitiveField: X is a variable of a primitive type, which has no
// members, JLS 4.2; and a variable in scope is what the name X before "."
// means, JLS 6.5.2).
func unresolvedIn(msg string) (x, kind string, ok bool) {
	if x, ok := strings.CutSuffix(msg, unresolvedVariable); ok && isIdent(x) {
		return x, unresolvedVariable, true
	}
	if x, ok := strings.CutSuffix(msg, unresolvedName); ok && isIdent(x) {
		return x, unresolvedName, true
	}
	if rest, ok := strings.CutPrefix(msg, "The primitive type "); ok {
		if _, rest, ok := strings.Cut(rest, " of "); ok {
			if x, _, ok := strings.Cut(rest, " does not have a field "); ok && isIdent(x) {
				return x, primitiveField, true
			}
		}
	}
	return "", "", false
}

// afterOperator reports whether the token before toks[i] is an operator or
// keyword after which a name is an expression's operand, never a type
// (a cast's type follows "(" or "&", a type argument "<" or ","), a declared
// name (after a type) or a lambda parameter (after "(" or ","): a binary
// operator other than "<", ">", "&" and "|", an assignment, a prefix
// operator, "return" or "throw".
func afterOperator(toks []javalex.Token, i int) bool {
	if i == 0 {
		return false
	}
	p := toks[i-1]
	switch p.Kind {
	case javalex.Keyword:
		return p.Text == "return" || p.Text == "throw"
	case javalex.Operator:
		return operandOperators[p.Text]
	}
	return false
}

var operandOperators = map[string]bool{
	"+": true, "-": true, "*": true, "/": true, "%": true, "^": true, "<<": true,
	"==": true, "!=": true, "<=": true, "&&": true, "||": true, "!": true, "~": true,
	"++": true, "--": true, "=": true, "+=": true, "-=": true, "*=": true, "/=": true,
	"%=": true, "^=": true, "&=": true, "|=": true, "<<=": true, ">>=": true, ">>>=": true,
}

// mayDeclare reports whether the identifier toks[i] may be the name a
// declaration introduces: after a type's last token (an identifier, a
// primitive type, ">", "]" or "...") or after "," (a further declarator or
// lambda parameter).
func mayDeclare(toks []javalex.Token, i int) bool {
	if i == 0 {
		return false
	}
	p := toks[i-1]
	switch p.Kind {
	case javalex.Ident:
		return true
	case javalex.Keyword:
		switch p.Text {
		case "int", "long", "short", "byte", "char", "boolean", "float", "double", "void":
			return true
		}
	case javalex.Operator:
		return isOpTok(p, ">", ">>", ">>>", "]", "...", ",")
	}
	return false
}

func isOpTok(t javalex.Token, ops ...string) bool {
	if t.Kind != javalex.Operator {
		return false
	}
	for _, o := range ops {
		if t.Text == o {
			return true
		}
	}
	return false
}

// isIdent reports whether s is one Java identifier (no dots, not a keyword).
func isIdent(s string) bool {
	if s == "" || javalex.IsKeyword(s) {
		return false
	}
	for i, r := range s {
		if i == 0 && !javalex.IsIdentStart(r) || i > 0 && !javalex.IsIdentPart(r) {
			return false
		}
	}
	return true
}
