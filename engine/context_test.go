package engine

// context_test.go checks the text-only context classification (context.go):
// which simple names are judged and how, and which member sites are not
// trusted. No JDT LS is needed.

import (
	"testing"
)

const ctxPrefix = "package demo;\nimport java.util.List;\nclass A {\n  int f;\n  void m(Greeter g, String s) {\n"

func TestSimplePosition(t *testing.T) {
	w := newLexWindow(ctxPrefix)
	cases := []struct {
		gen  string
		mode simpleMode
	}{
		// reference positions
		{"    int n = fooB", simpleEnd}, // after "=": may become a lambda parameter
		{"    int n = 1 + fooB", simplePrefix},
		{"    foo(", simpleNone},           // not an identifier
		{"    g.greet(fooB", simpleEnd},    // call argument
		{"    g.greet(a, fooB", simpleEnd}, // call argument after ","
		{"    return fooB", simpleEnd},
		{"    throw fooB", simplePrefix},
		{"    fooB", simpleEnd}, // statement start
		{"    x = 1; fooB", simpleEnd},
		{"    if (fooB", simpleEnd},
		{"    if (x) fooB", simpleEnd},
		{"    @SuppressWarnings(\"x\") fooB", simpleNone}, // a type after an annotation
		{"    foo(x) fooB", simpleNever},                  // a name after a call
		{"    while (!fooB", simplePrefix},
		{"    a[fooB", simplePrefix},
		{"    Object o = new Gre", simpleNewType},
		{"    for (int i = 0; fooB", simpleEnd},
		{"    x = c ? fooB", simpleEnd},
		// declarations, labels and other unknown places
		{"    int fooB", simpleNone},
		{"    Greeter fooB", simpleNone},
		{"    List<String> fooB", simpleNone},
		{"    int a = 1, fooB", simpleNone},         // a declarator after ","
		{"    Runnable r = (fooB", simpleNone},      // lambda parameters or a cast
		{"    g.greet((a, fooB", simpleNone},        // lambda parameters
		{"    names.forEach(n -> fooB", simpleNone}, // lambda body
		{"    names.forEach(n -> { fooB", simpleNone},
		{"    new Runnable() { public void run() { fooB", simpleNone}, // anonymous class
		{"    break fooB", simpleNone},
		{"    @SuppressWarnings(fooB", simpleNone},
		{"    class L { fooB", simpleNone},
		{"    if (o instanceof String str && fooB", simpleNone},
		{"    int n = 1 2 + fooB", simpleNone}, // syntax error earlier
		{"    x.new Inn", simpleNone},
		{"    int n = g::fooB", simpleNone},
		{"    // fooB", simpleNone},
		// a name right after a name: never in call arguments or an index
		{"    g.greet(a fooB", simpleNever},
		{"    g.greet(x, Math.max(a, b) + c fooB", simpleNever},
		{"    Object o = new Greeter(a fooB", simpleNever},
		{"    a[i fooB", simpleNever},
		{"    g.greet(o instanceof String fooB", simpleNone}, // a pattern's binding
		{"    g.greet((String fooB", simpleNone},             // typed lambda parameters
		{"    for (String fooB", simpleNone},                 // a declaration in a header
		{"    try (Reader fooB", simpleNone},
		{"    try { } catch (Exception fooB", simpleNone},
		{"    record R(int a, String fooB", simpleNone},
		{"    g.greet(switch (o) { case String fooB", simpleNone},
		{"    x = Math.max(a, b) fooB", simpleNever},
		{"    switch (o) { case Point(int x, int y) whe", simpleNone}, // a guard
		{"    if (o instanceof Point(int x, int y) whe", simpleNone},
		{"    Runnable r = (Runnable) fooB", simpleEnd}, // after a cast: judged when it ends
		{"    if (x) fooB", simpleEnd},
		// a name after a type annotation's name: a type (JLS 9.7.4)
		{"    g.greet(new @Deprecated Gre", simpleNone},
		{"    g.greet(new @java.lang.Deprecated Gre", simpleNone},
		{"    g.greet(new Outer.@Deprecated Inn", simpleNone},
		{"    g.greet(o.new @Deprecated Inn", simpleNone},
		{"    g.greet(new java.util.ArrayList<@Deprecated Str", simpleNone},
		{"    a[new @Deprecated Gre", simpleNone},
		{"    g.greet(java.util.Collections.<@Deprecated Str", simpleNone},
		{"    g.greet(new @Deprecated(since = \"1\") @Deprecated Gre", simpleNone},
		{"    g.greet(new @Deprecated Greeter() fooB", simpleNever}, // still a call's result
		// a name that may still become instanceof after an operand
		{"    g.greet(o i", simpleNone},
		{"    g.greet(o instanc", simpleNone},
		{"    a[i inst", simpleNone},
		{"    if (g.greet() instanc", simpleNone},
		{"    x = Math.max(a, b) ins", simpleNone},
		{"    g.greet(o ix", simpleNever},
		{"    x = Math.max(a, b) inx", simpleNever},
		// Java 20's preview record pattern in an enhanced for
		{"    for (Point(var fooB", simpleNone},
		{"    for (Point(var x, Point(var fooB", simpleNone},
		{"    for (int i = g.greet(a fooB", simpleNever},
		// a pattern's binding is in scope at most until the brace that
		// encloses the pattern closes (JLS 6.3.1, 6.3.2)
		{"    if (o instanceof String str) { }\n    int n = 1 + fooB", simpleNone},
		{"    if (!(o instanceof String str)) { return; } else { int n = 1 + fooB", simpleNone},
		{"    if (!(o instanceof String str)) { } int n = 1 + fooB", simpleNone},
		{"    { if (!(o instanceof String str)) return; }\n    int n = 1 + fooB", simplePrefix},
		{"    { if (o instanceof String str) { } }\n    int n = 1 + fooB", simplePrefix},
		{"    { int[] a = { o instanceof String str ? 1 : 2 }; int n = 1 + fooB", simplePrefix}, // the expression's scope
		{"    { if (o instanceof String str) { } } { b = o instanceof Integer i; }\n    int n = 1 + fooB", simplePrefix},
		{"    { if (o instanceof String str) { } { b = o instanceof Integer i; }\n    int n = 1 + fooB", simpleNone},
		{"    switch (o) { case String str: int n = 1 + fooB", simpleNone},
		{"    switch (o) { case String str -> { } default -> { } }\n    int n = 1 + fooB", simplePrefix},
		{"    g.greet(switch (o) { case String str -> 1; default -> 2; }, 1 + fooB", simplePrefix},
	}
	for _, c := range cases {
		ss, ok := simpleSiteAt(w, c.gen, false)
		got := simpleNone
		if ok {
			got = ss.Mode
		}
		if got != c.mode {
			t.Errorf("simpleSiteAt(%q) = %v (%s), want %v", c.gen, got, ss.Why, c.mode)
		}
	}
	// A prefix whose lexWindow starts right after "case": the record
	// pattern's flag must survive the cut (scanTo's lookahead).
	long := ctxPrefix + "    switch (o) {\n      case Point("
	for k := 0; k < 20; k++ {
		long += "Foo a" + string(rune('a'+k)) + ", "
	}
	long += "Foo z"
	for _, extra := range []string{"", "(", "(("} {
		wl := newLexWindow(long + extra)
		if ss, ok := simpleSiteAt(wl, ", Bar fooB", false); ok && ss.Mode == simpleNever {
			t.Errorf("record pattern cut by the lexWindow at %q: simpleSiteAt = never, want none", wl.Text[:8])
		}
	}
	// A pattern in an earlier method, before or inside the lexWindow, is
	// out of scope in the next method.
	for _, pad := range []int{0, 40} {
		body := "    if (!(o instanceof String s)) return;\n"
		for k := 0; k < pad; k++ {
			body += "    s.length();\n"
		}
		wp := newLexWindow("package demo;\nclass A {\n  void a(Object o) {\n" + body + "  }\n  void m(Greeter g, String s) {\n")
		if ss, ok := simpleSiteAt(wp, "    int n = 1 + fooB", false); !ok || ss.Mode != simplePrefix {
			t.Errorf("after a method with a pattern (pad %d): simpleSiteAt = %v (%s), want prefix", pad, ss.Mode, ss.Why)
		}
		wp = newLexWindow("package demo;\nclass A {\n  void a(Object o) {\n" + body)
		if ss, ok := simpleSiteAt(wp, "    int n = 1 + fooB", false); !ok || ss.Mode != simpleNone {
			t.Errorf("in the pattern's block (pad %d): simpleSiteAt = %v, want none", pad, ss.Mode)
		}
	}
	// Outside a method body: a class body's members are declarations.
	wc := newLexWindow("package demo;\nclass A {\n")
	for _, gen := range []string{"  fooB", "  int f = 1; fooB", "  enum E { A, fooB", "  A(int fooB",
		"  Runnable r = new Runnable() { public void run() { fooB", "  @Deprecated() fooB"} {
		if ss, ok := simpleSiteAt(wc, gen, false); ok && ss.Mode != simpleNone {
			t.Errorf("class body: simpleSiteAt(%q) = %v, want none", gen, ss.Mode)
		}
	}
}

func TestReceiverUnreliable(t *testing.T) {
	w := newLexWindow(ctxPrefix)
	cases := []struct {
		gen    string
		strict bool
	}{
		{"    g.", true},
		{"    g.getName().", true},
		{"    names.forEach(n -> g.", true},  // receiver not a lambda parameter
		{"    names.forEach(n -> n.", false}, // lambda parameter of inferred type
		{"    names.forEach((a, b) -> b.", false},
		{"    names.forEach(n -> { n.", false},
		{"    names.forEach(n -> java.util.Objects.requireNonNull(n).", false},
		{"    list.stream().map(String::trim).", false}, // method reference in the chain
		{"    list.stream().map(x -> x).", false},       // lambda in the chain
		{"    new Runnable() { }.", false},              // anonymous class instance
		{"    new Runnable() { void r() { g.", false},   // inside an anonymous class
		{"    int n = 1 2 + g.", false},                 // syntax error earlier in the statement
		{"    int n = 1; g.", true},                     // ... but not in an earlier one
		{"    String u = s.indexOf(\",\", ) + g.", false},
		{"    String w = (s + ) + g.", false},
		{"    int n = s.length( + g.", true},    // "+" may be unary: no error yet
		{"    foo(a)) ; g.", false},             // unbalanced brackets
		{"    switch (k) { case 1 -> g.", true}, // a switch rule is not a lambda
	}
	for _, c := range cases {
		st := siteAt(w, c.gen)
		if st.Strict != c.strict {
			t.Errorf("siteAt(%q).Strict = %v (%s), want %v", c.gen, st.Strict, st.Why, c.strict)
		}
	}
}

func TestFollowerRules(t *testing.T) {
	ml := &memberList{Names: []string{"Inner", "count", "getName", "name"}, // sorted
		Kinds: map[string]uint8{"count": kindMethod | kindValue, "getName": kindMethod, "name": kindValue, "Inner": kindType}}
	cases := []struct {
		ident string
		c     byte
		want  Outcome
	}{
		{"getName", '(', Feasible},
		{"getName", ' ', Feasible},
		{"getName", '/', Feasible},
		{"getName", '.', Infeasible},
		{"getName", '>', Infeasible},
		{"getName", ')', Infeasible},
		{"name", '(', Infeasible},
		{"name", '>', Feasible},
		{"name", '.', Feasible},
		{"count", '(', Feasible}, // a field and a method of one name
		{"count", ';', Feasible},
		{"Inner", '(', Feasible},
		{"Inner", '<', Feasible},
		{"nam", ';', Infeasible},
		{"this", ';', Unknown},
	}
	for _, c := range cases {
		if got := memberFollower(ml, c.ident, c.c); got != c.want {
			t.Errorf("memberFollower(%q, %q) = %v, want %v", c.ident, c.c, got, c.want)
		}
	}
	pkg := &memberList{Names: []string{"util"}, Kinds: map[string]uint8{"util": kindPackage}, Packages: true}
	if got := memberFollower(pkg, "utl", '.'); got != Unknown {
		t.Errorf("package receiver miss = %v, want unknown", got)
	}
	simple := []struct {
		ident string
		c     byte
		want  Outcome
	}{
		{"getName", '(', Feasible},
		{"getName", ';', Infeasible},
		{"name", '(', Infeasible},
		{"name", ';', Feasible},
		{"Inner", '(', Unknown},
		{"fooBar", ';', Infeasible},
		{"fooBar", '(', Infeasible},
	}
	for _, c := range simple {
		if got := simpleFollower(ml, c.ident, c.c); got != c.want {
			t.Errorf("simpleFollower(%q, %q) = %v, want %v", c.ident, c.c, got, c.want)
		}
	}
	for _, c := range []byte{' ', '-', ':', '.', '/'} {
		if settles(c) {
			t.Errorf("settles(%q) = true", c)
		}
	}
}

func TestAfterDot(t *testing.T) {
	w := newLexWindow(ctxPrefix)
	cases := []struct {
		gen  string
		c    byte
		want Outcome
	}{
		{"    g.", '(', Infeasible},
		{"    g.", ')', Infeasible},
		{"    g.", ';', Infeasible},
		{"    g.", '<', Unknown},
		{"    g.", '@', Unknown},
		{"    g.", '/', Unknown},
		{"    void v(String.", '.', Unknown}, // String... args
		{"    g.greet().", '.', Infeasible},
		{"    g. ", '.', Infeasible},
	}
	for _, c := range cases {
		toks, _ := lastCode(w, c.gen)
		n := len(toks)
		if !isOp(toks[n-1], ".") || !memberAccessReceiver(toks, n-2, false) {
			t.Fatalf("%q: no member-access dot", c.gen)
		}
		src := w.Text + c.gen
		if got := afterDot(toks[n-2], c.c, toks[n-1].End == len(src)); got != c.want {
			t.Errorf("afterDot(%q, %q) = %v, want %v", c.gen, c.c, got, c.want)
		}
	}
}
