//go:build linux

package proc

import (
	"os"
	"os/exec"
	"strconv"
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
	st, err := ReadStat(pid)
	return err == nil && st.State != "Z"
}

// TestKillMarkedReachesANewSession: a process that left the command's group
// with setsid is out of KillGroup's reach, and KillMarked still ends it; a
// process without the mark is left alone.
func TestKillMarkedReachesANewSession(t *testing.T) {
	dir := t.TempDir()
	run := func(cmd *exec.Cmd) int {
		pidFile := dir + "/pid"
		_ = os.Remove(pidFile)
		Tie(cmd)
		cmd.Args = []string{"sh", "-c", "setsid sh -c 'echo $$ > " + pidFile + "; exec sleep 60' >/dev/null 2>&1 &"}
		if err := cmd.Run(); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			b, err := os.ReadFile(pidFile)
			if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && perr == nil {
				return pid
			}
			if time.Now().After(deadline) {
				t.Fatal("the setsid child wrote no pid")
			}
		}
	}
	unmarked := exec.Command("sh")
	other := run(unmarked)
	defer syscall.Kill(other, syscall.SIGKILL)

	cmd := exec.Command("sh")
	mark := Mark(cmd)
	child := run(cmd)
	defer syscall.Kill(child, syscall.SIGKILL)
	if err := KillGroup(cmd); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	if !alive(child) {
		t.Fatal("the setsid child should be out of KillGroup's reach (the test proves nothing)")
	}
	n, err := KillMarked(mark)
	if err != nil || n != 1 {
		t.Fatalf("KillMarked = %d, %v; want 1 process", n, err)
	}
	for deadline := time.Now().Add(5 * time.Second); alive(child); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("marked child %d still alive", child)
		}
	}
	if !alive(other) {
		t.Fatal("KillMarked killed a process without the mark")
	}
	if _, err := KillMarked(""); err == nil {
		t.Fatal("an empty mark must be an error")
	}
}

// TestKillMarkedConfirmsAnEmptySweep: a marked process may fork a
// successor and exit between a sweep's listing and its read (a walker);
// the successor is in no listing of that sweep, so one empty sweep is not
// taken as the last. The first listing here holds a pid that no longer
// exists and lacks the marked process.
func TestKillMarkedConfirmsAnEmptySweep(t *testing.T) {
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sleep", "60")
	mark := Mark(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	real := listPIDs
	defer func() { listPIDs = real }()
	calls := 0
	listPIDs = func() ([]int, error) {
		if calls++; calls == 1 {
			return []int{gone.Process.Pid}, nil
		}
		return real()
	}
	n, err := KillMarked(mark)
	if err != nil || n != 1 {
		t.Fatalf("KillMarked = %d, %v; want 1 killed", n, err)
	}
	cmd.Wait()
	if alive(cmd.Process.Pid) {
		t.Fatal("the marked process outlived KillMarked")
	}
}

// TestReadStat: the fields of /proc/PID/stat, counted from the command
// name's last ")" (a name may hold spaces and parentheses); this process
// reads as running with threads, memory and a start time.
func TestReadStat(t *testing.T) {
	st, err := parseStat("1234 (java (x) y) S 77 1234 1234 0 -1 4194560 1 2 3 4 250 50 7 8 20 0 30 0 987654 123 456")
	if err != nil || st.PPID != 77 || st.Name != "java (x) y" || st.State != "S" || st.CPU != 3*time.Second || st.ChildCPU != 150*time.Millisecond ||
		st.Threads != 30 || st.Start != 987654 || st.RSS != 456*int64(os.Getpagesize()) {
		t.Fatalf("parseStat = %+v, %v", st, err)
	}
	if _, err := parseStat("1234 (java) S 77 1234"); err == nil {
		t.Error("a short stat line parsed")
	}
	self, err := ReadStat(os.Getpid())
	if err != nil || self.PPID != os.Getppid() || self.Threads <= 0 || self.RSS <= 0 || self.Start == 0 {
		t.Fatalf("ReadStat(self) = %+v, %v", self, err)
	}
}
