package repair

// validate_test.go tests compile-error comparison and test runs in a scratch
// copy of the project.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/engine"
)

func TestNewErrorsMultiset(t *testing.T) {
	// Hunks far away (lines 100..99 and 100..99): plain multiset comparison.
	buggy := []engine.CompileError{{Line: 3, Message: "x"}, {Line: 5, Message: "y"}}
	patched := []engine.CompileError{{Line: 4, Message: "x"}, {Line: 6, Message: "y"}, {Line: 7, Message: "y"}, {Line: 2, Message: "z"}}
	got := newErrors(buggy, patched, 100, 99, 100, 99)
	if want := []string{"line 7: y", "line 2: z"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q want %q", got, want)
	}
	if got := newErrors(patched, buggy, 100, 99, 100, 99); len(got) != 0 {
		t.Fatalf("fewer errors reported as new: %q", got)
	}
}

func TestNewErrorsHunkErrorsNeverExcused(t *testing.T) {
	msg := "percentage cannot be resolved or is not a field"
	// The buggy hunk is line 30 and holds the bug's error; a one-line
	// candidate that keeps the same error on line 30 is not compilable.
	buggy := []engine.CompileError{{Line: 30, Message: msg}}
	patched := []engine.CompileError{{Line: 30, Message: msg}}
	if got := newErrors(buggy, patched, 30, 30, 30, 30); len(got) != 1 {
		t.Fatalf("the bug's own error was excused: %q", got)
	}
	// An error outside the hunk that the buggy file had too is excused, even
	// when the candidate is longer and the line moved.
	buggy = []engine.CompileError{{Line: 30, Message: msg}, {Line: 40, Message: "other"}}
	patched = []engine.CompileError{{Line: 41, Message: "other"}}
	if got := newErrors(buggy, patched, 30, 30, 30, 31); len(got) != 0 {
		t.Fatalf("an old error outside the hunk counted as new: %q", got)
	}
	// An error inside the patched hunk is new even if the buggy file had the
	// same message elsewhere.
	patched = []engine.CompileError{{Line: 31, Message: "other"}}
	if got := newErrors(buggy, patched, 30, 30, 30, 31); len(got) != 1 {
		t.Fatalf("an error inside the patched hunk was excused: %q", got)
	}
}

// project writes a small project tree and returns its root.
func project(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for p, s := range map[string]string{
		"src/A.java":         javaFile,
		".git/HEAD":          "ref: refs/heads/main\n",
		"pom.xml":            "<project/>",
		"target/classes/x":   "stale", // Maven's output beside pom.xml
		"sub/build.gradle":   "",
		"sub/build/output":   "stale", // Gradle's output beside build.gradle
		"lib/keep/build.txt": "kept",
		"src/build/B.java":   "package build;", // a package named build: source
	} {
		f := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestRunTestsInScratchCopy(t *testing.T) {
	root := project(t)
	argv := []string{"sh", "-c", `grep -q FIXED src/A.java && test ! -e .git && test ! -e target && test ! -e sub/build && test -e lib/keep/build.txt && test -e src/build/B.java && echo ok`}
	res, err := runTests(context.Background(), root, "src/A.java", "class A { /* FIXED */ }\n", argv, 10*time.Second, nil)
	if err != nil || !res.Passed || res.Output != "ok" {
		t.Fatalf("passing command: %+v, %v", res, err)
	}
	res, err = runTests(context.Background(), root, "src/A.java", "class A {}\n", argv, 10*time.Second, nil)
	if err != nil || res.Passed {
		t.Fatalf("failing command: %+v, %v", res, err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "src/A.java")); string(b) != javaFile {
		t.Fatal("the user's file was written")
	}
	if _, err := runTests(context.Background(), root, "src/A.java", "", []string{"/no/such/binary"}, time.Second, nil); err == nil {
		t.Fatal("a command that cannot start must be an error")
	}
}

func TestRunTestsTimeoutKillsProcessGroup(t *testing.T) {
	root := project(t)
	pidFile := filepath.Join(t.TempDir(), "pid")
	argv := []string{"sh", "-c", "sleep 60 & echo $! > " + pidFile + "; wait"}
	began := time.Now()
	res, err := runTests(context.Background(), root, "src/A.java", "x", argv, 500*time.Millisecond, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(began); d > 5*time.Second {
		t.Fatalf("took %v", d)
	}
	if res.Passed || !strings.Contains(res.Output, "timed out") {
		t.Fatalf("%+v", res)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	deadline := time.Now().Add(3 * time.Second)
	for {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil || strings.Contains(string(stat), ") Z ") {
			break // gone, or a zombie waiting for its new parent
		}
		if time.Now().After(deadline) {
			t.Fatalf("background sleep %d still running: %s", pid, stat)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestRunTestsCancelled(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := runTests(ctx, project(t), "src/A.java", "x", []string{"sleep", "60"}, time.Minute, nil)
	if err == nil || ctx.Err() == nil {
		t.Fatalf("err = %v", err)
	}
}

func TestPlausibleRankedAboveCompilable(t *testing.T) {
	root := project(t)
	next := table(map[string][]tok{
		"":                        {{"    likely();", 0.7, false}, {"    int x = 2; // FIXED", 0.3, false}},
		"    likely();":           {{"\n", 1, true}},
		"    int x = 2; // FIXED": {{"\n", 1, true}},
	})
	r := request(variant(t, "base", func(o *Options) { o.Samples = 20 }))
	r.Root, r.File = root, filepath.Join(root, "src", "A.java")
	r.TestCmd = []string{"grep", "-q", "FIXED", "src/A.java"}
	res := run(t, service(&fakeModel{next: next}, &fakeEngine{}, nil), r)
	if len(res.Patches) != 2 {
		t.Fatalf("patches %q", hunks(res.Patches))
	}
	first, second := res.Patches[0], res.Patches[1]
	if !first.Plausible || !first.Tested || second.Plausible || !second.Tested || first.Score > second.Score {
		t.Fatalf("want the less likely plausible patch first: %+v / %+v", first, second)
	}
	if res.Stats.Tested != 2 {
		t.Fatalf("Tested = %d", res.Stats.Tested)
	}
	if !strings.Contains(first.Diff, "+++ b/src/A.java") {
		t.Fatalf("diff path: %s", first.Diff)
	}
}

// TestUncheckableCandidateKept: a candidate the compiler cannot report on
// (unparsable text, or a per-check timeout) is listed as not compilable and
// the repair goes on; any other compiler error still fails the repair.
func TestUncheckableCandidateKept(t *testing.T) {
	next := table(map[string][]tok{
		"":              {{"    broken();", 0.5, false}, {"    fine();", 0.3, false}, {"    slow();", 0.2, false}},
		"    broken();": {{"\n", 1, true}},
		"    fine();":   {{"\n", 1, true}},
		"    slow();":   {{"\n", 1, true}},
	})
	comp := &fakeCompiler{fail: func(text string) error {
		switch {
		case strings.Contains(text, "broken();"):
			return fmt.Errorf("jdtls: diagnostics of A.java version 7: %w", engine.ErrUnparsable)
		case strings.Contains(text, "slow();"):
			return fmt.Errorf("jdtls: waiting for diagnostics: %w", context.DeadlineExceeded)
		}
		return nil
	}}
	r := request(variant(t, "base", func(o *Options) { o.Samples = 30 }))
	res := run(t, service(&fakeModel{next: next}, &fakeEngine{}, comp), r)
	if len(res.Patches) != 3 || res.Stats.Unchecked != 2 {
		t.Fatalf("patches %q, unchecked %d; want all three, two unchecked", hunks(res.Patches), res.Stats.Unchecked)
	}
	if p := res.Patches[0]; !p.Compilable || !strings.Contains(p.Hunk, "fine();") {
		t.Fatalf("first patch %+v; want the checked one", p)
	}
	for _, p := range res.Patches[1:] {
		if p.Compilable || len(p.NewErrors) != 1 || !strings.HasPrefix(p.NewErrors[0], "not compile-checked: ") {
			t.Fatalf("unchecked patch %+v", p)
		}
	}
	comp.fail = func(text string) error {
		if strings.Contains(text, "fine();") {
			return errors.New("jdtls: the server exited")
		}
		return nil
	}
	if _, err := service(&fakeModel{next: next}, &fakeEngine{}, comp).Repair(context.Background(), r, nil); err == nil {
		t.Fatal("a dead compiler did not fail the repair")
	}
}

// TestMissingTestCommandFailsEarly: a test command whose program does not
// exist is reported before any sampling, not after minutes of work.
func TestMissingTestCommandFailsEarly(t *testing.T) {
	m := &fakeModel{next: table(map[string][]tok{"": {{"    y();\n", 1, true}}})}
	r := request(Options{})
	r.TestCmd = []string{"no-such-test-command-xyz", "-q"}
	_, err := service(m, &fakeEngine{}, nil).Repair(context.Background(), r, nil)
	if err == nil || !strings.Contains(err.Error(), "no-such-test-command-xyz") || len(m.fims) != 0 {
		t.Fatalf("err %v after %d model sessions; want an error naming the command before sampling", err, len(m.fims))
	}
}

// TestBuildToolWithoutBuildFileFailsEarly: Maven or Gradle as the test
// command in a project without their build file is reported before any
// sampling; with the build file, or a flag that points at one elsewhere, it
// is not.
func TestBuildToolWithoutBuildFileFailsEarly(t *testing.T) {
	root := t.TempDir()
	bin := t.TempDir()
	for _, name := range []string{"mvn", "gradle"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	for _, argv := range [][]string{{"mvn", "-q", "test"}, {"gradle", "test"}} {
		err := checkTestCmd(root, argv)
		if err == nil || !strings.Contains(err.Error(), "has no") {
			t.Errorf("%v in a folder without a build file: err %v, want one naming the missing file", argv, err)
		}
	}
	for _, argv := range [][]string{{"mvn", "-f", "sub/pom.xml", "test"}, {"mvn", "--file=sub/pom.xml", "test"}, {"gradle", "-psub", "test"}, {"sh", "-c", "mvn test"}} {
		if err := checkTestCmd(root, argv); err != nil {
			t.Errorf("%v: %v, want no error", argv, err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "pom.xml"), []byte("<project/>"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := checkTestCmd(root, []string{"mvn", "-q", "test"}); err != nil {
		t.Errorf("mvn with a pom.xml: %v", err)
	}
	m := &fakeModel{next: table(map[string][]tok{"": {{"    y();\n", 1, true}}})}
	r := request(Options{})
	r.TestCmd = []string{"gradle", "test"}
	if _, err := service(m, &fakeEngine{}, nil).Repair(context.Background(), r, nil); err == nil || len(m.fims) != 0 {
		t.Fatalf("gradle without a build file: err %v after %d model sessions; want an error before sampling", err, len(m.fims))
	}
}

// TestBuggyTestRunWhenNoCandidatePasses: when the tests ran on candidates
// and none passed, the repair runs them once on the buggy project and
// reports how that went (here they pass: the command cannot tell a fix from
// the bug); when a candidate passes, it runs them too (after that patch).
func TestBuggyTestRunWhenNoCandidatePasses(t *testing.T) {
	root := project(t)
	next := table(map[string][]tok{
		"":               {{"    int x = 2;", 0.6, false}, {"    int x = 3;", 0.4, false}},
		"    int x = 2;": {{"\n", 1, true}},
		"    int x = 3;": {{"\n", 1, true}},
	})
	r := request(variant(t, "base", func(o *Options) { o.Samples = 10 }))
	r.Root, r.File = root, filepath.Join(root, "src", "A.java")
	r.TestCmd = []string{"grep", "-q", "int x = 1;", "src/A.java"} // passes on the buggy line only
	if res := run(t, service(&fakeModel{next: next}, &fakeEngine{}, nil), r); res.BuggyTest != nil {
		t.Fatalf("BuggyTest = %+v without Request.TestBuggy; want nil", res.BuggyTest)
	}
	r.TestBuggy = true
	res := run(t, service(&fakeModel{next: next}, &fakeEngine{}, nil), r)
	if res.Stats.Tested != 2 || anyPlausible(res.Candidates) {
		t.Fatalf("tested %d, patches %+v; want two tested, none plausible", res.Stats.Tested, res.Candidates)
	}
	if res.BuggyTest == nil || !res.BuggyTest.Passed {
		t.Fatalf("BuggyTest = %+v; want the buggy project's run, passing", res.BuggyTest)
	}
	r.TestCmd = []string{"grep", "-q", "int x = 3;", "src/A.java"} // one candidate passes, the bug fails
	if res := run(t, service(&fakeModel{next: next}, &fakeEngine{}, nil), r); res.BuggyTest == nil || res.BuggyTest.Passed || res.TestsPassOnBuggy() {
		t.Fatalf("BuggyTest = %+v with a plausible patch; want the buggy project's run, failing", res.BuggyTest)
	}
	r.TestCmd = nil
	if res := run(t, service(&fakeModel{next: next}, &fakeEngine{}, nil), r); res.BuggyTest != nil {
		t.Fatalf("BuggyTest = %+v without a test command; want nil", res.BuggyTest)
	}
}

// TestBuggyFileCompiledOnlyForErrors: the buggy file's errors, which excuse
// a candidate's errors outside its hunk (newErrors), are asked for once, at
// the first candidate that has errors, not before the first candidate; a
// candidate whose only error the buggy file has too (outside the hunk) is
// compilable, one with an error of its own is not.
func TestBuggyFileCompiledOnlyForErrors(t *testing.T) {
	const old, excused, broken = "    int x = 2;\n", "    int x = 3;\n", "    int x = y;\n"
	m := &fakeModel{next: table(map[string][]tok{
		"":  {{old, 0.5, false}, {excused, 0.3, false}, {broken, 0.2, false}},
		old: {{"", 1, true}}, excused: {{"", 1, true}}, broken: {{"", 1, true}},
	})}
	c := &fakeCompiler{errs: func(text string) []engine.CompileError {
		var errs []engine.CompileError
		if !strings.Contains(text, "x = 2;") { // the buggy file and the later candidates: an error on line 5
			errs = append(errs, engine.CompileError{Line: 5, Message: "unrelated"})
		}
		if strings.Contains(text, "x = y;") {
			errs = append(errs, engine.CompileError{Line: 3, Message: "y cannot be resolved"})
		}
		return errs
	}}
	r := request(variant(t, "base", func(o *Options) { o.Samples = 30; o.KeepTop = 10 }))
	res := run(t, service(m, &fakeEngine{}, c), r)
	verdict := map[string]Patch{}
	for _, p := range res.Candidates {
		verdict[p.Hunk] = p
	}
	if p := verdict[old]; !p.Compilable {
		t.Errorf("%q: %+v; want compilable", old, p)
	}
	if p := verdict[excused]; !p.Compilable || len(p.NewErrors) != 0 {
		t.Errorf("%q: %+v; want compilable (its error is the buggy file's)", excused, p)
	}
	if p := verdict[broken]; p.Compilable || len(p.NewErrors) != 1 {
		t.Errorf("%q: %+v; want one new error", broken, p)
	}
	compiled := c.compiled()
	var buggyAt []int
	for i, text := range compiled {
		if text == javaFile {
			buggyAt = append(buggyAt, i)
		}
	}
	if len(compiled) != 4 || len(buggyAt) != 1 || buggyAt[0] == 0 || strings.Contains(compiled[buggyAt[0]-1], "x = 2;") {
		t.Fatalf("compiled %q; want the buggy file once, right after the first candidate with errors", compiled)
	}
}

// TestTestsPassingOnTheBugAreNoticed: a test command that passes on the
// unchanged code makes every compilable candidate pass; the repair runs it
// once on the buggy project after the first plausible patch (which went out
// before that run) and says so (Result.TestsPassOnBuggy).
func TestTestsPassingOnTheBugAreNoticed(t *testing.T) {
	root := project(t)
	next := table(map[string][]tok{
		"":               {{"    int x = 2;", 0.6, false}, {"    int x = 3;", 0.4, false}},
		"    int x = 2;": {{"\n", 1, true}},
		"    int x = 3;": {{"\n", 1, true}},
	})
	r := request(variant(t, "base", func(o *Options) { o.Samples = 10 }))
	r.Root, r.File = root, filepath.Join(root, "src", "A.java")
	r.TestCmd, r.TestBuggy = []string{"true"}, true
	plausible := 0
	r.OnPatch = func(p Patch) {
		if p.Plausible {
			plausible++
		}
	}
	res := run(t, service(&fakeModel{next: next}, &fakeEngine{}, nil), r)
	if !anyPlausible(res.Candidates) || plausible == 0 || res.Stats.FirstPlausible == 0 {
		t.Fatalf("patches %+v; want plausible ones, streamed", res.Candidates)
	}
	if !res.TestsPassOnBuggy() {
		t.Fatalf("BuggyTest = %+v; want the buggy project's run, passing", res.BuggyTest)
	}
	r.TestBuggy = false
	if res := run(t, service(&fakeModel{next: next}, &fakeEngine{}, nil), r); res.BuggyTest != nil || res.TestsPassOnBuggy() {
		t.Fatalf("BuggyTest = %+v without Request.TestBuggy; want nil", res.BuggyTest)
	}
}
