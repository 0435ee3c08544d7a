package engine

// typekey.go shares member lists between sites whose receivers have the
// same declared type (issue 14: "cache member lists per receiver type").
//
// The per-site cache keys a list by the generated text up to the dot, so two
// samples that reach "readings." through different text each ask JDT LS.
// Where the receiver is a simple name x that the hunk cannot have rebound,
// the list depends only on x's type and on the place, so it is keyed by
//
//	hunk, x's declared type at the hunk start (or x, for a type name), the token before x (one
//	class for the operators after which x can only be an operand: beforeClass), and the
//	innermost open bracket's kind (context.go)
//
// and fetched once per such key. x "cannot have been rebound" when:
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
// x's type comes from one completion request per name and hunk, shared with
// the simple-name judge: the caret after "x;" at the hunk start (simple.go,
// hunkNames), where JDT LS labels a variable "x : Type". It costs a request
// at the first site of x, and saves one at every site of x in another
// sample whose text before the dot differs (most of them, in a repair).
// Only a name listed as a variable alone, with one non-"var" type, or as a
// type alone (the receiver of a static member access, "Math.", keyed by its
// name) is used.
// Strictness is kept as before: a name is pruned only on two answers
// (Check's verifying pass; here two answers for the key, which may come
// from two sites of the same receiver type and context).

import (
	"context"
	"strconv"

	"github.com/repilot-lsp/repilot-lsp/javalex"
)

// typeKey returns the shared cache key of the member list at the strict site
// st (see the file comment), or ok=false when the site's list must be keyed
// by its text. cur is the generated text whose end st describes.
func (s *jdtSession) typeKey(ctx context.Context, cur string, st site) (key string, ok bool, err error) {
	genEnd := st.DotEnd - len(s.h.Prefix)
	if genEnd <= 0 || s.e.sites == nil || !s.stmtStart {
		return "", false, nil
	}
	genStart := len(s.win.Text)
	toks := codeTokens(javalex.Lex(s.win.Text + cur[:genEnd]))
	n := len(toks)
	if n < 3 || !isOp(toks[n-1], ".") {
		return "", false, nil
	}
	r := n - 2
	x := toks[r]
	if x.Kind != javalex.Ident || receiverStart(toks, r) != r {
		return "", false, nil // not a simple name (a chain, a call, "new T")
	}
	depth, first := 0, true
	for i, t := range toks {
		if t.Start < genStart {
			continue
		}
		if first && isKw(t, "else") {
			return "", false, nil
		}
		first = false
		switch {
		case isOp(t, "{"):
			depth++
		case isOp(t, "}"):
			if depth--; depth < 0 {
				return "", false, nil // a block of the prefix ends
			}
		case isKw(t, "class") || isKw(t, "interface") || isKw(t, "enum") || isWord(t, "record"):
			return "", false, nil // a local type: its body may inherit an x
		case t.Kind == javalex.Ident && t.Text == x.Text && i != r && !(i+1 < n && isOp(toks[i+1], ".")):
			return "", false, nil // x may be declared here
		}
	}
	if inCaseLabel(toks, r, genStart) {
		return "", false, nil // a case label's constant: not shared with other operands
	}
	typ, err := s.hunkStartType(ctx, x.Text)
	if err != nil || typ == "" {
		return "", false, err
	}
	sc := scan(s.win.pre.clone(), toks[:r])
	return s.id + "\x00t\x00" + typ + "\x00" + beforeClass(toks[r-1]) + "\x00" + strconv.Itoa(int(sc.top())), true, nil
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

// hunkStartType returns what name means at the hunk start: "v:" and the
// declared type JDT LS gives it when it is listed as a variable alone, with
// one type that is not "var"; "T:" and name when it is listed as a type
// alone; "" otherwise, or when JDT LS did not answer. It comes from the
// hunk's scope list for a variable listed there, else from the names in
// scope at the hunk start for the identifier name (hunkNames, simple.go),
// one request per name and hunk, shared with the simple names' judge. One
// answer suffices: the type only chooses the key, whose member list is
// confirmed on its own before it prunes.
//
// The answer is kept per name for the session, "" too: typeKey runs before
// the site caches are looked up, for every token checked after "name.",
// and an empty answer for name (not cached by fetchSimple, and never stored
// here since verifying is off) was asked again each time: 12 requests for
// "String" in one sample of the README's example. "" only means the site's
// list is keyed by its text, so keeping it can prune nothing.
func (s *jdtSession) hunkStartType(ctx context.Context, name string) (string, error) {
	if t, ok := s.startTypes[name]; ok {
		return t, nil
	}
	t, err := s.lookUpHunkStartType(ctx, name)
	if err != nil {
		return "", err
	}
	if s.startTypes == nil {
		s.startTypes = map[string]string{}
	}
	s.startTypes[name] = t
	return t, nil
}

// lookUpHunkStartType is hunkStartType without the per-session memo.
func (s *jdtSession) lookUpHunkStartType(ctx context.Context, name string) (string, error) {
	verifying := s.verifying
	s.verifying = false
	defer func() { s.verifying = verifying }()
	// A variable in the hunk's scope list (simple.go, scopeNames) needs no
	// request of its own: in "name." a variable in scope obscures a type or
	// package of that name (JLS 6.4.2), which that list, lacking types and
	// packages, cannot show.
	if sc, err := s.scopeNames(ctx); err != nil {
		return "", err
	} else if sc != nil && sc.Kinds[name] == kindValue {
		if t := sc.Types[name]; t != "var" && t != "" {
			return "v:" + t, nil
		}
	}
	ml, err := s.hunkNames(ctx, name)
	if err != nil || ml == nil {
		return "", err
	}
	switch ml.Kinds[name] {
	case kindValue:
		if t := ml.Types[name]; t != "var" && t != "" {
			return "v:" + t, nil
		}
	case kindType:
		// A type name alone (no variable, package or method of that
		// name): "Math." lists Math's static members wherever Math
		// means the same type, which the guards above keep.
		return "T:" + name, nil
	}
	return "", nil
}

// atStatementBoundary reports whether the hunk of window w starts at a
// statement boundary in a block: the prefix's last code token is ";" or
// "{" and the innermost open bracket is a block's brace (see the file
// comment).
func atStatementBoundary(w lexWindow) bool {
	toks := codeTokens(javalex.Lex(w.Text))
	if len(toks) == 0 {
		return false
	}
	t := toks[len(toks)-1]
	if !isOp(t, ";") && !isOp(t, "{") {
		return false
	}
	st := scan(w.pre.clone(), toks)
	return st.top() == frameBlock
}
