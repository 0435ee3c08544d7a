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
	"time"
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

// tempInfix separates a file's name from the writer's pid in CreateTemp's
// names: <name>.tmp-<pid>-<random>.
const tempInfix = ".tmp-"

// CreateTemp creates a new temporary file in dir for the file name (a
// cache written whole and renamed over name): <name>.tmp-<pid>-<random>,
// opened for reading and writing with mode 0600 (os.CreateTemp). It first
// removes the temporary files of name that processes which no longer exist
// left behind (a run ended by SIGKILL mid-write, whose deferred removal
// never ran; DeadRuns' test of a pid, and the file's flock free, which the
// writer holds until it closes the file: a writer in another pid namespace
// sharing dir keeps its file), and those of the older naming
// <name>.<random> (no pid) not modified for an hour. Each killed writer
// otherwise left a file as large as the cache for good. Errors removing
// are ignored; the error is os.CreateTemp's.
func CreateTemp(dir, name string) (*os.File, error) {
	removeDeadTemps(dir, name)
	f, err := os.CreateTemp(dir, fmt.Sprintf("%s%s%d-*", name, tempInfix, os.Getpid()))
	if err == nil {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	}
	return f, err
}

// legacyTempAge is how old a temporary file without a pid must be to be
// removed: a cache is written in seconds.
const legacyTempAge = time.Hour

func removeDeadTemps(dir, name string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), name+".")
		if !ok || rest == "" || !e.Type().IsRegular() {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if tail, ok := strings.CutPrefix(rest, tempInfix[1:]); ok {
			pidText, _, _ := strings.Cut(tail, "-")
			pid, err := strconv.Atoi(pidText)
			if err != nil || pid <= 0 || pid == os.Getpid() {
				continue
			}
			if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) && lockFree(path) {
				_ = os.Remove(path)
			}
			continue
		}
		if _, err := strconv.ParseUint(rest, 10, 64); err != nil {
			continue // not os.CreateTemp's <name>.<digits>
		}
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > legacyTempAge {
			_ = os.Remove(path)
		}
	}
}

// lockFree reports whether path's flock can be taken (then it is released
// again); a file system without flock counts as free.
func lockFree(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	return !errors.Is(err, syscall.EWOULDBLOCK)
}

// RunFile creates a file of this process's own in dir:
// <prefix><pid>-<n><suffix>, new for each call (n counts this process's
// calls, as RunDir's), opened for writing. It first creates dir and
// removes the <prefix><pid>-<n><suffix> files of processes that no longer
// exist (DeadRuns' test of a pid), so that files of runs that ended stay
// until the next run (a failed start's log, named in its error, can be
// read).
func RunFile(dir, prefix, suffix string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if entries, err := os.ReadDir(dir); err == nil {
		for _, e := range entries {
			rest, ok := strings.CutPrefix(e.Name(), prefix)
			if !ok || !e.Type().IsRegular() || !strings.HasSuffix(rest, suffix) {
				continue
			}
			pidText, _, _ := strings.Cut(strings.TrimSuffix(rest, suffix), "-")
			pid, err := strconv.Atoi(pidText)
			if err != nil || pid <= 0 || pid == os.Getpid() {
				continue
			}
			if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
				_ = os.Remove(filepath.Join(dir, e.Name()))
			}
		}
	}
	name := filepath.Join(dir, fmt.Sprintf("%s%d-%d%s", prefix, os.Getpid(), runSeq.Add(1), suffix))
	return os.OpenFile(name, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
}
