package backend

import (
	"strings"
	"sync"
	"testing"
	"time"
)

// TestHeartbeat: while JDT LS starts, a line every interval says so with the
// time so far (a start of 35-110 s under load printed nothing between
// "starting JDT LS" and "JDT LS ready after"), none after stop, and none
// that starts "starting JDT LS" (TestDidOpenWarmsAndRepairReuses counts
// those as starts).
func TestHeartbeat(t *testing.T) {
	var mu sync.Mutex
	var msgs []string
	stop := heartbeat(func(msg string, _ int) {
		mu.Lock()
		msgs = append(msgs, msg)
		mu.Unlock()
	}, 20*time.Millisecond, time.Now().Add(-30*time.Second))
	time.Sleep(110 * time.Millisecond)
	stop()
	mu.Lock()
	n := len(msgs)
	got := append([]string(nil), msgs...)
	mu.Unlock()
	if n < 2 {
		t.Fatalf("%d heartbeats in 110 ms at 20 ms, want at least 2: %q", n, got)
	}
	for _, m := range got {
		if !strings.HasPrefix(m, "JDT LS still starting (30s so far)") && !strings.HasPrefix(m, "JDT LS still starting (31s so far)") {
			t.Errorf("heartbeat %q", m)
		}
	}
	time.Sleep(60 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if len(msgs) != n {
		t.Errorf("%d heartbeats after stop: %q", len(msgs)-n, msgs[n:])
	}
}
