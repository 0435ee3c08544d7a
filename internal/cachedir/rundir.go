package cachedir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
)

// RunDir makes a folder of this process's own in dir, for a JDT LS that must
// not share its configuration and workspace data with another live one:
// <dir>/<prefix><pid>-<n>, new for each call (n counts this process's
// calls). It first creates dir and removes the <prefix><pid>-<n> folders of
// processes that no longer exist (RemoveDeadRuns). The caller removes the
// folder when done with it.
func RunDir(dir, prefix string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	RemoveDeadRuns(dir, prefix)
	run := filepath.Join(dir, fmt.Sprintf("%s%d-%d", prefix, os.Getpid(), runSeq.Add(1)))
	if err := os.RemoveAll(run); err != nil {
		return "", err
	}
	if err := os.Mkdir(run, 0o755); err != nil {
		return "", err
	}
	return run, nil
}

// runSeq numbers the run folders of this process.
var runSeq atomic.Int64

// RemoveDeadRuns removes dir's <prefix><pid>-<n> folders whose process is
// gone (a run ended by SIGKILL leaves its folder behind; DeadRuns). Errors
// are ignored: a folder left behind only takes space.
func RemoveDeadRuns(dir, prefix string) {
	for _, p := range DeadRuns(dir, prefix) {
		_ = os.RemoveAll(p)
	}
}

// DeadRuns returns the paths of dir's <prefix><pid>-<n> folders whose
// process is gone: its pid names no process (kill(2) says ESRCH). A folder
// of this process or of a live one (or of a new process that reuses a dead
// one's pid) is not listed, nor any other entry. An unreadable dir lists
// nothing.
func DeadRuns(dir, prefix string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var dead []string
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || !e.IsDir() {
			continue
		}
		pidText, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid <= 0 || pid == os.Getpid() {
			continue
		}
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			dead = append(dead, filepath.Join(dir, e.Name()))
		}
	}
	return dead
}
