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

// sleepyRepair repairs javaFile's line 3 with three candidates: "x = 2"
// whose tests never end (sleep 60), "x = 3" whose tests pass at once, and
// "x = 4" whose tests pass after passing (seconds). The unchanged code's
// tests fail after buggy seconds and append a line to the returned log.
func sleepyRepair(t *testing.T, buggy, passing float64, mod func(*Request)) (*Result, []string, time.Duration) {
	t.Helper()
	root := project(t)
	log := filepath.Join(t.TempDir(), "buggy-runs")
	script := fmt.Sprintf(`if grep -q "x = 2;" src/A.java; then sleep 60
elif grep -q "x = 3;" src/A.java; then exit 0
elif grep -q "x = 4;" src/A.java; then sleep %g
else echo run >> %q; sleep %g; exit 1; fi`, passing, log, buggy)
	next := table(map[string][]tok{
		"":               {{"    int x = 2;", 0.5, false}, {"    int x = 3;", 0.3, false}, {"    int x = 4;", 0.2, false}},
		"    int x = 2;": {{"\n", 1, true}},
		"    int x = 3;": {{"\n", 1, true}},
		"    int x = 4;": {{"\n", 1, true}},
	})
	r := request(variant(t, "base", func(o *Options) { o.Samples = 12 }))
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

var limitNote = regexp.MustCompile(`\[repilot: tests timed out after ([0-9.]+) s, ([0-9.]+) x the unchanged code's time \(([0-9.]+) s\); ` +
	`a candidate's tests may take 4 x the unchanged code's time, at least 1\.0 s, at most the test timeout 30\.0 s\]$`)

// TestScaledTestLimitStopsLoopingCandidate: the looping candidate's tests
// pass the floor (1 s), so the tests run on the unchanged code (0.5 s,
// once), and the looping run is stopped at max(1 s, 4 x that time), far
// below the 30 s timeout, with a note giving both times; the passing
// candidates (one taking 1.2 s, over the floor but under the limit) stay
// plausible. Without TestBuggy that run is not Result.BuggyTest; with it,
// it is, and it is not made twice.
func TestScaledTestLimitStopsLoopingCandidate(t *testing.T) {
	for _, testBuggy := range []bool{false, true} {
		res, runs, took := sleepyRepair(t, 0.6, 1.2, func(r *Request) {
			r.TestTimeout, r.TestTimeFloor, r.TestTimeFactor, r.TestBuggy = 30*time.Second, time.Second, 4, testBuggy
		})
		if took > 15*time.Second {
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
		after, _ := strconv.ParseFloat(m[1], 64)
		ratio, _ := strconv.ParseFloat(m[2], 64)
		ref, _ := strconv.ParseFloat(m[3], 64)
		// The note rounds to 0.1 s (and the ratio to 0.1) from the times
		// themselves.
		const r = 0.05
		if ref < 0.6-r || after < 4*(ref-r)-r || after < 1-r || after > 4*(ref+r)+5 ||
			ratio < (after-r)/(ref+r)-r || ratio > (after+r)/(ref-r)+r {
			t.Fatalf("TestBuggy %v: note %q: want a stop after max(1 s, 4 x %.1f s) and the ratio of the two", testBuggy, m[0], ref)
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

// TestScaledTestLimitCappedByTestTimeout: the test timeout caps the scaled
// limit (here 100 x 0.3 s = 30 s against a 2 s timeout): the looping
// candidate stops at the timeout, with the timeout's note; with the floor
// at the timeout the unchanged code's tests do not run at all.
func TestScaledTestLimitCappedByTestTimeout(t *testing.T) {
	res, runs, took := sleepyRepair(t, 0.3, 0, func(r *Request) {
		r.TestTimeout, r.TestTimeFloor, r.TestTimeFactor = 2*time.Second, 500*time.Millisecond, 100
	})
	loop := patchOf(t, res, "x = 2;")
	if !loop.TestTimedOut || !strings.HasSuffix(loop.TestOutput, "[repilot: test command timed out after 2s]") || took > 15*time.Second {
		t.Fatalf("looping candidate %+v after %v; want stopped at the 2 s timeout", loop, took)
	}
	if len(runs) != 1 {
		t.Fatalf("the unchanged code's tests ran %d times; want once (the looping run passed the floor)", len(runs))
	}
	res, runs, _ = sleepyRepair(t, 0.3, 0, func(r *Request) {
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
	res, runs, took := sleepyRepair(t, 0.1, 0, func(r *Request) {
		r.TestTimeout, r.TestTimeFloor, r.TestTimeFactor = 3*time.Second, 200*time.Millisecond, -1
	})
	if loop := patchOf(t, res, "x = 2;"); !strings.HasSuffix(loop.TestOutput, "[repilot: test command timed out after 3s]") || took < 3*time.Second {
		t.Fatalf("looping candidate %+v after %v; want the 3 s timeout", loop, took)
	}
	if len(runs) != 0 {
		t.Fatalf("the unchanged code's tests ran %d times with the limit off; want never", len(runs))
	}
}
