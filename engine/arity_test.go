package engine

// arity_test.go tests arity pruning's token-only parts (arity.go,
// context.go's callArgs): reading parameter counts from JDT LS 1.20 labels,
// what a set of overloads accepts, and counting a call's arguments, which
// must give up wherever the count is not certain.

import (
	"testing"

	"github.com/repilot-lsp/repilot-lsp/javalex"
)

func TestMethodParams(t *testing.T) {
	for _, c := range []struct {
		name, label string
		n           int
		varargs, ok bool
	}{
		{"get", "get(Object key) : Integer", 1, false, true},
		{"size", "size() : int", 0, false, true},
		{"substring", "substring(int beginIndex, int endIndex) : String", 2, false, true},
		{"format", "format(String format, Object... args) : String", 2, true, true},
		{"format", "format(Locale l, String format, Object... args) : String", 3, true, true},
		{"compute", "compute(String key, BiFunction<? super String,? super Integer,? extends Integer> remappingFunction) : Integer", 2, false, true},
		{"putAll", "putAll(Map<? extends String,? extends Integer> m) : void", 1, false, true},
		{"valueOf", "valueOf(char[] data, int offset, int count) : String", 3, false, true},
		{"of", "of(E... elements) : List<E>", 1, true, true},
		// shapes that are not a method label of this name
		{"get", "get", 0, false, false},
		{"get", "get : int", 0, false, false},
		{"get", "getX(int a) : int", 0, false, false},
		{"get", "get(int a", 0, false, false},
		{"get", "get(Map<String,Integer m) : int", 0, false, false},
		{"get", "get(int a, ) : int", 0, false, false},
		{"get", "get(Object... a, int b) : int", 0, false, false},
	} {
		n, va, ok := methodParams(c.name, c.label)
		if ok != c.ok || ok && (n != c.n || va != c.varargs) {
			t.Errorf("methodParams(%q, %q) = %d, %v, %v; want %d, %v, %v", c.name, c.label, n, va, ok, c.n, c.varargs, c.ok)
		}
	}
}

func TestArityAccepts(t *testing.T) {
	ml := &memberList{}
	ml.addArity("substring", 1, false, true)
	ml.addArity("substring", 2, false, true)
	ml.addArity("format", 2, true, true)
	ml.addArity("format", 3, true, true)
	ml.addArity("size", 0, false, true)
	ml.addArity("mixed", 1, false, true)
	ml.addArity("mixed", 0, false, false) // e.g. a field of the same name
	a := ml.Arity["substring"]
	for n, want := range []bool{false, true, true, false} {
		if a.accepts(n) != want {
			t.Errorf("substring accepts(%d) = %v", n, !want)
		}
	}
	if !a.acceptsAtLeast(2) || a.acceptsAtLeast(3) {
		t.Errorf("substring acceptsAtLeast: 2 -> %v, 3 -> %v", a.acceptsAtLeast(2), a.acceptsAtLeast(3))
	}
	f := ml.Arity["format"]
	if f.accepts(0) || !f.accepts(1) || !f.accepts(5) || !f.acceptsAtLeast(40) {
		t.Errorf("format (varargs, 2 and 3 parameters) = %+v", f)
	}
	s := ml.Arity["size"]
	if !s.accepts(0) || s.accepts(1) || s.acceptsAtLeast(1) {
		t.Errorf("size() = %+v", s)
	}
	m := ml.Arity["mixed"]
	if !m.accepts(7) || !m.acceptsAtLeast(9) {
		t.Errorf("a name with an unknown item must accept anything: %+v", m)
	}
	// union: overloads of both answers; a list without arity for a name
	// listed makes it unknown.
	o := &memberList{}
	o.add("substring", kindMethod)
	o.addArity("substring", 3, false, true)
	u := (&memberList{Names: []string{"substring"}, Kinds: map[string]uint8{"substring": kindMethod}, Arity: map[string]arity{"substring": a}}).union(o)
	if ua := u.Arity["substring"]; !ua.accepts(1) || !ua.accepts(3) || ua.accepts(4) {
		t.Errorf("union arity = %+v", ua)
	}
	bare := &memberList{Names: []string{"substring"}, Kinds: map[string]uint8{"substring": kindMethod}}
	if ua := bare.union(o).Arity["substring"]; !ua.accepts(9) {
		t.Errorf("union with a list lacking arity = %+v, want unknown", ua)
	}
}

// callOf lexes "class A { void m() { " + body and returns callArgs at its end.
func callOf(body string) (openCall, bool) {
	toks := codeTokens(javalex.Lex("class A { void m() { " + body))
	st := scan(scanState{}, toks)
	return callArgs(&st, toks)
}

func TestCallArgs(t *testing.T) {
	for _, c := range []struct {
		body     string
		args     int
		trailing bool
		ok       bool
	}{
		{"counts.get(", 0, false, true},
		{"counts.get( /* c */ ", 0, false, true},
		{"counts.get(word", 1, false, true},
		{"counts.get(word,", 2, true, true},
		{"counts.get(word, 1", 2, false, true},
		{"x.f(a, g(b, c), d", 3, false, true},
		{"x.f(a[i, ", 0, false, false}, // innermost is "[", not the call
		{"x.f(new int[]{1, 2}, ", 2, true, true},
		{"x.f((a, b) -> a + b", 1, false, true},      // lambda parameters are nested
		{"x.f(a -> a + 1, b", 2, false, true},        // a lambda expression body ends at ","
		{"x.f(a -> a + 1", 1, false, true},           // ... and at ")"
		{"x.f(a -> { g(a, b); }, c", 2, false, true}, // a lambda block
		{"x.f(\"a,b\", 'c'", 2, false, true},         // commas in literals
		{"this.f(a", 1, false, true},
		{"a.b().f(a", 1, false, true},
		{"x.f(a, g(b", 0, false, false},  // innermost is g's paren: g is a simple-name call
		{"x.f(a, y.g(b", 1, false, true}, // innermost is y.g's
		// must stay unknown
		{"x.f(new HashMap<A, B>(), c", 0, false, false}, // type arguments at the top level
		{"x.f(a < b, c > d", 0, false, false},           // ambiguous
		{"x.f(Map.<A, B>of(), c", 0, false, false},
		{"x.f(a >> 1", 0, false, false},
		{"x.<T>f(a", 0, false, false}, // explicit type arguments
		{"f(a", 0, false, false},      // a simple-name call
		{"new T(a", 0, false, false},
		{"this(a", 0, false, false},
		{"super(a", 0, false, false},
		{"x.new T(a", 0, false, false},
		{"if (a", 0, false, false},
		{"x.f(a)", 0, false, false},        // closed: no call is open
		{"x.f(a]", 0, false, false},        // brackets that do not match
		{`x.f(a\u002c b`, 0, false, false}, // a Unicode escape of ","

	} {
		got, ok := callOf(c.body)
		if ok != c.ok || ok && (got.Args != c.args || got.Trailing != c.trailing) {
			t.Errorf("callArgs(%q) = %+v, %v; want args=%d trailing=%v ok=%v", c.body, got, ok, c.args, c.trailing, c.ok)
		}
	}
}

// TestInnerCall: innerCall also counts the arguments of simple-name calls
// "name(" (Simple), and never of a name after a name, a type's end or a
// keyword that is not an expression's context (declarations, patterns).
func TestInnerCall(t *testing.T) {
	for _, c := range []struct {
		body       string
		args       int
		trailing   bool
		simple, ok bool
	}{
		{"f(", 0, false, true, true},
		{"f(a", 1, false, true, true},
		{"f(a, ", 2, true, true, true},
		{"x = f(g(a), b", 2, false, true, true},
		{"return f(a, b", 2, false, true, true},
		{"throw f(a", 1, false, true, true},
		{"if (a) b(); else f(a", 1, false, true, true},
		{"x.f(a, g(b", 1, false, true, true}, // innermost is g's
		{"x.f(a", 1, false, false, true},     // a member call, as callArgs
		// not counted
		{"record R(int a", 0, false, false, false}, // a name after a name: a declaration
		{"List<T> f(a", 0, false, false, false},
		{"int[] f(a", 0, false, false, false},
		{"void f(int a", 0, false, false, false},
		{"switch (o) { case P(int a", 0, false, false, false}, // a record pattern
		{"@A(a", 0, false, false, false},
		{"new T(a", 0, false, false, false},
		{"this(a", 0, false, false, false},
		{"super(a", 0, false, false, false},
		{"f(new HashMap<A, B>(), c", 0, false, false, false},
	} {
		toks := codeTokens(javalex.Lex("class A { void m() { " + c.body))
		st := scan(scanState{}, toks)
		got, ok := innerCall(&st, toks)
		if ok != c.ok || ok && (got.Args != c.args || got.Trailing != c.trailing || got.Simple != c.simple) {
			t.Errorf("innerCall(%q) = %+v, %v; want args=%d trailing=%v simple=%v ok=%v", c.body, got, ok, c.args, c.trailing, c.simple, c.ok)
		}
	}
}
