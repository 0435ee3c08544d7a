package inline

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/engine"
)

// projectURI returns the URI of A.java in a new folder whose pom.xml sets
// the Java release.
func projectURI(t *testing.T, release string) string {
	dir := t.TempDir()
	pom := "<project><properties><maven.compiler.release>" + release + "</maven.compiler.release></properties></project>\n"
	if err := os.WriteFile(filepath.Join(dir, "pom.xml"), []byte(pom), 0o644); err != nil {
		t.Fatal(err)
	}
	return "file://" + filepath.ToSlash(filepath.Join(dir, "A.java"))
}

// waitForSyntax lets cannotParse wait for the reference's parse however
// long it takes (on a loaded machine the background parse may start late).
func waitForSyntax(t *testing.T) {
	old := syntaxWait
	syntaxWait = time.Minute
	t.Cleanup(func() { syntaxWait = old })
}

func TestSyntaxFilter(t *testing.T) {
	waitForSyntax(t)
	uri := projectURI(t, "17")
	const file = "class A {\n  void f() {\n    int x = foo(\n    g();\n  }\n  int foo(int a) { return a; }\n  void g() {}\n}\n"
	caret := strings.Index(file, "foo(") + len("foo(")
	prefix, suffix := file[:caret], file[caret:]
	for _, c := range []struct {
		text string
		want bool
	}{
		{"1);", false},
		{"1 + foo(2));", false},
		{"unknownName);", false}, // a compile error, not a syntax error: for the check
		{"1) {}", true},          // a block where the statement needs ";"
		{"1,", true},             // the line ends inside the call
		{"1));", true},
		{"1", true},
		{`"a\u0022);`, false}, // a Unicode escape: never judged
	} {
		f := newSyntaxFilter(uri, prefix, suffix)
		if f == nil {
			t.Fatal("filter off at Java 17")
		}
		if got := f.cannotParse(context.Background(), c.text); got != c.want {
			t.Errorf("cannotParse(%q) = %v, want %v", c.text, got, c.want)
		}
		f.close()
	}
}

func TestSyntaxFilterOff(t *testing.T) {
	waitForSyntax(t)
	const file = "class A {\n  void f() {\n    int x = foo(\n  }\n}\n"
	caret := strings.Index(file, "foo(") + len("foo(")
	// A level the grammar is not verified for: off.
	if f := newSyntaxFilter(projectURI(t, "22"), file[:caret], file[caret:]); f != nil {
		f.close()
		t.Error("filter on at Java 22")
	}
	// The rest of the file has a syntax error of its own: nothing is judged.
	broken := strings.Replace(file, "  }\n}", "  }\n  void g( {}\n}", 1)
	f := newSyntaxFilter(projectURI(t, "17"), broken[:caret], broken[caret:])
	defer f.close()
	if f.cannotParse(context.Background(), "1,") {
		t.Error("cannotParse judged a sample where the rest of the file does not parse")
	}
}

// TestUnparsableSampleIsNotChecked: a sample that cannot parse never
// reaches the compiler (which here would pass it), and the next sample is
// shown.
func TestUnparsableSampleIsNotChecked(t *testing.T) {
	waitForSyntax(t)
	var mu sync.Mutex
	var seen []string
	c := &funcCompiler{f: func(text string) []engine.CompileError {
		mu.Lock()
		seen = append(seen, text)
		mu.Unlock()
		return nil
	}}
	m := choiceModel{a: "1 +\n", b: "3;\n"}
	s := newTestService(m, c, Options{AutomaticSamples: 2, AutomaticBudget: time.Minute})
	uri := projectURI(t, "17")
	got, err := s.Suggest(context.Background(), Request{URI: uri, Text: doc, Offset: strings.Index(doc, "= ") + 2})
	if err != nil || got == nil || got.Text != "3;" {
		t.Fatalf("Suggest = %+v, %v; want 3;", got, err)
	}
	if got.Stats.Unparsable != 1 {
		t.Errorf("unparsable samples %d, want 1", got.Stats.Unparsable)
	}
	for _, text := range seen {
		if strings.Contains(text, "1 +\n") {
			t.Errorf("the compiler checked the unparsable sample: %q", text)
		}
	}
}

// An unparsable sample is tried: the next sample does not end with it
// again, even at a temperature near 0 where the model all but insists on it,
// so the one sample the request may check is the other text.
func TestUnparsableSampleIsNotRedrawn(t *testing.T) {
	waitForSyntax(t)
	c := &funcCompiler{f: func(string) []engine.CompileError { return nil }}
	m := choiceModel{a: "1 +\n", b: "3;\n"}
	s := newTestService(m, c, Options{AutomaticSamples: 1, AutomaticTemperature: 0.01, AutomaticBudget: time.Minute})
	uri := projectURI(t, "17")
	got, err := s.Suggest(context.Background(), Request{URI: uri, Text: doc, Offset: strings.Index(doc, "= ") + 2})
	if err != nil || got == nil || got.Text != "3;" {
		t.Fatalf("Suggest = %+v, %v; want 3;", got, err)
	}
	if st := got.Stats; st.Unparsable != 1 || st.Repeated != 0 || st.Samples != 2 || c.calls.Load() != 1 {
		t.Errorf("%d unparsable, %d repeated, %d samples, %d checks; want 1, 0, 2, 1", st.Unparsable, st.Repeated, st.Samples, c.calls.Load())
	}
}
