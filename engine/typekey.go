package engine

// typekey.go shares member lists between sites whose receivers have the
// same declared type (issue 14: "cache member lists per receiver type").
//
// The per-site cache keys a list by the generated text up to the dot, so two
// samples that reach "readings." through different text each ask JDT LS.
// Where the receiver is a simple name x that the hunk cannot have rebound,
// the list depends only on what x means at the hunk start and on the place,
// so it is keyed by
//
//	hunk, x's declared type at the hunk start when the hunk's scope list gives
//	it (else x itself), the token before x (one class for the operators after
//	which x can only be an operand: beforeClass), and the innermost open
//	bracket's kind (context.go)
//
// and fetched once per such key ("hunk" is hunkID: the file's text around
// the hunk, so an edit outside the hunk starts afresh). The same holds for
// a chain of fields after x ("x.f.g.": the key adds "f.g"), and of calls
// whose arguments are all literals, keyed by the literals' types
// ("Splitter.on(';').limit(4).": "on(C).limit(I)"; fieldChain), and for
// this and super ("this.", "this.f.": the class around the hunk, which the
// generated text cannot change either). x "cannot have been rebound" when:
//   - the hunk starts at a statement boundary in a block (the prefix's last
//     code token is ";" or "{", and the innermost open bracket is a block's
//     brace), and the generated text does not start with "else" (which
//     could reopen the scope of a pattern binding of "if (!(o instanceof
//     T x)) ...;"), so no scope that began before the hunk ends inside it
//     without a "}";
//   - the generated text up to the dot closes no brace it did not open
//     (a block of the prefix, and the locals declared in it, stay open);
//   - every other occurrence of x in the generated text is followed by "."
//     (a declaration of x, a lambda parameter, a catch or for variable or a
//     pattern binding named x is followed by "=", ";", ",", ")", ":", "->",
//     "[" or a name, never by "."), and
//   - the generated text declares no local class or interface, enum or
//     record (whose bodies could inherit a field x).
//
// x's type comes from the hunk's scope list (simple.go, scopeNames: one
// request per hunk), where JDT LS labels a variable "x : Type"; only a
// name listed there as a variable alone, with one non-"var" type, is keyed
// by its type. Any other x (a type name such as "Math", a package, a name
// not in scope) is keyed by x itself: no request is made to tell them
// apart, since under the guards above x means the same at every such site.
// A receiver that starts with null, or with such an x that is a variable
// of a primitive type at the hunk start, has no members whatever follows:
// its list is answered unknown without a request (noMembers), as JDT LS's
// empty answer was.
// A list shared this way prunes at a site other than the one whose request
// answered it only on a second answer, asked at that site and merged in
// (Check's verifying pass; memberList.Origin): the key rests on the scope
// list's label for x's type.

import (
	"context"
	"strconv"
	"strings"

	"github.com/repilot-lsp/repilot-lsp/javalex"
)

// noMembers is typeKey's key for a receiver whose member list JDT LS can
// only answer empty, which is unknown (verdict): one that starts with null,
// or with a name x that the hunk cannot have rebound and that, at the hunk
// start, is a variable of a primitive type (JLS 4.2: no members). A name
// JDT LS does not list among the names with its prefix there is not taken
// for undefined: on coupon-code-receiver's fix the list for "Strings",
// non-empty and complete, lacked the imported type Strings, whose members
// the fix names (TestSoundnessOnBugCorpus proved 8 fewer decisions so).
// members answers it unknown without a request. Skipping a request is
// sound whatever the reason: the answer it stands for is unknown.
const noMembers = "\x00none"

// primitiveTypes are the declared types (JDT LS's "x : int" labels) whose
// variables have no members.
var primitiveTypes = map[string]bool{"boolean": true, "byte": true, "short": true, "char": true,
	"int": true, "long": true, "float": true, "double": true}

// typeKey returns the shared cache key of the member list at the strict site
// st (see the file comment), or ok=false when the site's list must be keyed
// by its text. cur is the generated text whose end st describes.
//
// head is the receiver's name when the receiver is that simple name alone
// ("x.", no fields or calls after it; arrayMembers), else "".
func (s *jdtSession) typeKey(ctx context.Context, cur string, st site) (key, head string, ok bool, err error) {
	genEnd := st.DotEnd - len(s.h.Prefix)
	if genEnd <= 0 || s.e.sites == nil || !s.stmtStart {
		return "", "", false, nil
	}
	genStart := len(s.win.Text)
	toks := codeTokens(javalex.Lex(s.win.Text + cur[:genEnd]))
	n := len(toks)
	if n < 3 || !isOp(toks[n-1], ".") {
		return "", "", false, nil
	}
	r := n - 2
	start := receiverStart(toks, r)
	if start < 1 {
		return "", "", false, nil
	}
	if isKw(toks[start], "null") {
		return noMembers, "", true, nil // null.m()... : the null type has no members
	}
	h, path, ok := fieldChain(toks, r)
	chain := ok && h == start // a name or this/super with fields (not a call, "new T", Outer.this)
	if !chain && toks[start].Kind != javalex.Ident {
		return "", "", false, nil
	}
	h = start
	x := toks[h]
	depth, first := 0, true
	for i, t := range toks {
		if t.Start < genStart {
			continue
		}
		if first && isKw(t, "else") {
			return "", "", false, nil
		}
		first = false
		switch {
		case isOp(t, "{"):
			depth++
		case isOp(t, "}"):
			if depth--; depth < 0 {
				return "", "", false, nil // a block of the prefix ends
			}
		case isKw(t, "class") || isKw(t, "interface") || isKw(t, "enum") || isWord(t, "record"):
			return "", "", false, nil // a local type: its body may inherit an x
		case x.Kind == javalex.Ident && t.Kind == javalex.Ident && t.Text == x.Text && i != h && !(i+1 < n && isOp(toks[i+1], ".")):
			return "", "", false, nil // x may be declared here
		}
	}
	typ := x.Text // this, super: the class the hunk lies in, as at the hunk start
	if x.Kind == javalex.Ident {
		var err error
		if chain {
			typ, err = s.startType(ctx, x.Text)
		} else if s.scopeTried {
			// a call or array access on x: x's type only from a scope
			// list already asked for (it can only find noMembers)
			typ, err = s.startType(ctx, x.Text)
		}
		if err != nil {
			return "", "", false, err
		}
		if primitiveTypes[strings.TrimPrefix(typ, "v:")] {
			return noMembers, "", true, nil // x, x.f, x.m(), x[i]: none has members
		}
		if typ == "" {
			typ = "N:" + x.Text // what x means at the hunk start, whatever it is
		}
	}
	if !chain {
		return "", "", false, nil
	}
	if inCaseLabel(toks, h, genStart) {
		return "", "", false, nil // a case label's constant: not shared with other operands
	}
	sc := scan(s.win.pre.clone(), toks[:h])
	if x.Kind == javalex.Ident && path == "" {
		head = x.Text
	}
	return s.id + "\x00t\x00" + typ + "\x00" + path + "\x00" + beforeClass(toks[h-1]) + "\x00" + strconv.Itoa(int(sc.top())), head, true, nil
}

// fieldChain reads the receiver that ends at toks[r] (the token before the
// last dot) as a head, a simple name or this or super, followed by names
// joined by dots ("x", "x.f.g", "this", "this.f"), each of which may be a
// call whose arguments are all literals ("Splitter.on(';').limit(4)"): h
// is the head's index and path the parts after it ("", "f.g",
// "on(C).limit(I)"). The list after "x.f.g." is then fixed by what x means
// at the hunk start and the names f and g (the members of x's type, and
// theirs, which the generated text cannot change, since it declares no
// type), as the list after "x." is by x's type; this and super by the
// class around the hunk. A call's result type is fixed too: the method is
// chosen from the receiver's type, the name and the arguments' types
// (JLS 15.12.2), and a literal's type is its kind's (JLS 15.8.1; literalKey),
// and a call that is the receiver of "." is a standalone expression, whose
// type no target type infers (JLS 15.12: poly only in an assignment or
// invocation context), so "on(';')" and "on('/')" share one list. ok is
// false for any other shape (a call on an unqualified method, an argument
// that is not a literal, explicit type arguments, an array access, a
// cast), or when no token precedes the head.
func fieldChain(toks []javalex.Token, r int) (h int, path string, ok bool) {
	var parts []string
	j := r
	for {
		k, part := j, ""
		switch {
		case isOp(toks[j], ")"):
			o := matchBack(toks, j, "(", ")")
			if o < 1 || toks[o-1].Kind != javalex.Ident {
				return 0, "", false
			}
			args, ok := literalArgs(toks[o+1 : j])
			if !ok {
				return 0, "", false
			}
			k, part = o-1, toks[o-1].Text+"("+args+")"
		case toks[j].Kind == javalex.Ident:
			part = toks[j].Text
		case isKw(toks[j], "this") || isKw(toks[j], "super"):
			part = toks[j].Text
		default:
			return 0, "", false
		}
		if k >= 2 && isOp(toks[k-1], ".") && toks[k].Kind == javalex.Ident &&
			(toks[k-2].Kind == javalex.Ident || isOp(toks[k-2], ")") || isKw(toks[k-2], "this") || isKw(toks[k-2], "super")) {
			parts = append([]string{part}, parts...)
			j = k - 2
			continue
		}
		if strings.Contains(part, "(") {
			return 0, "", false // m(...).: a call on an unqualified method
		}
		h = k
		break
	}
	if h < 1 {
		return 0, "", false
	}
	return h, strings.Join(parts, "."), true
}

// literalArgs returns the key of a call's arguments toks (between its
// parentheses) when every argument is one literal: their literalKey,
// joined by ","; ok is false for any other argument.
func literalArgs(toks []javalex.Token) (string, bool) {
	var keys []string
	for i, t := range toks {
		if i%2 == 1 {
			if !isOp(t, ",") {
				return "", false
			}
			continue
		}
		k := literalKey(t)
		if k == "" {
			return "", false
		}
		keys = append(keys, k)
	}
	if len(toks) > 0 && len(toks)%2 == 0 {
		return "", false // a trailing ","
	}
	return strings.Join(keys, ","), true
}

// literalKey names the type of literal t (JLS 15.8.1): "S" for a string
// literal or text block (String), "C" for a character literal (char), "Z"
// for true and false (boolean), "I" for a decimal integer literal without
// suffix or underscores (int, whatever its value: an invocation context
// narrows no constant, JLS 5.3); null and any other number keep their text
// (each its own key); "" when t is no complete literal.
func literalKey(t javalex.Token) string {
	n := len(t.Text)
	switch {
	case t.Kind == javalex.String && n >= 2 && t.Text[n-1] == '"':
		return "S"
	case t.Kind == javalex.TextBlock && n >= 6 && strings.HasSuffix(t.Text, `"""`):
		return "S"
	case t.Kind == javalex.Char && n >= 3 && t.Text[n-1] == '\'':
		return "C"
	case isKw(t, "true") || isKw(t, "false"):
		return "Z"
	case isKw(t, "null"):
		return "null"
	case t.Kind == javalex.Number:
		if t.Text == "0" || t.Text[0] != '0' && strings.Trim(t.Text, "0123456789") == "" {
			return "I"
		}
		return t.Text
	}
	return ""
}

// operandOps are the tokens after which a name can only start an operand of
// an expression: the binary operators other than "<", ">", ">>", ">>>" (type
// arguments), "&" (a type bound or an intersection cast) and "|" (a
// multi-catch type), the assignment operators, and the unary "!" and "~".
// The member list after "x." is the same after each of them (JDT LS lists
// x's type's accessible members; the expected type orders them but filters
// none: TestSoundnessMemberListsAcrossOperators asks JDT LS in each of these
// places), so they share one key (beforeClass) instead of one key per
// operator: a sample writing "(tail + 1) % buf." and another writing
// "size = buf." ask once.
var operandOps = map[string]bool{
	"=": true, "+=": true, "-=": true, "*=": true, "/=": true, "%=": true, "&=": true, "|=": true, "^=": true,
	"<<=": true, ">>=": true, ">>>=": true,
	"+": true, "-": true, "*": true, "/": true, "%": true, "^": true, "<<": true,
	"==": true, "!=": true, "<=": true, ">=": true, "&&": true, "||": true, "?": true,
	"!": true, "~": true,
}

// beforeClass is the part of a type key that the token t before the
// receiver contributes: "op" for every token of operandOps, the token's text
// for any other (a keyword, "(", ",", "<", ...: places where the name may
// be read as a type or a package, or whose list was not compared).
func beforeClass(t javalex.Token) string {
	if t.Kind == javalex.Operator && operandOps[t.Text] {
		return "\x01op"
	}
	return t.Text
}

// inCaseLabel reports whether the receiver toks[r] lies in a case label
// written by the generated text (which starts at offset genStart): "case"
// after the last ";", "{", "}" or ":" before it. A compiler may list only
// constants there, so its list stands for no other operand.
func inCaseLabel(toks []javalex.Token, r, genStart int) bool {
	for i := r - 1; i >= 0 && toks[i].Start >= genStart; i-- {
		t := toks[i]
		switch {
		case isKw(t, "case") || isKw(t, "default"):
			return true
		case isOp(t, ";") || isOp(t, "{") || isOp(t, "}") || isOp(t, ":") || isOp(t, "->"):
			return false
		}
	}
	return false
}

// startType returns name's declared type at the hunk start as far as the
// hunk's scope list (simple.go, scopeNames) tells it, without a request of
// its own: "v:" and the type when name is listed there as a variable
// alone, with one type that is not "var"; "" otherwise (a type, a
// package, a name not in scope, or no scope list). In "name." a variable
// in scope obscures a type or package of that name (JLS 6.4.2), which that
// list, lacking types and packages, cannot show. A receiver without a type
// here is keyed by its name (typeKey), which needs no answer at all: under
// typeKey's guards the name means at the site what it means at the hunk
// start. (Before, such a name cost one request for the names at the hunk
// start, to tell a type name from the rest; keying by the name shares as
// much for a type name and more for the others.)
func (s *jdtSession) startType(ctx context.Context, name string) (string, error) {
	verifying := s.verifying
	s.verifying = false
	defer func() { s.verifying = verifying }()
	sc, err := s.scopeNames(ctx)
	if err != nil || sc == nil || sc.Kinds[name] != kindValue {
		return "", err
	}
	if t := sc.Types[name]; t != "var" && t != "" {
		return "v:" + t, nil
	}
	return "", nil
}

// atStatementBoundary reports whether the hunk of window w starts at a
// statement boundary in a block: the innermost open bracket is a block's
// brace and the prefix's last code token is ";", "{", or a "}" that ends a
// block statement (closesBlockStatement; see the file comment).
func atStatementBoundary(w lexWindow) bool {
	toks := codeTokens(javalex.Lex(w.Text))
	if len(toks) == 0 {
		return false
	}
	t := toks[len(toks)-1]
	switch {
	case isOp(t, ";") || isOp(t, "{"):
	case isOp(t, "}"):
		if !closesBlockStatement(w, toks) {
			return false
		}
	default:
		return false
	}
	st := scan(w.pre.clone(), toks)
	return st.top() == frameBlock
}

// closesBlockStatement reports whether the "}" that ends toks (the window's
// code tokens) closes a block that is a statement or a statement's last
// part, so that the next statement may start after it: its "{" lies in the
// window, opened a block (not a class, anonymous class or lambda body, nor
// an array initializer), and follows ";", "{", "}" or ":" (a block, or a
// labeled one), else, try, finally or do, or the ")" of an if, for, while,
// catch, synchronized or try header, or of a switch that starts a
// statement (after ";", "{", "}", ":" or else). A switch expression's body
// ("x = switch (y) {...}") is none: a ";" or more of an expression must
// follow it.
func closesBlockStatement(w lexWindow, toks []javalex.Token) bool {
	o := matchBack(toks, len(toks)-1, "{", "}")
	if o < 1 {
		return false
	}
	if st := scan(w.pre.clone(), toks[:o+1]); st.top() != frameBlock {
		return false
	}
	p := toks[o-1]
	switch {
	case isOp(p, ";") || isOp(p, "{") || isOp(p, "}") || isOp(p, ":"):
		return true
	case isKw(p, "else") || isKw(p, "try") || isKw(p, "finally") || isKw(p, "do"):
		return true
	case !isOp(p, ")"):
		return false
	}
	q := matchBack(toks, o-1, "(", ")")
	if q < 1 {
		return false
	}
	head := toks[q-1]
	switch {
	case isKw(head, "if") || isKw(head, "for") || isKw(head, "while") || isKw(head, "catch") ||
		isKw(head, "synchronized") || isKw(head, "try"):
		return true
	case isKw(head, "switch") && q >= 2:
		b := toks[q-2]
		return isOp(b, ";") || isOp(b, "{") || isOp(b, "}") || isOp(b, ":") || isKw(b, "else")
	}
	return false
}

// matchBack returns the index of the opener that the closer toks[i]
// matches (open and close are their texts), or -1 when toks has none.
func matchBack(toks []javalex.Token, i int, open, close string) int {
	depth := 0
	for j := i; j >= 0; j-- {
		switch {
		case isOp(toks[j], close):
			depth++
		case isOp(toks[j], open):
			if depth--; depth == 0 {
				return j
			}
		}
	}
	return -1
}
