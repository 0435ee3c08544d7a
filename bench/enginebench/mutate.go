// Package enginebench measures the completion engine (package engine) on a
// bug corpus (docs/bug-corpus.md format): its pruning power on mutated
// developer fixes, its soundness on the unmutated fixes, and what a decision
// costs (time and JDT LS requests), with and without the engine's per-site
// member-list cache. "repilot-lsp bench engine" prints its Report.
//
// Pruning power follows Repilot (Wei, Xia, Zhang, FSE 2023, section 3.2):
// a strict completion engine prunes a token when no completion of the
// partial program with it compiles. A mutant of the fix that does not
// compile is forced through the engine token by token; it counts as pruned
// when some token is answered Infeasible.
//
// mutate.go defines the mutation kinds and how mutants are made from a hunk:
// deterministic for a seed, one identifier changed per mutant.
package enginebench

import (
	"hash/fnv"
	"math/rand/v2"
	"sort"
	"strings"
	"unicode"

	"github.com/repilot-lsp/repilot-lsp/javalex"
)

// Kind is a mutation kind.
type Kind string

// The mutation kinds. Each changes one identifier of a hunk.
const (
	// MemberTypo misspells the member name after a member-access dot
	// (x.size() -> x.sizw()).
	MemberTypo Kind = "member-typo"
	// MemberWrongType replaces the member name after a dot with a real
	// member name of another type of the project or the JDK that the
	// receiver lacks (list.size() -> list.charAt()).
	MemberWrongType Kind = "member-wrong-type"
	// SimpleName misspells a simple name in expression position (a local,
	// parameter or field used without a receiver): an undefined name.
	SimpleName Kind = "simple-name"
	// TypeName misspells a type name used outside "new": a declared type, a
	// generic argument or the receiver of a static call (Math.max ->
	// Mtah.max).
	TypeName Kind = "type-name"
	// NewType misspells the type after "new".
	NewType Kind = "new-type"
)

// Kinds lists every kind in report order.
var Kinds = []Kind{MemberTypo, MemberWrongType, SimpleName, TypeName, NewType}

// IsMember reports whether k mutates a member access (the kinds the 90%
// pruning target of issue 3 is about).
func (k Kind) IsMember() bool { return k == MemberTypo || k == MemberWrongType }

// Site is one identifier of a hunk that a kind can mutate.
type Site struct {
	Kind  Kind
	Start int    // byte offset of the identifier in the hunk
	Ident string // the identifier
}

// Mutant is a hunk with one identifier replaced.
type Mutant struct {
	Site
	Repl string // the replacement identifier
	Hunk string // the mutated hunk
}

// primitiveTypes may precede a declared name ("int i"): the name after them
// is a declaration, not a use.
var primitiveTypes = map[string]bool{"int": true, "long": true, "short": true, "byte": true, "char": true,
	"boolean": true, "float": true, "double": true, "void": true}

// Sites returns the mutation sites of hunk, in text order. Declaration names
// (a name right after a type, a method name being declared), labels, lambda
// parameters, and identifiers in comments or literals are not sites.
func Sites(hunk string) []Site {
	toks := javalex.LexCode(hunk)
	var out []Site
	for i, t := range toks {
		if t.Kind != javalex.Ident {
			continue
		}
		var prev, prev2, next javalex.Token
		if i > 0 {
			prev = toks[i-1]
		}
		if i > 1 {
			prev2 = toks[i-2]
		}
		if i+1 < len(toks) {
			next = toks[i+1]
		}
		switch {
		case prev.Kind == javalex.Operator && prev.Text == ".":
			if receiverEnds(prev2) {
				out = append(out, Site{MemberTypo, t.Start, t.Text}, Site{MemberWrongType, t.Start, t.Text})
			}
		case prev.Kind == javalex.Keyword && prev.Text == "new":
			out = append(out, Site{NewType, t.Start, t.Text})
		case declaresName(prev) || next.Text == "->" || next.Text == ":" && !strings.Contains(hunk[:t.Start], "?"):
			// a declaration, a lambda parameter or a label
		case isUpper(t.Text):
			out = append(out, Site{TypeName, t.Start, t.Text})
		default:
			if next.Text == "(" && prev.Kind == javalex.Ident {
				continue // a method declaration "T name("
			}
			out = append(out, Site{SimpleName, t.Start, t.Text})
		}
	}
	return out
}

// receiverEnds reports whether t can end the receiver of a member access:
// an identifier, this/super, ")" or "]".
func receiverEnds(t javalex.Token) bool {
	switch t.Kind {
	case javalex.Ident:
		return true
	case javalex.Keyword:
		return t.Text == "this" || t.Text == "super"
	case javalex.Operator:
		return t.Text == ")" || t.Text == "]"
	}
	return false
}

// declaresName reports whether the identifier after prev is being declared:
// prev ends a type (an identifier, a primitive type, ">" of a generic type or
// "]" of an array type).
func declaresName(prev javalex.Token) bool {
	switch prev.Kind {
	case javalex.Ident:
		return true
	case javalex.Keyword:
		return primitiveTypes[prev.Text]
	case javalex.Operator:
		return prev.Text == ">" || prev.Text == "]"
	}
	return false
}

func isUpper(s string) bool {
	for _, r := range s {
		return unicode.IsUpper(r)
	}
	return false
}

// rng returns the random source of one site: a function of the seed and the
// site's identity only, so mutants do not depend on the order of work.
func rng(seed uint64, key string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(key))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

// Misspell returns n distinct misspellings of ident (swap two neighbouring
// letters, drop one, double one, or replace one with its neighbour in the
// alphabet), each a Java identifier that is not a keyword and differs from
// ident, drawn from r in order. Fewer come back when ident has fewer.
func Misspell(ident string, r *rand.Rand, n int) []string {
	seen := map[string]bool{ident: true}
	var out []string
	for tries := 0; len(out) < n && tries < 200; tries++ {
		b := []byte(ident)
		i := r.IntN(len(b))
		switch r.IntN(4) {
		case 0: // swap
			if len(b) < 2 {
				continue
			}
			if i == len(b)-1 {
				i--
			}
			b[i], b[i+1] = b[i+1], b[i]
		case 1: // drop
			if len(b) < 2 {
				continue
			}
			b = append(b[:i:i], b[i+1:]...)
		case 2: // double
			b = append(b[:i+1:i+1], b[i:]...)
		case 3: // neighbour letter
			c := b[i]
			switch {
			case c >= 'a' && c < 'z', c >= 'A' && c < 'Z':
				b[i] = c + 1
			case c == 'z' || c == 'Z':
				b[i] = c - 1
			default:
				continue
			}
		}
		s := string(b)
		if seen[s] || !isIdent(s) || javalex.IsKeyword(s) {
			continue
		}
		seen[s] = true
		out = append(out, s)
	}
	return out
}

func isIdent(s string) bool {
	for i, r := range s {
		if i == 0 && !javalex.IsIdentStart(r) || !javalex.IsIdentPart(r) {
			return false
		}
	}
	return s != ""
}

// objectMembers are members of java.lang.Object (and the "length" of every
// array is not among them): every receiver has them, so they are never
// "a member of the wrong type".
var objectMembers = map[string]bool{"equals": true, "hashCode": true, "toString": true, "getClass": true,
	"notify": true, "notifyAll": true, "wait": true, "clone": true, "finalize": true}

// JDKMembers are member names of common JDK types (String, List, Map,
// StringBuilder, Math, Integer, LocalDate, arrays), added to the project's
// own member names to draw wrong-type members from.
var JDKMembers = []string{"length", "size", "charAt", "isEmpty", "trim", "get", "put", "add", "append",
	"substring", "indexOf", "contains", "keySet", "values", "remove", "clear", "toUpperCase", "push", "pop",
	"peek", "stream", "split", "format", "valueOf", "parseInt", "max", "min", "abs", "plusDays", "isAfter",
	"getKey", "getValue", "entrySet", "iterator", "toArray", "startsWith", "compareTo", "intValue"}

// MemberPool returns the sorted, distinct member names found after a
// member-access dot in texts (whole Java files of the corpus; package and
// import lines left out), plus JDKMembers, without Object's members and
// without names that start with an upper-case letter.
func MemberPool(texts []string) []string {
	set := map[string]bool{}
	for _, m := range JDKMembers {
		set[m] = true
	}
	for _, text := range texts {
		toks := javalex.LexCode(text)
		inImport := false // package and import lines name packages, not members
		for i, t := range toks {
			switch {
			case t.Kind == javalex.Keyword && (t.Text == "import" || t.Text == "package"):
				inImport = true
			case t.Text == ";":
				inImport = false
			case !inImport && i >= 2 && t.Kind == javalex.Ident && toks[i-1].Text == "." && receiverEnds(toks[i-2]):
				set[t.Text] = true
			}
		}
	}
	var out []string
	for m := range set {
		// Upper-case names after a dot are mostly types and packages'
		// members (java.io.StringReader), not members of a value.
		if !objectMembers[m] && !isUpper(m) {
			out = append(out, m)
		}
	}
	sort.Strings(out)
	return out
}

// Candidates returns up to n replacement identifiers for site s, in the
// order to try them (seeded by seed and key, which names the hunk): a
// misspelling for the typo kinds, another member name from pool for
// MemberWrongType (never s.Ident, and never a name that s.Ident starts with
// or that starts with s.Ident: those test prefixes, not wrong members).
// Each one still has to be confirmed not to compile by the caller.
func Candidates(s Site, pool []string, seed uint64, key string, n int) []string {
	r := rng(seed, key+"\x00"+string(s.Kind)+"\x00"+s.Ident)
	if s.Kind != MemberWrongType {
		return Misspell(s.Ident, r, n)
	}
	var opts []string
	for _, m := range pool {
		if !strings.HasPrefix(m, s.Ident) && !strings.HasPrefix(s.Ident, m) {
			opts = append(opts, m)
		}
	}
	r.Shuffle(len(opts), func(i, j int) { opts[i], opts[j] = opts[j], opts[i] })
	if len(opts) > n {
		opts = opts[:n]
	}
	return opts
}

// Apply returns hunk with the identifier at s replaced by repl.
func Apply(hunk string, s Site, repl string) Mutant {
	return Mutant{Site: s, Repl: repl, Hunk: hunk[:s.Start] + repl + hunk[s.Start+len(s.Ident):]}
}
