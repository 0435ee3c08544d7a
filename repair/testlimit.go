package repair

// testlimit.go bounds a candidate's test run by the unchanged code's: a
// candidate that loops (binary-search-off-by-one's `while (lo != hi)`) would
// otherwise hold a test worker, and a core, until the test timeout
// (Request.TestTimeout, the bug corpus's 60-180 s). The limit is
//
//	min(cap, max(floor, factor x the unchanged code's test time))
//
// where cap is the user's test timeout. The unchanged code's tests run only
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
	limit   time.Duration // min(cap, max(floor, factor*ref)) (known)
	slowed  bool          // slow was called (or the limit is known)
	running map[*limitedRun]bool
}

// limitedRun is one test run under a testLimit.
type limitedRun struct {
	start time.Time
	stop  context.CancelCauseFunc
	timer *time.Timer
}

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
	after, ref, floor, cap time.Duration
	factor                 float64
}

func (s *testLimitStop) Error() string {
	return fmt.Sprintf("tests timed out after %s, %.1f x the unchanged code's time (%s); "+
		"a candidate's tests may take %g x the unchanged code's time, at least %s, at most the test timeout %s",
		secs(s.after), float64(s.after)/float64(max(s.ref, time.Millisecond)), secs(s.ref), s.factor, secs(s.floor), secs(s.cap))
}

// secs formats d as seconds with one decimal ("20.0 s").
func secs(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }

// begin registers a test run that starts now under ctx and returns its
// context, which ends with a *testLimitStop cause (context.Cause) when the
// run passes the limit, and the function that ends the registration (call
// it when the run ends). On a nil l it returns ctx.
func (l *testLimit) begin(ctx context.Context) (context.Context, func()) {
	if l == nil {
		return ctx, func() {}
	}
	rctx, stop := context.WithCancelCause(ctx)
	r := &limitedRun{start: time.Now(), stop: stop}
	l.mu.Lock()
	l.running[r] = true
	l.arm(r)
	l.mu.Unlock()
	return rctx, func() {
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
		stop := &testLimitStop{ref: l.ref, floor: l.floor, cap: l.cap, factor: l.factor}
		r.timer = time.AfterFunc(time.Until(r.start.Add(l.limit)), func() {
			stop.after = time.Since(r.start)
			r.stop(stop)
		})
	case !l.known && !l.slowed:
		r.timer = time.AfterFunc(time.Until(r.start.Add(l.floor)), l.onSlow)
	}
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

// set records the unchanged code's test time (the test command's wall
// time, whatever its outcome) and limits every run from then on, those
// running included, each from its own start. Only the first call counts.
func (l *testLimit) set(ref time.Duration) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.known {
		return
	}
	l.known, l.slowed, l.ref = true, true, ref
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
