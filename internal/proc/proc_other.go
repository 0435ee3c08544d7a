//go:build !linux

package proc

import (
	"errors"
	"os/exec"
	"time"
)

// Tie does nothing outside Linux, which has no parent-death signal:
// JDT LS then relies on watching the processId it is given in initialize.
func Tie(cmd *exec.Cmd) {}

// KillGroup kills cmd's process.
func KillGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}

// EndGroup does nothing outside Linux, where Tie makes no process group.
func EndGroup(cmd *exec.Cmd) error { return nil }

// MarkVar is the environment variable Mark sets (see the Linux version).
const MarkVar = "REPILOT_RUN_MARK"

// Mark does nothing outside Linux, where KillMarked cannot read other
// processes' environments; it returns "".
func Mark(cmd *exec.Cmd) string { return "" }

// KillMarked does nothing outside Linux and returns 0, nil.
func KillMarked(mark string) (int, error) { return 0, nil }

// Supervise does nothing outside Linux, which has no child subreaper: cmd
// runs as it is.
func Supervise(cmd *exec.Cmd) {}

// Terminate kills cmd's process outside Linux.
func Terminate(cmd *exec.Cmd) error { return KillGroup(cmd) }

// Stop kills cmd's process group outside Linux.
func Stop(cmd *exec.Cmd) error { return KillGroup(cmd) }

// Descendants returns nil outside Linux, which has no /proc to read.
func Descendants(pid int) []int { return nil }

// Stat is what ReadStat reads of a process (Linux only; the fields are
// documented in supervise_linux.go: CPU a duration, Start in clock ticks
// after boot, RSS in bytes).
type Stat struct {
	PPID     int
	Name     string
	State    string
	CPU      time.Duration
	ChildCPU time.Duration
	Threads  int
	Start    uint64
	RSS      int64
}

// TreeCPU is unknown (ok false) outside Linux.
func TreeCPU(pid int) (cpu time.Duration, ok bool) { return 0, false }

// ReadStat is an error outside Linux.
func ReadStat(pid int) (Stat, error) { return Stat{}, errors.New("proc: no /proc outside Linux") }
