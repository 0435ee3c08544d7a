package ngram

import (
	"testing"

	"github.com/repilot-lsp/repilot-lsp/lm"
)

var callFIM = lm.FIM{
	Prefix: "class A {\n    int f(int[] a, int n) {\n",
	Suffix: "        return n;\n    }\n}\n",
	Indent: "        ",
	Buggy:  "        n = a[n - 1];\n",
}

// TestNoSemicolonInsideBrackets: Next proposes no ";" inside a "(" or "["
// (it cannot parse there whatever follows), but does at the top level of a
// statement and between the parts of a for header, also of one the prefix
// opened.
func TestNoSemicolonInsideBrackets(t *testing.T) {
	m := jdkModel(t)
	s := mustStart(t, m, callFIM)
	for _, gen := range []string{"        n = f(a", "        n = a[n", "        n = f(g(a), a[n]"} {
		if p := candProb(next(t, s, gen, 0), ";", false); p != 0 {
			t.Errorf("after %q: P(;) = %g, want 0", gen, p)
		}
	}
	for _, gen := range []string{"        n = f(a)", "        n = a[n]", "        for (int i = 0", "        for (int i = 0; i < n"} {
		if p := candProb(next(t, s, gen, 0), ";", false); p == 0 {
			t.Errorf("after %q: no ;", gen)
		}
	}
	// The hunk starts inside a for header the prefix opened.
	header := lm.FIM{
		Prefix: "class A {\n    int f(int n) {\n        for (int i = 0;\n",
		Suffix: "                i++) {\n            n--;\n        }\n        return n;\n    }\n}\n",
		Indent: "                ",
		Buggy:  "                i <= n;\n",
	}
	if p := candProb(next(t, mustStart(t, m, header), "                i < n", 0), ";", false); p == 0 {
		t.Error("inside a for header opened by the prefix: no ;")
	}
	// And inside a call the prefix opened, none.
	call := lm.FIM{
		Prefix: "class A {\n    int f(int n) {\n        n = g(n,\n",
		Suffix: "        return n;\n    }\n}\n",
		Indent: "                ",
		Buggy:  "                n + 1);\n",
	}
	if p := candProb(next(t, mustStart(t, m, call), "                n + 1", 0), ";", false); p != 0 {
		t.Errorf("inside a call opened by the prefix: P(;) = %g, want 0", p)
	}
}

// TestNoLineBreakInsideHunkBracket: Next does not break a line inside a
// "(" or "[" the hunk opened, unless the buggy hunk does; a "{" the hunk
// opened may hold line breaks.
func TestNoLineBreakInsideHunkBracket(t *testing.T) {
	m := jdkModel(t)
	s := mustStart(t, m, callFIM)
	for _, gen := range []string{"        n = f(a,", "        n = f(a, g(n)", "        n = a[n +"} {
		if p := candProb(next(t, s, gen, 0), "\n", false); p != 0 {
			t.Errorf("after %q: P(line break) = %g, want 0", gen, p)
		}
	}
	if p := candProb(next(t, s, "        n = f(a);", 0), "\n", false); p == 0 {
		t.Error("after a statement: no line break")
	}
	if p := candProb(next(t, s, "        if (n > 0) {", 0), "\n", false); p == 0 {
		t.Error("after an opened block: no line break")
	}
	wrapped := callFIM
	wrapped.Buggy = "        n = f(a,\n                n);\n"
	if p := candProb(next(t, mustStart(t, m, wrapped), "        n = f(a,", 0), "\n", false); p == 0 {
		t.Error("the buggy hunk breaks a line inside its call: no line break there")
	}
}
