package engine

// strict_test.go runs the strict positions beyond member access against a
// real JDT LS on testdata/project: simple names in expression and statement
// position, method names in calls, types after new, and the member-name
// followers (a method must be called, a field must not be). Each pruning
// case has a twin that must not be pruned.

import (
	"strings"
	"testing"
)

func TestCheckSimpleNames(t *testing.T) {
	s, _ := mainSession(t)
	runChecks(t, s, []checkCase{
		// an undefined local in expression position
		{ind + "int n = fooBar", ";", Infeasible},
		{ind + "int n = 1 + fooB", "ar", Infeasible}, // an operand: prefixes are judged
		{ind + "int n = 1 + ", "fooBar", Infeasible},
		{ind + "names.add(fooBar", ")", Infeasible},
		{ind + "int n = s", ".length();", Feasible},
		{ind + "String t = s", ";", Feasible},
		{ind + "int n = 1 + s", ".length()", Feasible},
		{ind + "names.add(s", ")", Feasible},
		{ind + "boolean b = !s", ".isEmpty()", Feasible},
		// a misspelled method in a call; a variable is not called
		{ind + "int n = undefinedCall", "(", Infeasible},
		{ind + "names.add(names", "(", Infeasible},
		{ind + "names.add(s", "(", Infeasible}, // one character: the scope list and the type index (localNames)
		{ind + "run", "();", Feasible},         // Main.run()
		{ind + "main", "(null", Feasible},      // static Main.main
		// a misspelled type after new
		{ind + "Object o = new Greetr", "(", Infeasible},
		{ind + "Object o = new ", "Greetr", Infeasible},
		{ind + "Object o = new ", "Gree", Feasible},
		{ind + "Object o = new ", "Greeter(s)", Feasible},
		{ind + "Object o = new ", "java.util.ArrayList<String>()", Feasible}, // a package first
		{ind + "Object o = new ", "int[3]", Unknown},                         // a primitive type
		{ind + "Object o = new ", "StringBuilder()", Feasible},               // java.lang
		{ind + "Object o = new ", "ArrayList<String>()", Feasible},           // JDK, auto-import
		// keywords and contextual keywords are never pruned
		{ind + "int n = 1 + ", "this.hashCode()", Feasible}, // this is not judged, hashCode is
		{ind + "boolean b = s == ", "null", Unknown},
		{ind + "boolean b = !", "true", Unknown},
		{ind + "", "var v = s;", Feasible},       // var is not judged, s is
		{ind + "Object o = 1 + ", "nu", Unknown}, // may become null
		// declarations, lambda parameters and labels are not judged
		{ind + "int fooBar", ";", Unknown},
		{ind + "Runnable r = fooBar", " -> {};", Unknown},
		{ind + "Runnable r = fooBar", "->", Unknown},
		{ind + "fooBar", ": for (;;) {}", Unknown},
		{ind + "java", ".util.List<String> l = null;", Feasible}, // a package name: "." is not judged, util and List are members
	})
}

// TestCheckSimpleNamesInScope: names declared in the generated text itself
// (locals, loop variables, catch parameters) are visible to the judge.
func TestCheckSimpleNamesInScope(t *testing.T) {
	s, _ := mainSession(t)
	runChecks(t, s, []checkCase{
		{ind + "int tmp = 1; int k = tmp", ";", Feasible},
		{ind + "int tmp = 1; int k = tmpx", ";", Infeasible},
		{ind + "for (int ix = 0; ix", " < 3; ix++) {}", Feasible},
		{ind + "for (int ix = 0; ix < 3; ix", "++) {}", Feasible},
		{ind + "for (String el : java.util.List.of(s)) names.add(el", ");", Feasible},
		// a one-character name the generated text declares is not asked
		// for (minNameQuery): unknown; one it does not is judged by the
		// scope list and the type index (localNames)
		{ind + "for (int i = 0; i", " < 3; i++) {}", Unknown},
		{ind + "for (String e : java.util.List.of(s)) names.add(e", ");", Unknown},
		{ind + "int n = 1 + ", "q", Infeasible},
		{ind + "names.add(q", ")", Infeasible},
		{ind + "try { } catch (RuntimeException ex) { names.add(ex", ".getMessage()); }", Feasible},
		{ind + "names.add(args", "[0]);", Infeasible}, // run() has no args
		{ind + "names.add(g.getName().substring(s", ".length()));", Feasible},
		// a local of the generated text that shares a method's name: the
		// names of the hunk start list only the method, the site both
		{ind + "Runnable[] run = {}; Object o = run", "[0];", Feasible},
		{ind + "int a = 1, tmp2 = 2; int k = tmp2", ";", Feasible},
	})
}

// TestSimpleNamesOncePerHunk: the names in scope at simple names of
// different samples of one hunk come from one request (the hunk start's
// list), while a name the generated text declares is looked up at its site.
func TestSimpleNamesOncePerHunk(t *testing.T) {
	s, _ := mainSession(t)
	runChecks(t, s, []checkCase{{ind + "String n = \"a\" + s", ";", Feasible}})
	before := s.Stats().Requests
	runChecks(t, s, []checkCase{
		{ind + "String m = \"b\" + s", ";", Feasible},
		{ind + "boolean b = null != s", ";", Feasible},
		{ind + "String t = s", ";", Feasible},
	})
	if got := s.Stats().Requests - before; got != 0 {
		t.Errorf("%d requests for s at three more sites, want 0 (one list per hunk)", got)
	}
	runChecks(t, s, []checkCase{{ind + "String sx = s; int k = 1 + sx", ";", Feasible}})
	if got := s.Stats().Requests - before; got == 0 {
		t.Errorf("a name declared in the generated text was judged without a request at its site")
	}
}

func TestCheckMemberFollowers(t *testing.T) {
	s, _ := mainSession(t)
	runChecks(t, s, []checkCase{
		{ind + "int n = s.length", " > 3 ? 1 : 0;", Infeasible}, // a method not called
		{ind + "int n = s.length", ";", Infeasible},
		{ind + "int n = s.length", "() + 1;", Feasible},
		{ind + "System.out", ".println(s);", Feasible},
		{ind + "System.out", "(s);", Infeasible}, // a field is not called
		{ind + "Object o = Greeter.Tone.LOUD", ";", Feasible},
		{ind + "int[] a = {1}; int k = a.length", ";", Feasible},
		{ind + "int[] a = {1}; int k = a.length", "();", Infeasible},
		{ind + "Object c = Greeter.class", ";", Unknown},       // a keyword is not judged
		{ind + "Object o = Greeter.", "Tone.PLAIN;", Feasible}, // a member type
		{ind + "g.", "(", Infeasible},
		{ind + "g.", ".", Infeasible},
		{ind + "g.", ")", Infeasible},
		{ind + "g.", "<String>greet();", Feasible},
	})
}

// TestCompleteSimpleNames: active completion at a simple name where every
// prefix is judged lists the visible names that extend it, and knows
// nothing where the name may become a keyword or lambda parameter.
func TestCompleteSimpleNames(t *testing.T) {
	s, _ := mainSession(t)
	ctx := ctxT(t)
	got, err := s.Complete(ctx, ind+"Object o = new Greet")
	if err != nil {
		t.Fatal(err)
	}
	if !got.Known || !contains(got.Names, "Greeter") {
		t.Errorf("Complete after new Greet = %+v, want Greeter among known names", got)
	}
	for _, n := range got.Names {
		if len(n) < 5 || n[:5] != "Greet" {
			t.Errorf("Complete after new Greet lists %q", n)
		}
	}
	for _, gen := range []string{
		ind + "int n = 1 + fooB", // nothing extends it: unknown, not an empty completion
		ind + "int n = 1 + s",    // may become super, short, ...
		ind + "int n = Gre",      // after "=": may become a lambda parameter
		ind + "int Gre",          // a declaration
	} {
		c, err := s.Complete(ctx, gen)
		if err != nil {
			t.Fatal(err)
		}
		if c.Known {
			t.Errorf("Complete(%q) = %+v, want unknown", gen, c)
		}
	}
}

// TestCheckIndexing: "[" after a variable whose declared type is not an
// array is infeasible (only arrays are indexed, JLS 15.10.3); after an array
// variable, a type (String[] x), or a name of unknown type it is not pruned.
func TestCheckIndexing(t *testing.T) {
	s, _ := mainSession(t)
	runChecks(t, s, []checkCase{
		{ind + "names.add(names", "[0]);", Infeasible},                 // Names names
		{ind + "String[] arr = {s}; names.add(arr", "[0]);", Feasible}, // an array local
		// one-character names: the scope list and the type index (localNames)
		{ind + "names.add(s", "[0]);", Infeasible}, // String s
		{ind + "int n = g", "[0];", Infeasible},    // Greeter g
		{ind + "int[] xs = {1}; int n = xs", "[0];", Feasible},
		{ind + "String", "[] a = {s};", Feasible}, // a type: an array type follows
		{ind + "names.add(s", ".trim());", Feasible},
	})
}

// TestCheckArity: inside "recv.name(", a ")" or "," that gives the call a
// number of arguments no overload of name (as JDT LS lists them at "recv.")
// accepts is infeasible (arity.go); counts some overload accepts, varargs,
// and counts that cannot be made certain are not pruned.
func TestCheckArity(t *testing.T) {
	s, _ := mainSession(t)
	const m = ind + "java.util.Map<String, Integer> counts = new java.util.HashMap<>(); String word = s; "
	runChecks(t, s, []checkCase{
		{m + "Integer c = counts.get(word", ", 1);", Infeasible}, // get(Object): 1 argument
		{m + "Integer c = counts.get(word", ",", Infeasible},
		{m + "Integer c = counts.get(word", ")", Feasible}, // word is proven, the count is fine
		{m + "Integer c = counts.get(word", ");", Feasible},
		{m + "Integer c = counts.get(", ")", Infeasible},
		{m + "Integer c = counts.get(\"a\"", ")", Unknown},
		{m + "Integer c = counts.getOrDefault(word, 0", ")", Unknown}, // 2 arguments: not pruned
		{m + "Integer c = counts.getOrDefault(word", ")", Infeasible},
		{m + "int n = counts.size(", ")", Unknown},
		{m + "int n = counts.size(", "1)", Infeasible}, // "1" is not judged; ")" ends 1 argument
		{ind + "String t = s.substring(", ")", Infeasible},
		{ind + "String t = s.substring(", "1);", Unknown},
		{ind + "String t = s.substring(1", ")", Unknown},
		{ind + "String t = s.substring(1, 2", ")", Unknown},
		{ind + "String t = s.substring(1, 2", ",", Infeasible},
		{ind + "String t = s.substring(1, 2", ", 3)", Infeasible},
		{ind + "String t = s.substring(1, ", "2, 3)", Infeasible},       // pieces: "2" unknown, "," pruned
		{ind + "String t = String.format(\"x\", 1, 2, 3", ")", Unknown}, // varargs
		{ind + "String t = String.format(\"x\", 1, 2, 3", ", 4)", Unknown},
		{ind + "String t = String.format(", ")", Infeasible}, // at least 1 argument
		{ind + "StringBuilder sb = new StringBuilder(); sb.append(names", ")", Feasible},
		{ind + "StringBuilder sb = new StringBuilder(); sb.append(s", ")", Unknown}, // s: one character (minNameQuery)
		{ind + "StringBuilder sb = new StringBuilder(); sb.append(s, 0, 1", ")", Unknown},
		{ind + "StringBuilder sb = new StringBuilder(); sb.append(s, 0, 1", ",", Infeasible},
		{ind + "g.greet(", ")", Unknown},
		{ind + "g.greet(", "s)", Infeasible}, // greet() of testdata/project
		{ind + "Greeter.of(", "s)", Feasible},
		// counts that are not certain stay unknown
		{ind + "names.add(s.substring(new java.util.ArrayList<Integer>().size(), 1", ", 2)", Unknown},
		{ind + "names.add(s.substring(1 < 2 ? 1 : 0, 1", ", 2)", Unknown},
		{ind + "Runnable r = () -> s.substring(", ")", Infeasible},                                // s is no lambda parameter: trusted
		{ind + "java.util.function.Function<String, String> f = x -> x.substring(", ")", Unknown}, // x is
	})
}

// TestCheckSimpleCallArity: inside a simple-name call "name(", a ")" or ","
// that gives it a number of arguments no method of that name listed at the
// name accepts is infeasible (arity.go, simpleArity): Main's run() takes
// none and main(String[]) one; counts they accept, and names that are not
// only methods, are not pruned. The call may start in the prefix.
func TestCheckSimpleCallArity(t *testing.T) {
	s, _ := mainSession(t)
	runChecks(t, s, []checkCase{
		{ind + "run(", ")", Unknown},
		{ind + "run(", "s);", Infeasible},
		{ind + "run(s", ")", Infeasible},
		{ind + "run(", "s, s);", Infeasible},
		{ind + "main(null", ")", Unknown},
		{ind + "main(null", ");", Unknown},
		{ind + "main(null", ",", Infeasible},
		{ind + "main(null, null", ")", Infeasible},
		{ind + "main(", ")", Infeasible},
		{ind + "Object o = String.valueOf(main(null", "))", Unknown},
		{ind + "names.add(run(", "))", Unknown}, // the outer ")" is add's: one argument
		{ind + "if (s.isEmpty()) return; else run(", "s);", Infeasible},
		{ind + "Runnable r = () -> run(", "s);", Unknown}, // lambda bodies are not judged
	})
	eng, root := sharedJDT(t)
	h, line := hunkAt(t, root, "src/demo/Main.java", "names.add(g.getName());")
	indent := line[:len(line)-len(strings.TrimLeft(line, " "))]
	hh := Hunk{URI: h.URI, Prefix: h.Prefix + indent + "main(", Suffix: "\n" + indent + ");\n" + h.Suffix}
	ps, err := eng.Open(ctxT(t), hh)
	if err != nil {
		t.Fatal(err)
	}
	defer ps.Close()
	runChecks(t, ps, []checkCase{
		{"", "null)", Unknown},
		{"", "null, null)", Infeasible},
		{"null", ",", Infeasible},
		{"", ")", Infeasible},
	})
}

// TestCheckArityCallInPrefix: the call whose arguments are being generated
// may have been opened in the hunk's prefix (the hunk starts inside it).
func TestCheckArityCallInPrefix(t *testing.T) {
	eng, root := sharedJDT(t)
	h, line := hunkAt(t, root, "src/demo/Main.java", "names.add(g.getName());")
	for _, c := range []struct {
		cut, rest string // the prefix ends with the line up to cut; the suffix starts with rest
		checks    []checkCase
	}{
		{"names.add(", "\n" + ind + ");\n", []checkCase{
			{"", "String.valueOf(1))", Feasible},
			{"", "s)", Unknown},       // s: one character (minNameQuery)
			{"", "s, s)", Infeasible}, // Names.add(String)
			{"s", ",", Infeasible},
			{"", ")", Infeasible}, // no arguments
		}},
		{"g.getName(", "\n" + ind + "));\n", []checkCase{
			{"", "s)", Infeasible}, // getName()
			{"", ")", Unknown},
		}},
	} {
		i := strings.Index(line, c.cut) + len(c.cut)
		hh := Hunk{URI: h.URI, Prefix: h.Prefix + line[:i], Suffix: c.rest + h.Suffix}
		s, err := eng.Open(ctxT(t), hh)
		if err != nil {
			t.Fatal(err)
		}
		runChecks(t, s, c.checks)
		s.Close()
	}
}

// TestCheckQualifierAndTypeCall: a simple name followed by "." must be a
// variable, a type or a package (session.go, checkQualifier), and one
// followed by "(" outside "new" must not be only a type (typeCalled). The
// twins that compile are not pruned (more in testdata/project/src/demo/
// SitQualifier.java, TestSituationsNeverPruned).
func TestCheckQualifierAndTypeCall(t *testing.T) {
	s, _ := mainSession(t)
	runChecks(t, s, []checkCase{
		{ind + "int n = msg", ".length();", Infeasible}, // no msg in scope
		{ind + "int n = ", "msg.length();", Infeasible},
		{ind + "names.add(msg", ".trim());", Infeasible},
		{ind + "int n = run", ".x;", Infeasible},    // a method only
		{ind + "int n = s", ".length();", Feasible}, // a local
		{ind + "int n = g", ".greet().length();", Feasible},
		{ind + "Object o = Greeter", ".of(s);", Feasible}, // a type of the package
		{ind + "int n = Math", ".abs(1);", Feasible},      // java.lang
		{ind + "Object o = java", ".util.List.of();", Feasible},
		{ind + "Object o = demo", ".Greeter.of(s);", Feasible},        // the project's package
		{ind + "String kkk = s; int n = kkk", ".length();", Feasible}, // declared by the text: judged at its site, listed
		{ind + "int qq = 1; int n = q", ".x;", Unknown},               // at its site, a short name is not asked for (minQualifierAtSite)
		{ind + "int msg2 = 1; int n = msg", ".length();", Infeasible}, // judged at its site (as in ghost text)
		{ind + "Object o = Greeter", "(s);", Infeasible},              // a type is not called
		{ind + "Object o = ", "StringBuilder(s);", Infeasible},
		{ind + "names.add(", "Greeter(s));", Infeasible},
		{ind + "Object o = new Greeter", "(s);", Feasible},
		{ind + "run", "();", Feasible},
		{ind + "for (Greeter", "(", Unknown}, // Java 20's preview record patterns (enhanced for)
	})
}
