package engine

// modern_test.go checks the engine on fixes written with Java 17-25 syntax
// (engine/testdata/modern: text blocks, switch expressions with yield,
// sealed/permits, record patterns qualified and generic, switch with when,
// case null/default, unnamed variables and patterns, several patterns in one
// case label, statements before super(...), import module), each in a Maven
// project set to its level. A fix may use syntax newer than the end check's
// grammar: then the end check must be off at that level, never prune.

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/corpus"
	"github.com/repilot-lsp/repilot-lsp/internal/forcetok"
	"github.com/repilot-lsp/repilot-lsp/javaenv"
)

// modernLevel returns the level a modern fixture's file is at, read from
// its pom.xml as the engine reads it, and fails t when that is not the
// level the fixture's name promises (java21-... is at 21).
func modernLevel(t *testing.T, b corpus.Bug) javaenv.Level {
	t.Helper()
	l := javaenv.FileLevel(b.FilePath())
	want, err := strconv.Atoi(strings.TrimPrefix(strings.SplitN(b.ID, "-", 2)[0], "java"))
	if err != nil {
		t.Fatalf("%s: the fixture's name does not start with javaN-", b.ID)
	}
	if l.Release != want || l.Preview {
		t.Fatalf("%s: level %v, want Java %d from its pom.xml", b.ID, l, want)
	}
	return l
}

// splitFixture returns b's file as a Hunk: the buggy lines between Prefix
// and Suffix.
func splitFixture(t *testing.T, b corpus.Bug) Hunk {
	t.Helper()
	data, err := os.ReadFile(b.FilePath())
	if err != nil {
		t.Fatal(err)
	}
	lines := corpus.SplitLines(string(data))
	return Hunk{URI: "file://" + b.FilePath(),
		Prefix: strings.Join(lines[:b.StartLine-1], ""),
		Buggy:  strings.Join(lines[b.StartLine-1:b.EndLine], ""),
		Suffix: strings.Join(lines[b.EndLine:], "")}
}

// TestModernFixturesEnd: the end check never prunes a modern fix's end, at
// the level the fixture's pom.xml sets; at a level it is on for (17 here) it
// is engaged: the same fix cut before its last character is pruned.
func TestModernFixturesEnd(t *testing.T) {
	bugs, err := corpus.Load(modernDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(bugs) < 10 {
		t.Fatalf("only %d modern fixtures in %s", len(bugs), modernDir)
	}
	ctx := context.Background()
	engaged := 0
	for _, b := range bugs {
		l := modernLevel(t, b)
		j := syntaxJudge{h: splitFixture(t, b), level: l}
		out, err := j.end(ctx, b.FixedHunk)
		if err != nil {
			t.Fatal(err)
		}
		if out == Infeasible {
			t.Errorf("%s (%v): the end of the developer's fix was pruned", b.ID, l)
		}
		on, why := EndCheckOn(l)
		if !on {
			t.Logf("%s: end check off: %s", b.ID, why)
			continue
		}
		cut := strings.TrimRight(b.FixedHunk, "\n")
		cut = cut[:len(cut)-1]
		if out, err := j.end(ctx, cut); err != nil || out != Infeasible {
			t.Errorf("%s (%v): the end after the fix cut short (%q) = %v, %v; want infeasible (is the check engaged?)", b.ID, l, cut, out, err)
		}
		engaged++
	}
	if engaged == 0 {
		t.Error("the end check was on for no modern fixture")
	}
}

// TestModernFixturesCompile: each fixture's buggy and fixed files compile
// with javac at the fixture's level (--release), so the fixtures are real
// Java of that level. The newest JDK on the machine compiles them, every
// file on its own in one JVM (testdata/tools/CompileEach.java); fixtures at
// a level newer than that JDK are skipped, saying so.
func TestModernFixturesCompile(t *testing.T) {
	bugs, err := corpus.Load(modernDir)
	if err != nil {
		t.Fatal(err)
	}
	jdks := javaenv.JDKs()
	if len(jdks) == 0 {
		t.Fatal("no JDK found (set JAVA_HOME or put javac on PATH)")
	}
	newest := jdks[0]
	tool, err := filepath.Abs(filepath.Join("testdata", "tools", "CompileEach.java"))
	if err != nil {
		t.Fatal(err)
	}
	byLevel := map[int][]string{}
	dir := t.TempDir()
	for _, b := range bugs {
		l := modernLevel(t, b)
		if l.Release > newest.Release {
			t.Logf("%s: not compiled: Java %d is newer than this machine's newest JDK (%d at %s)", b.ID, l.Release, newest.Release, newest.Home)
			continue
		}
		h := splitFixture(t, b)
		for name, text := range map[string]string{"buggy": h.Prefix + h.Buggy + h.Suffix, "fixed": h.Prefix + b.FixedHunk + h.Suffix} {
			src := filepath.Join(dir, b.ID, name, filepath.Base(b.File))
			if err := os.MkdirAll(filepath.Dir(src), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(src, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			byLevel[l.Release] = append(byLevel[l.Release], src)
		}
	}
	java := filepath.Join(newest.Home, "bin", "java")
	for level, files := range byLevel {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		args := append([]string{tool, strconv.Itoa(level), filepath.Join(dir, "out", strconv.Itoa(level))}, files...)
		out, err := exec.CommandContext(ctx, java, args...).CombinedOutput()
		cancel()
		if err != nil {
			t.Errorf("javac --release %d (%s): %v\n%s", level, newest.Home, err, out)
		} else if n := strings.Count(string(out), "ok "); n != len(files) {
			t.Errorf("javac --release %d: %d of %d files reported ok:\n%s", level, n, len(files), out)
		}
	}
}

// TestSoundnessModernFixtures forces each modern fix through the engine on a
// real JDT LS, whole tokens and 3-byte chunks: no token of it may be pruned
// (forceFix), and its end may not be pruned either.
func TestSoundnessModernFixtures(t *testing.T) {
	eng, _, _ := corpusJDT(t)
	c := &corpusEngine
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var sum forced
	for i, b := range c.modern {
		root := c.modernRoots[i]
		var st Stats
		feasible := 0
		for _, split := range []struct {
			name string
			toks []string
		}{{"javalex", forcetok.LexTokens(b.FixedHunk)}, {"3-byte", forcetok.Chunks(b.FixedHunk, 3)}} {
			s := openFixture(ctx, t, eng, b, root)
			n := forceFix(ctx, t, s, b, split.name, split.toks)
			sum.checks += n.checks
			sum.feasible += n.feasible
			sum.unknown += n.unknown
			feasible += n.feasible
			addStats(&st, s.Stats())
			out, err := s.CheckEnd(ctx, strings.Join(split.toks, ""))
			if err != nil {
				t.Fatalf("%s: CheckEnd: %v", b.ID, err)
			}
			if out == Infeasible {
				t.Errorf("%s (%s tokens): the end of the developer's fix was pruned", b.ID, split.name)
			}
			s.Close()
		}
		l := javaenv.FileLevel(filepath.Join(root, filepath.FromSlash(b.File)))
		on, _ := EndCheckOn(l)
		t.Logf("%-34s %v, end check on: %v; %s feasible=%d", b.ID, l, on, describe(st), feasible)
	}
	t.Logf("modern fixtures: %d fixtures, %d decisions, %d proven feasible, %d unknown, 0 pruned", len(c.modern), sum.checks, sum.feasible, sum.unknown)
	if sum.feasible == 0 {
		t.Error("no decision was proven feasible: the engine never engaged (did JDT LS import the fixtures' Maven projects?)")
	}
}
