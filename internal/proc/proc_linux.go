//go:build linux

package proc

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
	"unsafe"
)

// Tie makes cmd's process die with the process that starts it and
// puts it in a process group of its own, so that KillGroup reaches what it
// starts too. The parent-death signal (prctl PR_SET_PDEATHSIG, see
// SysProcAttr.Pdeathsig) is SIGKILL: when the proxy is killed with SIGKILL or
// by the out-of-memory killer, no code of ours runs, and the kernel is the
// only one left to end JDT LS. Call it before cmd.Start.
func Tie(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}

// KillGroup sends SIGKILL to the process group of a command started after
// Tie (and to the process itself, in case it left the group). It does
// nothing once the process has been waited for. The error is the process's
// own kill's, and only when the group could not be signalled either.
func KillGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	// After Wait the pid (and so the group id) may belong to another
	// process: os.Process knows, and answers ErrProcessDone.
	if err := cmd.Process.Signal(syscall.Signal(0)); errors.Is(err, os.ErrProcessDone) {
		return nil
	}
	pid := cmd.Process.Pid
	gerr := syscall.Kill(-pid, syscall.SIGKILL)
	perr := cmd.Process.Kill()
	if gerr == nil || gerr == syscall.ESRCH {
		return nil
	}
	return perr
}

// EndGroup waits until the process of cmd (started after Tie) has exited,
// without reaping it, then kills what is left of its process group: the
// background children it forked and did not wait for. Call it between
// cmd.Start and cmd.Wait. The unreaped process keeps its pid, and so the
// group id, from being reused, so the kill reaches no other process. It
// returns the wait's error, if any (then nothing is killed).
func EndGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	pid := cmd.Process.Pid
	const pPID = 1 // idtype_t P_PID, <sys/wait.h>
	var info [128]byte
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid), uintptr(unsafe.Pointer(&info[0])),
			syscall.WEXITED|syscall.WNOWAIT, 0, 0)
		if errno == syscall.EINTR {
			continue
		}
		if errno != 0 {
			return errno
		}
		break
	}
	if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil && err != syscall.ESRCH {
		return err
	}
	return nil
}
