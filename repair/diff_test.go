package repair

// diff_test.go checks splitHunk and unifiedDiff, applying every diff with
// `git apply` and `patch` to be sure real tools read it as meant.

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// applyCheck writes original as src/A.java in a scratch directory, checks the
// diff with `git apply --check` and `patch -p1 --dry-run`, applies it with git
// and compares the result with want.
func applyCheck(t *testing.T, original, diff, want string) {
	t.Helper()
	if diff == "" {
		t.Fatal("empty diff")
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "src", "A.java")
	if err := os.WriteFile(file, []byte(original), 0o644); err != nil {
		t.Fatal(err)
	}
	patchFile := filepath.Join(dir, "p.diff")
	if err := os.WriteFile(patchFile, []byte(diff), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, argv := range [][]string{
		{"git", "apply", "--check", "--verbose", patchFile},
		{"patch", "-p1", "--dry-run", "-i", patchFile},
		{"git", "apply", patchFile},
	} {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s\ndiff:\n%s", strings.Join(argv, " "), err, out, diff)
		}
	}
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("applied diff gave\n%q\nwant\n%q\ndiff:\n%s", got, want, diff)
	}
}

func TestUnifiedDiffApplies(t *testing.T) {
	long := "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\n"
	for _, tc := range []struct {
		name       string
		text       string
		start, end int
		hunk       string
		header     string // expected @@ line
	}{
		{"middle", long, 5, 5, "L5\n", "@@ -2,7 +2,7 @@"},
		{"first line", long, 1, 1, "L1\n", "@@ -1,4 +1,4 @@"},
		{"last line", long, 9, 9, "L9\n", "@@ -6,4 +6,4 @@"},
		{"two lines to three", long, 4, 5, "a\nb\nc\n", "@@ -1,8 +1,9 @@"},
		{"deletion", long, 4, 6, "", "@@ -1,9 +1,6 @@"},
		{"insertion", long, 5, 4, "new\n", "@@ -2,6 +2,7 @@"},
		{"insert at top", long, 1, 0, "new\n", "@@ -1,3 +1,4 @@"},
		{"insert at end", long, 10, 9, "new\n", "@@ -7,3 +7,4 @@"},
		{"unchanged leading line trimmed", long, 4, 5, "l4\nX\n", "@@ -2,7 +2,7 @@"},
		{"no final newline, last line replaced", "a\nb\nc", 3, 3, "C\n", "@@ -1,3 +1,3 @@"},
		{"no final newline, context", "a\nb\nc", 2, 2, "B\n", "@@ -1,3 +1,3 @@"},
		{"no final newline, deleted", "a\nb\nc", 3, 3, "", "@@ -1,3 +1,2 @@"},
		{"one-line file", "x\n", 1, 1, "y\n", "@@ -1 +1 @@"},
		{"empty file insert", "", 1, 0, "y\n", "@@ -0,0 +1 @@"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			site, err := splitHunk(tc.text, tc.start, tc.end)
			if err != nil {
				t.Fatal(err)
			}
			if site.Prefix+site.Buggy+site.Suffix != tc.text {
				t.Fatal("split does not cover the file")
			}
			d := unifiedDiff("src/A.java", site, tc.hunk)
			if !strings.HasPrefix(d, "--- a/src/A.java\n+++ b/src/A.java\n"+tc.header+"\n") {
				t.Fatalf("diff:\n%s\nwant header %s", d, tc.header)
			}
			applyCheck(t, tc.text, d, site.Prefix+tc.hunk+site.Suffix)
		})
	}
}

func TestUnifiedDiffEqualIsEmpty(t *testing.T) {
	site, _ := splitHunk("a\nb\n", 1, 1)
	if d := unifiedDiff("A.java", site, "a\n"); d != "" {
		t.Fatalf("diff of equal texts: %q", d)
	}
}

func TestSplitHunk(t *testing.T) {
	site, err := splitHunk("a\n  b\n\n    c\n", 3, 3)
	if err != nil {
		t.Fatal(err)
	}
	if site.Prefix != "a\n  b\n" || site.Buggy != "\n" || site.Suffix != "    c\n" || site.Indent != "    " {
		t.Fatalf("%+v", site)
	}
	if _, err := splitHunk("a\nb", 3, 2); err == nil {
		t.Fatal("insertion after a last line without newline accepted")
	}
	if _, err := splitHunk("a\nb\n", 3, 2); err != nil {
		t.Fatalf("insertion at end: %v", err)
	}
	if _, err := splitHunk("a\nb\n", 2, 3); err == nil {
		t.Fatal("end past the file accepted")
	}
	// A lone "\r" ends a line (LSP 3.17 "Text Documents", JLS 3.4): line 2
	// of a classic-Mac file is its second line, and a hunk is written
	// with "\r".
	site, err = splitHunk("a\r  b\r\r    c\r", 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	if site.Prefix != "a\r" || site.Buggy != "  b\r" || site.Indent != "  " || site.lineEnd() != "\r" {
		t.Fatalf("lone CR: %+v, line end %q", site, site.lineEnd())
	}
	if site, _ := splitHunk("a\r\nb\r\n", 2, 1); site.lineEnd() != "\r\n" {
		t.Fatalf("CRLF insertion: line end %q", site.lineEnd())
	}
}
