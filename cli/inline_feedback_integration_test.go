package cli

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/engine"
	"github.com/repilot-lsp/repilot-lsp/inline"
	"github.com/repilot-lsp/repilot-lsp/repair"
)

// TestUnresolvedPrefixesRealJDTLS runs ghost text's feedback rule
// (inline/feedback.go: a rejected sample's unresolved name rejects a prefix
// for the request's later samples) on the real JDT LS's errors: the
// messages it reads have the shapes and lines the rule expects, a name in
// a position a type may take (a cast) rejects nothing, and every case's
// developer-style text (the witness) compiles and starts with no rejected
// prefix. Each case replaces line 15 of the undo-stack fixture
// ("items[size++] = edit;" in push) with line+gen.
func TestUnresolvedPrefixesRealJDTLS(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	root, file, orig := undoStackFixture(t)
	lines := strings.SplitAfter(string(orig), "\n")
	if !strings.Contains(lines[14], "items[size++] = edit;") {
		t.Fatalf("fixture changed: line 15 is %q", lines[14])
	}
	with := func(stmt string) string {
		return strings.Join(lines[:14], "") + stmt + "\n" + strings.Join(lines[15:], "")
	}
	comp := realBackends(ctx, t, root).Compiler
	uri := repair.FileURI(file)
	errorsOn15 := func(text string) []engine.CompileError {
		t.Helper()
		errs, err := comp.CompileErrors(ctx, uri, text)
		if err != nil {
			t.Fatal(err)
		}
		var out []engine.CompileError
		for _, e := range errs {
			if e.Line == 15 {
				out = append(out, e)
			}
		}
		return out
	}
	for _, c := range []struct {
		line, gen, witness string
		want               []string
	}{
		{"        items[size++] = ", "ed;", "edit;", []string{"ed;"}},
		{"        items = Arrays.copyOf(", "it, size * 2);", "items, size * 2);", []string{"it,"}},
		// JDT LS says "to a variable" for an argument's qualifier: "."
		// after a name that is not a variable (it may be a type) rejects
		// nothing; a method's receiver is neither variable, type nor package.
		{"        items = Arrays.copyOf(items, ", "sz.length);", "items.length);", nil},
		{"        items[size++] = ", "ex.toString();", "edit.toString();", []string{"ex."}},
		{"        items[size++] = ", "e + edit;", "edit;", []string{"e +"}},
		{"        items[size++] = ", "Arrays + 1;", "edit;", []string{"Arrays +"}},
		{"        items[size++] = ", "jav.util.Arrays.asList(edit);", "java.util.Arrays.asList(edit);", []string{"jav."}},
		{"        items[size++] = ", "String.valueOf(1 + ed);", "String.valueOf(1 + size);", []string{"String.valueOf(1 + ed)"}},
		// size is an int: "The primitive type int of size does not have a
		// field length", and a primitive has no members.
		{"        items[size++] = ", "\"a\" + size.length;", "\"a\" + size;", []string{"\"a\" + size."}},
		// A cast: "x cannot be resolved to a type", and ")" after a
		// name that may be a type rejects nothing.
		{"        items[size++] = (", "Q) edit;", "Object) edit;", nil},
		// A declared name is no unresolved one; the later use is.
		{"        int ", "k = q;", "k = size;", []string{"k = q;"}},
	} {
		errs := errorsOn15(with(c.line + c.gen))
		got := inline.UnresolvedPrefixes(c.line, c.gen, 15, errs)
		if !slices.Equal(got, c.want) {
			t.Errorf("%q + %q: JDT LS errors %v, prefixes %q, want %q", c.line, c.gen, errs, got, c.want)
		}
		if errs := errorsOn15(with(c.line + c.witness)); len(errs) > 0 {
			t.Errorf("witness %q + %q does not compile: %v", c.line, c.witness, errs)
		}
		for _, p := range got {
			if strings.HasPrefix(c.witness, p) {
				t.Errorf("%q: the compilable witness %q starts with the rejected prefix %q", c.line, c.witness, p)
			}
		}
	}
}
