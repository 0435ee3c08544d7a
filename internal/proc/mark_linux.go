//go:build linux

package proc

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// MarkVar is the environment variable Mark sets on a command: every process
// the command starts inherits it, including one that leaves the command's
// process group with setsid or a double fork, which KillGroup cannot reach.
const MarkVar = "REPILOT_RUN_MARK"

// maxSweeps bounds KillMarked's rounds: a process it missed because it was
// forked during a round is found by the next one.
const maxSweeps = 10

// Mark adds MarkVar=<a value unique to this call> to cmd's environment
// (os.Environ() when cmd.Env is nil) and returns the value for KillMarked.
// Call it before cmd.Start.
func Mark(cmd *exec.Cmd) string {
	var b [12]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on Linux
	mark := strconv.Itoa(os.Getpid()) + "-" + hex.EncodeToString(b[:])
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, MarkVar+"="+mark)
	return mark
}

// KillMarked sends SIGKILL to every process whose environment holds
// MarkVar=mark (a process of another user cannot be read and is skipped),
// sweeping /proc until two sweeps in a row find none, at most maxSweeps
// times: a marked process listed by a sweep may fork a successor and exit
// before the sweep reads it, and the successor, absent from that listing,
// is found by the next (one empty sweep let a process that forks and exits
// in a loop escape). It
// returns how many processes it killed, and an error when /proc cannot be
// read or processes were still found after the last sweep.
//
// Each process is opened as a pidfd before its environment is read, and the
// signal goes through that pidfd: a pid reused by an unrelated process
// between the read and the kill is never signalled. Without pidfd_open
// (Linux before 5.3) the signal goes to the pid.
func KillMarked(mark string) (int, error) {
	if mark == "" {
		return 0, errors.New("proc: empty mark")
	}
	want := []byte(MarkVar + "=" + mark + "\x00")
	killed, signalled := 0, map[int]bool{}
	empty := 0
	for range maxSweeps {
		found, err := sweep(want, signalled)
		killed += found
		if err != nil {
			return killed, err
		}
		if found > 0 {
			empty = 0
		} else {
			empty++
		}
		if empty == 2 {
			return killed, nil
		}
	}
	return killed, fmt.Errorf("proc: processes marked %s still appeared after %d sweeps", mark, maxSweeps)
}

// listPIDs returns the pids listed in /proc (a variable for tests).
var listPIDs = func() ([]int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	pids := make([]int, 0, len(entries))
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}

// sweep kills the processes whose environment holds want (NAME=value and a
// NUL), except those in signalled (killed by an earlier sweep, perhaps not
// yet gone), adds them to it and returns how many it signalled.
func sweep(want []byte, signalled map[int]bool) (n int, err error) {
	pids, err := listPIDs()
	if err != nil {
		return 0, err
	}
	self := os.Getpid()
	for _, pid := range pids {
		if pid == self || signalled[pid] {
			continue
		}
		fd, ferr := unix.PidfdOpen(pid, 0)
		env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
		if err != nil || !hasVar(env, want) {
			if ferr == nil {
				_ = unix.Close(fd)
			}
			continue
		}
		if ferr == nil {
			err = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
			_ = unix.Close(fd)
		} else {
			err = syscall.Kill(pid, syscall.SIGKILL)
		}
		if err == nil {
			signalled[pid] = true
			n++
		}
	}
	return n, nil
}

// hasVar reports whether a NUL-separated environment block holds want
// (NAME=value followed by NUL) as a whole entry.
func hasVar(env, want []byte) bool {
	if bytes.HasPrefix(env, want) {
		return true
	}
	return bytes.Contains(env, append([]byte{0}, want...))
}
