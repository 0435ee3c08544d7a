//go:build !linux

package proc

import "os/exec"

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
