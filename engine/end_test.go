package engine

// end_test.go tests the end-of-hunk syntax check (end.go): its verdicts on
// small files, its gating by language level, and its strictness on real Java
// (every JDK source archive on the machine, every fix of the bug corpus).

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/corpus"
	"github.com/repilot-lsp/repilot-lsp/internal/jdksrc"
	"github.com/repilot-lsp/repilot-lsp/internal/realpart"
	"github.com/repilot-lsp/repilot-lsp/javaenv"
	"github.com/repilot-lsp/repilot-lsp/lm/ngram"
)

// java17 is the level the small files here are judged at.
var java17 = javaenv.Level{Release: 17, From: "test"}

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
			j := syntaxJudge{h: splitAt(t, c.file, 5), level: java17}
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
// strictness: at every level the check is on for (EndCheckLevels),
// tree-sitter-java must parse every file of java.base without an error. It
// runs over every JDK source archive on the machine (javaenv.SrcZips: the
// JDK in use and each under /usr/lib/jvm), and needs one at a verified
// level (scripts/install.sh --tests installs openjdk-17-source). An archive
// above the verified levels is parsed too, and the files the grammar
// rejects there are listed: they are why the check is off at that level.
func TestEndGrammarAcceptsJDK(t *testing.T) {
	realpart.JDKSource.Short(t)
	zips := javaenv.SrcZips()
	verified := 0
	for _, z := range zips {
		l := javaenv.Level{Release: z.Release, From: z.Home}
		on, why := EndCheckOn(l)
		if on {
			verified++
		}
		t.Run(fmt.Sprintf("jdk%d", z.Release), func(t *testing.T) {
			t.Parallel() // one parser each; the archives take about a minute each on one core
			var j syntaxJudge
			n, bad := 0, 0
			jdksrc.Each(t, z.Path, "java.base/", func(name, text string) bool {
				ok, err := j.parses(context.Background(), text)
				if err != nil {
					t.Fatal(err)
				}
				n++
				if !ok {
					bad++
					if on {
						t.Errorf("%s: tree-sitter-java reports a syntax error in a file javac %d compiles", name, z.Release)
					} else {
						t.Logf("%s: rejected by the grammar (the end check is off at this level)", name)
					}
				}
				return true
			})
			if n < 1000 {
				t.Fatalf("only %d java.base files in %s", n, z.Path)
			}
			if on {
				t.Logf("%s: all %d java.base files parse; the end check is on at Java %d", z.Path, n, z.Release)
			} else {
				t.Logf("%s: %d of %d java.base files rejected; the end check is off: %s", z.Path, bad, n, why)
			}
		})
	}
	if verified == 0 {
		realpart.JDKSource.Require(t, fmt.Errorf("no JDK source archive at a level the end check is on for (%d-%d); found %d archives", EndCheckLevels.Min, EndCheckLevels.Max, len(zips)))
	}
}

// TestEndCheckLevels: the check is off wherever the grammar is not verified,
// and the example shows why: Java 22's case label with several
// unnamed patterns does not parse, so at level 22 the end after it must be
// Unknown, never Infeasible (javac 22 compiles it); at level 17, where javac
// rejects it too, pruning it is right.
func TestEndCheckLevels(t *testing.T) {
	const file = `package p;

sealed interface Shape permits Circle, Square {}
record Circle(double r) implements Shape {}
record Square(double s) implements Shape {}

class Area {
    int sides(Shape shape) {
        return switch (shape) {
            case Circle c -> 0;
            case Square q -> 4;
        };
    }
}
`
	ctx := context.Background()
	for _, c := range []struct {
		level     javaenv.Level
		generated string
		want      Outcome
	}{
		{javaenv.Level{Release: 17, From: "t"}, "            case Square q -> 4;", Unknown},
		{javaenv.Level{Release: 17, From: "t"}, "            case Circle _, Square _ -> 4;", Infeasible},
		{javaenv.Level{Release: 20, From: "t"}, "            case Square q -> 4", Infeasible},
		{javaenv.Level{Release: 21, From: "t"}, "            case Square q -> 4", Unknown},
		{javaenv.Level{Release: 22, From: "t"}, "            case Circle _, Square _ -> 4;", Unknown},
		{javaenv.Level{Release: 25, From: "t"}, "            case Circle _, Square _ -> 4;", Unknown},
		{javaenv.Level{Release: 17, Preview: true, From: "t"}, "            case Square q -> 4", Unknown},
		{javaenv.Level{From: "unknown"}, "            case Square q -> 4", Unknown},
		{javaenv.Level{Release: 6, From: "t"}, "            case Square q -> 4", Unknown},
	} {
		j := syntaxJudge{h: splitAt(t, file, 11), level: c.level}
		got, err := j.end(ctx, c.generated)
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("at %v, end after %q = %v, want %v", c.level, c.generated, got, c.want)
		}
	}
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
		j := syntaxJudge{h: h, level: fixtureLevel(t, b)}
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

// fixtureLevel is the level a corpus fixture's file is judged at: its build
// file's (javaenv.FileLevel), which must be one the end check is on at; for
// a fixture without a build file, Java 17. FileLevel would give the release
// of the JDK running the test there (JAVA_HOME: Java 25 when the suite runs
// against JDT LS 1.60), which says nothing about the fixture: those fixtures
// are Java 17 sources, compiled by the default JDK 17 in
// scripts/check-corpus.sh.
func fixtureLevel(t *testing.T, b corpus.Bug) javaenv.Level {
	t.Helper()
	for _, name := range []string{"pom.xml", "build.gradle", "build.gradle.kts", ".settings/org.eclipse.jdt.core.prefs"} {
		if _, err := os.Stat(filepath.Join(b.ProjectDir(), filepath.FromSlash(name))); err == nil {
			l := javaenv.FileLevel(b.FilePath())
			if on, why := EndCheckOn(l); !on {
				t.Errorf("%s: the end check is off at the level of its %s: %s", b.ID, name, why)
			}
			return l
		}
	}
	return java17
}

// BenchmarkEndCheck times one end check on a large real file: the JDK's
// java/util/Collections.java (5,794 lines in JDK 17), hunk at its middle line.
func BenchmarkEndCheck(b *testing.B) {
	text := jdkFile(b, "java.base/java/util/Collections.java")
	lines := corpus.SplitLines(text)
	mid := len(lines) / 2
	j := syntaxJudge{h: Hunk{Prefix: strings.Join(lines[:mid], ""), Buggy: lines[mid], Suffix: strings.Join(lines[mid+1:], "")}, level: java17}
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
		j := syntaxJudge{h: Hunk{Prefix: strings.Join(lines[:at], ""), Buggy: lines[at], Suffix: strings.Join(lines[at+1:], "")}, level: java17}
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

// TestEndSurvivesCancelledCalls: a call whose ctx is already cancelled
// answers ctx's error and leaves the session's parser usable. Before the
// parse checked ctx itself, go-tree-sitter's watcher goroutine could set
// the parser's cancel flag after a parse returned, and every later parse
// failed.
func TestEndSurvivesCancelledCalls(t *testing.T) {
	j := syntaxJudge{h: splitAt(t, endFile, 5), level: java17}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for i := 0; i < 300; i++ {
		if _, err := j.parse(cancelled, nil, endFile); err != context.Canceled {
			t.Fatalf("call %d: parse with a cancelled ctx: err %v, want context.Canceled", i, err)
		}
		ok, err := j.parses(context.Background(), endFile)
		if err != nil || !ok {
			t.Fatalf("call %d: the parser failed after a cancelled call: ok %v, err %v", i, ok, err)
		}
	}
}
