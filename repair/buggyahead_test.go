package repair

// buggyahead_test.go tests the run of the tests on the unchanged project
// started ahead of the repair (Request.BuggyAhead).

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/engine"
)

// buggyRuns counts the lines of the log that logCmd writes which show the
// buggy line: the test runs made on the unchanged project.
func buggyRuns(t *testing.T, log string) int {
	t.Helper()
	b, err := os.ReadFile(log)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "int x = 1;")
}

// logCmd is a test command that appends src/A.java's hunk line to log and
// passes when that line is want.
func logCmd(log, want string) []string {
	return []string{"sh", "-c", `grep "int x" src/A.java >> "$1"; grep -q "$2" src/A.java`, "sh", log, want}
}

// TestBuggyAheadReplacesTheRun: with Request.BuggyAhead the repair runs
// the tests on the buggy project no more itself: Result.BuggyTest is the
// ahead run's, given under the same conditions as without it (a plausible
// patch, or tested candidates none of which passed), and the unchanged
// project's tests ran once in all.
func TestBuggyAheadReplacesTheRun(t *testing.T) {
	root := project(t)
	next := table(map[string][]tok{
		"":               {{"    int x = 2;", 0.6, false}, {"    int x = 3;", 0.4, false}},
		"    int x = 2;": {{"\n", 1, true}},
		"    int x = 3;": {{"\n", 1, true}},
	})
	for _, tc := range []struct {
		name, want string
		plausible  bool
		passes     bool // the buggy project's run
	}{
		{"a plausible patch", "int x = 3;", true, false},
		{"none passes", "int x = 1;", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := filepath.Join(t.TempDir(), "runs")
			r := request(variant(t, "base", func(o *Options) { o.Samples = 10 }))
			r.Root, r.File = root, filepath.Join(root, "src", "A.java")
			r.TestCmd, r.TestBuggy = logCmd(log, tc.want), true
			r.BuggyAhead = StartBuggyAhead(context.Background(), r)
			defer r.BuggyAhead.Stop()
			res := run(t, service(&fakeModel{next: next}, &fakeEngine{}, nil), r)
			if res.Stats.Tested != 2 || anyPlausible(res.Candidates) != tc.plausible {
				t.Fatalf("tested %d, patches %+v; want two tested, plausible %v", res.Stats.Tested, res.Candidates, tc.plausible)
			}
			if res.BuggyTest == nil || res.BuggyTest.Passed != tc.passes {
				t.Fatalf("BuggyTest = %+v; want the buggy project's run, passed %v", res.BuggyTest, tc.passes)
			}
			if n := buggyRuns(t, log); n != 1 {
				t.Fatalf("the tests ran %d times on the unchanged project; want once (the ahead run)", n)
			}
		})
	}
}

// TestBuggyAheadWithoutTestedCandidates: when no candidate was tested (none
// compiled), the repair gives no BuggyTest, as without the ahead run.
func TestBuggyAheadWithoutTestedCandidates(t *testing.T) {
	root := project(t)
	next := table(map[string][]tok{"": {{"    int x = y;\n", 1, true}}})
	c := &fakeCompiler{errs: func(text string) []engine.CompileError {
		if strings.Contains(text, "x = y;") {
			return []engine.CompileError{{Line: 3, Message: "y cannot be resolved"}}
		}
		return nil
	}}
	r := request(variant(t, "base", func(o *Options) { o.Samples = 3 }))
	r.Root, r.File = root, filepath.Join(root, "src", "A.java")
	r.TestCmd, r.TestBuggy = []string{"true"}, true
	r.BuggyAhead = StartBuggyAhead(context.Background(), r)
	defer r.BuggyAhead.Stop()
	res := run(t, service(&fakeModel{next: next}, &fakeEngine{}, c), r)
	if res.Stats.Tested != 0 || res.BuggyTest != nil {
		t.Fatalf("tested %d, BuggyTest %+v; want none tested and no BuggyTest", res.Stats.Tested, res.BuggyTest)
	}
}

// TestBuggyAheadStop: Stop ends a run still going at once, leaves no
// result, and may be called again; StartBuggyAhead starts nothing without
// a test command or Request.TestBuggy.
func TestBuggyAheadStop(t *testing.T) {
	root := project(t)
	r := request(Options{})
	r.Root, r.File = root, filepath.Join(root, "src", "A.java")
	r.TestCmd = []string{"sleep", "30"}
	if b := StartBuggyAhead(context.Background(), r); b != nil {
		b.Stop()
		t.Fatal("started without Request.TestBuggy")
	}
	r.TestBuggy = true
	b := StartBuggyAhead(context.Background(), r)
	time.Sleep(100 * time.Millisecond)
	began := time.Now()
	b.Stop()
	b.Stop()
	if d := time.Since(began); d > 10*time.Second {
		t.Fatalf("Stop took %s; want the run ended at once", d)
	}
	if run, ok := b.ended(); ok || run != nil {
		t.Fatalf("a stopped run gave a result: %+v", run)
	}
	r.TestCmd = nil
	if b := StartBuggyAhead(context.Background(), r); b != nil {
		b.Stop()
		t.Fatal("started without a test command")
	}
	var none *BuggyAhead
	none.Stop() // a nil run: nothing to stop
}
