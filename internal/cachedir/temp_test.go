package cachedir

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// deadPID returns the pid of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no true(1):", err)
	}
	return cmd.Process.Pid
}

// TestCreateTempRemovesDeadWriters: the temporary files of a cache that a
// killed process left behind go at the next write; a live process's (also
// this one's), another file's, and a recent one of the older naming stay.
func TestCreateTempRemovesDeadWriters(t *testing.T) {
	dir := t.TempDir()
	mk := func(name string, age time.Duration) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		at := time.Now().Add(-age)
		os.Chtimes(p, at, at)
		return p
	}
	dead := mk("units.bin.tmp-"+itoa(deadPID(t))+"-123", 0)
	legacyOld := mk("units.bin.4242", 2*time.Hour)
	keep := []string{
		mk("units.bin.tmp-"+itoa(os.Getppid())+"-1", 2*time.Hour),
		mk("units.bin.tmp-"+itoa(os.Getpid())+"-1", 2*time.Hour),
		mk("units.bin.77", time.Minute),
		mk("other.bin.tmp-"+itoa(deadPID(t))+"-1", 0),
		mk("units.bin", 2*time.Hour),
	}
	f, err := CreateTemp(dir, "units.bin")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if !strings.HasPrefix(filepath.Base(f.Name()), "units.bin.tmp-"+itoa(os.Getpid())+"-") {
		t.Errorf("temporary file %s does not carry this pid", f.Name())
	}
	for _, p := range []string{dead, legacyOld} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s left", filepath.Base(p))
		}
	}
	for _, p := range keep {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s removed", filepath.Base(p))
		}
	}
	// A writer's file is not removed while it holds it open (a writer in
	// another pid namespace would look dead).
	if lockFree(f.Name()) {
		t.Error("the new temporary file is not locked")
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
