package repair

// testlimit.go bounds a candidate's test run by the unchanged code's: a
// candidate that loops (binary-search-off-by-one's `while (lo != hi)`) would
// otherwise hold a test worker, and a core, until the test timeout
// (Request.TestTimeout, the bug corpus's 60-180 s). The limit is
//
//	min(cap, max(floor, factor x the unchanged code's test time))
//
// where cap is the user's test timeout, and a run is stopped there only once
// it has also used factor x the unchanged code's CPU time (the command and
// all it started; proc.TreeCPU): wall time grows with the machine's load
// (3x between one test command alone and three at once, 60 s for a Maven
// run that waited on another's lock), CPU time much less, and a loop uses
// CPU all along; a run that waits without using CPU runs on to the cap.
// Until it has, the CPU time is read again every cpuPoll. The unchanged
// code's tests run only
// when needed: after the first plausible patch (Request.TestBuggy, as
// before), or as soon as a candidate's tests run longer than the floor
// without the limit known; a run that is already going gets the limit from
// its own start once it is known. bench/README.md ("Repair: a test time
// limit from the unchanged code's") has the measured spread behind the
// defaults.

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// DefaultTestTimeFactor is the factor of the scaled test limit when
// Request.TestTimeFactor is 0: a candidate's tests may take this many times
// the unchanged code's test time (wall time of the test command, seconds
// over seconds), at least DefaultTestTimeFloor and at most the test timeout.
const DefaultTestTimeFactor = 5.0

// DefaultTestTimeFloor is the least a candidate's tests may take under the
// scaled limit when Request.TestTimeFloor is 0.
const DefaultTestTimeFloor = 20 * time.Second

// testLimit is one repair's scaled test limit (see the file comment), safe
// for concurrent use. A nil *testLimit limits nothing (the test timeout
// alone).
type testLimit struct {
	floor  time.Duration
	factor float64
	cap    time.Duration // the test timeout: sandbox.Run's own timeout
	slow   func()        // called once, when a run passes floor before the limit is known

	mu      sync.Mutex
	known   bool          // set ran
	ref     time.Duration // the unchanged code's test time (known)
	refCPU  time.Duration // and its CPU time (known)
	limit   time.Duration // min(cap, max(floor, factor*ref)) (known)
	slowed  bool          // slow was called (or the limit is known)
	running map[*limitedRun]bool
}

// limitedRun is one test run under a testLimit.
type limitedRun struct {
	start time.Time
	stop  context.CancelCauseFunc
	timer *time.Timer
	cpu   func() (time.Duration, bool) // the run's CPU time so far (sandbox.RunWatched); nil until it started
}

// cpuPoll is how often a run past the limit's wall time, short of its CPU
// time, has its CPU time read again.
const cpuPoll = time.Second

// newTestLimit returns the scaled limit of req's test runs, or nil when it
// cannot be below the test timeout (no test command, a negative
// TestTimeFactor, or a floor at or above the timeout). slow starts the
// unchanged code's test run (the validator's).
func newTestLimit(req Request, slow func()) *testLimit {
	l := &testLimit{floor: req.TestTimeFloor, factor: req.TestTimeFactor, cap: req.TestTimeout, slow: slow,
		running: map[*limitedRun]bool{}}
	if l.floor <= 0 {
		l.floor = DefaultTestTimeFloor
	}
	if l.factor == 0 {
		l.factor = DefaultTestTimeFactor
	}
	if l.cap <= 0 {
		l.cap = DefaultTestTimeout
	}
	if len(req.TestCmd) == 0 || l.factor < 0 || l.floor >= l.cap {
		return nil
	}
	return l
}

// testLimitStop is the cause of a candidate's test run stopped at the scaled
// limit; its Error is the note appended to the run's output.
type testLimitStop struct {
	after, cpu, ref, refCPU, floor, cap time.Duration
	factor                              float64
}

func (s *testLimitStop) Error() string {
	return fmt.Sprintf("tests timed out after %s (%s of CPU), %.1f x the unchanged code's time (%s, %s of CPU); "+
		"a candidate's tests may take %g x the unchanged code's time and CPU time, at least %s, at most the test timeout %s",
		secs(s.after), secs(s.cpu), float64(s.after)/float64(max(s.ref, time.Millisecond)), secs(s.ref), secs(s.refCPU),
		s.factor, secs(s.floor), secs(s.cap))
}

// secs formats d as seconds with one decimal ("20.0 s").
func secs(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }

// begin registers a test run that starts now under ctx and returns its
// context, which ends with a *testLimitStop cause (context.Cause) when the
// run passes the limit, the function to give sandbox.RunWatched (the run's
// CPU time), and the function that ends the registration (call it when the
// run ends). On a nil l it returns ctx and no watch.
func (l *testLimit) begin(ctx context.Context) (context.Context, func(func() (time.Duration, bool)), func()) {
	if l == nil {
		return ctx, nil, func() {}
	}
	rctx, stop := context.WithCancelCause(ctx)
	r := &limitedRun{start: time.Now(), stop: stop}
	l.mu.Lock()
	l.running[r] = true
	l.arm(r)
	l.mu.Unlock()
	watch := func(cpu func() (time.Duration, bool)) {
		l.mu.Lock()
		r.cpu = cpu
		l.mu.Unlock()
	}
	return rctx, watch, func() {
		l.mu.Lock()
		delete(l.running, r)
		if r.timer != nil {
			r.timer.Stop()
		}
		l.mu.Unlock()
		stop(nil)
	}
}

// arm sets r's timer: at the limit from r's start when it is known and
// below the cap (sandbox.Run stops the run at the cap), else at the floor
// to start the unchanged code's run. l.mu is held.
func (l *testLimit) arm(r *limitedRun) {
	if r.timer != nil {
		r.timer.Stop()
		r.timer = nil
	}
	switch {
	case l.known && l.limit < l.cap:
		r.timer = time.AfterFunc(time.Until(r.start.Add(l.limit)), func() { l.check(r) })
	case !l.known && !l.slowed:
		r.timer = time.AfterFunc(time.Until(r.start.Add(l.floor)), l.onSlow)
	}
}

// check stops r, past the limit's wall time, when it has also used factor
// x the unchanged code's CPU time (or its CPU time cannot be read), and
// reads it again after cpuPoll otherwise.
func (l *testLimit) check(r *limitedRun) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.running[r] {
		return // ended meanwhile
	}
	var cpu time.Duration
	ok := false
	if r.cpu != nil {
		cpu, ok = r.cpu()
	}
	if ok && cpu < time.Duration(l.factor*float64(l.refCPU)) {
		r.timer = time.AfterFunc(cpuPoll, func() { l.check(r) })
		return
	}
	r.stop(&testLimitStop{after: time.Since(r.start), cpu: cpu, ref: l.ref, refCPU: l.refCPU, floor: l.floor, cap: l.cap, factor: l.factor})
}

// onSlow calls l.slow once, unless the limit is known by then.
func (l *testLimit) onSlow() {
	l.mu.Lock()
	call := !l.slowed && !l.known
	l.slowed = true
	l.mu.Unlock()
	if call {
		l.slow()
	}
}

// set records the unchanged code's test time and CPU time (the test
// command's, whatever its outcome) and limits every run from then on, those
// running included, each from its own start. Only the first call counts.
func (l *testLimit) set(ref, refCPU time.Duration) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.known {
		return
	}
	l.known, l.slowed, l.ref, l.refCPU = true, true, ref, refCPU
	l.limit = min(l.cap, max(l.floor, time.Duration(l.factor*float64(ref))))
	for r := range l.running {
		l.arm(r)
	}
}

// current returns the limit and whether it is known (false on a nil l).
func (l *testLimit) current() (time.Duration, bool) {
	if l == nil {
		return 0, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.limit, l.known
}
