package repair

// testlimit_test.go checks the scaled test limit (testlimit.go) with a test
// command that sleeps: a candidate that "loops" is stopped at the limit
// derived from the unchanged code's test time, with a note that says so,
// and the test timeout still caps the limit.

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// sleepyRepair repairs javaFile's line 3 with the candidates "x = 2",
// whose tests loop (a busy shell loop, using a core), "x = 3", whose tests
// pass at once, "x = 4", whose tests pass after passing seconds (sleeping),
// and with stall "x = 5", whose tests sleep for a minute (a wait that uses
// no CPU). The unchanged code's tests use a core for buggy seconds, fail,
// and append a line to the returned log.
func sleepyRepair(t *testing.T, buggy, passing float64, stall bool, mod func(*Request)) (*Result, []string, time.Duration) {
	t.Helper()
	root := project(t)
	log := filepath.Join(t.TempDir(), "buggy-runs")
	script := fmt.Sprintf(`if grep -q "x = 2;" src/A.java; then while :; do :; done
elif grep -q "x = 3;" src/A.java; then exit 0
elif grep -q "x = 4;" src/A.java; then sleep %g
elif grep -q "x = 5;" src/A.java; then sleep 60
else echo run >> %q; timeout %g sh -c 'while :; do :; done'; exit 1; fi`, passing, log, buggy)
	first := []tok{{"    int x = 2;", 0.4, false}, {"    int x = 3;", 0.3, false}, {"    int x = 4;", 0.2, false}}
	if stall {
		first = append(first, tok{"    int x = 5;", 0.1, false})
	}
	next := table(map[string][]tok{
		"":               first,
		"    int x = 2;": {{"\n", 1, true}},
		"    int x = 3;": {{"\n", 1, true}},
		"    int x = 4;": {{"\n", 1, true}},
		"    int x = 5;": {{"\n", 1, true}},
	})
	r := request(variant(t, "base", func(o *Options) { o.Samples = 16 }))
	r.Root, r.File = root, filepath.Join(root, "src", "A.java")
	r.TestCmd = []string{"sh", "-c", script}
	mod(&r)
	began := time.Now()
	res := run(t, service(&fakeModel{next: next}, &fakeEngine{}, nil), r)
	took := time.Since(began)
	b, _ := os.ReadFile(log)
	return res, strings.Fields(string(b)), took
}

// patchOf returns the candidate whose hunk holds s.
func patchOf(t *testing.T, res *Result, s string) Patch {
	t.Helper()
	for _, p := range res.Candidates {
		if strings.Contains(p.Hunk, s) {
			return p
		}
	}
	t.Fatalf("no candidate with %q in %q", s, hunks(res.Candidates))
	return Patch{}
}

var limitNote = regexp.MustCompile(`\[repilot: tests timed out after ([0-9.]+) s \(([0-9.]+) s of CPU\), ([0-9.]+) x the unchanged code's time \(([0-9.]+) s, ([0-9.]+) s of CPU\); ` +
	`a candidate's tests may take 4 x the unchanged code's time and CPU time, at least 1\.0 s, at most the test timeout 60\.0 s\]$`)

// TestScaledTestLimitStopsLoopingCandidate: the looping candidate's tests
// pass the floor (1 s), so the tests run on the unchanged code (0.6 s of a
// core, once), and the looping run is stopped once past max(1 s, 4 x that
// time) and 4 x that CPU time, far below the 60 s timeout, with a note
// giving the times; the passing candidates (one taking 1.2 s, over the
// floor but under the limit) stay plausible. Without TestBuggy that run is
// not Result.BuggyTest; with it, it is, and it is not made twice.
func TestScaledTestLimitStopsLoopingCandidate(t *testing.T) {
	for _, testBuggy := range []bool{false, true} {
		res, runs, took := sleepyRepair(t, 0.6, 1.2, false, func(r *Request) {
			r.TestTimeout, r.TestTimeFloor, r.TestTimeFactor, r.TestBuggy = time.Minute, time.Second, 4, testBuggy
		})
		if took > 40*time.Second {
			t.Fatalf("TestBuggy %v: the repair took %v; the looping candidate was not stopped at the scaled limit", testBuggy, took)
		}
		loop := patchOf(t, res, "x = 2;")
		if !loop.Tested || loop.Plausible || !loop.TestTimedOut {
			t.Fatalf("TestBuggy %v: looping candidate %+v; want tested, timed out, not plausible", testBuggy, loop)
		}
		m := limitNote.FindStringSubmatch(loop.TestOutput)
		if m == nil {
			t.Fatalf("TestBuggy %v: looping candidate's output %q lacks the scaled limit's note", testBuggy, loop.TestOutput)
		}
		var f [5]float64
		for i := range f {
			f[i], _ = strconv.ParseFloat(m[i+1], 64)
		}
		after, cpu, ratio, ref, refCPU := f[0], f[1], f[2], f[3], f[4]
		// The note rounds to 0.1 s (and the ratio to 0.1) from the times
		// themselves.
		const r = 0.05
		if ref < 0.6-r || after < 4*(ref-r)-r || after < 1-r || cpu < 4*(refCPU-r)-r ||
			ratio < (after-r)/(ref+r)-r || ratio > (after+r)/(ref-r)+r {
			t.Fatalf("TestBuggy %v: note %q: want a stop after max(1 s, 4 x %.1f s) and 4 x %.1f s of CPU, and the ratio of the times", testBuggy, m[0], ref, refCPU)
		}
		for _, s := range []string{"x = 3;", "x = 4;"} {
			if p := patchOf(t, res, s); !p.Plausible || p.TestTimedOut {
				t.Fatalf("TestBuggy %v: %s: %+v; want plausible", testBuggy, s, p)
			}
		}
		if len(runs) != 1 {
			t.Fatalf("TestBuggy %v: the unchanged code's tests ran %d times; want once", testBuggy, len(runs))
		}
		if st := res.Stats; st.BuggyTestTime < 600*time.Millisecond || st.TestLimit != max(time.Second, 4*st.BuggyTestTime) {
			t.Fatalf("TestBuggy %v: BuggyTestTime %v, TestLimit %v; want max(1 s, 4 x the first)", testBuggy, st.BuggyTestTime, st.TestLimit)
		}
		if (res.BuggyTest != nil) != testBuggy || (testBuggy && res.BuggyTest.Passed) {
			t.Fatalf("TestBuggy %v: BuggyTest = %+v", testBuggy, res.BuggyTest)
		}
	}
}

// TestScaledTestLimitSparesWaitingRun: a candidate's run past the limit's
// wall time that has not used its CPU time (sleeping: waiting on a lock, a
// loaded machine) runs on to the test timeout, while the looping one is
// stopped at the scaled limit.
func TestScaledTestLimitSparesWaitingRun(t *testing.T) {
	res, runs, _ := sleepyRepair(t, 0.5, 0, true, func(r *Request) {
		r.TestTimeout, r.TestTimeFloor, r.TestTimeFactor = 5*time.Second, 500*time.Millisecond, 2
	})
	if loop := patchOf(t, res, "x = 2;"); !strings.Contains(loop.TestOutput, "[repilot: tests timed out after") {
		t.Fatalf("looping candidate %+v; want stopped at the scaled limit", loop)
	}
	if wait := patchOf(t, res, "x = 5;"); !strings.HasSuffix(wait.TestOutput, "[repilot: test command timed out after 5s]") {
		t.Fatalf("waiting candidate %+v; want stopped at the 5 s timeout only", wait)
	}
	if len(runs) != 1 {
		t.Fatalf("the unchanged code's tests ran %d times; want once", len(runs))
	}
}

// TestScaledTestLimitCappedByTestTimeout: the test timeout caps the scaled
// limit (here 100 x 0.3 s = 30 s against a 2 s timeout): the looping
// candidate stops at the timeout, with the timeout's note; with the floor
// at the timeout the unchanged code's tests do not run at all.
func TestScaledTestLimitCappedByTestTimeout(t *testing.T) {
	res, runs, took := sleepyRepair(t, 0.3, 0, false, func(r *Request) {
		r.TestTimeout, r.TestTimeFloor, r.TestTimeFactor = 2*time.Second, 500*time.Millisecond, 100
	})
	loop := patchOf(t, res, "x = 2;")
	if !loop.TestTimedOut || !strings.HasSuffix(loop.TestOutput, "[repilot: test command timed out after 2s]") || took > 15*time.Second {
		t.Fatalf("looping candidate %+v after %v; want stopped at the 2 s timeout", loop, took)
	}
	if len(runs) != 1 {
		t.Fatalf("the unchanged code's tests ran %d times; want once (the looping run passed the floor)", len(runs))
	}
	res, runs, _ = sleepyRepair(t, 0.3, 0, false, func(r *Request) {
		r.TestTimeout, r.TestTimeFloor = 2*time.Second, 2*time.Second
	})
	if loop := patchOf(t, res, "x = 2;"); !strings.HasSuffix(loop.TestOutput, "[repilot: test command timed out after 2s]") {
		t.Fatalf("looping candidate %+v; want stopped at the 2 s timeout", loop)
	}
	if len(runs) != 0 {
		t.Fatalf("the unchanged code's tests ran %d times with the floor at the timeout; want never", len(runs))
	}
}

// TestScaledTestLimitOff: a negative TestTimeFactor turns the limit off:
// the looping candidate runs to the timeout and the unchanged code's tests
// never run.
func TestScaledTestLimitOff(t *testing.T) {
	res, runs, took := sleepyRepair(t, 0.1, 0, false, func(r *Request) {
		r.TestTimeout, r.TestTimeFloor, r.TestTimeFactor = 3*time.Second, 200*time.Millisecond, -1
	})
	if loop := patchOf(t, res, "x = 2;"); !strings.HasSuffix(loop.TestOutput, "[repilot: test command timed out after 3s]") || took < 3*time.Second {
		t.Fatalf("looping candidate %+v after %v; want the 3 s timeout", loop, took)
	}
	if len(runs) != 0 {
		t.Fatalf("the unchanged code's tests ran %d times with the limit off; want never", len(runs))
	}
}
