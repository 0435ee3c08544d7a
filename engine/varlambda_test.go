package engine

import (
	"strings"
	"testing"
)

// TestVarLocalFromLambdaUnreliable: a receiver that uses a "var" local
// whose initializer involves a lambda, a method reference, a lambda
// parameter or another such local is treated like a lambda parameter
// (issue 14); other var locals stay strict.
func TestVarLocalFromLambdaUnreliable(t *testing.T) {
	w := newLexWindow(ctxPrefix)
	cases := []struct {
		gen    string
		strict bool
	}{
		{"    var a = list.stream().map(String::trim).findFirst(); a.", false},
		{"    var b = list.stream().filter(x -> x.isEmpty()).count(); b.", false},
		{"    names.forEach(n -> { var c = n; c.", false},
		{"    names.forEach(n -> { var c = n; var d = c.trim(); d.", false},
		{"    names.forEach((p, q) -> { var c = q.trim(); c.", false},
		{"    for (var e : list.stream().map(x -> x).toList()) e.", false},
		{"    var f = g; f.", true},        // no lambda: JDT LS types it from g
		{"    var h = s.trim(); h.", true}, // nor here
		{"    var i = s.trim(); g.", true}, // another receiver
	}
	for _, c := range cases {
		st := siteAt(w, c.gen)
		if st.Strict != c.strict {
			t.Errorf("siteAt(%q).Strict = %v (%s), want %v", c.gen, st.Strict, st.Why, c.strict)
		}
	}
	// A declaration before the lexed window still counts.
	long := ctxPrefix + "    var late = list.stream().map(String::trim).findFirst();\n" +
		strings.Repeat("    g.greet();\n", 40)
	w = newLexWindow(long)
	if w.Anchor == 0 {
		t.Fatal("the prefix should be longer than the window")
	}
	if st := siteAt(w, "    late."); st.Strict {
		t.Errorf("a lambda-typed var declared before the window: strict")
	}
	if st := siteAt(w, "    g."); !st.Strict {
		t.Errorf("g.: %s", st.Why)
	}
}
