package repair

import "testing"

// TestEquivKeyer checks the deduplication equivalence on pairs of hunks, each
// between a prefix and a suffix: the pairs that are one program share a key,
// and those that are not (an unreachable or non-empty ';', a literal's
// spacing, a for header, a dangling else) do not.
func TestEquivKeyer(t *testing.T) {
	const body = "class A {\n  int f(int n) {\n"
	const end = "    return n;\n  }\n}\n"
	cases := []struct {
		name           string
		prefix, suffix string
		a, b           string
		same           bool
	}{
		{"spacing", body, end, "    int x = n*2;\n", "    int x=n * 2 ;\n", true},
		{"line comment", body, end, "    int x = n; // why\n", "    int x = n;\n", true},
		{"block comment", body, end, "    int /* c */ x = n;\n", "    int x = n;\n", true},
		{"empty statement line (the example's patches 3 and 4)", body, end,
			"    int off = n - m();\n", "    int off = n - m();\n    ;\n", true},
		{"empty statements inside", body, end, "    a();;; b();\n", "    a(); b();\n", true},
		{"empty statement after the prefix's ';'", body + "    a();\n", end, "    ;\n    b();\n", "    b();\n", true},
		{"empty statement in a block", body, end, "    if (n > 0) { a();; }\n", "    if (n > 0) { a(); }\n", true},

		{"string spacing", body, end, "    String s = \"a  b\";\n", "    String s = \"a b\";\n", false},
		{"token split", body, end, "    n = n - -1;\n", "    n = n--1;\n", false},
		{"javadoc kept", body, end, "    /** @deprecated */ int x;\n", "    int x;\n", false},
		{"unicode escape in a comment", body, end, "    int x = 1; // \\u000a x = 2;\n", "    int x = 1;\n", false},
		{"the first ';' after ')' is a statement", body, end, "    while (n > 0) ;\n", "    while (n > 0)\n", false},
		{"after return: unreachable", body, end, "    return 1;;\n", "    return 1;\n", false},
		{"after throw: unreachable", body, end, "    throw new RuntimeException() {};;\n", "    throw new RuntimeException() {};\n", false},
		{"after break", "class A {\n  void f() {\n    while (true) {\n", "    }\n  }\n}\n", "      break;;\n", "      break;\n", false},
		{"after do-while", body, end, "    do n++; while (true);;\n", "    do n++; while (true);\n", false},
		{"after if-else", body, end, "    if (n > 0) return 1; else return 2;;\n", "    if (n > 0) return 1; else return 2;\n", false},
		{"after for(;;)", body, end, "    for (;;) n++;;\n", "    for (;;) n++;\n", false},
		{"before else in the suffix", body, "    else n++;\n" + end, "    if (n > 0) n--;;\n", "    if (n > 0) n--;\n", false},
		{"for header", body, end, "    for (int i = 0;; i++) n++;\n", "    for (int i = 0; i++) n++;\n", false},
		{"for header begun in the prefix", body + "    for (int i = 0\n", "         i++) n++;\n" + end, "      ;;\n", "      ;\n", false},
		{"import", "import a.B;\n", "class A {}\n", ";import c.D;\n", "import c.D;\n", false},
		{"arrow", body, end, "    Runnable r = () -> {};;\n", "    Runnable r = () -> {};\n", false},
		{"the prefix ends in a comment", body + "    /* open\n", " */\n" + end, "    a;\n", " a;\n", false},
		{"Unicode escapes in the prefix (for and its parenthesis)", body + "    \\u0066or \\u0028int i = 0;\n", end, "      ; i++) n++;\n", "      i++) n++;\n", false},
		{"different programs", body, end, "    int x = n;\n", "    int x = m;\n", false},
		// javac reads "\u005c\"" as an escaped quote (JLS 3.3 before 3.10.7):
		// the literal runs on through what javalex lexes as a comment.
		{"escaped backslash in a string", body, end, "    String s = \"\\u005c\" // \";\n", "    String s = \"\\u005c\" //\";\n", false},
		{"escaped quote in a string", body, end, "    String s = \"a\\u0022; // \";\n", "    String s = \"a\\u0022; //\";\n", false},
		{"escaped backslash in a char", body, end, "    char c = '\\u005c' /* ';\n", "    char c = '\\u005c' /*';\n", false},
		{"escaped backslash in a text block", body, end, "    String s = \"\"\"\n      a\\u005c\"\"\" // \"\"\";\n", "    String s = \"\"\"\n      a\\u005c\"\"\" //\"\"\";\n", false},
		// javac: a for header after its condition; javalex: a block after a().
		{"escaped backslash in a string of the prefix", body + "    for (String s = \"\\u005c\" ) { a(); // \"; s != null;\n", end, "      ; n++) {}\n", "      n++) {}\n", false},
		// javac takes non-sealed only without whitespace (JavacParser).
		{"non-sealed spaced", "sealed interface S permits B {}\n", "", "non-sealed class B implements S {}\n", "non - sealed class B implements S {}\n", false},
		{"non-sealed", "sealed interface S permits B {}\n", "", "non-sealed class B implements S {}\n", "non-sealed  class B implements S {}\n", true},
		{"other escapes in a string keep merging", body, end, "    String s = \"\\u00e9\"; // a\n", "    String s = \"\\u00e9\";\n", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k := newEquivKeyer(hunkSite{Prefix: c.prefix, Suffix: c.suffix})
			ka, kb := k.key(c.a), k.key(c.b)
			if (ka == kb) != c.same {
				t.Fatalf("%q and %q: keys %q and %q, want same=%v", c.a, c.b, ka, kb, c.same)
			}
		})
	}
}

// TestMatchKey: bench repair's exact match compares Java tokens: the
// whitespace between them and at the ends does not count, the whitespace
// inside a string, char or text-block literal does, a token boundary does,
// and a comment's whitespace is collapsed.
func TestMatchKey(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"    return a + b;\n", "return a+b;", true},
		{"if (x)\n  y();\n", "if (x) y();\n", true},
		{`s = "a  b";`, `s = "a b";`, false},
		{`s = "a b";`, `s  =  "a b" ;`, true},
		{`c = ' ';`, `c = '\t';`, false},
		{"s = \"\"\"\n  a  b\n  \"\"\";", "s = \"\"\"\n  a b\n  \"\"\";", false},
		{"x = a+ +b;", "x = a++b;", false},
		{"int ab;", "int a b;", false},
		{"f(); // call  it\n", "f();  // call it\n", true},
		{"f(); // call it\n", "f(); // call them\n", false},
		{"f();\n", "f(); // call it\n", false},
		{"", "\n", true},
	} {
		if got := MatchKey(c.a) == MatchKey(c.b); got != c.same {
			t.Errorf("MatchKey(%q) == MatchKey(%q): %v, want %v", c.a, c.b, got, c.same)
		}
	}
}
