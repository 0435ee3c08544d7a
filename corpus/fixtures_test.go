package corpus

// fixtures_test.go checks the repository's own fixtures (testdata/bugs/ and
// example/). TestFixturesWellFormed is fast and always runs. TestVerifyFixtures
// runs every fixture's test_cmd twice (buggy project, then with fixed_hunk
// applied, each in a scratch copy) and needs Java 17 and Maven with the
// fixtures' dependencies cached (scripts/warm-maven.sh); it runs when
// REPILOT_VERIFY_CORPUS=1, as scripts/check-corpus.sh sets it.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// fixtureDirs are the corpora this repository ships, relative to this package.
// REPILOT_CORPUS_DIRS (a list separated by the OS path-list separator)
// replaces them, so the verifier also checks corpora written elsewhere.
func fixtureDirs() []string {
	if v := os.Getenv("REPILOT_CORPUS_DIRS"); v != "" {
		return filepath.SplitList(v)
	}
	return []string{"../testdata/bugs", "../example"}
}

func isMaven(b Bug) bool {
	_, err := os.Stat(filepath.Join(b.ProjectDir(), "pom.xml"))
	return err == nil
}

func TestFixturesWellFormed(t *testing.T) {
	total := 0
	for _, dir := range fixtureDirs() {
		bugs, err := Load(dir)
		if err != nil {
			t.Fatalf("Load(%s): %v", dir, err)
		}
		total += len(bugs)
		for _, b := range bugs {
			if name := filepath.Base(b.Dir); name != b.ID {
				t.Errorf("%s: folder name %q differs from id", b.ID, name)
			}
			buggy, err := b.BuggyHunk()
			if err != nil {
				t.Errorf("%s: %v", b.ID, err)
				continue
			}
			if strings.Join(strings.Fields(buggy), " ") == strings.Join(strings.Fields(b.FixedHunk), " ") {
				t.Errorf("%s: fixed_hunk equals the buggy lines %q", b.ID, buggy)
			}
			if len(b.TestCmd) == 0 || b.TimeoutS == 0 {
				t.Errorf("%s: our fixtures set test_cmd and timeout_s", b.ID)
			}
		}
	}
	if os.Getenv("REPILOT_CORPUS_DIRS") == "" && total < 13 {
		t.Errorf("%d fixtures; the corpus promises at least 12 bugs plus the example", total)
	}
}

var (
	// javacError matches "src/a/B.java:12: error: ..." (javac).
	javacError = regexp.MustCompile(`(?m)^(\S+\.java):(\d+): error:`)
	// mavenError matches "[ERROR] /abs/src/main/java/a/B.java:[12,7] ..." (maven-compiler-plugin).
	mavenError = regexp.MustCompile(`(?m)(\S+\.java):\[(\d+),\d+\]`)
	// envError matches failures of the environment, not of the code: a fixture
	// that fails for one of these reasons verifies nothing.
	envError = regexp.MustCompile(`(?i)could not resolve|offline mode|could not find artifact|could not transfer|` +
		`plugin .* could not be|command not found|could not find or load main class|no such file or directory|` +
		`UnsupportedClassVersionError|invalid target release|release version \d+ not supported`)
)

// compileErrorLines returns the lines of file (relative to the project) that
// the compiler reported errors on, parsed from a test command's output.
func compileErrorLines(output, file string) (inFile []int, any bool) {
	for _, re := range []*regexp.Regexp{javacError, mavenError} {
		for _, m := range re.FindAllStringSubmatch(output, -1) {
			any = true
			if strings.HasSuffix(filepath.ToSlash(m[1]), file) {
				n, _ := strconv.Atoi(m[2])
				inFile = append(inFile, n)
			}
		}
	}
	return inFile, any || strings.Contains(output, "COMPILATION ERROR")
}

type verifyRow struct {
	id, project, buggy  string
	ok                  bool
	buggyDur, fixedDur  time.Duration
	buggyExit, fixedRun string
}

func TestVerifyFixtures(t *testing.T) {
	if os.Getenv("REPILOT_VERIFY_CORPUS") != "1" {
		t.Skip("runs every fixture's test_cmd (Java, Maven): set REPILOT_VERIFY_CORPUS=1 or run scripts/check-corpus.sh")
	}
	var (
		mu   sync.Mutex
		rows []verifyRow
	)
	start := time.Now()
	t.Run("bugs", func(t *testing.T) {
		for _, dir := range fixtureDirs() {
			bugs, err := Load(dir)
			if err != nil {
				t.Fatalf("Load(%s): %v", dir, err)
			}
			for _, b := range bugs {
				t.Run(b.ID, func(t *testing.T) {
					t.Parallel()
					row := verifyFixture(t, b)
					row.ok = !t.Failed()
					mu.Lock()
					rows = append(rows, row)
					mu.Unlock()
				})
			}
		}
	})
	sort.Slice(rows, func(i, j int) bool { return rows[i].id < rows[j].id })
	var sb strings.Builder
	fmt.Fprintf(&sb, "\n| id | project | buggy hunk | verified | buggy run | fixed run |\n|---|---|---|---|---|---|\n")
	for _, r := range rows {
		v := "yes"
		if !r.ok {
			v = "NO"
		}
		fmt.Fprintf(&sb, "| %s | %s | %s | %s | %s, %.1fs | %s, %.1fs |\n", r.id, r.project, r.buggy, v,
			r.buggyExit, r.buggyDur.Seconds(), r.fixedRun, r.fixedDur.Seconds())
	}
	fmt.Fprintf(&sb, "%d fixtures in %.1fs\n", len(rows), time.Since(start).Seconds())
	t.Log(sb.String())
}

// verifyFixture checks one bug: the buggy project fails its test_cmd (for a
// reason in the code: a compile error inside the hunk, or a failing test),
// and the project with fixed_hunk applied passes.
func verifyFixture(t *testing.T, b Bug) verifyRow {
	row := verifyRow{id: b.ID, project: "plain (javac)"}
	if isMaven(b) {
		row.project = "Maven"
	}
	ctx := context.Background()

	buggyDir := t.TempDir()
	if err := b.Materialize(buggyDir, nil); err != nil {
		t.Fatal(err)
	}
	res, err := b.RunTest(ctx, buggyDir)
	if err != nil {
		t.Fatal(err)
	}
	row.buggyDur, row.buggyExit = res.Duration, fmt.Sprintf("exit %d", res.ExitCode)
	switch {
	case res.TimedOut:
		t.Errorf("buggy project: test_cmd timed out after %v:\n%s", b.Timeout(), res.Output)
	case res.Passed:
		t.Errorf("buggy project passes test_cmd: the fixture shows no bug:\n%s", res.Output)
	case envError.MatchString(res.Output):
		t.Errorf("buggy project fails for a reason outside the code (%q): warm Maven with scripts/warm-maven.sh:\n%s",
			envError.FindString(res.Output), res.Output)
	}
	lines, compileFailed := compileErrorLines(res.Output, b.File)
	if compileFailed {
		row.buggy = "does not compile"
		lo, hi := b.StartLine, b.EndLine
		if b.Insertion() {
			lo, hi = b.StartLine-1, b.StartLine
		}
		inHunk := false
		for _, n := range lines {
			inHunk = inHunk || (n >= lo && n <= hi)
		}
		if !inHunk {
			t.Errorf("buggy project fails to compile, but not inside the hunk (lines %d-%d of %s; errors at %v):\n%s",
				lo, hi, b.File, lines, res.Output)
		}
	} else {
		row.buggy = "compiles, test fails"
	}

	fixedDir := t.TempDir()
	if err := b.Materialize(fixedDir, &b.FixedHunk); err != nil {
		t.Fatal(err)
	}
	res, err = b.RunTest(ctx, fixedDir)
	if err != nil {
		t.Fatal(err)
	}
	row.fixedDur, row.fixedRun = res.Duration, "pass"
	if !res.Passed {
		row.fixedRun = fmt.Sprintf("exit %d", res.ExitCode)
		t.Errorf("project with fixed_hunk fails test_cmd (exit %d, timed out %v):\n%s", res.ExitCode, res.TimedOut, res.Output)
	}
	return row
}
