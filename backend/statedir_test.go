package backend

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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
