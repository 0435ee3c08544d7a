package engine

// memberlist.go holds memberList, what one JDT LS completion answer says at a
// site: the names listed, their kinds, declared types and arities, and
// whether the answer is consistent with the request made.

import (
	"sort"
	"strings"

	"github.com/repilot-lsp/repilot-lsp/jdtls"
	"github.com/repilot-lsp/repilot-lsp/textpos"
)

// memberList is JDT LS's answer at one site: the distinct names, sorted,
// what each name is (a bit set of kind* flags, from the items'
// CompletionItemKind), whether the server marked the list incomplete, and
// whether it lists packages (the receiver may be a package: a name it lacks
// may still be a package JDT LS does not list, so a miss is unknown).
type memberList struct {
	Names      []string
	Kinds      map[string]uint8
	Incomplete bool
	Packages   bool
	Verified   bool // merged from two answers (see jdtSession.verifying)
	// Local: made by the engine, not answered by JDT LS (arrayMembers): a
	// superset of what may follow, which prunes but never completes
	// actively (Complete).
	Local bool
	// ScopeComplete: a scope list (simple.go, scopeNames) that JDT LS did
	// not mark isIncomplete: it lists every variable and method in scope
	// at the hunk start (Incomplete is set on it all the same, since it
	// lacks types). localNames builds complete lists from it.
	ScopeComplete bool
	// Origin is the site key (session id, dot offset and generated text)
	// of the member request that answered this list; "" for simple-name
	// lists and merged ones. A list shared by a type key and used at
	// another site is confirmed there before it prunes (jdtSession.confirm).
	Origin string
	// Types holds the declared type of names listed only as variables
	// (JDT LS labels "name : Type", 1.20 and 1.60 alike); "" when items of
	// one name disagree or a label has no type. See indexable.
	Types map[string]string
	// Arity holds, per name, the parameter counts its items' labels give
	// (arity.go); a name without an entry has unknown arity.
	Arity map[string]arity
}

// addType records typ as the declared type of value name (see Types).
func (ml *memberList) addType(name, typ string) {
	if ml.Types == nil {
		ml.Types = map[string]string{}
	}
	if old, ok := ml.Types[name]; ok && old != typ {
		typ = ""
	}
	ml.Types[name] = typ
}

// valueType returns the declared type in a variable item's label
// ("readings : List<Reading>" -> "List<Reading>"), or "".
func valueType(label string) string {
	if i := strings.Index(label, " : "); i > 0 {
		return strings.TrimSpace(label[i+3:])
	}
	return ""
}

// indexable reports whether "[" may follow name, a variable of the list:
// false only when every item named so is a variable whose declared type is
// known and is not an array type ("List<Reading>", "int", "T"); Java indexes
// arrays only (JLS 15.10.3). A type name, a method, or an unknown or
// inferred ("var") type may be followed by "[" for all the engine knows.
func (ml *memberList) indexable(name string) bool {
	if ml.Kinds[name] != kindValue {
		return true
	}
	t, ok := ml.Types[name]
	return !ok || t == "" || t == "var" || strings.HasSuffix(t, "]") || strings.HasSuffix(t, "...")
}

// union returns the names of both lists (a list that two answers merge).
func (ml *memberList) union(o *memberList) *memberList {
	out := &memberList{Incomplete: ml.Incomplete || o.Incomplete, Packages: ml.Packages || o.Packages}
	for _, l := range []*memberList{ml, o} {
		for _, n := range l.Names {
			out.add(n, l.Kinds[n])
			if t, ok := l.Types[n]; ok {
				out.addType(n, t)
			}
		}
	}
	// A name's overloads are those of both answers; a list that lists it
	// without an arity makes it unknown.
	for _, n := range out.Names {
		a := arity{varMin: -1}
		for _, l := range []*memberList{ml, o} {
			if _, listed := l.Kinds[n]; !listed {
				continue
			}
			b, ok := l.Arity[n]
			if !ok {
				b = arity{varMin: -1, bad: true}
			}
			a = a.merge(b)
		}
		if out.Arity == nil {
			out.Arity = map[string]arity{}
		}
		out.Arity[n] = a
	}
	sort.Strings(out.Names)
	return out
}

// Kind bits of a name in a memberList.
const (
	kindMethod  uint8 = 1 << iota // Method, Function
	kindValue                     // Field, Variable, Property, EnumMember, Constant (and "class")
	kindType                      // Class, Interface, Enum, Struct, TypeParameter, Constructor
	kindPackage                   // Module (JDT LS lists packages with this kind)
	kindOther                     // anything else: never used to rule a follower out
)

// kindBits maps an LSP CompletionItemKind (LSP 3.17) to a kind bit; an item
// without a kind is a method when its label has a parameter list ("greet()
// : String", JDT LS 1.20's label shape), else kindOther.
func kindBits(kind int, label string) uint8 {
	switch kind {
	case 2, 3:
		return kindMethod
	case 4:
		return kindType // a constructor (after "new"): its name is the type's
	case 5, 6, 10, 20, 21:
		return kindValue
	case 7, 8, 13, 22, 25:
		return kindType
	case 9:
		return kindPackage
	case 0:
		if i := strings.IndexByte(label, '('); i > 0 && !strings.Contains(label[:i], " ") {
			return kindMethod
		}
	}
	return kindOther
}

func (ml *memberList) add(name string, bits uint8) {
	if ml.Kinds == nil {
		ml.Kinds = map[string]uint8{}
	}
	if _, ok := ml.Kinds[name]; !ok {
		ml.Names = append(ml.Names, name)
	}
	ml.Kinds[name] |= bits
	if bits == kindPackage {
		ml.Packages = true
	}
}

// hasPrefix reports whether some name starts with ident.
func (ml *memberList) hasPrefix(ident string) bool {
	i := sort.SearchStrings(ml.Names, ident)
	return i < len(ml.Names) && strings.HasPrefix(ml.Names[i], ident)
}

// consistent reports whether a completion list answers the request made:
// every item's edit must end at the caret and replace text that its new text
// starts with ("" for a member, "java.util." for a type completed with its
// qualifier). A list computed on another version of the document, or at
// another position, fails this; its names prove nothing.
func consistent(l *jdtls.CompletionList, text string, m *textpos.Mapper, caret int) bool {
	for _, it := range l.Items {
		if it.Edit == nil || it.Kind == jdtls.KindSnippet {
			continue
		}
		start, err1 := m.Offset(it.Edit.Range.Start)
		end, err2 := m.Offset(it.Edit.Range.End)
		if err1 != nil || err2 != nil || end != caret || start > caret ||
			!strings.HasPrefix(it.Edit.NewText, text[start:caret]) {
			return false
		}
	}
	return true
}

// newMemberList keeps the names of a completion list's items that can
// follow a dot: every kind but snippets (templates are not members).
func newMemberList(l *jdtls.CompletionList) *memberList {
	ml := &memberList{Incomplete: l.IsIncomplete}
	for _, it := range l.Items {
		if it.Name == "" || it.Kind == jdtls.KindSnippet {
			continue
		}
		bits := kindBits(it.Kind, it.Label)
		ml.add(it.Name, bits)
		n, varargs, ok := methodParams(it.Name, it.Label)
		ml.addArity(it.Name, n, varargs, ok && bits == kindMethod)
		if bits == kindValue {
			ml.addType(it.Name, valueType(it.Label))
		}
	}
	sort.Strings(ml.Names)
	return ml
}

// contains reports whether the sorted slice names holds name.
func contains(names []string, name string) bool {
	i := sort.SearchStrings(names, name)
	return i < len(names) && names[i] == name
}
