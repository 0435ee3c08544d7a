package engine

// site_test.go checks the text-only parts of the engine: where a caret is
// strict (siteAt), how tokens split (splitToken), how one identifier is
// judged against a member list (verdict), and whether a completion list
// answers the request made (consistent). No JDT LS is needed.

import (
	"reflect"
	"strings"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/jdtls"
	"github.com/repilot-lsp/repilot-lsp/textpos"
)

func TestSiteAt(t *testing.T) {
	const prefix = "package demo;\nimport java.util.List;\nclass A {\n  void m(Greeter g, String s) {\n"
	w := newLexWindow(prefix)
	cases := []struct {
		gen    string
		strict bool
		ident  string
	}{
		{"g.", true, ""},
		{"g.gre", true, "gre"},
		{"g.\n      gre", true, "gre"}, // whitespace between dot and name
		{"g.greet().", true, ""},       // after ")"
		{"arr[0].len", true, "len"},    // after "]"
		{`"abc".len`, true, "len"},     // after a string literal
		{"this.x", true, "x"},
		{"super.to", true, "to"},
		{"Greeter.class.get", true, "get"},
		{"java.util.Li", true, "Li"},
		{"new java.util.", true, ""},
		{"Outer.this.", true, ""},
		{"x.new", true, "new"},  // a keyword being typed is still an identifier here
		{"gre", false, ""},      // no dot
		{"g.greet ", false, ""}, // identifier ended
		{"g.greet(", false, ""},
		{"1.", false, ""},      // number literal
		{"x = 1.5", false, ""}, // number literal
		{"'c'.", false, ""},    // char literal receiver
		{"g...", false, ""},    // varargs ellipsis
		{"g::gre", false, ""},  // method reference
		{"// g.gre", false, ""},
		{"/* g.gre", false, ""},
		{"/* c */ g.gre", true, "gre"},
		{`"g.gre`, false, ""},
		{`s = "a.b`, false, ""},
		{`"""` + "\n  g.gre", false, ""},
		{"g./* c */", false, ""},
		{"g. /* c */ gre", false, ""}, // a comment between dot and name: not decided
		{"(g).gre", true, "gre"},
		{"x += g.getNa", true, "getNa"},
	}
	for _, c := range cases {
		got := siteAt(w, c.gen)
		if got.Strict != c.strict || (c.strict && got.Ident != c.ident) {
			t.Errorf("siteAt(%q) = %+v, want strict=%v ident=%q", c.gen, got, c.strict, c.ident)
		}
		if got.Strict {
			dot := strings.LastIndex(prefix+c.gen, ".") + 1
			if got.DotEnd != dot {
				t.Errorf("siteAt(%q).DotEnd = %d, want %d", c.gen, got.DotEnd, dot)
			}
		}
	}
}

func TestSiteAtImportsAndPrefixDot(t *testing.T) {
	// Names in import and package declarations are not member access.
	for _, gen := range []string{"import java.ut", "import static java.util.Collections.emp", "package org.exa",
		"import module java.ba", "module com.example.app {\n  requires java.sq", "  exports com.example.api;\n  provides a.B with com.example.", "@Deprecated java.lang.Str"} {
		if st := siteAt(newLexWindow(""), gen); st.Strict {
			t.Errorf("siteAt(%q) strict, want not", gen)
		}
	}
	// After the contextual keyword yield, a dot is member access. (After
	// when it is too, but a guard's statement is not strict for another
	// reason: "String s when" reads as an earlier syntax error.)
	for _, gen := range []string{"class A { int m(String s) { return switch (1) { default -> { yield s.len"} {
		if st := siteAt(newLexWindow(""), gen); !st.Strict {
			t.Errorf("siteAt(%q) not strict (%s), want strict", gen, st.Why)
		}
	}
	// The dot may end the prefix: a hunk that starts a chained call's next line.
	prefix := "class A { void m(StringBuilder sb) {\n    sb.\n"
	st := siteAt(newLexWindow(prefix), "        appe")
	if !st.Strict || st.Ident != "appe" || st.DotEnd != strings.Index(prefix, "sb.")+3 {
		t.Errorf("dot in prefix: %+v", st)
	}
}

func TestSiteAtLongPrefixWindow(t *testing.T) {
	// A prefix longer than the lexing window, ending inside a block comment
	// that opened before the window and inside a qualified import chain.
	long := "class A {\n" + strings.Repeat("  int f;\n", 200)
	w := newLexWindow(long + "/* open comment\n")
	if w.Anchor == 0 {
		t.Fatal("window not truncated")
	}
	if st := siteAt(w, "g.gre"); st.Strict {
		t.Errorf("inside an unterminated comment: %+v", st)
	}
	w = newLexWindow(long)
	if st := siteAt(w, "g.gre"); !st.Strict || st.DotEnd != len(long)+2 {
		t.Errorf("after a long prefix: %+v", st)
	}
}

func TestSplitToken(t *testing.T) {
	cases := map[string][]string{
		"ize()":     {"ize", "(", ")"},
		".getNa":    {".", "getNa"},
		" (x":       {" ", "(", "x"},
		"\n    foo": {"\n    ", "foo"},
		"a.b.c":     {"a", ".", "b", ".", "c"},
		"é1_$x+=":   {"é1_$x", "+", "="},
		"":          nil,
	}
	for tok, want := range cases {
		var got []string
		for _, p := range splitToken(tok) {
			got = append(got, p.Text)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("splitToken(%q) = %q, want %q", tok, got, want)
		}
	}
}

func TestVerdict(t *testing.T) {
	ml := &memberList{Names: []string{"equals", "getName", "greet", "setName"}}
	cases := []struct {
		ident string
		exact bool
		want  Outcome
	}{
		{"gre", false, Feasible},
		{"", false, Feasible},
		{"gxx", false, Infeasible},
		{"Gre", false, Infeasible},  // case-sensitive
		{"reet", false, Infeasible}, // substring is not prefix
		{"greet", true, Feasible},
		{"gree", true, Infeasible},
		{"ne", false, Unknown},  // may become "new" (outer.new Inner())
		{"cla", false, Unknown}, // may become "class"
		{"this", true, Unknown},
		{"thisx", false, Infeasible},
	}
	for _, c := range cases {
		if got := verdict(ml, c.ident, c.exact); got != c.want {
			t.Errorf("verdict(%q, exact=%v) = %v, want %v", c.ident, c.exact, got, c.want)
		}
	}
	if got := verdict(&memberList{}, "x", false); got != Unknown {
		t.Errorf("empty list: %v, want unknown", got)
	}
	if got := verdict(&memberList{Names: []string{"a"}, Incomplete: true}, "x", false); got != Unknown {
		t.Errorf("incomplete list: %v, want unknown", got)
	}
}

func TestConsistent(t *testing.T) {
	text := "class A { void m(Greeter g) {\n  g.\n  java.util.\n} }\n"
	m := textpos.New(text)
	caret := strings.Index(text, "g.\n") + 2
	qcaret := strings.Index(text, "util.\n") + 5
	edit := func(from, to int, newText string) *jdtls.TextEdit {
		return &jdtls.TextEdit{Range: jdtls.Range{Start: m.Position(from), End: m.Position(to)}, NewText: newText}
	}
	list := func(items ...jdtls.CompletionItem) *jdtls.CompletionList { return &jdtls.CompletionList{Items: items} }
	qstart := strings.Index(text, "java.util.")
	cases := []struct {
		name  string
		l     *jdtls.CompletionList
		caret int
		want  bool
	}{
		{"members", list(jdtls.CompletionItem{Name: "greet", Edit: edit(caret, caret, "greet")}, jdtls.CompletionItem{Name: "x"}), caret, true},
		{"qualified type", list(jdtls.CompletionItem{Name: "List", Edit: edit(qstart, qcaret, "java.util.List")}), qcaret, true},
		{"edit ends elsewhere", list(jdtls.CompletionItem{Name: "greet", Edit: edit(caret-1, caret-1, "greet")}), caret, false},
		{"replaces other text", list(jdtls.CompletionItem{Name: "NameCallback", Edit: edit(caret-2, caret, "NameCallback")}), caret, false},
		{"snippets ignored", list(jdtls.CompletionItem{Name: "sysout", Kind: jdtls.KindSnippet, Edit: edit(0, 1, "x")}), caret, true},
	}
	for _, c := range cases {
		if got := consistent(c.l, text, m, c.caret); got != c.want {
			t.Errorf("%s: consistent = %v, want %v", c.name, got, c.want)
		}
	}
}
