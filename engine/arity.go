package engine

// arity.go defines arity pruning for member method calls: inside the
// argument list of "recv.name(", where the member list JDT LS gives at
// "recv." is strict, trusted and complete, and every item named name is a
// method whose parameter count is read from its label, a ")" that closes the
// call with a number of arguments no overload accepts, or a "," that starts
// an argument beyond what every overload accepts, cannot compile (JLS
// 15.12.2.1: a method is potentially applicable only when its arity matches
// the number of arguments, or, variable-arity with n parameters, when there
// are at least n-1). The arguments are counted from tokens (callArgs,
// context.go), exactly or not at all. The same holds for a simple-name call
// "name(" whose name the simple-name list at the name lists only as methods
// (simpleArity).

import (
	"context"
	"strconv"
	"strings"

	"github.com/repilot-lsp/repilot-lsp/javalex"
)

// maxFixedArity bounds the fixed parameter counts an arity records; a method
// with more parameters makes its name's arity unknown.
const maxFixedArity = 63

// arity is what the overloads of one member name accept: fixed is a bit set
// of fixed parameter counts (bit k: some overload takes exactly k), varMin
// the least number of arguments a variable-arity overload takes (a varargs
// method of k parameters takes k-1 or more; -1 when there is none), and bad
// says some item of that name is not a method or its label did not parse:
// the name's arity is then unknown.
type arity struct {
	fixed  uint64
	varMin int
	bad    bool
}

// accepts reports whether some overload takes exactly n arguments.
func (a arity) accepts(n int) bool {
	if a.bad {
		return true
	}
	return n <= maxFixedArity && a.fixed&(1<<uint(n)) != 0 || a.varMin >= 0 && n >= a.varMin
}

// acceptsAtLeast reports whether some overload takes n or more arguments.
func (a arity) acceptsAtLeast(n int) bool {
	if a.bad || a.varMin >= 0 {
		return true
	}
	return n <= maxFixedArity && a.fixed>>uint(n) != 0
}

// merge returns the arity of the overloads of a and b together.
func (a arity) merge(b arity) arity {
	out := arity{fixed: a.fixed | b.fixed, varMin: a.varMin, bad: a.bad || b.bad}
	if b.varMin >= 0 && (out.varMin < 0 || b.varMin < out.varMin) {
		out.varMin = b.varMin
	}
	return out
}

// addArity records one item named name: a method whose label gave n
// parameters (varargs: the last one is variable-arity), or, with ok false,
// an item whose arity is not known (not a method, or an unparsed label).
func (ml *memberList) addArity(name string, n int, varargs, ok bool) {
	a := arity{varMin: -1}
	switch {
	case !ok || n > maxFixedArity:
		a.bad = true
	case varargs:
		a.varMin = n - 1
	default:
		a.fixed = 1 << uint(n)
	}
	if ml.Arity == nil {
		ml.Arity = map[string]arity{}
	}
	if old, seen := ml.Arity[name]; seen {
		a = old.merge(a)
	}
	ml.Arity[name] = a
}

// methodParams reads a method item's parameter count from its label, as
// JDT LS 1.20 writes it: "get(Object key) : Integer", "substring(int
// beginIndex, int endIndex) : String", "format(String format, Object...
// args) : String", "compute(String key, BiFunction<? super String,? super
// Integer,? extends Integer> remappingFunction) : Integer". The label must
// start with name and "("; commas inside "<...>" do not separate
// parameters. ok is false for any other shape.
func methodParams(name, label string) (n int, varargs, ok bool) {
	if !strings.HasPrefix(label, name+"(") {
		return 0, false, false
	}
	rest := label[len(name)+1:]
	end := strings.IndexByte(rest, ')')
	if end < 0 || strings.ContainsAny(rest[:end], "()") {
		return 0, false, false
	}
	params := rest[:end]
	if strings.TrimSpace(params) == "" {
		return 0, false, true
	}
	depth := 0
	start := 0
	var list []string
	for i := 0; i < len(params); i++ {
		switch params[i] {
		case '<':
			depth++
		case '>':
			depth--
			if depth < 0 {
				return 0, false, false
			}
		case ',':
			if depth == 0 {
				list = append(list, params[start:i])
				start = i + 1
			}
		}
	}
	if depth != 0 {
		return 0, false, false
	}
	list = append(list, params[start:])
	for i, p := range list {
		p = strings.TrimSpace(p)
		if p == "" {
			return 0, false, false
		}
		if strings.Contains(p, "...") {
			if i != len(list)-1 {
				return 0, false, false
			}
			varargs = true
		}
	}
	return len(list), varargs, true
}

// checkArity judges c, ")" or ",", appended to cur (toks: the code tokens of
// the window text and cur) by the arity of the member method call whose
// argument list it closes or continues (see the file comment). It answers
// Infeasible or Unknown, never Feasible.
func (s *jdtSession) checkArity(ctx context.Context, cur string, toks []javalex.Token, c byte) (Outcome, error) {
	st := scan(s.win.pre.clone(), toks)
	call, ok := innerCall(&st, toks)
	if !ok {
		return Unknown, nil
	}
	name := toks[call.Open-1]
	if call.Simple {
		a, known, err := s.simpleArity(ctx, cur, name)
		if err != nil || !known {
			return Unknown, err
		}
		return arityOutcome(a, call, c), nil
	}
	var site site
	gen := ""
	if name.End >= len(s.win.Text) {
		gen = cur[:name.End-len(s.win.Text)]
		site = siteAt(s.win, gen)
	} else {
		w := s.win
		w.Text = w.Text[:name.End] // the call's name lies in the prefix
		site = siteAt(w, "")
	}
	if !site.Strict || site.Ident != name.Text {
		return Unknown, nil
	}
	ml, err := s.members(ctx, gen, site)
	if err != nil || ml == nil || ml.Incomplete || verdict(ml, name.Text, true) != Feasible {
		return Unknown, err
	}
	a, known := ml.Arity[name.Text]
	if !known || a.bad || ml.Kinds[name.Text] != kindMethod {
		return Unknown, nil
	}
	return arityOutcome(a, call, c), nil
}

// arityOutcome judges c, ")" or ",", in call's argument list by the arity a
// of the called name's overloads: Infeasible when no overload accepts the
// count it gives, else Unknown.
func arityOutcome(a arity, call openCall, c byte) Outcome {
	switch {
	case c == ')' && !call.Trailing && !a.accepts(call.Args):
		return Infeasible
	case c == ',' && call.Args > 0 && !call.Trailing && !a.acceptsAtLeast(call.Args+1):
		return Infeasible
	}
	return Unknown
}

// minSimpleCallInPrefix is the shortest simple-name call name in the
// hunk's prefix whose arity simpleArity asks JDT LS for: the list for a
// short name at a site of its own holds every type with those initials
// (see minQualifierAtSite).
const minSimpleCallInPrefix = 3

// simpleArity returns the arity of the simple-name call whose name is the
// token name (code tokens of the window text and cur), from the names JDT
// LS lists at the name (simple.go: the list a "(" after it was judged by,
// or, for a name in the prefix, one asked at that place): known only when
// the name is in a reference position (simpleSiteAt: not a declaration,
// label, lambda or anonymous class body, control header or a statement
// after a syntax error), the list is complete and lists the name only as
// methods whose labels all give a parameter count. The overloads that a
// simple-name call may reach (JLS 15.12.1: the innermost enclosing class
// with a method of that name, else the static imports) are among those
// listed, so a count none of them accepts cannot compile (JLS 15.12.2.1).
// The answer rests on two lists (simpleNames sets confirm).
func (s *jdtSession) simpleArity(ctx context.Context, cur string, name javalex.Token) (a arity, known bool, err error) {
	var ss simpleSite
	var ok bool
	full := s.h.Prefix + cur
	if name.Start >= len(s.win.Text) {
		upto := cur[:name.End-len(s.win.Text)]
		ss, ok = simpleSiteAt(s.win, upto, true)
		full = s.h.Prefix + upto
	} else {
		if name.End > len(s.win.Text) || len(name.Text) < minSimpleCallInPrefix {
			return arity{}, false, nil
		}
		w := s.win
		w.Text = w.Text[:name.End] // the call's name lies in the prefix
		ss, ok = simpleSiteAt(w, "", true)
		full = s.h.Prefix[:w.Anchor+name.End]
	}
	if !ok || ss.Ident != name.Text || ss.CtrlParen || isContextual(ss.Ident) ||
		(ss.Mode != simplePrefix && ss.Mode != simpleEnd) {
		return arity{}, false, nil
	}
	var ml *memberList
	if ss.IdentStart >= len(s.h.Prefix) {
		ml, err = s.simpleNames(ctx, full[len(s.h.Prefix):], ss)
	} else {
		s.confirm = true // as simpleNames: a prune rests on two answers
		ml, err = s.namesAt(ctx, full, ss, s.id+"\x00sp\x00"+strconv.Itoa(ss.IdentStart)+"\x00")
	}
	if err != nil || ml == nil || ml.Incomplete || ml.Kinds[name.Text] != kindMethod {
		return arity{}, false, err
	}
	a, known = ml.Arity[name.Text]
	if !known || a.bad {
		return arity{}, false, nil
	}
	return a, true, nil
}
