package inline

import (
	"context"
	"strings"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/engine"
)

// TestStopRuleInsideLiteral: a caret inside a string, character literal,
// text block or comment starts the scanner there, so the natural
// completion may end; a complete text block generated after the caret does
// not leave a literal open, and brackets inside it do not count; a "{"
// ending a comment opens no block.
func TestStopRuleInsideLiteral(t *testing.T) {
	for _, c := range []struct {
		prefix, gen string
		mayEnd      bool
		cutNewline  int // r.cut(gen, "\n")
	}{
		{"    x = foo(\"hello ", "world\");", true, 0},           // inside a string
		{"    x = foo(\"hello ", "world", false, -1},             // still inside it
		{"    x = foo('", "a');", true, 0},                       // inside a char literal
		{"    x = foo(\"a\\", "\"b\");", true, 0},                // after a backslash: \" is escaped
		{"    x = foo(/* (", " */ a);", true, 0},                 // inside a block comment
		{"    x = foo(/* (*", "/ a);", true, 0},                  // its "*" then "/" closes it
		{"    x = foo(a); // (", " b", true, 0},                  // inside a line comment
		{"    String s = ", "\"\"\"\n  (\n  \"\"\";", true, 0},   // a whole text block
		{"    String s = ", "\"\"\"\n  (\n", false, -1},          // an open one
		{"    String s = \"\"\"\n  a(", "b\n  \"\"\";", true, 0}, // the caret inside one
		{"    String s = \"\";", "x();", true, 0},                // an empty string is no text block
	} {
		r := newStopRule(c.prefix, "\n}\n")
		if got := r.mayEnd(c.gen); got != c.mayEnd {
			t.Errorf("prefix %q: mayEnd(%q) = %v, want %v", c.prefix, c.gen, got, c.mayEnd)
		}
		if got := r.cut(c.gen, "\n"); got != c.cutNewline {
			t.Errorf("prefix %q: cut(%q, newline) = %d, want %d", c.prefix, c.gen, got, c.cutNewline)
		}
	}
	if r := newStopRule("    foo(); // {", "\n}\n"); r.block {
		t.Error(`"{" at the end of a line comment opened a block`)
	}
}

// TestSuggestOddDocuments: Suggest answers (or shows nothing) without
// panicking on unterminated literals and comments, deep nesting, a long
// line and carets at the document's ends.
func TestSuggestOddDocuments(t *testing.T) {
	docs := []string{
		"class A {\n  String s = \"\"\"\n  (((\n",
		"class A {\n  /* never ends (\n",
		"class A {\n  char c = '\\u0027\n",
		"class A {\n  int x = " + strings.Repeat("(", 100000) + "\n}\n",
		"class A {\n  int x = 1" + strings.Repeat(" + 1", 200000) + ";\n}\n",
		"\"\\",
		"",
	}
	for _, middle := range []string{"1);", "\"\"\"\n)\n\"\"\";", "*/ }", "'\\''"} {
		for _, d := range docs {
			for _, off := range []int{0, len(d) / 2, len(d)} {
				m := &scriptModel{middle: middle}
				c := &funcCompiler{f: func(string) []engine.CompileError { return nil }}
				s := newTestService(m, c, Options{})
				if _, err := s.Suggest(context.Background(), Request{URI: "file:///A.java", Text: d, Offset: off}); err != nil {
					t.Logf("%d-byte document at %d: %v", len(d), off, err)
				}
			}
		}
	}
}

// FuzzStopRule: the stop rule never panics and cuts inside the token.
func FuzzStopRule(f *testing.F) {
	f.Add("x = foo(\"a", "\n}", "b\");", "\n")
	f.Add("if (a) {", "\n}", "\"\"\"\n", "}")
	f.Add("/* ", "*/", "'\\u0027'", "\n")
	f.Add("s = \"\"\"\n", "", "\\\"\"\"", ";")
	f.Fuzz(func(t *testing.T, prefix, suffix, gen, tok string) {
		r := newStopRule(prefix, suffix)
		r.mayEnd(gen)
		if k := r.cut(gen, tok); k > len(tok) || k < -1 {
			t.Fatalf("cut %d of %d", k, len(tok))
		}
	})
}
