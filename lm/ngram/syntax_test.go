package ngram

import (
	"slices"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/javalex"
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

// TestSyntaxDeadTokens: Next proposes none of the tokens after which no
// text compiles (syntaxOnly, syntaxDead), and every token the rules leave
// alone stays proposable, including the exceptions each rule names.
func TestSyntaxDeadTokens(t *testing.T) {
	m := jdkModel(t)
	// A buggy hunk that breaks a line inside its statement (not inside a
	// bracket): deadTokens then leaves line breaks to the other rules.
	fim := callFIM
	fim.Buggy = "        n = a[n - 1]\n            + 0;\n"
	s := mustStart(t, m, fim).(*session)
	isDead := func(gen, tok string) bool {
		id, ok := m.ids[tok]
		if tok == "\n" {
			id, ok = idNewline, true
		}
		if !ok {
			t.Fatalf("%q is not in the vocabulary", tok)
		}
		return s.deadTokens(s.analyse(gen)).has(id)
	}
	cases := []struct {
		gen  string
		dead []string
		live []string
	}{
		// After an if, while or for header: a statement (or a do's ";").
		{"        while (lo < hi)", []string{">>>", ">=", "||", ",", ".", "=", "-", "!", "instanceof", "]"},
			[]string{"{", ";", "return", "lo", "(", "++", "\n", "this", "new"}},
		{"        if (a[n] > 0)\n", []string{".", "+", "?"}, []string{"n", "{", "return"}},
		{"        for (int i = 0; i < n; i++)", []string{"*", "::"}, []string{"n", "{", ";"}},
		// A call's ")" is not a header's.
		{"        n = f(a)", nil, []string{".", "+", ";", "[", ">="}},
		{"        if (f(a)", nil, []string{".", "+", ")", "&&"}},
		// switch, synchronized, catch, try-with-resources: only a block.
		{"        switch (n)", []string{"n", "case", ";", ".", "return", "("}, []string{"{", "\n"}},
		{"        synchronized (a)\n", []string{"a", ";"}, []string{"{"}},
		// No top-level "," in an if, while, switch or synchronized header.
		{"        while (lo < hi", []string{","}, []string{")", "&&", "<"}},
		{"        if (f(a", nil, []string{","}},
		{"        if (a instanceof Map<String", nil, []string{","}},
		{"        if (n < a.length && new HashMap<String", nil, []string{","}},
		{"        if (a.<String", nil, []string{","}},
		{"        while (n < a.length", []string{","}, nil},
		{"        for (int i = 0", nil, []string{","}},
		// "{" inside brackets only after "->", "]" or ")".
		{"        while ((lo < hi)", []string{"{"}, nil},
		{"        if (a.size()", []string{"{"}, []string{")", "."}},
		{"        if (f(new Object()", nil, []string{"{"}},
		{"        n = f(new java.util.ArrayList<String>()", nil, []string{"{"}},
		{"        n = f(switch (n)", nil, []string{"{"}},
		{"        while ((lo < hi", []string{"{"}, nil},
		{"        n = f(a,", []string{"{"}, []string{"new", "x"}},
		{"        n = a[n", []string{"{"}, nil},
		{"        n = f(x ->", nil, []string{"{"}},
		{"        n = f(new int[]", nil, []string{"{"}},
		{"        for (int[] b =", nil, []string{"{"}},
		{"        @SuppressWarnings(", nil, []string{"{"}},
		{"        @java.lang.SuppressWarnings(value =", nil, []string{"{"}},
		// In a statement that became an expression (return, throw, an
		// assignment) the same, plus a declarator's "=".
		{"        return a.isBefore(b)", []string{"{"}, []string{";", "&&", "."}},
		{"        int hi = Math.min(a, b)", []string{"{"}, []string{";", "+"}},
		{"        n += f(a)", []string{"{"}, nil},
		{"        throw new IllegalStateException()", nil, []string{"{"}},
		{"        return switch (n)", nil, []string{"{"}},
		{"        int[] b =", nil, []string{"{"}},
		{"        Runnable r = () ->", nil, []string{"{"}},
		{"        return new int[]", nil, []string{"{"}},
		{"        n = 1;\n        if (f(a))", nil, []string{"{"}},
		{"        n = f(a);\n        f(a)", nil, []string{";"}},
		{"        for (int i = 1; i < a.get(i++)", []string{"{", ")"}, []string{";", "."}},
		{"        try (InputStream in = open(f)", []string{"{"}, []string{")", ";"}},
		// A for header's ")" after two ";" or a ":".
		{"        for (int i = 1; i < a.size()", []string{")"}, []string{";", "+"}},
		{"        for (int i", []string{")"}, []string{"=", ":"}},
		{"        for (int i = 1; i < n; i++", nil, []string{")"}},
		{"        for (;;", nil, []string{")"}},
		{"        for (int x : a", nil, []string{")"}},
		{"        for (int i = f(a", nil, []string{")"}},
		{"        for (int i = f(a)", []string{")"}, []string{";"}},
		// No member modifier, import or package in a block (JLS 14.3,
		// 14.4, 7.5); a class body inside it takes them (but no import).
		{"        n = 1;\n", []string{"private", "public", "protected", "static", "transient", "volatile", "native", "import", "package", "throws"},
			[]string{"final", "abstract", "class", "int", "synchronized", "implements"}},
		{"        n = f(a)", []string{"throws"}, nil},
		{"        n = f(a", []string{"throws", "implements"}, []string{"extends"}},
		{"        class L {\n            int g()", nil, []string{"throws"}},
		{"        class L", nil, []string{"implements", "extends"}},
		// After a simple name that starts a statement: no binary
		// operator, closer, "," or ";" (JLS 14.8).
		{"        n = 1;\n        n", []string{"==", "&&", "+", "-", ";", ")", ",", "?", "instanceof"},
			[]string{".", "(", "[", "<", "=", "+=", "++", ":", "x", "@"}},
		{"        if (n > 0) {\n            n", []string{"==", ";"}, []string{"="}},
		{"        if (n > 0)\n            n", []string{"=="}, []string{"="}},
		{"        n = 1;\n        yield", nil, []string{"-", "+"}},
		{"        n = m", nil, []string{"+", ";"}},
		{"        int[] b = {n", nil, []string{",", "+", "}"}},
		{"        int[][] b = {{n", nil, []string{",", "+", "}"}},
		{"        Runnable r = () -> {\n            n", []string{"=="}, nil},
		{"        n = f(() -> n", nil, []string{"+"}},
		{"        n = switch (n) {\n            case 1 -> n", nil, []string{"+", ";"}},
		{"        Object o = new Object() {\n            int", nil, []string{";"}},
		{"        n = c ? 1 : n", nil, []string{"+"}},
		// After "Foo x" at a statement's start: "=", ";", ",", "[".
		{"        n = 1;\n        Foo x", []string{"y", "(", ".", "+", ")", "{", ":"}, []string{"=", ";", ",", "[", "\n"}},
		{"        n = 1;\n        record R", nil, []string{"("}},
		{"        Foo.Bar x", nil, []string{"("}},
		// After a primitive type at a statement's start: a name, "[",
		// "@", ".".
		{"        n = 1;\n        int", []string{"=", "(", ";", ")", "+", "<"}, []string{"x", "[", ".", "@"}},
		{"        n = (int", nil, []string{")"}},
		{"        n = f(a, int", nil, []string{"."}},
		// After an operator, "(", ",", "return" ...: no binary operator.
		{"        n = f(", []string{"==", "=", "*", "&&"}, []string{"-", "!", "n", "(", ")"}},
		{"        n = f(a,", []string{"==", "="}, []string{"-", "n"}},
		{"        n =", []string{"==", "=", "/"}, []string{"-", "n", "new"}},
		{"        return", []string{"==", "*"}, []string{"-", ";"}},
		{"        n = a.size() >", nil, []string{"="}},
		{"        n = a++", nil, []string{"=="}},
		// After a lambda's "()": "->"; after "new": a type.
		{"        n = ()", []string{";", ".", ")", "+"}, []string{"->"}},
		{"        n = a.length - (", []string{")"}, []string{"n", "("}},
		{"        n = !(", []string{")"}, nil},
		{"        n = f((", nil, []string{")"}},
		{"        n = c ? (", nil, []string{")"}},
		{"        n = f(a, ()", []string{",", ")"}, []string{"->"}},
		{"        n = f()", nil, []string{";", "."}},
		{"        n = new Foo<>()", nil, []string{";", "."}},
		{"        n = new", []string{"(", "[", ")", ";", "."}, []string{"int", "Object", "<", "@"}},
		{"        n = f(Foo::new", nil, []string{")", ","}},
		{"        if (n > 0) {\n", []string{"private", "static", "import"}, []string{"final"}},
		{"        Runnable r = () -> {\n", []string{"private", "static"}, []string{"final"}},
		{"        n = f(", []string{"private", "static", "import"}, []string{"final", "n"}},
		{"        Object o = new Object() {\n", []string{"import", "package"}, []string{"private", "static", "public"}},
		{"        class L {\n", []string{"import"}, []string{"private", "static"}},
		{"        class L {\n            int g() {\n", []string{"private", "static"}, []string{"final"}},
		{"        record R(int x) {\n            R {\n", []string{"private", "static"}, nil},
		{"        record R(int x) {\n", nil, []string{"private", "static"}},
		{"        enum E {\n            A {\n", nil, []string{"private", "static"}},
		{"        enum E {\n            A(1) {\n", nil, []string{"private", "static"}},
		{"        enum E {\n            A(1) {\n            }, B {\n", nil, []string{"private", "static"}},
		{"        enum E {\n            A(1);\n            E(int x) {\n", []string{"private", "static"}, nil},
		{"        Class<?> c = A.class;\n        if (c != null) {\n", []string{"private", "static"}, nil},
		{"        interface I {\n", nil, []string{"private", "static", "public"}},
		// No literal next to a name or a literal (but "yield 1").
		{"        n = f(a", []string{"0", "1", "null", "true"}, []string{")", ",", "+"}},
		{"        n = 1;\n        n", []string{"0", "null"}, []string{"=", "++"}},
		{"        n = f(0", []string{"n", "1", "null"}, []string{")", ",", "+"}},
		{"        n = switch (n) {\n            default -> {\n                yield", nil, []string{"0", "null", "n"}},
		// No name next to a name where only an expression goes.
		{"        n = f(a", []string{"n", "x"}, []string{"."}},
		{"        if (a", []string{"n"}, []string{"instanceof"}},
		{"        while (n", []string{"n"}, nil},
		{"        n = a[n", []string{"n"}, nil},
		{"        return a", []string{"n"}, []string{";", "."}},
		{"        n = a", []string{"n"}, nil},
		{"        int x = a", []string{"n"}, []string{","}},
		{"        if (a instanceof Foo", nil, []string{"n"}},
		{"        n = f(a instanceof Foo", nil, []string{"n"}},
		{"        return a instanceof Foo", nil, []string{"n"}},
		{"        n = f((Foo", nil, []string{"n"}},
		{"        n = f(new Foo(a), (Foo", nil, []string{"n"}},
		{"        if (a instanceof Point(Foo", nil, []string{"n"}},
		{"        switch (a) {\n            case Point(Foo", nil, []string{"n"}},
		{"        n = 1;\n        Foo", nil, []string{"n"}},
		{"        for (Foo", nil, []string{"n"}},
		{"        try (Foo", nil, []string{"n"}},
		{"        record R(Foo", nil, []string{"n"}},
		{"        class L {\n            int g(Foo", nil, []string{"n"}},
		{"        Runnable r = () -> {\n            Foo", nil, []string{"n"}},
		// No "{" after an argument list's ")" (but a class instance
		// creation's, a header's, a declaration's).
		{"        n = 1;\n        sb.append(n)", []string{"{"}, []string{";", "."}},
		{"        StringBuilder sb = new StringBuilder();\n        sb.append(n)", []string{"{"}, nil},
		{"        n = f(new Foo(a), g(a", []string{"n"}, nil},
		{"        n = 1;\n        this(n)", []string{"{"}, nil},
		{"        n = 1;\n        Object o = new Object()", nil, []string{"{"}},
		{"        n = 1;\n        f(new Object()", nil, []string{"{"}},
		{"        n = 1;\n        record R(int x)", nil, []string{"{"}},
		{"        class L {\n            L(int x)", nil, []string{"{"}},
		{"        n = 1;\n        if (f(n))", nil, []string{"{"}},
		{"        n = 1;\n        synchronized (n)", nil, []string{"{"}},
		// No "," in a block's statement that is no declaration.
		{"        n = 1;\n        lo = mid + 1", []string{","}, []string{";", "+"}},
		{"        n = 1;\n        return a", []string{","}, nil},
		{"        n = 1;\n        this.a = 1", []string{","}, nil},
		{"        n = 1;\n        lo += 1", []string{","}, nil},
		{"        n = 1;\n        int lo = 1", nil, []string{","}},
		{"        n = 1;\n        Foo lo = a", nil, []string{","}},
		{"        n = 1;\n        f = Map.Entry<K", nil, []string{","}},
		{"        n = 1;\n        lo = f(1", nil, []string{","}},
		// No ":" in a bracket without its "?".
		{"        n = f(a", []string{":"}, []string{"?"}},
		{"        n = f(c ? a", nil, []string{":"}},
		{"        n = f(c ? g(a", []string{":"}, nil},
		{"        n = a[c ? 1 : 2", []string{":"}, nil},
		{"        for (Foo x", nil, []string{":"}},
		{"        switch (a) {\n            case 1", nil, []string{":"}},
		{"        n = f(List<?", nil, []string{":"}},
	}
	for _, c := range cases {
		for _, tok := range c.dead {
			if !isDead(c.gen, tok) {
				t.Errorf("after %q: %q is proposed, want none", c.gen, tok)
			}
		}
		for _, tok := range c.live {
			if isDead(c.gen, tok) {
				t.Errorf("after %q: %q is dead, want it proposable", c.gen, tok)
			}
		}
	}
	// Next itself leaves them out.
	for _, c := range next(t, s, "        switch (n)", 0) {
		if !c.End && c.Text != " {" && c.Text != "{" && c.Text != "\n" {
			t.Errorf("after a switch header: Next proposes %q", c.Text)
		}
	}
}

// TestBraceDeadAcceptsJDK feeds java.base's sources (every file under
// java/ of src.zip, up to 3,000) through the bracket scan and fails at any
// "{" of real code that braceDead would rule out, any for header's ")"
// that forCloseDead would, any modifier, throws, implements, import or
// package that modifierDead would, and any token after a statement's first
// name or primitive type, a declarator's name, a lambda's "()", "new" or
// an operandNext token that stmtNameDead, stmtPrimDead, declNameNext,
// "->", newDead or binaryDead would:
// the rules must never prune a token of a program javac accepts. (Run
// over every file of src.zip, 15,143 files and 19.8 million tokens, by
// hand: none ruled out.)
func TestBraceDeadAcceptsJDK(t *testing.T) {
	zip := requireJDK(t)
	braces, exprBraces, forCloses, blocks, modifiers, stmtNames, declNames, lambdas, prims := 0, 0, 0, 0, 0, 0, 0, 0, 0
	nameSites, litSites, colonSites, commaSites := 0, 0, 0, 0
	for _, src := range readZip(t, zip, "java.base/java/", 3000) {
		var b bracketScan
		for _, tok := range lexStream(src) {
			// near is the source up to and including tok, for a failure's message.
			near := func() string { return src[max(0, tok.Start-300) : tok.Start+len(tok.Text)] }
			if tok.Text == "{" {
				var in openBracket
				if n := len(b.stack); n > 0 {
					in = b.stack[n-1]
				}
				var closed *openBracket
				if b.closedLast {
					closed = &b.closed
				}
				braces++
				if in.expr {
					exprBraces++
				}
				if !in.body && in.text == "{" {
					blocks++
				}
				if braceDead(in, b.prev, closed) {
					t.Fatalf("a %q after %q at offset %d is ruled out (inner %+v):\n%s", tok.Text, b.prev, tok.Start,
						in, src[max(0, tok.Start-200):tok.Start+1])
				}
			}
			if n := len(b.stack); n > 0 && modifierDead(b.stack[n-1], tok.Text) || n == 0 && modifierDead(openBracket{}, tok.Text) {
				var in openBracket
				if n > 0 {
					in = b.stack[n-1]
				}
				t.Fatalf("a %q at offset %d is ruled out (inner %+v):\n%s", tok.Text, tok.Start, in,
					near())
			}
			if n := len(b.stack); n > 0 && slices.Contains(blockModifiers, tok.Text) && b.stack[n-1].text == "{" {
				modifiers++
			}
			if b.lambdaArrow && !tok.isNewline() {
				lambdas++
				if tok.Text != "->" {
					t.Fatalf("a %q after an empty \"()\" at offset %d is ruled out:\n%s", tok.Text, tok.Start,
						near())
				}
			}
			if b.stmtPrim {
				prims++
				if slices.Contains(stmtPrimDead, tok.Text) {
					t.Fatalf("a %q after a statement's primitive type at offset %d is ruled out:\n%s", tok.Text, tok.Start,
						near())
				}
			}
			if n := len(b.stack); tok.Text == ")" && b.prev == "(" && n > 0 && b.stack[n-1].noLambda {
				t.Fatalf("a lambda's \"()\" after an operator at offset %d is ruled out:\n%s", tok.Start,
					near())
			}
			if operandNext[b.prev] && slices.Contains(binaryDead, tok.Text) {
				t.Fatalf("a %q after %q at offset %d is ruled out:\n%s", tok.Text, b.prev, tok.Start,
					near())
			}
			if b.afterNew && slices.Contains(newDead, tok.Text) {
				t.Fatalf("a %q after \"new\" at offset %d is ruled out:\n%s", tok.Text, tok.Start,
					near())
			}
			if b.declName && !tok.isNewline() {
				declNames++
				if !slices.Contains(declNameNext, tok.Text) {
					t.Fatalf("a %q after a declarator's name at offset %d is ruled out:\n%s", tok.Text, tok.Start,
						near())
				}
			}
			if b.stmtName {
				stmtNames++
				if slices.Contains(stmtNameDead, tok.Text) {
					t.Fatalf("a %q after a statement's first name at offset %d is ruled out:\n%s", tok.Text, tok.Start,
						near())
				}
			}
			if !tok.isNewline() {
				var in openBracket
				if n := len(b.stack); n > 0 {
					in = b.stack[n-1]
				}
				kinds, words := adjacentDead(in, b.prev, b.prevKind)
				if kinds&(1<<tok.Kind) != 0 || slices.Contains(words, tok.Text) {
					t.Fatalf("a %q (%v) after %q (%v) at offset %d is ruled out (inner %+v):\n%s", tok.Text, tok.Kind, b.prev, b.prevKind,
						tok.Start, in, near())
				}
				if b.prevKind == javalex.Ident && nameNameDead(in) {
					nameSites++
				}
				if isLiteral(b.prevKind, b.prev) {
					litSites++
				}
				if colonDead(in) {
					colonSites++
				}
				if commaDead(in) {
					commaSites++
				}
			}
			if tok.Text == ")" {
				if n := len(b.stack); n > 0 && forCloseDead(b.stack[n-1]) {
					t.Fatalf("the %q closing a for header at offset %d is ruled out (%+v):\n%s", tok.Text, tok.Start,
						b.stack[n-1], src[max(0, tok.Start-200):tok.Start+1])
				}
				if n := len(b.stack); n > 0 && b.stack[n-1].kw == "for" {
					forCloses++
				}
			}
			b.feed([]streamTok{tok})
		}
	}
	t.Logf("%d braces, %d of them inside an expression statement, %d blocks; %d for headers closed; %d modifiers in class bodies",
		braces, exprBraces, blocks, forCloses, modifiers)
	t.Logf("%d statements that start with a simple name, %d of them \"Foo x\", %d with a primitive type; %d lambdas \"() ->\"",
		stmtNames, declNames, prims, lambdas)
	t.Logf("%d tokens after a name where only an expression goes, %d after a literal, %d where no \":\" may come, %d where no \",\" may",
		nameSites, litSites, colonSites, commaSites)
	if nameSites == 0 || litSites == 0 || colonSites == 0 || commaSites == 0 {
		t.Error("no name in an expression, no literal or no bracket without \"?\": the test checks nothing of adjacentDead")
	}
	if stmtNames == 0 || declNames == 0 || lambdas == 0 || prims == 0 {
		t.Error("no statement starts with a name: the test checks nothing of stmtNameDead")
	}
	if blocks == 0 || modifiers == 0 {
		t.Error("no block or no modifier in a class body: the test checks nothing of modifierDead")
	}
	if forCloses == 0 {
		t.Error("no for header: the test checks nothing of forCloseDead")
	}
	if exprBraces == 0 {
		t.Error("no brace inside an expression statement: the test checks nothing of the expression rule")
	}
}

// TestNoLineBreakInsideStatement: when the buggy hunk breaks lines only
// between statements, Next breaks no line inside a statement at a block's
// level, and still does after one, after a block's "{" or "}" and inside a
// bracket the prefix opened; a buggy hunk that breaks a statement's line
// keeps line breaks everywhere there.
func TestNoLineBreakInsideStatement(t *testing.T) {
	m := jdkModel(t)
	s := mustStart(t, m, callFIM)
	for _, gen := range []string{"        return a[n] || b", "        if (n > 0)", "        n =", "        n = f(a)",
		"        n = 1;\n        else"} {
		if p := candProb(next(t, s, gen, 0), "\n", false); p != 0 {
			t.Errorf("after %q: P(line break) = %g, want 0", gen, p)
		}
	}
	for _, gen := range []string{"        n = f(a);", "        if (n > 0) {", "        }", "        case 1:"} {
		if p := candProb(next(t, s, gen, 0), "\n", false); p == 0 {
			t.Errorf("after %q: no line break", gen)
		}
	}
	if p := candProb(next(t, s, "        n = 1;\n        Foo x", 0), "\n", false); p != 0 {
		t.Errorf("after a declarator's name: P(line break) = %g, want 0", p)
	}
	broken := callFIM
	broken.Buggy = "        n = a[n - 1]\n            + 0;\n"
	if p := candProb(next(t, mustStart(t, m, broken), "        n = f(a)", 0), "\n", false); p == 0 {
		t.Error("the buggy hunk breaks its statement's line: no line break inside a statement")
	}
	// An insertion breaks no line inside a statement or a bracket it
	// opened either; without a buggy hunk (ghost text) the rules are off.
	insert := callFIM
	insert.Buggy, insert.Insert = "", true
	ghost := callFIM
	ghost.Buggy = ""
	for _, gen := range []string{"        return a[n] || b", "        if (n > 0)", "        n = f(a,"} {
		if p := candProb(next(t, mustStart(t, m, insert), gen, 0), "\n", false); p != 0 {
			t.Errorf("insertion, after %q: P(line break) = %g, want 0", gen, p)
		}
		if p := candProb(next(t, mustStart(t, m, ghost), gen, 0), "\n", false); p == 0 {
			t.Errorf("no buggy hunk, after %q: no line break", gen)
		}
	}
	if p := candProb(next(t, mustStart(t, m, insert), "        n = f(a);", 0), "\n", false); p == 0 {
		t.Error("insertion, after a statement: no line break")
	}
}

// TestBreaksMidStatement: the buggy hunk's line breaks after statement
// ends, blocks and labels keep the rule on; any other turns it off.
func TestBreaksMidStatement(t *testing.T) {
	for text, want := range map[string]bool{
		"        n = 1;\n":                       false,
		"        if (a) {\n            n = 1;\n": false,
		"        }\n        case 2:\n":           false,
		"\n        n = 1;\n":                     false,
		"        if (a)\n            n = 1;\n":   true,
		"        n = a\n            + 1;\n":      true,
	} {
		if got := breaksMidStatement(lexStream(text)); got != want {
			t.Errorf("breaksMidStatement(%q) = %v, want %v", text, got, want)
		}
	}
}
