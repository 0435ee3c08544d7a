package engine

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/javalex"
	"github.com/repilot-lsp/repilot-lsp/textpos"
)

// TestTypeKeySharedAcrossSamples: two samples that reach "g." through
// different text share g's member list (keyed by Greeter, g's type at the
// hunk start): the second costs no JDT LS request, and a prune there still
// rests on two answers.
func TestTypeKeySharedAcrossSamples(t *testing.T) {
	s := freshMainSession(t, "shared")
	before := s.Stats()
	runChecks(t, s, []checkCase{
		{ind + "g.", "greet", Feasible},
		{ind + "int n = 1;\n" + ind + "g.", "greet", Feasible},
		{ind + "System.out.println(g.", "getName", Feasible},
	})
	mid := s.Stats()
	// g's type at the hunk start and the list for the statement-start
	// context (the first and second site); the list for the argument
	// context (the third).
	if got := mid.Requests - before.Requests; got != 3 {
		t.Errorf("three sites of one receiver type: %d requests, want 3 (%s)", got, describe(mid))
	}
	runChecks(t, s, []checkCase{
		{ind + "int n = 2;\n" + ind + "g.", "gxx", Infeasible},       // confirmed by a second answer
		{ind + "String k = null;\n" + ind + "g.", "gyy", Infeasible}, // on the confirmed list
	})
	if got := s.Stats().Requests - mid.Requests; got != 1 {
		t.Errorf("two prunes at new sites of one receiver type: %d requests, want 1", got)
	}
}

// TestTypeKeyStaticReceiver: a type name receiver ("Math.") is keyed by its
// name, so a second sample reaching "Math." through other text costs no
// request, and a misspelt static member is still pruned.
func TestTypeKeyStaticReceiver(t *testing.T) {
	s := freshMainSession(t, "static")
	runChecks(t, s, []checkCase{{ind + "int a = Math.", "max", Feasible}})
	before := s.Stats()
	runChecks(t, s, []checkCase{
		{ind + "long b = 2;\n" + ind + "int a = Math.", "abs", Feasible},
		{ind + "String c = s;\n" + ind + "int a = Math.", "min", Feasible},
	})
	if got := s.Stats().Requests - before.Requests; got != 0 {
		t.Errorf("Math. reached through other text: %d requests, want 0", got)
	}
	runChecks(t, s, []checkCase{{ind + "int a = Math.", "maxx", Infeasible}})
}

// TestTypeKeyNeverCrossesARebinding: where the hunk may have rebound the
// receiver's name, its list is not taken from the type the name had at the
// hunk start.
func TestTypeKeyNeverCrossesARebinding(t *testing.T) {
	s := freshMainSession(t, "rebinding")
	runChecks(t, s, []checkCase{
		{ind + "g.", "greet", Feasible}, // Greeter's list under g's type key
		// g is a Names here: "add" must not be judged against Greeter.
		{ind + "{ Names g = names; g.", "add", Feasible},
		{ind + "for (Names g : java.util.List.of(names)) g.", "add", Feasible},
		{ind + "names.forEach(g -> g.", "add", Unknown}, // a lambda parameter
	})
}

// freshMainSession is mainSession's hunk with a comment of its own at the
// end of the file, so that no list another test cached is found.
func freshMainSession(t *testing.T, tag string) Session {
	t.Helper()
	eng, root := sharedJDT(t)
	h, _ := hunkAt(t, root, "src/demo/Main.java", "names.add(g.getName());")
	h.Suffix += "// " + tag + "\n"
	s, err := eng.Open(ctxT(t), h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestTypeKeyGuards: the text-only conditions under which a receiver's list
// is keyed by its text (no JDT LS request is needed to refuse).
func TestTypeKeyGuards(t *testing.T) {
	prefix := "class A {\n    Greeter g;\n    void m() {\n        int i = 0;\n"
	e := NewJDT(nil)
	s := &jdtSession{e: e, h: Hunk{Prefix: prefix, Suffix: "    }\n}\n"}, id: "h", win: newLexWindow(prefix)}
	s.stmtStart = atStatementBoundary(s.win)
	// A case the guards let through would ask JDT LS (there is none here:
	// it would panic).
	if !s.stmtStart {
		t.Fatal("a hunk after \"int i = 0;\" in a method body starts a statement")
	}
	for _, gen := range []string{
		"        } g.",                              // a block of the prefix ends
		"        else g.",                           // may reopen a pattern binding's scope
		"        Greeter g = null; g.",              // declared
		"        foo((g) -> g.",                     // a lambda parameter
		"        class L extends B { void n() { g.", // a local class may inherit a g
		"        a[0].g.",                           // an array access
		"        A.this.g.",                         // a qualified this
		"        new g.",                            // a type after new
		"        f().g.",                            // a call chain
	} {
		st := siteAt(s.win, gen)
		if st.DotEnd == 0 {
			t.Errorf("%q: no member site", gen)
			continue
		}
		if key, _, ok, err := s.typeKey(context.Background(), gen, st); ok || err != nil {
			t.Errorf("%q: type key %q, %v", gen, key, err)
		}
	}
	for _, prefix := range []string{
		"class A {\n    void m() {\n        for (Greeter g : gs)\n",
		"class A {\n    void m() {\n        foo(x -> {\n",
		"class A {\n    void m() {\n        int x = 1 +\n",
	} {
		if atStatementBoundary(newLexWindow(prefix)) {
			t.Errorf("%q: not a statement boundary in a block", prefix)
		}
	}
}

// TestSoundnessMemberListsAcrossOperators asks JDT LS for the member list of
// a variable (g, s, names), a type name (Math) and this after every operator of
// operandOps, in a block and among a call's arguments, and requires the
// names to be the same as after "=" in the same bracket: the premise on
// which typekey.go shares one list between those places. A JDT LS version
// that filters members by the expected type fails here. An empty answer is
// no premise (the engine never shares one) and is only logged.
func TestSoundnessMemberListsAcrossOperators(t *testing.T) {
	eng, root := sharedJDT(t)
	h, _ := hunkAt(t, root, "src/demo/Main.java", "names.add(g.getName());")
	h.Suffix += "// operators\n"
	ss, err := eng.Open(ctxT(t), h)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	s := ss.(*jdtSession)
	// About 220 requests: more than ctxT's bound allows under load.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	ops := make([]string, 0, len(operandOps))
	for op := range operandOps {
		ops = append(ops, op)
	}
	slices.Sort(ops)
	// list returns the names of a consistent answer at the end of gen, nil
	// when three answers were not consistent (the engine's unknown: such
	// an answer is never cached). Each try sends the text as a new version
	// (more blank lines after the class, the caret unmoved), so that a try
	// is a new answer and not the server's last one again; fresh counts
	// the calls for the same purpose.
	fresh := 0
	list := func(gen string) []string {
		t.Helper()
		caret := len(h.Prefix) + len(gen)
		for try := 0; try < 3; try++ {
			fresh++
			text := h.Prefix + gen + s.suffixAfterCaret() + strings.Repeat("\n", fresh)
			m := textpos.New(text)
			l, err := s.request(ctx, "member", text, m.Position(caret))
			if err != nil {
				t.Fatalf("%q: %v", gen, err)
			}
			if consistent(l, text, m, caret) {
				return newMemberList(l).Names
			}
			for _, it := range l.Items {
				if it.Edit != nil {
					t.Logf("%q: an answer for another text (try %d), e.g. %q %+v", gen, try+1, it.Label, it.Edit.Range)
					break
				}
			}
		}
		return nil
	}
	// place writes recv after op in a statement (call=false) or among the
	// arguments of a call.
	place := func(op, recv string, call bool) string {
		var e string
		switch {
		case op == "!" || op == "~":
			e = op + recv + "."
		case op == "?":
			e = "true ? " + recv + "."
		default:
			e = "n " + op + " " + recv + "."
		}
		if call {
			return ind + "int n = 0;\n" + ind + "System.out.println(" + e
		}
		return ind + "int n = 0;\n" + ind + "Object o = " + e
	}
	for _, recv := range []string{"g", "s", "names", "Math", "this"} {
		for _, call := range []bool{false, true} {
			// JDT LS 1.60 answers the first requests after its start for
			// another text, or with an empty list (the CI of stop 22, and 3
			// runs in 4 here), for some seconds: the engine's unknown.
			// The premise is tested on answers, so wait for one.
			want := list(place("=", recv, call))
			for wait := time.Now().Add(2 * time.Minute); len(want) == 0 && time.Now().Before(wait); {
				time.Sleep(500 * time.Millisecond)
				want = list(place("=", recv, call))
			}
			if len(want) == 0 {
				t.Fatalf("%s (call %v): JDT LS listed no member after \"=\" in 2 minutes", recv, call)
			}
			for _, op := range ops {
				if op == "=" {
					continue
				}
				got := list(place(op, recv, call))
				if len(got) == 0 {
					// An empty or inconsistent answer is never shared
					// per type (members keeps an empty one for its text
					// alone, unknown): no premise. JDT LS 1.20 once
					// answered "println(~g." with nothing.
					t.Logf("%s. after %q (call %v): an empty answer", recv, op, call)
					continue
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s. after %q (call %v): %v, after \"=\": %v", recv, op, call, got, want)
				}
			}
		}
	}
}

// TestStatementBoundaryAfterBlock: a hunk after a "}" starts a statement
// (where the hunk-start lists and type keys apply) when the "}" ends a block
// statement, and not when it ends a class, anonymous class or lambda body,
// an array initializer, a method, or a switch expression's body.
func TestStatementBoundaryAfterBlock(t *testing.T) {
	const m = "class A {\n    void m(Object o, int y) {\n"
	for _, c := range []struct {
		prefix string
		want   bool
	}{
		{m + "        if (o == null) {\n            return;\n        }\n", true},
		{m + "        for (int i = 0; i < y; i++) {\n        }\n", true},
		{m + "        while (y > 0) { y--; }\n", true},
		{m + "        try { y++; } catch (RuntimeException e) { y--; }\n", true},
		{m + "        try { y++; } finally { y--; }\n", true},
		{m + "        if (y > 0) { y++; } else { y--; }\n", true},
		{m + "        { int k = 1; }\n", true},
		// a pattern binding's scope may go on only after "else", which
		// the hunk-start lists and type keys refuse (inHunkScope, typeKey)
		{m + "        if (o instanceof String g) {\n        }\n", true},
		{m + "        synchronized (o) { y++; }\n", true},
		{m + "        switch (y) { case 1: y++; }\n", true},
		{m + "        switch (y) { case 1: { y++; } }\n", true},
		{m + "        int z = switch (y) { default -> 1; }\n", false},
		{m + "        Runnable r = () -> { };\n        Runnable q = () -> { }\n", false},
		{m + "        Object a = new Object() { }\n", false},
		{m + "        int[] a = { 1, 2 }\n", false},
		{m + "        class L { }\n", false},
		{m + "        foo(x -> {\n        })\n", false},
		{"class A {\n    void m() {\n    }\n", false},
		{"class A {\n    static { }\n", false},
		{m + "        switch (y) { case 1 -> { y++; }\n", false},
	} {
		if got := atStatementBoundary(newLexWindow(c.prefix)); got != c.want {
			t.Errorf("after %q: statement boundary %v, want %v", c.prefix[len(m)-1:], got, c.want)
		}
	}
}

// TestFieldChainCalls: fieldChain reads a chain of names and calls whose
// arguments are all literals, keyed by the literals' types, and typeKey
// takes nothing else for a chain (its receiver must start at the head).
func TestFieldChainCalls(t *testing.T) {
	for _, c := range []struct{ src, head, path string }{
		{"= x.", "x", ""},
		{"= x.f.g.", "x", "f.g"},
		{"= this.f.g.", "this", "f.g"},
		{"= super.m(1).", "super", "m(I)"},
		{"= Splitter.on(';').trimResults().limit(4).", "Splitter", "on(C).trimResults().limit(I)"},
		{"= Splitter.on('/').trimResults().limit(12).", "Splitter", "on(C).trimResults().limit(I)"},
		{`= s.replace("-", "").`, "s", "replace(S,S)"},
		{"= s.m(true, null, 0).", "s", "m(Z,null,I)"},
		{"= s.m(07, 4L, 1.5, 0x1F).", "s", "m(07,4L,1.5,0x1F)"}, // other numbers: their text
		{"= x.f.m().g.", "x", "f.m().g"},
		{"= x.m(y).", "", ""},         // an argument that is no literal
		{"= x.m(-1).", "", ""},        // an operator
		{"= x.m(1,).", "", ""},        // a trailing comma
		{`= x.m("a" + "b").`, "", ""}, // an expression
		{"= m(1).", "", ""},           // an unqualified call
		{"= x.<T>m().", "", ""},       // explicit type arguments
		{"= new Foo().f.", "", ""},    // a new instance
		{"= x[0].f.", "", ""},         // an array access
		{"= (x).f.", "", ""},          // a parenthesized receiver
		{"= x.m(1)[0].", "", ""},      // an array access on a call
		{"= x.m((1)).", "", ""},       // a parenthesized argument
		{"= x.m('a'.hashCode()).", "", ""},
	} {
		toks := codeTokens(javalex.Lex(c.src))
		r := len(toks) - 2
		h, path, ok := fieldChain(toks, r)
		got := ""
		if ok && h == receiverStart(toks, r) { // typeKey's condition
			got = toks[h].Text
		}
		if got != c.head || (ok && path != c.path) {
			t.Errorf("fieldChain(%q) = %q, %q, %v; want %q, %q", c.src, got, path, ok, c.head, c.path)
		}
	}
}
