package engine

// context_fuzz_test.go: the caret-context classification (context.go, read
// through siteAt and simpleSiteAt) never panics on any prefix and generated
// text, gives the same answer twice, and is never strict at a caret inside a
// line comment. Seeds: testdata/fuzz/FuzzCaretContext.

import (
	"reflect"
	"testing"
)

func FuzzCaretContext(f *testing.F) {
	for _, s := range [][2]string{
		{ctxPrefix, "    g.greet(fooB"},
		{ctxPrefix, "    names.forEach(n -> n."},
		{ctxPrefix, "    new Runnable() { void r() { g."},
		{ctxPrefix, "    int n = 1 2 + fooB"},
		{ctxPrefix, "    switch (o) { case Point(int x, int y) whe"},
		{"package demo;\nclass A {\n", "  enum E { A, fooB"},
		{"", ")]}"},
		{"class A { void m() { String s = \"", "abc"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, prefix, gen string) {
		w := newLexWindow(prefix)
		s1 := siteAt(w, gen)
		if s2 := siteAt(newLexWindow(prefix), gen); !reflect.DeepEqual(s1, s2) {
			t.Fatalf("siteAt differs between two runs:\n%+v\n%+v", s1, s2)
		}
		for _, ended := range []bool{false, true} {
			a, okA := simpleSiteAt(w, gen, ended)
			b, okB := simpleSiteAt(newLexWindow(prefix), gen, ended)
			if okA != okB || !reflect.DeepEqual(a, b) {
				t.Fatalf("simpleSiteAt differs between two runs:\n%+v %v\n%+v %v", a, okA, b, okB)
			}
		}
		// A caret at the end of a line comment is in the comment: no site.
		c := gen + "\n// x"
		if ss, ok := simpleSiteAt(w, c, false); ok && ss.Mode != simpleNone {
			t.Fatalf("simpleSiteAt(%q) in a line comment = %v, want none", c, ss.Mode)
		}
		if got := siteAt(w, c); !reflect.DeepEqual(got, site{}) {
			t.Fatalf("siteAt(%q) in a line comment = %+v, want the zero site", c, got)
		}
	})
}
