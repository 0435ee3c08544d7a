package inline

// reduce.go is the compile check on a reduced compilation unit: the bodies of
// the methods and constructors other than the one the suggestion goes into
// are replaced by a stub, and the comments between declarations by a space,
// so that JDT LS parses, resolves and analyses one body instead of all of
// them.
//
// Why the verdict is the same (the claim the integration test
// TestReducedCheckAgreesWithFull, cli, checks on real suggestions): Java
// checks a method or constructor body against the declarations of the
// compilation unit and of other units (JLS 8.4.7, 8.8.7: a body is
// type-checked in the scope of its member, using the signatures, fields and
// types it can see), never against the statements of another body. So, when
// the insertion lies strictly inside one body B (its braces balanced, no
// comment, string or text block left open, so B's extent is the same in the
// text with and without it):
//
//   - the errors of B, of every declaration (types, signatures, fields and
//     their initializers, initializer blocks, enum constants, imports, the
//     package) are the same in the reduced unit as in the whole one, in the
//     new text and in the old: everything they are checked against is kept
//     byte for byte;
//   - the errors another body C causes (wherever JDT places them: "This
//     method must return a result" goes on C's declaration) are the same in
//     the new whole text as in the old one (C and all it is checked against
//     are unchanged by the insertion), so Introduced's rule (b) excuses each
//     of them; in the reduced pair C is a stub in both texts, which causes
//     none.
//
// Comments between declarations mean nothing to the compiler (JLS 3.7), but
// for JDT's reading of a Javadoc @deprecated tag (deprecation warnings), so a
// comment with that tag is kept; the others go.
//
// Hence Introduced over the reduced pair forbids exactly what it forbids
// over the whole pair. A stub is `throw null;`, which completes abruptly, so
// it compiles for any return type, leaves every blank final field definitely
// assigned and is never followed by unreachable code; a constructor keeps its
// explicit constructor invocation (this(...)/super(...)), since without it
// the implicit super() may not resolve. The stub keeps every line break of
// the body, so lines (the errors' positions) are the same in the reduced
// and the whole text.
//
// What could break the claim is the compiler's reporting, not Java: JDT
// reports some errors of a unit only while it has no syntax error (the old
// text usually has one, the caret's unfinished line: bench/README.md, "Ghost
// text", session 15), and at most 100 problems per unit by default. Either
// can make the whole pair blame the insertion for an error of the rest of
// the file, or excuse one, where the reduced pair does not. So the claim is
// also measured: bench inline --compare-reduced and
// TestReducedCheckAgreesWithFull check real suggestions, the unguided row's
// non-compiling ones included, both ways (session 18: 466 suggestions on
// java.logging/ and java.prefs/, whose files have errors of their own, and
// gson; no verdict differed). JDT's reports do differ in detail: on java.logging/
// the reduced old text (with the unfinished line) lacked module errors on
// imports that the whole old text had, and the reduced pair failed a
// suggestion for those where the whole pair failed it for another error.
//
// The grammar is tree-sitter-java's (engine/end.go: verified to accept what
// javac accepts at the levels where engine.EndCheckOn holds); a text with a
// Unicode escape (javac translates them before it lexes) is never reduced,
// nor one the parser finds an error in: then the whole file is checked.

import (
	"context"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/java"

	"github.com/repilot-lsp/repilot-lsp/javalex"
)

// stub is a byte range [from, to) of the new text whose characters are
// replaced by stubText (a comment's by a space) and the range's line breaks.
type stub struct {
	from, to int
	comment  bool
}

// stubText is what a stubbed body holds (before its line breaks).
const stubText = "throw null;"

// bodyStubs returns the ranges of the new text (whose tree is root) to stub
// for an insertion at [from, to): the insides of the bodies of every method
// and constructor of a type declared at the top level or nested in a type's
// body, other than the body that holds the insertion. ok is false when the
// insertion is not strictly inside one such body, or the tree has an error.
func bodyStubs(root *sitter.Node, src []byte, from, to int) (stubs []stub, ok bool) {
	if root == nil || root.HasError() {
		return nil, false
	}
	holder := false
	var members func(n *sitter.Node)
	var decl func(n *sitter.Node)
	decl = func(n *sitter.Node) {
		switch n.Type() {
		case "class_declaration", "interface_declaration", "enum_declaration", "record_declaration", "annotation_type_declaration":
			if b := n.ChildByFieldName("body"); b != nil {
				members(b)
			}
		case "enum_body_declarations":
			members(n)
		case "method_declaration", "constructor_declaration", "compact_constructor_declaration":
			b := n.ChildByFieldName("body")
			if b == nil {
				return // abstract or native: no body
			}
			start, end := int(b.StartByte()), int(b.EndByte())
			if end-start < 2 || src[start] != '{' || src[end-1] != '}' {
				holder = false
				stubs = nil
				panic(errNoReduce) // not a body we understand
			}
			in := start + 1 // the first byte inside the braces
			if from > start && to < end {
				holder = true // the insertion's body: kept whole
				return
			}
			if to > start && from < end {
				panic(errNoReduce) // the insertion overlaps the body's braces
			}
			if b.Type() == "constructor_body" && b.NamedChildCount() > 0 {
				if c := b.NamedChild(0); c.Type() == "explicit_constructor_invocation" {
					in = int(c.EndByte())
				}
			}
			stubs = append(stubs, stub{in, end - 1, false})
		}
	}
	members = func(body *sitter.Node) {
		for i := 0; i < int(body.NamedChildCount()); i++ {
			c := body.NamedChild(i)
			if t := c.Type(); t == "line_comment" || t == "block_comment" {
				// A comment between declarations means nothing to the
				// compiler, but for a Javadoc @deprecated (JDT marks the
				// member deprecated: warnings, kept all the same).
				start, end := int(c.StartByte()), int(c.EndByte())
				if (to <= start || from >= end) && !strings.Contains(string(src[start:end]), "@deprecated") {
					stubs = append(stubs, stub{start, end, true})
				}
				continue
			}
			decl(c)
		}
	}
	defer func() {
		if r := recover(); r != nil {
			if r != errNoReduce {
				panic(r)
			}
			stubs, ok = nil, false
		}
	}()
	members(root)
	if !holder {
		return nil, false
	}
	return stubs, true
}

// errNoReduce stops bodyStubs' walk (recovered there).
var errNoReduce = &struct{ string }{"no reduction"}

// applyStubs returns src with each stub's range (shifted by shift where it
// starts at or after at) replaced by stubText and the range's line breaks.
// The stubs are in order and disjoint.
func applyStubs(src string, stubs []stub, at, shift int) string {
	var b strings.Builder
	b.Grow(len(src) / 2)
	last := 0
	for _, s := range stubs {
		from, to := s.from, s.to
		if from >= at {
			from, to = from+shift, to+shift
		}
		b.WriteString(src[last:from])
		if s.comment {
			b.WriteByte(' ')
		} else {
			b.WriteString(stubText)
		}
		for i := from; i < to; i++ {
			if c := src[i]; c == '\n' || c == '\r' {
				b.WriteByte(c)
			}
		}
		last = to
	}
	b.WriteString(src[last:])
	return b.String()
}

// selfContained reports whether text inserted after prefix leaves the
// lexical state as it was (the caret and the text's end are both in code,
// not in a comment, string, character literal or text block) and its braces
// balanced without ever closing one it did not open: then the text with and
// without it has the same members, each with the same extent outside the
// insertion's body.
func selfContained(prefix, text string) bool {
	if strings.Contains(text, `\u`) {
		return false
	}
	if javalex.ContextAt(prefix, len(prefix)) != javalex.Code || javalex.ContextAt(prefix+text, len(prefix)+len(text)) != javalex.Code {
		return false
	}
	depth := 0
	for _, t := range javalex.LexCode(text) {
		switch t.Text {
		case "{":
			depth++
		case "}":
			if depth--; depth < 0 {
				return false
			}
		}
	}
	return depth == 0
}

// reducedPair returns the reduced new text (prefix+text+suffix) and the
// reduced old text (prefix+suffix), with the same bodies stubbed in both,
// given the new text's tree (root, nil: parsed here); ok is false when the
// insertion cannot be reduced soundly (see the file comment), and the whole
// file must be checked.
func reducedPair(root *sitter.Node, prefix, text, suffix string) (newRed, oldRed string, ok bool) {
	if strings.Contains(prefix, `\u`) || strings.Contains(suffix, `\u`) || !selfContained(prefix, text) {
		return "", "", false
	}
	full := prefix + text + suffix
	if root == nil {
		p := sitter.NewParser()
		defer p.Close()
		p.SetLanguage(java.GetLanguage())
		tree, err := p.ParseCtx(context.Background(), nil, []byte(full))
		if err != nil {
			return "", "", false
		}
		defer tree.Close()
		root = tree.RootNode()
	}
	from, to := len(prefix), len(prefix)+len(text)
	stubs, ok := bodyStubs(root, []byte(full), from, to)
	if !ok {
		return "", "", false
	}
	return applyStubs(full, stubs, to, 0), applyStubs(prefix+suffix, stubs, to, -len(text)), true
}

// ReducedPair is reducedPair for callers outside the package (bench inline
// and its tests compare the reduced check with the whole one): the texts the
// guarantee checks in place of prefix+text+suffix and prefix+suffix, or ok
// false when it checks those whole.
func ReducedPair(prefix, text, suffix string) (newRed, oldRed string, ok bool) {
	return reducedPair(nil, prefix, text, suffix)
}
