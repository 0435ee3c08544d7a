//go:build linux

package proc

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestKillGroupEndsTheGroup: a shell started with Tie and its background
// child both end with KillGroup.
func TestKillGroupEndsTheGroup(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep 60 & echo $!; wait")
	Tie(cmd)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 32)
	n, _ := out.Read(buf)
	var child int
	for _, c := range buf[:n] {
		if c >= '0' && c <= '9' {
			child = child*10 + int(c-'0')
		}
	}
	if child == 0 {
		t.Fatalf("no child pid in %q", buf[:n])
	}
	if err := KillGroup(cmd); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	for deadline := time.Now().Add(5 * time.Second); alive(child); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(child, syscall.SIGKILL)
			t.Fatalf("child %d of the group still alive", child)
		}
	}
	if err := KillGroup(cmd); err != nil {
		t.Errorf("KillGroup after Wait: %v", err)
	}
}

// alive reports a process that exists and is not a zombie (a zombie waits
// for its new parent to reap it, which some containers' init never does).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && !strings.HasPrefix(strings.TrimSpace(s[i+1:]), "Z")
}
