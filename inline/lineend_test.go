package inline

import (
	"context"
	"strings"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/engine"
)

// TestCRLFDocumentGetsCRLFSuggestion: in a document with "\r\n" line ends, a
// multi-line suggestion the model wrote with "\n" is checked and shown with
// "\r\n", so accepting it does not leave mixed line ends; a "\n" document
// keeps "\n" even where the model wrote "\r\n".
func TestCRLFDocumentGetsCRLFSuggestion(t *testing.T) {
	for _, c := range []struct {
		name, end, middle string
	}{
		{"crlf", "\r\n", "\n      x++;\n      x--;"},
		{"lf", "\n", "\r\n      x++;\r\n      x--;"},
		{"cr", "\r", "\n      x++;\n      x--;"}, // a lone "\r" ends lines (LSP 3.17)
	} {
		t.Run(c.name, func(t *testing.T) {
			doc := strings.ReplaceAll("class A {\n  void f(int x) {\n    if (x > 0) {\n    }\n  }\n}\n", "\n", c.end)
			var checked []string
			comp := &funcCompiler{f: func(text string) []engine.CompileError {
				checked = append(checked, text)
				return nil
			}}
			s := newTestService(&scriptModel{middle: c.middle}, comp, Options{})
			off := strings.Index(doc, "{"+c.end+"    }") + 1
			got, err := s.Suggest(context.Background(), Request{URI: "file:///A.java", Text: doc, Offset: off})
			if err != nil || got == nil {
				t.Fatalf("Suggest = %v, %v", got, err)
			}
			want := strings.ReplaceAll(strings.ReplaceAll(c.middle, "\r\n", "\n"), "\n", c.end)
			if got.Text != want {
				t.Errorf("suggestion %q, want %q", got.Text, want)
			}
			for _, text := range checked {
				if n := strings.Count(strings.ReplaceAll(text, "\r\n", ""), "\n"); c.end == "\r\n" && n > 0 {
					t.Errorf("checked a text with %d lone \"\\n\": %q", n, text)
				}
				if c.end == "\n" && strings.Contains(text, "\r") {
					t.Errorf("checked a text with \"\\r\": %q", text)
				}
			}
		})
	}
}

func TestLineEndAt(t *testing.T) {
	for _, c := range []struct{ prefix, suffix, want string }{
		{"a\r\nb", "c\r\nd", "\r\n"},
		{"a\nb", "c\nd", "\n"},
		{"a\r\nb\r", "\nd", "\r\n"}, // the caret between "\r" and "\n"
		{"a\r\nb", "c", "\r\n"},     // the last line: the line before's
		{"a\nb", "c", "\n"},
		{"ab", "c", "\n"},
		{"", "", "\n"},
		{"a\rb", "c\rd", "\r"}, // lone "\r" ends lines (LSP 3.17 "Text Documents")
		{"a\rb", "c", "\r"},
		{"a\r\nb\r", "c", "\r"},
	} {
		if got := lineEndAt(c.prefix, c.suffix); got != c.want {
			t.Errorf("lineEndAt(%q, %q) = %q, want %q", c.prefix, c.suffix, got, c.want)
		}
	}
}

// TestSpanOfCountsEveryLineEnd: the guarantee compares the shadow JDT LS's
// error lines with the lines an insertion covers; JDT LS (as LSP 3.17 and
// JLS 3.4) ends a line at "\n", "\r\n" and a lone "\r", so the span must
// too, or an error the insertion introduced in a lone-CR file would be
// matched against the wrong line.
func TestSpanOfCountsEveryLineEnd(t *testing.T) {
	for _, c := range []struct {
		prefix, text string
		want         Span
	}{
		{"a\nb\n  ", "x();\ny();", Span{3, 4}},
		{"a\r\nb\r\n  ", "x();\r\ny();", Span{3, 4}},
		{"a\rb\r  ", "x();\ry();", Span{3, 4}},
		{"a\r\rb\n\r  ", "x();", Span{5, 5}},
	} {
		if got := spanOf(c.prefix, c.text); got != c.want {
			t.Errorf("spanOf(%q, %q) = %v, want %v", c.prefix, c.text, got, c.want)
		}
	}
}

// TestLoneCRDocumentAsLF: ghost text in a document whose lines end with a
// lone "\r" (LSP 3.17 "Text Documents") is the suggestion of the same
// document with "\n" line ends, written with "\r": the stop rule, the
// indentation and the guarantee's lines see the same lines.
func TestLoneCRDocumentAsLF(t *testing.T) {
	doc := "class A {\n  void f(int x) {\n    x = \n    if (x > 0) {\n      \n    }\n  }\n}\n"
	for _, c := range []struct {
		caret  string // the caret is after the first occurrence
		middle string
	}{
		{"x = ", "1;\n    y();\n"},
		{"{\n      ", "x++;\n      x--;\n    }\n    z();"},
		{"{\n  void f(int x) {", "\n    int y = 2;\n    int z = 3;"},
	} {
		var lf, cr *Suggestion
		for _, end := range []string{"\n", "\r"} {
			text := strings.ReplaceAll(doc, "\n", end)
			off := strings.Index(text, strings.ReplaceAll(c.caret, "\n", end)) + len(c.caret)
			var checked []string
			comp := &funcCompiler{f: func(text string) []engine.CompileError {
				checked = append(checked, text)
				return nil
			}}
			s := newTestService(&scriptModel{middle: c.middle}, comp, Options{})
			got, err := s.Suggest(context.Background(), Request{URI: "file:///A.java", Text: text, Offset: off})
			if err != nil || got == nil {
				t.Fatalf("%q at %q: Suggest = %v, %v", end, c.caret, got, err)
			}
			if end == "\n" {
				lf = got
			} else {
				cr = got
			}
		}
		if want := strings.ReplaceAll(lf.Text, "\n", "\r"); cr.Text != want {
			t.Errorf("at %q: suggestion %q in the lone-CR document, want %q (the LF document's %q)", c.caret, cr.Text, want, lf.Text)
		}
	}
}
