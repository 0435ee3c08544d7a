package inline

// deadline.go is a request's one deadline: generation and the compile
// checks together end within Options.AutomaticBudget, counted from an
// automatic request's start (or Options.InvokedBudget, counted from when an
// invoked request holds the backends). Sampling ends a check's time before
// the deadline (the recent checks' 90th percentile, checkTimes), and a check
// is started while the time left covers their median (a check that would
// not start ends the request with nothing all the same). The engine's
// decisions near the end of sampling answer unknown instead of waiting for
// JDT LS (the engine is strict: unknown never prunes a feasible token), so
// that a sample still running then completes and reaches the check instead
// of running out of time.

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/repilot-lsp/repilot-lsp/engine"
)

// errBudget is the cause of a context ended by a request's budget
// (Options.AutomaticBudget or InvokedBudget).
var errBudget = errors.New("inline: the request's budget ran out")

// outOfBudget reports whether ctx ended because the request's budget ran
// out (and not because the request was cancelled).
func outOfBudget(ctx context.Context) bool {
	return ctx.Err() != nil && errors.Is(context.Cause(ctx), errBudget)
}

const (
	// checkHistory is how many recent compile checks checkTimes keeps.
	checkHistory = 32
	// initialCheckEstimate is the estimate before any check was timed.
	initialCheckEstimate = 150 * time.Millisecond
	// engineTail is the part of sampling's time, at its end, in which the
	// engine answers unknown without asking JDT LS: time for a sample then
	// running to end on the model alone (the embedded model proposes a
	// whole suggestion in a few milliseconds on a quiet machine, 10-25 ms
	// a token under load 25-50).
	engineTail = 60 * time.Millisecond
	// minSampleTime is the least sampling time for which a sample after
	// the first starts.
	minSampleTime = 20 * time.Millisecond
	// unwindReserve is the part of the budget (at most a tenth of it) left
	// after the request's deadline for the request to return: with the
	// deadline at the whole budget, the p95 warm latency was 1,020 ms for a
	// 1 s budget under load 27 on 2 cores (bench inline, java.logging/).
	unwindReserve = 25 * time.Millisecond
)

// checkTimes estimates how long one compile check takes from the last
// checkHistory checks of the last checkMaxAge: their 90th percentile.
//
// Why the age bound: no automatic check starts while the estimate leaves no
// time for one, so an estimate made of slow checks (JDT LS's first checks
// of a session, a load spike) would never be replaced and ghost text would
// stay off for good. Seen in bench inline on java.logging/ under load 27,
// with the unguided greedy text checked first: two cold first checks of
// about 1 s each, and none of the 142 requests after them ran a sample. After checkMaxAge without a check the estimate
// is initialCheckEstimate again, and the next check measures anew.
type checkTimes struct {
	mu   sync.Mutex
	ring [checkHistory]timedCheck
	n    int // checks recorded (the ring holds the last min(n, checkHistory))
	now  func() time.Time
}

// timedCheck is one check's duration and when it ended.
type timedCheck struct {
	d  time.Duration
	at time.Time
}

// checkMaxAge is how long a check's duration counts toward the estimate.
const checkMaxAge = 20 * time.Second

func (c *checkTimes) clock() time.Time {
	if c.now != nil {
		return c.now()
	}
	return time.Now()
}

func (c *checkTimes) add(d time.Duration) {
	c.mu.Lock()
	c.ring[c.n%checkHistory] = timedCheck{d: d, at: c.clock()}
	c.n++
	c.mu.Unlock()
}

// estimate returns the 90th percentile (nearest rank) of the recent checks,
// or initialCheckEstimate when none was timed in the last checkMaxAge.
func (c *checkTimes) estimate() time.Duration { return c.percentile(90) }

// median returns the 50th percentile (nearest rank) of the recent checks,
// or initialCheckEstimate when none was timed in the last checkMaxAge: the
// least time left for which a check is started (guarantee), where sampling
// ends by estimate. A check that would not start ends the request with
// nothing shown all the same, so starting it when it may still finish only
// gives the request a chance; one still running at the deadline is cut.
func (c *checkTimes) median() time.Duration { return c.percentile(50) }

// percentile returns the p-th percentile (nearest rank, 0 < p <= 100) of
// the recent checks, or initialCheckEstimate when none was timed in the
// last checkMaxAge.
func (c *checkTimes) percentile(p int) time.Duration {
	c.mu.Lock()
	since := c.clock().Add(-checkMaxAge)
	ds := make([]time.Duration, 0, checkHistory)
	for _, t := range c.ring[:min(c.n, checkHistory)] {
		if t.at.After(since) {
			ds = append(ds, t.d)
		}
	}
	c.mu.Unlock()
	n := len(ds)
	if n == 0 {
		return initialCheckEstimate
	}
	slices.Sort(ds)
	return ds[min(n-1, max(0, (p*n+99)/100-1))]
}

// lateSession is an engine session whose Check and Complete answer unknown
// (Unknown, Completions{}) from end on, and cut a JDT LS request still
// running then, instead of waiting for it. CheckEnd (a local parse) is
// passed through. Errors other than the cut are the inner session's.
type lateSession struct {
	engine.Session
	end  time.Time
	late *atomic.Int64 // decisions answered unknown because of end
}

func (s *lateSession) Check(ctx context.Context, generated, token string) (engine.Outcome, error) {
	if !time.Now().Before(s.end) {
		s.late.Add(1)
		return engine.Unknown, nil
	}
	cctx, cancel := context.WithDeadline(ctx, s.end)
	defer cancel()
	out, err := s.Session.Check(cctx, generated, token)
	if err != nil && ctx.Err() == nil && cctx.Err() != nil {
		s.late.Add(1)
		return engine.Unknown, nil
	}
	return out, err
}

func (s *lateSession) Complete(ctx context.Context, generated string) (engine.Completions, error) {
	if !time.Now().Before(s.end) {
		s.late.Add(1)
		return engine.Completions{}, nil
	}
	cctx, cancel := context.WithDeadline(ctx, s.end)
	defer cancel()
	c, err := s.Session.Complete(cctx, generated)
	if err != nil && ctx.Err() == nil && cctx.Err() != nil {
		s.late.Add(1)
		return engine.Completions{}, nil
	}
	return c, err
}
