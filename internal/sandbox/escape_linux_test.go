//go:build linux

package sandbox

// escape_linux_test.go: what a test command starts must not outlive the run
// even when it leaves the process group and clears its environment (so
// neither the group kill nor the mark reaches it), nor outlive us when we
// are killed with SIGKILL (no code of ours runs then).

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// sleepers returns the pids of the processes whose command line is
// "sleep <arg>" for one of args.
func sleepers(args ...string) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		stat, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
		if i := strings.LastIndexByte(string(stat), ')'); i >= 0 && strings.HasPrefix(string(stat[i:]), ") Z") {
			continue // a zombie has ended
		}
		for _, a := range args {
			if string(b) == "sleep\x00"+a+"\x00" {
				out = append(out, pid)
			}
		}
	}
	return out
}

// uniqueSleeps returns n distinct sleep durations (seconds) for this test
// process, so that concurrent runs do not see each other's.
func uniqueSleeps(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%d.%d", 3000+i, os.Getpid())
	}
	return out
}

// requireNone fails when a process sleeping one of args is still there
// after 5 s (and kills it).
func requireNone(t *testing.T, why string, args ...string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		left := sleepers(args...)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, p := range left {
				_ = syscall.Kill(p, syscall.SIGKILL)
			}
			t.Fatalf("%d processes %s: %v", len(left), why, left)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitAll waits until a process sleeps each of args.
func waitAll(t *testing.T, args ...string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for len(sleepers(args...)) < len(args) {
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d sleeps started", len(sleepers(args...)), len(args))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// escapeScript starts a sleep in the background, one in a new session, one
// in a new session with an empty environment, then runs the last in the
// foreground.
func escapeScript(s []string) string {
	return fmt.Sprintf("sleep %s & (setsid sleep %s >/dev/null 2>&1 &); (setsid env -i sleep %s >/dev/null 2>&1 &); sleep %s",
		s[0], s[1], s[2], s[3])
}

// TestRunKillsWhatClearedItsMark: a process that leaves the group with
// setsid and clears its environment (env -i: no mark) is killed when the
// command ends, and when Run is cancelled.
func TestRunKillsWhatClearedItsMark(t *testing.T) {
	s := uniqueSleeps(2)
	res, err := Run(context.Background(), t.TempDir(),
		[]string{"sh", "-c", "(setsid env -i sleep " + s[0] + " >/dev/null 2>&1 &); sleep 0.3; echo done"}, 30*time.Second)
	if err != nil || !res.Passed || res.Output != "done\n" {
		t.Fatalf("%+v %v", res, err)
	}
	requireNone(t, "outlived the test command", s[0])

	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		waitAll(t, s[1])
		cancel()
	}()
	if _, err := Run(ctx, t.TempDir(), []string{"sh", "-c", "(setsid env -i sleep " + s[1] + " >/dev/null 2>&1 &); sleep 60"}, time.Minute); err != context.Canceled {
		t.Fatalf("cancelled run: %v", err)
	}
	requireNone(t, "outlived the cancelled test command", s[1])
}

// TestRunDiesWithUs: when the process running the test command is killed
// with SIGKILL, everything the command started ends too: its background
// children, those in a new session, with or without their environment,
// and its foreground work.
func TestRunDiesWithUs(t *testing.T) {
	if os.Getenv("SANDBOX_TEST_HELPER") != "" {
		t.Skip("helper")
	}
	s := uniqueSleeps(4)
	helper := exec.Command(os.Args[0], "-test.run=^TestRunHelper$")
	// The helper is killed before its t.TempDir clean-up can run: its
	// temporary folders go under this test's, which removes them.
	helper.Env = append(os.Environ(), "SANDBOX_TEST_HELPER="+strings.Join(s, ","), "TMPDIR="+t.TempDir())
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- helper.Wait() }()
	waitAll(t, s...)
	if err := helper.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-done
	requireNone(t, "outlived the SIGKILLed process that ran the test command", s...)
}

// TestRunHelper runs escapeScript for TestRunDiesWithUs and waits to be
// killed.
func TestRunHelper(t *testing.T) {
	arg := os.Getenv("SANDBOX_TEST_HELPER")
	if arg == "" {
		t.Skip("run by TestRunDiesWithUs")
	}
	_, _ = Run(context.Background(), t.TempDir(), []string{"sh", "-c", escapeScript(strings.Split(arg, ","))}, time.Minute)
	t.Fatal("the test command ended before the helper was killed")
}

// TestRunSupervisedCommandKeepsItsShape: under the supervisor a program
// named relative to the copy ("./test.sh") is found there, its exit status,
// output and environment come through, and a program that cannot run is
// still an error of Run.
func TestRunSupervisedCommandKeepsItsShape(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/test.sh", []byte("#!/bin/sh\necho \"$0 $1 ${REPILOT_INTERNAL_SUPERVISE:-unset}\"\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), dir, []string{"./test.sh", "arg"}, 30*time.Second)
	if err != nil || res.ExitCode != 3 || res.Output != "./test.sh arg unset\n" {
		t.Fatalf("%+v %v", res, err)
	}
	if err := os.WriteFile(dir+"/noexec.sh", []byte("#!/bin/sh\nexit 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), dir, []string{"./noexec.sh"}, 30*time.Second); err == nil {
		t.Fatal("a program that is not executable must be an error")
	}
}
