package enginebench

// mutate_test.go checks mutation sites and mutants without JDT LS.

import (
	"reflect"
	"slices"
	"testing"
)

func TestSites(t *testing.T) {
	// "f" and the lambda parameter "y" are declarations; the "y" of "y.z" is a use.
	hunk := "        List<String> f = Splitter.on(',').limit(n + i);\n        Foo x = new Foo(bar, y -> y.z);\n"
	var got []string
	for _, s := range Sites(hunk) {
		got = append(got, string(s.Kind)+":"+s.Ident)
		if hunk[s.Start:s.Start+len(s.Ident)] != s.Ident {
			t.Errorf("site %v: offset points at %q", s, hunk[s.Start:])
		}
	}
	want := []string{"type-name:List", "type-name:String", "type-name:Splitter", "member-typo:on", "member-wrong-type:on",
		"member-typo:limit", "member-wrong-type:limit", "simple-name:n", "simple-name:i", "type-name:Foo",
		"new-type:Foo", "simple-name:bar", "simple-name:y", "member-typo:z", "member-wrong-type:z"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Sites:\n got %q\nwant %q", got, want)
	}
}

func TestCandidatesAreDeterministicAndChanged(t *testing.T) {
	pool := MemberPool([]string{"import org.apache.commons.Lang;\nclass A { void f() { x.size(); y.getName(); java.io.File.separator; z.equals(q); } }"})
	if slices.Contains(pool, "equals") || slices.Contains(pool, "File") || slices.Contains(pool, "commons") || !slices.Contains(pool, "getName") {
		t.Errorf("pool %q: want getName, no Object member, no upper-case name", pool)
	}
	for _, s := range []Site{{MemberTypo, 0, "size"}, {MemberWrongType, 0, "size"}, {SimpleName, 0, "i"}, {NewType, 0, "ArrayList"}} {
		a := Candidates(s, pool, 7, "k", 4)
		b := Candidates(s, pool, 7, "k", 4)
		if !reflect.DeepEqual(a, b) || len(a) == 0 {
			t.Errorf("%v: %q then %q", s, a, b)
		}
		for _, c := range a {
			if c == s.Ident || !isIdent(c) {
				t.Errorf("%v: candidate %q", s, c)
			}
			if s.Kind == MemberWrongType && (len(c) >= 4 && c[:4] == "size") {
				t.Errorf("%v: wrong-type candidate %q extends the original", s, c)
			}
		}
	}
	m := Apply("a.size();", Site{MemberTypo, 2, "size"}, "szie")
	if m.Hunk != "a.szie();" {
		t.Errorf("Apply: %q", m.Hunk)
	}
}
