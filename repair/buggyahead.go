package repair

// buggyahead.go runs the tests on the unchanged project (Request.TestBuggy)
// ahead of the repair, while its backends start (issue 14: repair wall
// time). After the first plausible patch that run took a test worker's
// turn, and on 2 cores it was one of the test runs the repair waited for
// once sampling had ended; a starting JDT LS leaves a core partly idle, and
// the run's result is the same whenever it is made (the same text, the same
// command, its own scratch copy).

import (
	"context"
	"sync"
)

// aheadLower is how many steps of niceness the ahead run is below ours
// (sandbox.RunLower): it is to take the core that the backends' start
// leaves idle, not slow that start down.
const aheadLower = 10

// BuggyAhead is one run of a request's test command on the unchanged
// project (Request.Text at Request.File), started before the repair by
// StartBuggyAhead and handed to it as Request.BuggyAhead. Its methods are
// safe for concurrent use.
type BuggyAhead struct {
	ctx    context.Context // the run's: the caller's, cancelled by Stop
	cancel context.CancelFunc
	done   chan struct{}
	run    TestRun
	err    error
	once   sync.Once
}

// StartBuggyAhead starts req.TestCmd on the project as it is (runTests on
// req.Text, with req.TestTimeout) in the background and returns at once. The
// run ends with ctx, with Stop, or by itself; the caller must Stop it (which
// waits for it), so that no test process outlives the request. It returns
// nil when the request has no test command or does not ask for the run
// (Request.TestBuggy), or when req.File is not inside req.Root.
func StartBuggyAhead(ctx context.Context, req Request) *BuggyAhead {
	if !req.TestBuggy || len(req.TestCmd) == 0 {
		return nil
	}
	rel, err := relPath(req.Root, req.File)
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	b := &BuggyAhead{ctx: ctx, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(b.done)
		b.run, b.err = runTestsLower(ctx, req.Root, rel, req.Text, req.TestCmd, req.TestTimeout, aheadLower)
	}()
	return b
}

// Stop ends the run if it still runs and waits until it has ended and its
// scratch copy is removed. It may be called more than once; a nil
// *BuggyAhead does nothing.
func (b *BuggyAhead) Stop() {
	if b == nil {
		return
	}
	b.once.Do(b.cancel)
	<-b.done
}

// result waits for the run, or for ctx, and returns what Result.BuggyTest
// holds: the run, or a TestRun whose Output says why the command could
// not run. ok is false when ctx ended first, or when the run was cut short
// by its own context (Stop, the request's context): then there is no
// result.
func (b *BuggyAhead) result(ctx context.Context) (run *TestRun, ok bool) {
	select {
	case <-b.done:
	case <-ctx.Done():
		return nil, false
	}
	return b.ended()
}

// ended is result without waiting: ok is false while the run goes on.
func (b *BuggyAhead) ended() (run *TestRun, ok bool) {
	select {
	case <-b.done:
	default:
		return nil, false
	}
	switch {
	case b.err == nil:
		tr := b.run
		return &tr, true
	case b.ctx.Err() != nil:
		return nil, false
	default:
		return &TestRun{Output: "could not run: " + b.err.Error()}, true
	}
}
