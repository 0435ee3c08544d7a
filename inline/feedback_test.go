package inline

import (
	"slices"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/engine"
)

// TestUnresolvedPrefixes pins when a rejected sample's unresolved name
// rejects a prefix (feedback.go): only where the tokens around it make it
// an expression name in every continuation, at its first simple-name
// occurrence, with JDT LS's message on its line.
func TestUnresolvedPrefixes(t *testing.T) {
	v := func(x string, line int) engine.CompileError {
		return engine.CompileError{Line: line, Message: x + " cannot be resolved to a variable"}
	}
	n := func(x string, line int) engine.CompileError {
		return engine.CompileError{Line: line, Message: x + " cannot be resolved"}
	}
	for _, c := range []struct {
		line, gen string
		errs      []engine.CompileError
		want      []string
	}{
		// Arguments of a call, the call opened before the caret.
		{"        log(WARNING, ", "msg, params);", []engine.CompileError{v("msg", 7), v("params", 7)}, []string{"msg,", "msg, params)"}},
		{"        int n = ", "sh.length;", []engine.CompileError{n("sh", 7)}, []string{"sh."}},
		{"        x = ", "e + 1;", []engine.CompileError{v("e", 7)}, []string{"e +"}},
		{"        ", "f1 = 2;", []engine.CompileError{v("f1", 7)}, []string{"f1 ="}},
		{"        a[", "i] = 0;", []engine.CompileError{v("i", 7)}, []string{"i]"}},
		// The healed part is the name itself.
		{"        return ", "ms;", []engine.CompileError{v("ms", 7)}, []string{"ms;"}},
		// The error on another line: not this occurrence's.
		{"        x = ", "e + 1;", []engine.CompileError{v("e", 8)}, nil},
		// "." after a name that is only not a variable: maybe a type.
		{"        int n = ", "sh.length;", []engine.CompileError{v("sh", 7)}, nil},
		// ")" or "," outside a call's arguments: a cast, a lambda's
		// parameters, type arguments.
		{"        Object o = (", "x) y;", []engine.CompileError{v("x", 7)}, nil},
		{"        run((", "a, b));", []engine.CompileError{v("a", 7)}, nil},
		{"        f(List<A, ", "x>::new);", []engine.CompileError{v("x", 7)}, nil},
		{"        f(a -> b, ", "x);", []engine.CompileError{v("x", 7)}, nil},
		// Followers a type or lambda parameter may take.
		{"        ", "x[] a = null;", []engine.CompileError{v("x", 7)}, nil},
		{"        ", "x -> 1;", []engine.CompileError{v("x", 7)}, nil},
		{"        ", "x<y;", []engine.CompileError{v("x", 7)}, nil},
		// A declared name, a member name, a later occurrence.
		{"        int ", "x = y;", []engine.CompileError{v("x", 7)}, nil},
		{"        foo(", "a.x, x);", []engine.CompileError{v("x", 7)}, []string{"a.x, x)"}},
		{"        foo(", "x(), x);", []engine.CompileError{v("x", 7)}, nil},
		// An annotation on the line, a text block or comment end before
		// the caret.
		{"        @A(", "x = 1) int y;", []engine.CompileError{v("x", 7)}, nil},
		{"        */ x = ", "e;", []engine.CompileError{v("e", 7)}, nil},
		// Inside a literal.
		{"        s = \"", "e;", []engine.CompileError{v("e", 7)}, nil},
		// An operand of a binary operator: no type, lambda parameter or
		// declared name, whatever follows.
		{"        log(", "\".encoding\" + e);", []engine.CompileError{v("e", 7)}, []string{"\".encoding\" + e)"}},
		{"        return ", "!ok, 1;", []engine.CompileError{v("ok", 7)}, []string{"!ok,"}},
		{"        f(a < ", "x, y > z);", []engine.CompileError{v("x", 7)}, nil},
		{"        Object o = (A & ", "x) y;", []engine.CompileError{v("x", 7)}, nil},
		// A variable of a primitive type has no members.
		{"        println(", "\"a\" + code.length);", []engine.CompileError{{Line: 7, Message: "The primitive type int of code does not have a field length"}}, []string{"\"a\" + code."}},
		{"        int ", "code.length;", []engine.CompileError{{Line: 7, Message: "The primitive type int of code does not have a field length"}}, nil},
		// A second line of a block suggestion.
		{"        if (ok) {", "\n            e++;\n        }", []engine.CompileError{v("e", 8)}, []string{"\n            e++"}},
	} {
		got := UnresolvedPrefixes(c.line, c.gen, 7, c.errs)
		if !slices.Equal(got, c.want) {
			t.Errorf("%q + %q, errors %v: prefixes %q, want %q", c.line, c.gen, c.errs, got, c.want)
		}
	}
}
