//go:build linux

package llamatest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServerDiesWithTheTest: a test process killed before its clean-up
// (a -timeout panic, Ctrl-C, which does not reach the server's own process
// group, or SIGKILL) takes the server it started with it. The server here
// is a script that never becomes ready and writes its pid.
func TestServerDiesWithTheTest(t *testing.T) {
	if os.Getenv("LLAMATEST_HELPER") != "" {
		t.Skip("helper")
	}
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	fake := filepath.Join(dir, "llama-server")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho $$ > "+pidFile+".tmp && mv "+pidFile+".tmp "+pidFile+"\nexec sleep 600\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	helper := exec.Command(os.Args[0], "-test.run=^TestServerHelper$")
	// The helper is killed before any clean-up of its can run: its
	// temporary files go under this test's folder, which is removed.
	helper.Env = append(os.Environ(), "LLAMATEST_HELPER="+fake, "TMPDIR="+t.TempDir())
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- helper.Wait() }()
	var pid int
	for deadline := time.Now().Add(30 * time.Second); pid == 0; time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(pidFile); err == nil {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		if time.Now().After(deadline) {
			_ = helper.Process.Kill()
			t.Fatal("the fake server did not start")
		}
	}
	_ = helper.Process.Signal(syscall.SIGKILL)
	<-done
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil || strings.Contains(string(stat), ") Z ") {
			return
		}
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the server (pid %d) outlived the killed test process", pid)
		}
	}
}

// TestServerHelper starts the fake server for TestServerDiesWithTheTest
// and waits to be killed.
func TestServerHelper(t *testing.T) {
	bin := os.Getenv("LLAMATEST_HELPER")
	if bin == "" {
		t.Skip("run by TestServerDiesWithTheTest")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, _ = Start(ctx, Options{Binary: bin, Model: "none.gguf"})
}
