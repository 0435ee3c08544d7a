package corpus

// corpus_test.go: unit tests of the line arithmetic, the loader's validation
// and the test runner, on small fixtures written to temporary folders.

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestReplace(t *testing.T) {
	const text = "a\nb\nc\n"
	cases := []struct {
		name       string
		start, end int
		hunk, want string
	}{
		{"replace one", 2, 2, "B\n", "a\nB\nc\n"},
		{"replace two by three", 1, 2, "x\ny\nz\n", "x\ny\nz\nc\n"},
		{"delete", 2, 2, "", "a\nc\n"},
		{"insert before first", 1, 0, "0\n", "0\na\nb\nc\n"},
		{"insert in middle", 3, 2, "i\n", "a\nb\ni\nc\n"},
		{"insert at end", 4, 3, "d\n", "a\nb\nc\nd\n"},
		{"replace last", 3, 3, "C\n", "a\nb\nC\n"},
	}
	for _, c := range cases {
		got, err := Replace(text, c.start, c.end, c.hunk)
		if err != nil || got != c.want {
			t.Errorf("%s: Replace(%d,%d,%q) = %q, %v; want %q", c.name, c.start, c.end, c.hunk, got, err, c.want)
		}
	}
	for _, r := range [][2]int{{0, 0}, {2, 0}, {3, 4}, {5, 4}} {
		if _, err := Replace(text, r[0], r[1], "x\n"); err == nil {
			t.Errorf("Replace(%d,%d) succeeded on a 3-line text", r[0], r[1])
		}
	}
}

func TestHunkAndSplitLines(t *testing.T) {
	text := "one\r\ntwo\nthree"
	if got := SplitLines(text); len(got) != 3 || got[0] != "one\r\n" || got[2] != "three" {
		t.Fatalf("SplitLines = %q", got)
	}
	if got := SplitLines(""); len(got) != 0 {
		t.Fatalf("SplitLines(\"\") = %q", got)
	}
	if h, err := Hunk(text, 2, 3); err != nil || h != "two\nthree" {
		t.Fatalf("Hunk(2,3) = %q, %v", h, err)
	}
	if h, err := Hunk(text, 2, 1); err != nil || h != "" {
		t.Fatalf("Hunk(2,1) = %q, %v", h, err)
	}
}

func TestSplit(t *testing.T) {
	const text = "a\nb\r\nc"
	for _, c := range []struct {
		start, end          int
		prefix, hunk, suffx string
	}{
		{1, 1, "", "a\n", "b\r\nc"},
		{2, 3, "a\n", "b\r\nc", ""},
		{2, 1, "a\n", "", "b\r\nc"}, // insertion point
		{3, 2, "a\nb\r\n", "", "c"}, // before the unterminated last line
	} {
		p, h, s, err := Split(text, c.start, c.end)
		if err != nil || p != c.prefix || h != c.hunk || s != c.suffx {
			t.Errorf("Split(%d,%d) = %q %q %q, %v; want %q %q %q", c.start, c.end, p, h, s, err, c.prefix, c.hunk, c.suffx)
		}
	}
	// {4, 3}: an insertion after the last line, which lacks its newline: what
	// is inserted would continue that line (textpos.LineSpan's rule).
	for _, r := range [][2]int{{0, 0}, {2, 0}, {3, 4}, {5, 4}, {4, 3}} {
		if _, _, _, err := Split(text, r[0], r[1]); err == nil {
			t.Errorf("Split(%d,%d) succeeded on a 3-line text", r[0], r[1])
		}
	}
}

// writeBug writes a bug folder under corpusDir with the given bug.json and a
// three-line project file src/A.java.
func writeBug(t *testing.T, corpusDir, name, bugJSON string) {
	t.Helper()
	dir := filepath.Join(corpusDir, name)
	if err := os.MkdirAll(filepath.Join(dir, "project", "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "project", "src", "A.java"), []byte("class A {\n  int x = 1;\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bug.json"), []byte(bugJSON), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	writeBug(t, dir, "b2", `{"id":"b2","file":"src/A.java","start_line":2,"end_line":2,"fixed_hunk":"  int x = 2;\n","test_cmd":["true"],"timeout_s":5}`)
	writeBug(t, dir, "b1", `{"id":"b1","file":"src/A.java","start_line":2,"end_line":1,"fixed_hunk":"  int y;\n"}`)
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("not a bug"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "not-a-bug"), 0o755); err != nil {
		t.Fatal(err)
	}
	bugs, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(bugs) != 2 || bugs[0].ID != "b1" || bugs[1].ID != "b2" {
		t.Fatalf("Load = %+v", bugs)
	}
	if !bugs[0].Insertion() || bugs[1].Insertion() {
		t.Errorf("Insertion: b1 %v, b2 %v", bugs[0].Insertion(), bugs[1].Insertion())
	}
	if bugs[0].Timeout() != DefaultTimeout || bugs[1].Timeout() != 5*time.Second {
		t.Errorf("Timeout: %v, %v", bugs[0].Timeout(), bugs[1].Timeout())
	}
	if h, err := bugs[1].BuggyHunk(); err != nil || h != "  int x = 1;\n" {
		t.Errorf("BuggyHunk = %q, %v", h, err)
	}
	if f, err := bugs[0].Fixed(); err != nil || f != "class A {\n  int y;\n  int x = 1;\n}\n" {
		t.Errorf("Fixed = %q, %v", f, err)
	}
}

func TestLoadRejects(t *testing.T) {
	cases := map[string]string{
		"no id":          `{"file":"src/A.java","start_line":1,"end_line":1,"fixed_hunk":"x\n"}`,
		"missing file":   `{"id":"x","file":"src/B.java","start_line":1,"end_line":1,"fixed_hunk":"x\n"}`,
		"escaping file":  `{"id":"x","file":"../bug.json","start_line":1,"end_line":1,"fixed_hunk":"x\n"}`,
		"end past EOF":   `{"id":"x","file":"src/A.java","start_line":3,"end_line":4,"fixed_hunk":"x\n"}`,
		"start zero":     `{"id":"x","file":"src/A.java","start_line":0,"end_line":0,"fixed_hunk":"x\n"}`,
		"reversed":       `{"id":"x","file":"src/A.java","start_line":3,"end_line":1,"fixed_hunk":"x\n"}`,
		"no newline":     `{"id":"x","file":"src/A.java","start_line":1,"end_line":1,"fixed_hunk":"x"}`,
		"unknown field":  `{"id":"x","file":"src/A.java","start_line":1,"end_line":1,"fixed_hunk":"x\n","fixed":"y"}`,
		"negative limit": `{"id":"x","file":"src/A.java","start_line":1,"end_line":1,"fixed_hunk":"x\n","timeout_s":-1}`,
	}
	for name, js := range cases {
		dir := t.TempDir()
		writeBug(t, dir, "x", js)
		if _, err := Load(dir); err == nil {
			t.Errorf("%s: Load accepted %s", name, js)
		}
	}
	dir := t.TempDir()
	writeBug(t, dir, "one", `{"id":"same","file":"src/A.java","start_line":1,"end_line":1,"fixed_hunk":"x\n"}`)
	writeBug(t, dir, "two", `{"id":"same","file":"src/A.java","start_line":1,"end_line":1,"fixed_hunk":"x\n"}`)
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "already used") {
		t.Errorf("duplicate ids: err = %v", err)
	}
	if _, err := Load(t.TempDir()); err == nil {
		t.Error("empty corpus accepted")
	}
}

func TestMaterializeAndRunTest(t *testing.T) {
	dir := t.TempDir()
	writeBug(t, dir, "b", `{"id":"b","file":"src/A.java","start_line":2,"end_line":2,"fixed_hunk":"  int x = 2;\n",
		"test_cmd":["sh","-c","grep -q 'x = 2' src/A.java && echo ok || { echo still buggy; exit 3; }"],"timeout_s":10}`)
	bugs, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	b := bugs[0]
	ctx := context.Background()

	buggy := t.TempDir()
	if err := b.Materialize(buggy, nil); err != nil {
		t.Fatal(err)
	}
	res, err := b.RunTest(ctx, buggy)
	if err != nil || res.Passed || res.ExitCode != 3 || !strings.Contains(res.Output, "still buggy") {
		t.Fatalf("buggy run = %+v, %v", res, err)
	}

	fixed := t.TempDir()
	if err := b.Materialize(fixed, &b.FixedHunk); err != nil {
		t.Fatal(err)
	}
	res, err = b.RunTest(ctx, fixed)
	if err != nil || !res.Passed || res.ExitCode != 0 {
		t.Fatalf("fixed run = %+v, %v", res, err)
	}
	// The fixture itself is untouched.
	if h, _ := b.BuggyHunk(); h != "  int x = 1;\n" {
		t.Fatalf("fixture modified: %q", h)
	}
}

func TestCopyProjectSkipsMavenDerived(t *testing.T) {
	dir := t.TempDir()
	writeBug(t, dir, "m", `{"id":"m","file":"src/A.java","start_line":1,"end_line":1,"fixed_hunk":"x\n"}`)
	proj := filepath.Join(dir, "m", "project")
	for _, f := range []string{"target/classes/A.class", ".settings/org.eclipse.jdt.core.prefs", ".classpath", ".project", "src/target/keep.txt"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(proj, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(proj, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := LoadBug(filepath.Join(dir, "m"))
	if err != nil {
		t.Fatal(err)
	}
	exists := func(root, f string) bool { _, err := os.Stat(filepath.Join(root, f)); return err == nil }

	// Without pom.xml the metadata is the project's own and is copied.
	plain := t.TempDir()
	if err := b.CopyProject(plain); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"target/classes/A.class", ".classpath", ".project", ".settings", "src/A.java"} {
		if !exists(plain, f) {
			t.Errorf("plain project: %s not copied", f)
		}
	}

	if err := os.WriteFile(filepath.Join(proj, "pom.xml"), []byte("<project/>"), 0o644); err != nil {
		t.Fatal(err)
	}
	maven := t.TempDir()
	if err := b.CopyProject(maven); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"target", ".classpath", ".project", ".settings"} {
		if exists(maven, f) {
			t.Errorf("Maven project: derived %s copied", f)
		}
	}
	for _, f := range []string{"pom.xml", "src/A.java", "src/target/keep.txt"} {
		if !exists(maven, f) {
			t.Errorf("Maven project: %s not copied", f)
		}
	}
}

func TestRunTestTimeoutKillsGroup(t *testing.T) {
	dir := t.TempDir()
	writeBug(t, dir, "slow", `{"id":"slow","file":"src/A.java","start_line":1,"end_line":1,"fixed_hunk":"x\n",
		"test_cmd":["sh","-c","sleep 30 & sleep 30; echo never"],"timeout_s":1}`)
	b, err := LoadBug(filepath.Join(dir, "slow"))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	res, err := b.RunTest(context.Background(), b.ProjectDir())
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut || res.Passed || time.Since(start) > 10*time.Second {
		t.Fatalf("timeout run = %+v after %v", res, time.Since(start))
	}
	b.TestCmd = []string{"/nonexistent/binary"}
	if _, err := b.RunTest(context.Background(), b.ProjectDir()); err == nil {
		t.Fatal("RunTest of a missing binary returned no error")
	}
	b.TestCmd = nil
	if _, err := b.RunTest(context.Background(), b.ProjectDir()); err == nil {
		t.Fatal("RunTest without test_cmd returned no error")
	}
}
