package backend

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// failedStartLog starts an engine that cannot start (a JDT LS install
// without JDT LS) in dir and returns its error and the log it names.
func failedStartLog(t *testing.T, dir string) (error, string) {
	t.Helper()
	_, err := StartEngine(context.Background(), EngineSpec{Home: t.TempDir(), Dir: dir, Root: t.TempDir()})
	if err == nil {
		t.Fatal("an engine started without JDT LS")
	}
	m := regexp.MustCompile(`\(log: ([^)]*)\)`).FindStringSubmatch(err.Error())
	if m == nil {
		t.Fatalf("err = %v; want it to name its log", err)
	}
	return err, m[1]
}

// TestEngineLogPerStart: two starts on one state directory (two repairs on
// one --state-dir at once) each write their own log, the one their error
// names; logs of ended processes go at the next start, a live process's
// stay. Before, each start truncated and wrote Dir/stderr.log: the two
// wrote over each other, and a failed start's error named a log holding
// the other run's lines.
func TestEngineLogPerStart(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip(err)
	}
	dead := filepath.Join(dir, fmt.Sprintf("stderr-%d-1.log", cmd.Process.Pid))
	live := filepath.Join(dir, fmt.Sprintf("stderr-%d-1.log", os.Getppid()))
	for _, p := range []string{dead, live} {
		if err := os.WriteFile(p, []byte("old\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, log1 := failedStartLog(t, dir)
	_, log2 := failedStartLog(t, dir)
	if log1 == log2 {
		t.Errorf("two starts share the log %s", log1)
	}
	for _, p := range []string{log1, log2, live} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("log %s: %v", p, err)
		}
	}
	if _, err := os.Stat(dead); err == nil {
		t.Error("the log of an ended process is still there")
	}
}

// TestStateDirFaults: a state directory that cannot be created (a
// read-only path; here a file in its way) is an error naming it and the
// way out (--state-dir); a start that fails on a nearly full file system
// says how much is free. Before: "mkdir ...: not a directory" naming no
// setting, and on a full 1 MiB tmpfs JDT LS's "initialize: jsonrpc error
// -32603: Internal error." alone.
func TestStateDirFaults(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := StartEngine(context.Background(), EngineSpec{Home: t.TempDir(), Dir: filepath.Join(file, "engine"), Root: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "--state-dir") || !strings.Contains(err.Error(), file) {
		t.Errorf("state directory under a file: err = %v; want it to name the folder and --state-dir", err)
	}
	defer func(f func(string) (uint64, bool)) { freeBytes = f }(freeBytes)
	freeBytes = func(string) (uint64, bool) { return 3 << 20, true }
	if err, _ := failedStartLog(t, t.TempDir()); !strings.Contains(err.Error(), "3 MiB free") {
		t.Errorf("nearly full: err = %v; want the free space named", err)
	}
	freeBytes = func(string) (uint64, bool) { return 300 << 10, true }
	if err, _ := failedStartLog(t, t.TempDir()); !strings.Contains(err.Error(), "300 KiB free") {
		t.Errorf("full: err = %v; want the free space named", err)
	}
	freeBytes = func(string) (uint64, bool) { return 10 << 30, true }
	if err, _ := failedStartLog(t, t.TempDir()); strings.Contains(err.Error(), "free") {
		t.Errorf("with room: err = %v; want no word of free space", err)
	}
}
