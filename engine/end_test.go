package engine

// end_test.go tests the end-of-hunk syntax check (end.go): its verdicts on
// small files, and its strictness on real Java (every file of the JDK's
// java.base sources, every fix of the bug corpus).

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/corpus"
	"github.com/repilot-lsp/repilot-lsp/internal/jdksrc"
	"github.com/repilot-lsp/repilot-lsp/lm/ngram"
)

const endFile = `package p;

class C {
    boolean overlaps(int a, int b) {
        return a < b;
    }
}
`

// splitAt cuts endFile around its line n (1-based) as a Hunk.
func splitAt(t *testing.T, text string, n int) Hunk {
	t.Helper()
	lines := corpus.SplitLines(text)
	return Hunk{
		URI:    "file:///C.java",
		Prefix: strings.Join(lines[:n-1], ""),
		Buggy:  lines[n-1],
		Suffix: strings.Join(lines[n:], ""),
	}
}

func TestEndVerdicts(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name, file, generated string
		want                  Outcome
	}{
		{"complete statement", endFile, "        return a > b;", Unknown},
		{"complete statement with newline", endFile, "        return a > b;\n", Unknown},
		{"two statements", endFile, "        int c = a;\n        return c < b;\n", Unknown},
		{"empty hunk (deletion) leaves a missing return, not a syntax error", endFile, "", Unknown},
		{"missing semicolon", endFile, "        return a < b", Infeasible},
		{"unclosed paren", endFile, "        return (a < b;", Infeasible},
		{"extra brace", endFile, "        return a < b; }", Infeasible},
		{"dangling operator", endFile, "        return a <;", Infeasible},
		// javac rejects a modifier on a local variable; the grammar is more
		// permissive, and the check stays silent (Unknown is always safe).
		{"permissive grammar: public local", endFile, "        public int x;", Unknown},
		{"unicode escape is not judged", endFile, "        return a \\u003c b", Unknown},
		{"file that does not parse as it stands", strings.Replace(endFile, "class C {", "class C {{", 1), "        return a < b", Unknown},
	} {
		t.Run(c.name, func(t *testing.T) {
			j := syntaxJudge{h: splitAt(t, c.file, 5)}
			got, err := j.end(ctx, c.generated)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("end after %q = %v, want %v", c.generated, got, c.want)
			}
		})
	}
}

// TestEndGrammarAcceptsJDK is the evidence behind the end check's
// strictness: tree-sitter-java must parse every file of java.base (JDK
// sources, Java 17) without an error.
func TestEndGrammarAcceptsJDK(t *testing.T) {
	var j syntaxJudge
	n := 0
	eachJDKFile(t, "java.base/", func(name, text string) {
		ok, err := j.parses(context.Background(), text)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			t.Errorf("%s: tree-sitter-java reports a syntax error in a file javac compiles", name)
		}
		n++
	})
	if n < 1000 {
		t.Fatalf("only %d java.base files in %s", n, ngram.FindJDKSrcZip())
	}
	t.Logf("%d java.base files parsed without error", n)
}

// TestEndSoundOnBugCorpus: every fixture's fix may end where it ends.
func TestEndSoundOnBugCorpus(t *testing.T) {
	bugs, err := corpus.Load(filepath.Join("..", "testdata", "bugs"))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bugs {
		raw, err := os.ReadFile(b.FilePath())
		if err != nil {
			t.Fatal(err)
		}
		lines := corpus.SplitLines(string(raw))
		h := Hunk{
			Prefix: strings.Join(lines[:b.StartLine-1], ""),
			Buggy:  strings.Join(lines[b.StartLine-1:b.EndLine], ""),
			Suffix: strings.Join(lines[b.EndLine:], ""),
		}
		j := syntaxJudge{h: h}
		out, err := j.end(context.Background(), b.FixedHunk)
		if err != nil {
			t.Fatal(err)
		}
		if j.base == nil {
			t.Errorf("%s: the buggy file does not parse, so the end check is off there", b.ID)
		}
		if out == Infeasible {
			t.Errorf("%s: the developer's fix was judged unable to end", b.ID)
		}
	}
}

// BenchmarkEndCheck times one end check on a large real file: the JDK's
// java/util/Collections.java (5,794 lines in JDK 17), hunk at its middle line.
func BenchmarkEndCheck(b *testing.B) {
	text := jdkFile(b, "java.base/java/util/Collections.java")
	lines := corpus.SplitLines(text)
	mid := len(lines) / 2
	j := syntaxJudge{h: Hunk{Prefix: strings.Join(lines[:mid], ""), Buggy: lines[mid], Suffix: strings.Join(lines[mid+1:], "")}}
	ctx := context.Background()
	if _, err := j.end(ctx, lines[mid]); err != nil { // the one-time parse of the file as it stands
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := j.end(ctx, lines[mid]); err != nil {
			b.Fatal(err)
		}
	}
}

// TestEndIncrementalMatchesFullParse: the incremental reparse (an edited copy
// of the buggy file's tree) gives the verdict a parse from scratch gives, on
// seeded edits of a real file: a line replaced by another, deleted, or cut.
func TestEndIncrementalMatchesFullParse(t *testing.T) {
	text := jdkFile(t, "java.base/java/util/ArrayDeque.java")
	lines := corpus.SplitLines(text)
	ctx := context.Background()
	bad := 0
	for i := 0; i < 120; i++ {
		at := (i*7919 + 13) % len(lines)
		var gen string
		switch i % 3 {
		case 0:
			gen = lines[(i*104729+7)%len(lines)] // another line
		case 1:
			gen = "" // deleted
		case 2:
			gen = lines[at][:len(lines[at])/2] // cut in half
		}
		j := syntaxJudge{h: Hunk{Prefix: strings.Join(lines[:at], ""), Buggy: lines[at], Suffix: strings.Join(lines[at+1:], "")}}
		got, err := j.end(ctx, gen)
		if err != nil {
			t.Fatal(err)
		}
		full := gen
		if full != "" && !strings.HasSuffix(full, "\n") {
			full += "\n"
		}
		ok, err := j.parses(ctx, j.h.Prefix+full+j.h.Suffix)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]Outcome{true: Unknown, false: Infeasible}[ok]; got != want {
			t.Errorf("line %d replaced by %q: incremental %v, full parse %v", at+1, gen, got, want)
		}
		if !ok {
			bad++
		}
	}
	if bad == 0 || bad == 120 {
		t.Fatalf("%d of 120 edits do not parse: the test needs both kinds", bad)
	}
	t.Logf("%d of 120 edits do not parse; incremental and full parse agree on all", bad)
}

// eachJDKFile calls fn with the name and text of every .java file under
// prefix in the JDK's src.zip, failing (or skipping with
// REPILOT_SKIP_JDK_SRC=1) when there is none.
func eachJDKFile(t testing.TB, prefix string, fn func(name, text string)) {
	t.Helper()
	jdksrc.Each(t, jdksrc.Require(t, ngram.FindJDKSrcZip()), prefix, func(name, text string) bool {
		fn(name, text)
		return true
	})
}

// jdkFile returns the text of one file of src.zip (see eachJDKFile).
func jdkFile(t testing.TB, name string) string {
	t.Helper()
	text, found := "", false
	jdksrc.Each(t, jdksrc.Require(t, ngram.FindJDKSrcZip()), name, func(n, s string) bool {
		if n == name {
			text, found = s, true
		}
		return !found
	})
	if !found {
		t.Fatalf("%s not in %s", name, ngram.FindJDKSrcZip())
	}
	return text
}
