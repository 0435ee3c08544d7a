package inline

// large_test.go: the cost of one ghost-text request on a ~1 MiB Java
// document (the largest ghost text serves, inlinefeat.MaxDocumentBytes),
// with the embedded n-gram model and engine/compiler stand-ins that cost
// nothing, so that what is measured is the size-proportional work of the
// request itself (the model's start, the FIM split, the local parse).
//
//	go test ./inline -run '^$' -bench Large -benchtime 10x -cpuprofile /tmp/cpu.out

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/repilot-lsp/repilot-lsp/engine"
	"github.com/repilot-lsp/repilot-lsp/lm"
	"github.com/repilot-lsp/repilot-lsp/lm/ngram"
)

// largeJava returns a Java class of about n bytes: methods of a few
// statements each, and the offset of a caret inside the last method's body.
func largeJava(n int) (string, int) {
	var b strings.Builder
	b.WriteString("package demo;\n\nimport java.util.List;\n\nclass Large {\n    int total;\n\n")
	for i := 0; b.Len() < n-200; i++ {
		fmt.Fprintf(&b, "    int m%d(List<String> names, int k) {\n        int s%d = names.size() + k * %d;\n        for (String n : names) {\n            s%d += n.length();\n        }\n        total += s%d;\n        return s%d;\n    }\n\n", i, i, i, i, i, i)
	}
	b.WriteString("    void last(List<String> names) {\n        int count = ")
	off := b.Len()
	b.WriteString("\n    }\n}\n")
	return b.String(), off
}

func BenchmarkLargeDocument(b *testing.B) {
	m, err := ngram.Train(context.Background(), ngram.Sources{Roots: []string{"../lm/ngram/testdata/workspace"}}, ngram.Options{})
	if err != nil {
		b.Fatal(err)
	}
	text, off := largeJava(1 << 20)
	c := &funcCompiler{f: func(string) []engine.CompileError { return nil }}
	s := newTestService(m, c, Options{})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		// A new document version each time (one more character typed in
		// a comment at the top), as when the user types: no cache hit.
		i++
		t := text[:14] + "//" + strings.Repeat("x", i) + "\n" + text[14:]
		if _, err := s.Suggest(context.Background(), Request{URI: "file:///demo/Large.java", Text: t, Offset: off + len(t) - len(text), Trigger: Automatic}); err != nil {
			b.Fatal(err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/1e6, "heap-growth-MB")
	b.ReportMetric(float64(after.HeapSys)/1e6, "heap-sys-MB")
	b.ReportMetric(rssMB(), "rss-MB")
}

// rssMB returns the process's resident set size (VmRSS, Linux) in MB, 0
// where it cannot be read.
func rssMB() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1e3
		}
	}
	return 0
}

// TestKeyHashExtendsPrefix: store's keys (one hash state, extended) are the
// keys Suggest looks up (keyOf of the longer prefix), and the fields are
// not confused with one another.
func TestKeyHashExtendsPrefix(t *testing.T) {
	kh := newKeyHash("file:///A.java", "int x = ", ";\n")
	for _, more := range []string{"", "1", "1 + 2"} {
		if got, want := kh.key(more), keyOf("file:///A.java", "int x = "+more, ";\n"); got != want {
			t.Errorf("key(%q) = %s, want keyOf's %s", more, got, want)
		}
	}
	if keyOf("u", "ab", "c") == keyOf("u", "a", "bc") || keyOf("u", "a", "b") == keyOf("ua", "", "b") {
		t.Error("keys of different splits are equal")
	}
}

// fimModel records the FIM contexts it is started with and proposes nothing.
type fimModel struct{ fims []lm.FIM }

func (m *fimModel) Name() string { return "fim" }
func (m *fimModel) Start(ctx context.Context, fim lm.FIM) (lm.Session, error) {
	m.fims = append(m.fims, fim)
	return choiceSession{a: "1;"}, nil
}

// TestLargeDocumentBoundsTheModelsContext: on a 1 MiB document the model is
// started with the lines nearest the caret, at most modelPrefixBytes before
// it and modelSuffixBytes after it, and on a small one with all of it.
func TestLargeDocumentBoundsTheModelsContext(t *testing.T) {
	for _, size := range []int{4 << 10, 1 << 20} {
		text, off := largeJava(size)
		text = text[:off] + strings.Repeat("\n    int pad;", size/12) + text[off:]
		m := &fimModel{}
		c := &funcCompiler{f: func(string) []engine.CompileError { return nil }}
		s := newTestService(m, c, Options{})
		if _, err := s.Suggest(context.Background(), Request{URI: "file:///demo/Large.java", Text: text, Offset: off}); err != nil {
			t.Fatal(err)
		}
		if len(m.fims) == 0 {
			t.Fatalf("%d bytes: the model was not started", size)
		}
		prefix, suffix := text[:off], text[off:]
		for _, f := range m.fims {
			if !strings.HasSuffix(prefix, f.Prefix) || !strings.HasPrefix(suffix, f.Suffix) {
				t.Fatalf("%d bytes: the model's context is not the text around the caret", size)
			}
			if size < modelPrefixBytes && (f.Prefix != prefix || f.Suffix != suffix) {
				t.Errorf("%d bytes: the model saw %d+%d bytes of a %d+%d-byte document", size, len(f.Prefix), len(f.Suffix), len(prefix), len(suffix))
			}
			if len(f.Prefix) > modelPrefixBytes || len(f.Suffix) > modelSuffixBytes {
				t.Errorf("%d bytes: the model saw %d+%d bytes", size, len(f.Prefix), len(f.Suffix))
			}
			if len(f.Prefix) < len(prefix) && prefix[len(prefix)-len(f.Prefix)-1] != '\n' {
				t.Errorf("%d bytes: the model's prefix does not start at a line start", size)
			}
			if len(f.Suffix) < len(suffix) && !strings.HasSuffix(f.Suffix, "\n") {
				t.Errorf("%d bytes: the model's suffix does not end at a line end", size)
			}
		}
	}
}

// TestSyntaxFilterOffOnLargeDocument: the filter does not parse a document
// above maxSyntaxBytes (its parse would outlast the request).
func TestSyntaxFilterOffOnLargeDocument(t *testing.T) {
	small, off := largeJava(8 << 10)
	if f := newSyntaxFilter("file:///demo/Large.java", small[:off], small[off:]); f == nil {
		t.Fatal("the filter is off on a small document")
	} else {
		f.close()
	}
	text, off := largeJava(maxSyntaxBytes + 4096)
	if f := newSyntaxFilter("file:///demo/Large.java", text[:off], text[off:]); f != nil {
		f.close()
		t.Errorf("the filter parses a %d-byte document", len(text))
	}
}

// TestModelContextCutsAtRuneBoundary: when the last modelPrefixBytes of the
// text before the caret (or the first modelSuffixBytes after it) hold no line
// break, as in one long line of a generated file or a string literal of CJK
// text, the model's context is still cut between characters, never inside a
// multi-byte one (the server gets JSON text, which cannot carry half a
// character).
func TestModelContextCutsAtRuneBoundary(t *testing.T) {
	line := strings.Repeat("漢", modelPrefixBytes) // 3 bytes each, no '\n'
	for shift := 0; shift < 3; shift++ {
		prefix := "class A {\n" + line + strings.Repeat("x", shift)
		suffix := strings.Repeat("y", shift) + line + "\n}\n"
		p, s := modelPrefix(prefix), modelSuffix(suffix)
		if !utf8.ValidString(p) || !utf8.ValidString(s) {
			t.Errorf("shift %d: the model's context cuts a character: prefix valid %v, suffix valid %v", shift, utf8.ValidString(p), utf8.ValidString(s))
		}
		if !strings.HasSuffix(prefix, p) || !strings.HasPrefix(suffix, s) {
			t.Fatalf("shift %d: not the text nearest the caret", shift)
		}
		if len(p) > modelPrefixBytes || len(p) < modelPrefixBytes-3 || len(s) > modelSuffixBytes || len(s) < modelSuffixBytes-3 {
			t.Errorf("shift %d: %d+%d bytes, want all but at most a character of %d+%d", shift, len(p), len(s), modelPrefixBytes, modelSuffixBytes)
		}
	}
}
