package inline

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/engine"
)

// Slow checks stop counting after checkMaxAge: otherwise an estimate left
// by slow checks would keep every later check from starting, and with no
// check nothing would replace it.
func TestCheckEstimateAges(t *testing.T) {
	now := time.Unix(1000, 0)
	c := checkTimes{now: func() time.Time { return now }}
	if got := c.estimate(); got != initialCheckEstimate {
		t.Fatalf("estimate with no check = %v, want %v", got, initialCheckEstimate)
	}
	c.add(time.Second)
	c.add(900 * time.Millisecond)
	if got := c.estimate(); got != time.Second {
		t.Fatalf("estimate = %v, want 1s", got)
	}
	now = now.Add(checkMaxAge / 2)
	c.add(100 * time.Millisecond)
	if got := c.estimate(); got != time.Second {
		t.Errorf("estimate within checkMaxAge = %v, want 1s", got)
	}
	now = now.Add(checkMaxAge/2 + time.Millisecond)
	if got := c.estimate(); got != 100*time.Millisecond {
		t.Errorf("estimate after the slow checks aged out = %v, want 100ms", got)
	}
	now = now.Add(checkMaxAge)
	if got := c.estimate(); got != initialCheckEstimate {
		t.Errorf("estimate after every check aged out = %v, want %v", got, initialCheckEstimate)
	}
}

// The median is what a check needs to be started; sampling still ends by
// the 90th percentile.
func TestCheckMedian(t *testing.T) {
	var c checkTimes
	if got := c.median(); got != initialCheckEstimate {
		t.Fatalf("median with no check = %v, want %v", got, initialCheckEstimate)
	}
	for i := 1; i <= 10; i++ {
		c.add(time.Duration(i) * 100 * time.Millisecond)
	}
	if got, est := c.median(), c.estimate(); got != 500*time.Millisecond || est != 900*time.Millisecond {
		t.Errorf("median, estimate = %v, %v; want 500ms, 900ms", got, est)
	}
}

// A file with errors of its own needs a second check, of the file as it
// stands (guarantee): it starts when the time left covers the recent
// checks' median, although not their 90th percentile, and the suggestion
// is shown.
func TestSecondCheckStartsOnTheMedian(t *testing.T) {
	m := &scriptModel{middle: "1 + 2;\n"}
	c := &funcCompiler{f: func(string) []engine.CompileError {
		time.Sleep(300 * time.Millisecond)
		return []engine.CompileError{{Line: 1, Message: "the file's own"}} // outside the caret's line (3)
	}}
	s := newTestService(m, c, Options{AutomaticBudget: 1200 * time.Millisecond})
	for range checkHistory / 2 {
		s.checks.add(50 * time.Millisecond)
	}
	for range checkHistory / 2 {
		s.checks.add(900 * time.Millisecond)
	}
	got, err := s.Suggest(context.Background(), Request{URI: "file:///A.java", Text: doc, Offset: strings.Index(doc, "= ") + 2})
	if err != nil || got == nil || got.Text != "1 + 2;" {
		t.Fatalf("Suggest = %+v, %v; want \"1 + 2;\"", got, err)
	}
	if c.calls.Load() != 2 || got.Stats.ChecksSkipped != 0 {
		t.Errorf("%d checks, stats %+v; want 2, none skipped", c.calls.Load(), got.Stats)
	}
}
