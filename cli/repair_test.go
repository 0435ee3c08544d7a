package cli

// repair_test.go tests the repair command's argument checks (no JDT LS
// needed): every mistake is reported before anything starts.

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/spf13/cobra"

	"github.com/repilot-lsp/repilot-lsp/internal/testtree"
	"github.com/repilot-lsp/repilot-lsp/repair"
)

func writeProject(t *testing.T) string {
	t.Helper()
	return testtree.New(t, map[string]string{
		"src/A.java":  "class A {\n  int f() {\n    return 1;\n  }\n}\n",
		"README.txt":  "not java\n",
		"other/B.txt": "x\n",
	})
}

func TestRepairArgumentErrors(t *testing.T) {
	root := writeProject(t)
	outside := filepath.Join(t.TempDir(), "C.java")
	os.WriteFile(outside, []byte("class C {}\n"), 0o644)
	// A FIFO (reading it would wait for a writer for good) and a file
	// over the size bound (sparse: no disk used).
	if err := syscall.Mkfifo(filepath.Join(root, "src/F.java"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "src/Big.java"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(filepath.Join(root, "src/Big.java"), maxTargetBytes+1); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name                 string
		project, file, lines string
		want                 string
	}{
		{"missing file", root, "", "1", "missing --file (repair needs --file F --lines A-B)"},
		{"missing lines", root, "src/A.java", "", "missing --lines ("},
		{"missing file and lines", "", "", "", "missing --file and --lines ("},
		{"no project", filepath.Join(root, "nope"), "src/A.java", "1", "not a directory"},
		{"no file", root, "src/Nope.java", "1", "file src/Nope.java: no such file in the project (" + filepath.Join(root, "src/Nope.java") + ") or the current folder"},
		{"no file, absolute", root, filepath.Join(root, "src/Nope.java"), "1", "no such file or directory"},
		{"not java", root, "README.txt", "1", "not a .java file"},
		{"outside", root, outside, "1", "not inside the project"},
		{"past end", root, "src/A.java", "3-9", "out of range: src/A.java has 5 lines"},
		{"start past end", root, "src/A.java", "8-7", "out of range"},
		{"bad syntax", root, "src/A.java", "a-b", `want "A-B"`},
		{"reversed", root, "src/A.java", "4-2", "the last line is before the first (an insertion before line 4 is 4-3)"},
		{"zero", root, "src/A.java", "0", "lines are numbered from 1"},
		{"fifo", root, "src/F.java", "1", "src/F.java is not a regular file"},
		{"too large", root, "src/Big.java", "1", "more than the 67108864 a repair reads"},
	} {
		_, err := resolveTarget(tc.project, tc.file, tc.lines)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
	for lines, want := range map[string][2]int{"3": {3, 3}, "2-4": {2, 4}, "3-2": {3, 2}, "6-5": {6, 5}} {
		got, err := resolveTarget(root, "src/A.java", lines)
		if err != nil || got.start != want[0] || got.end != want[1] {
			t.Errorf("--lines %s: %+v %v", lines, got, err)
		}
	}
}

// TestRepairTargetDescribe checks the "hunk:" progress line, insertions
// at the top and the end of the file included.
func TestRepairTargetDescribe(t *testing.T) {
	root := writeProject(t)
	for lines, want := range map[string]string{
		"3":   "line 3 of src/A.java",
		"2-4": "lines 2-4 of src/A.java",
		"1-0": "an insertion before line 1 (the top) of src/A.java; nothing is replaced",
		"3-2": "an insertion before line 3 of src/A.java; nothing is replaced",
		"6-5": "an insertion after the last line (5) of src/A.java; nothing is replaced",
	} {
		tg, err := resolveTarget(root, "src/A.java", lines)
		if err != nil {
			t.Fatalf("--lines %s: %v", lines, err)
		}
		if got := tg.describe(); got != want {
			t.Errorf("--lines %s: %q, want %q", lines, got, want)
		}
	}
}

func TestRepairWithoutJDTLSSaysHowToInstall(t *testing.T) {
	root := writeProject(t)
	t.Setenv("REPILOT_JDTLS_HOME", "")
	t.Setenv("REPILOT_CACHE", t.TempDir()) // no JDT LS installed there
	var out, errb bytes.Buffer
	f := repairFlags{project: root, file: "src/A.java", lines: "3", sampling: samplingFlags{samples: 1, maxTokens: 8, temperature: 1, topP: 1}, keep: 1, variant: "full",
		model: defaultModelFlags()}
	err := runRepair(context.Background(), f, nil, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "scripts/install-jdtls.sh") {
		t.Fatalf("err = %v, want a pointer to scripts/install-jdtls.sh", err)
	}
	f.variant = "turbo"
	if err := runRepair(context.Background(), f, nil, &out, &errb); err == nil || !strings.Contains(err.Error(), "unknown variant") {
		t.Fatalf("bad variant: %v", err)
	}
}

func TestWriteDiffsShowsTestTailAndHiddenCandidates(t *testing.T) {
	failing := repair.Patch{Compilable: true, Tested: true, Diff: "--- a\n+++ b\n",
		TestOutput: "Compiling...\n\nError: Could not find or load main class CartTest\n  \n"}
	passing := repair.Patch{Compilable: true, Tested: true, Plausible: true, Diff: "--- a\n+++ b\n", TestOutput: "ok\n"}
	res := &repair.Result{Patches: []repair.Patch{passing, failing}, Candidates: []repair.Patch{passing, failing, failing}}
	var b strings.Builder
	writeDiffs(&b, res)
	out := b.String()
	for _, want := range []string{
		"#   test: Compiling...\n#   test: Error: Could not find or load main class CartTest\n",
		"# 1 more candidate not shown (ranked lower; --keep N prints more)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "test: ok") {
		t.Errorf("a passing patch's test output is shown:\n%s", out)
	}
	if got := lastLines("a\nb\n\nc\n", 2); strings.Join(got, "|") != "b|c" {
		t.Errorf("lastLines = %q, want [b c]", got)
	}
	if got := lastLines("\x1b[1;31mERROR\x1b[m] No POM\n", 1); len(got) != 1 || got[0] != "ERROR] No POM" {
		t.Errorf("lastLines kept terminal escapes: %q", got)
	}
}

// TestWriteDiffsShowsBuggyTestRun: when no tested candidate passed, the text
// output shows how the tests end on the buggy project, and says so when they
// pass there too.
func TestWriteDiffsShowsBuggyTestRun(t *testing.T) {
	failing := repair.Patch{Compilable: true, Tested: true, Diff: "--- a\n+++ b\n", TestOutput: "[ERROR] No POM in this directory\n"}
	for _, c := range []struct {
		run  repair.TestRun
		want []string
	}{
		{repair.TestRun{Output: "[ERROR] No POM in this directory\n"},
			[]string{"# no candidate passed the tests; on the buggy project they fail too", "#   buggy: [ERROR] No POM in this directory\n"}},
		// A command that fails without a word: the header does not end
		// with a colon and nothing under it.
		{repair.TestRun{Output: "\n"},
			[]string{"they fail too, with no output\n# (if this is not the failure you expected, check the test command)\n"}},
		{repair.TestRun{Passed: true, Output: "OK (3 tests)\n"},
			[]string{"# warning: the test command passes on the unchanged (buggy) code too", "#   buggy: OK (3 tests)\n"}},
	} {
		run := c.run
		var b strings.Builder
		writeDiffs(&b, &repair.Result{Patches: []repair.Patch{failing}, Candidates: []repair.Patch{failing}, BuggyTest: &run})
		for _, want := range c.want {
			if !strings.Contains(b.String(), want) {
				t.Errorf("output lacks %q:\n%s", want, b.String())
			}
		}
	}
	var b strings.Builder
	writeDiffs(&b, &repair.Result{Patches: []repair.Patch{failing}, Candidates: []repair.Patch{failing}})
	if strings.Contains(b.String(), "buggy") {
		t.Errorf("a result without BuggyTest mentions the buggy run:\n%s", b.String())
	}
	// A plausible patch, the tests failing on the bug (the run after the
	// first plausible patch): as it should be, so nothing is said of it.
	passing := repair.Patch{Compilable: true, Tested: true, Plausible: true, Diff: "--- a\n+++ b\n"}
	b.Reset()
	writeDiffs(&b, &repair.Result{Patches: []repair.Patch{passing, failing}, Candidates: []repair.Patch{passing, failing},
		BuggyTest: &repair.TestRun{Output: "1 error\n"}})
	if strings.Contains(b.String(), "buggy") || strings.Contains(b.String(), "no candidate passed") {
		t.Errorf("with a plausible patch, the output speaks of the buggy run failing:\n%s", b.String())
	}
}

// TestRepairTestCommandNeedsDash checks that a word before "--" is refused
// (it was silently run as the test command) and that a test command after
// "--" is passed on whole.
func TestRepairTestCommandNeedsDash(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		wantErr string
		wantCmd []string
	}{
		{[]string{"--lines", "30", "extra"}, `unexpected argument "extra" before "--"`, nil},
		{[]string{"--lines", "30", "mvn", "test", "--", "x"}, `unexpected argument "mvn test"`, nil},
		{[]string{"--lines", "30", "--", "mvn", "-q", "test"}, "", []string{"mvn", "-q", "test"}},
		{[]string{"--lines", "30"}, "", nil},
	} {
		var got []string
		cmd := &cobra.Command{Use: "repair", Args: testCommandAfterDash, SilenceUsage: true, SilenceErrors: true,
			RunE: func(_ *cobra.Command, args []string) error { got = args; return nil }}
		cmd.Flags().String("lines", "", "")
		cmd.SetArgs(tc.args)
		err := cmd.Execute()
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%q: %v", tc.args, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%q: err = %v, want %q", tc.args, err, tc.wantErr)
		case tc.wantErr == "" && strings.Join(got, " ") != strings.Join(tc.wantCmd, " "):
			t.Errorf("%q: test command %q, want %q", tc.args, got, tc.wantCmd)
		}
	}
}

// TestTestsPassingOnTheBugSaidInTextAndJSON: when the test command passes on
// the unchanged code too, a patch that passes it is not called plausible in
// the text output, which ends with the warning, and --json carries
// tests_pass_on_buggy and the warning.
func TestTestsPassingOnTheBugSaidInTextAndJSON(t *testing.T) {
	passing := repair.Patch{Compilable: true, Tested: true, Plausible: true, Diff: "--- a\n+++ b\n"}
	res := &repair.Result{Patches: []repair.Patch{passing}, Candidates: []repair.Patch{passing},
		BuggyTest: &repair.TestRun{Passed: true, Output: "OK\n"}}
	var b strings.Builder
	writeDiffs(&b, res)
	for _, want := range []string{"compilable, tests pass (on the unchanged code too: not plausible)", "# warning: " + repair.TestsPassOnBuggyMsg} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text output lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "plausible (tests pass)") {
		t.Errorf("text output calls the patch plausible:\n%s", b.String())
	}
	var j strings.Builder
	if err := writeJSON(&j, repairTarget{root: "/p", file: "/p/A.java", start: 1, end: 1}, repair.DefaultOptions(), res, ""); err != nil {
		t.Fatal(err)
	}
	var out struct {
		TestsPassOnBuggy bool   `json:"tests_pass_on_buggy"`
		Warning          string `json:"warning"`
	}
	if err := json.Unmarshal([]byte(j.String()), &out); err != nil || !out.TestsPassOnBuggy || out.Warning != repair.TestsPassOnBuggyMsg {
		t.Errorf("--json: %v %+v\n%s", err, out, j.String())
	}
	res.BuggyTest.Passed = false
	j.Reset()
	if err := writeJSON(&j, repairTarget{root: "/p", file: "/p/A.java", start: 1, end: 1}, repair.DefaultOptions(), res, ""); err != nil || strings.Contains(j.String(), "warning") {
		t.Errorf("--json with tests failing on the bug: %v\n%s", err, j.String())
	}
}

// The README says `repair --help` documents each variant: the flag's usage
// names every one of repair.Variants with what it does in parentheses.
func TestRepairHelpDocumentsEveryVariant(t *testing.T) {
	cmd, _, err := Root.Find([]string{"repair"})
	if err != nil {
		t.Fatal(err)
	}
	usage := cmd.Flags().Lookup("variant").Usage
	for _, v := range repair.Variants {
		if !strings.Contains(usage, v+" (") {
			t.Errorf("--variant's help does not explain %q: %s", v, usage)
		}
	}
}
