package openai

import (
	"syscall"
	"testing"
	"time"
)

// treeCPU counts this process's own CPU time as getrusage does: spinning
// until getrusage says 300 ms more were used, treeCPU grows by as much,
// give or take its 10 ms ticks (load only stretches the wall time).
func TestTreeCPUCountsSelf(t *testing.T) {
	self := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			t.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	before, r0 := treeCPU(), self()
	x := 0
	for self()-r0 < 300*time.Millisecond {
		for i := 0; i < 100000; i++ {
			x += i
		}
	}
	_ = x
	got, want := treeCPU()-before, self()-r0
	if d := got - want; d < -50*time.Millisecond || d > 50*time.Millisecond {
		t.Errorf("treeCPU grew by %v while getrusage grew by %v", got, want)
	}
}
