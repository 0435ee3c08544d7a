package inline

import (
	"testing"
	"time"
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
