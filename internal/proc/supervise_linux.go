//go:build linux

package proc

// supervise_linux.go runs a command under a supervisor: this same binary,
// started again (/proc/self/exe) as a child subreaper (prctl
// PR_SET_CHILD_SUBREAPER) between us and the command. Every process the
// command starts stays below the supervisor whatever it does: one that
// leaves the process group (setsid), clears its environment (env -i) or is
// orphaned by a double fork is re-parented to the supervisor, not to init.
// When the command exits, when the supervisor gets SIGTERM (Supervised
// commands' Cancel), or when we die, even by SIGKILL (its parent-death
// signal is SIGTERM, which it catches), the supervisor kills everything
// below it, reaps it, and exits as the command did. The process group and
// the mark (Tie, Mark) reach only what keeps them.

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// superviseVar holds, in the supervisor's environment, the path of the
// command it runs (its argv is the supervisor's own).
const superviseVar = "REPILOT_INTERNAL_SUPERVISE"

// treeKillLimit bounds how long the supervisor keeps killing and reaping
// what is below it before it exits anyway.
const treeKillLimit = 5 * time.Second

func init() {
	// In the supervisor this runs before main (or a test binary's
	// TestMain): the binary is only the vehicle.
	if path, ok := os.LookupEnv(superviseVar); ok && path != "" {
		os.Exit(supervise(path, os.Args))
	}
}

// Supervise makes cmd (built by exec.Command, not started) run under a
// supervisor that ends everything the command starts when the command
// exits, when cmd.Process gets SIGTERM, or when this process dies, however
// it dies (see the file comment). It also does what Tie does (a process
// group of its own, here the supervisor's), except that the parent-death
// signal is SIGTERM, which the supervisor turns into that clean-up. cmd's
// exit status is the command's; a command killed by a signal looks killed
// by it. To stop the command, send SIGTERM to cmd.Process (Terminate), not
// SIGKILL: a supervisor killed outright leaves what is below it to init,
// as without one. A cmd whose lookup failed (cmd.Err), or whose program does
// not exist or is not executable, is left unsupervised with cmd.Err set, so
// that Start reports that.
func Supervise(cmd *exec.Cmd) {
	Tie(cmd)
	if cmd.Err != nil {
		return
	}
	// A program that does not exist or cannot be run fails Start, as it
	// would without the supervisor (which could only exit 127).
	path := cmd.Path
	if !filepath.IsAbs(path) && cmd.Dir != "" {
		path = filepath.Join(cmd.Dir, path)
	}
	if _, err := exec.LookPath(path); err != nil {
		cmd.Err = err
		return
	}
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, superviseVar+"="+cmd.Path)
	cmd.Path = "/proc/self/exe"
	cmd.SysProcAttr.Pdeathsig = syscall.SIGTERM
}

// Terminate asks a command started after Supervise to end: SIGTERM to the
// supervisor, which kills everything below it and exits. It does nothing
// once the process has been waited for; the error is the signal's.
func Terminate(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	err := cmd.Process.Signal(syscall.SIGTERM)
	if errors.Is(err, os.ErrProcessDone) {
		return nil
	}
	return err
}

// Stop ends a command started after Supervise and everything below it:
// SIGTERM to the supervisor (Terminate), which kills the command and its
// tree, reaps them and exits; should the supervisor still run once that
// clean-up's bound has passed, SIGKILL to its process group (KillGroup).
// SIGKILL alone would end the supervisor before its clean-up and leave
// what left the group (a daemon that called setsid) to init. It does
// nothing once the process has been waited for. The error is KillGroup's,
// when SIGTERM could not be sent.
func Stop(cmd *exec.Cmd) error {
	if err := Terminate(cmd); err != nil {
		return KillGroup(cmd)
	}
	time.AfterFunc(treeKillLimit+time.Second, func() { _ = KillGroup(cmd) })
	return nil
}

// supervise runs path with argv as a child subreaper and returns the exit
// status to exit with (after re-raising a signal that killed the command).
func supervise(path string, argv []string) int {
	env := make([]string, 0, len(os.Environ()))
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, superviseVar+"=") {
			env = append(env, kv)
		}
	}
	// Caught before the command starts: SIGTERM (Terminate, or our
	// parent's death) must never kill the supervisor before its clean-up.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		os.Stderr.WriteString("repilot-lsp supervisor: PR_SET_CHILD_SUBREAPER: " + err.Error() + "\n")
		return 126
	}
	cmd := &exec.Cmd{Path: path, Args: argv, Env: env, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		SysProcAttr: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}}
	if err := cmd.Start(); err != nil {
		os.Stderr.WriteString("repilot-lsp supervisor: " + err.Error() + "\n")
		return 127
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	var raise syscall.Signal
	code := 0
	select {
	case err := <-waited:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				raise = ws.Signal()
			} else {
				code = ee.ExitCode()
			}
		} else if err != nil {
			code = 1
		}
	case s := <-sigs:
		raise = s.(syscall.Signal)
		_ = cmd.Process.Kill()
		<-waited
	}
	killTree()
	switch raise {
	case 0:
		return code
	case syscall.SIGKILL, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP:
		// The Go runtime's default action for these is to die by them
		// (for the synchronous ones, SIGSEGV and the like, it is a crash
		// report instead: those give 128+signal, as a shell says).
		signal.Reset(raise)
		_ = syscall.Kill(os.Getpid(), raise)
		time.Sleep(time.Second) // the signal ends us first
	}
	return 128 + int(raise)
}

// killTree kills every process below this one and reaps it, until none is
// left or treeKillLimit passes. As a child subreaper this process inherits
// each orphan below it, so a round that kills a parent finds its children
// among ours in the next.
func killTree() {
	self := os.Getpid()
	deadline := time.Now().Add(treeKillLimit)
	for {
		reapAll()
		below := descendants(self)
		if len(below) == 0 {
			var ws syscall.WaitStatus
			if _, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil); errors.Is(err, syscall.ECHILD) {
				return
			}
		}
		if time.Now().After(deadline) {
			return
		}
		for _, pid := range below {
			signalPID(pid, syscall.SIGKILL)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// reapAll waits for every child that has exited, without blocking.
func reapAll() {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil || pid <= 0 {
			return
		}
	}
}

// signalPID sends sig to pid through a pidfd where there is one, so that a
// pid reused since /proc was read is not signalled.
func signalPID(pid int, sig syscall.Signal) {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		if errors.Is(err, unix.ENOSYS) {
			_ = syscall.Kill(pid, sig)
		}
		return
	}
	_ = unix.PidfdSendSignal(fd, sig, nil, 0)
	_ = unix.Close(fd)
}

// descendants lists the processes below pid, from /proc.
func descendants(pid int) []int {
	pids, err := listPIDs()
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, p := range pids {
		if st, err := ReadStat(p); err == nil && st.PPID > 0 {
			children[st.PPID] = append(children[st.PPID], p)
		}
	}
	var out []int
	stack := []int{pid}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, c := range children[p] {
			out = append(out, c)
			stack = append(stack, c)
		}
	}
	return out
}

// Descendants returns the pids of the live processes below pid (children,
// their children, ...), read from /proc; nil when /proc cannot be read.
func Descendants(pid int) []int { return descendants(pid) }

// Stat is what ReadStat reads of one process's /proc/PID/stat.
type Stat struct {
	PPID  int           // the parent's pid
	Name  string        // the command name (comm, at most 15 bytes)
	State string        // one letter: R running, S sleeping, D disk wait, Z zombie, ...
	CPU   time.Duration // user + system CPU time so far, in 10 ms ticks
	// ChildCPU is the user + system CPU time of the children it waited
	// for (cutime + cstime, theirs included), in 10 ms ticks.
	ChildCPU time.Duration
	Threads  int // number of threads
	// Start is the start time in clock ticks after boot: with the pid it
	// names a process uniquely (pids are reused).
	Start uint64
	RSS   int64 // resident set size in bytes (0 for a zombie or a kernel thread)
}

// clockTick is Linux's USER_HZ, the unit of /proc/PID/stat's utime and
// stime: 100 per second on every architecture Go supports.
const clockTick = 10 * time.Millisecond

// ReadStat reads pid's /proc/PID/stat (proc(5)). The error says that the
// process is gone or the file does not parse.
func ReadStat(pid int) (Stat, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Stat{}, err
	}
	st, err := parseStat(string(b))
	if err != nil {
		return Stat{}, fmt.Errorf("proc: /proc/%d/stat: %w", pid, err)
	}
	return st, nil
}

// parseStat parses the text of a /proc/PID/stat file.
func parseStat(s string) (Stat, error) {
	// "pid (comm) state ppid ...": comm may hold ") ", so cut at the last.
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return Stat{}, errors.New("no (comm)")
	}
	// After the name, field n of proc(5) is f[n-3]: state (3), ppid (4),
	// utime (14), stime (15), num_threads (20), starttime (22), rss (24,
	// in pages).
	f := strings.Fields(s[end+1:])
	if len(f) < 22 {
		return Stat{}, fmt.Errorf("%d fields after the name, want at least 22", len(f))
	}
	ppid, err1 := strconv.Atoi(f[1])
	ut, err2 := strconv.ParseInt(f[11], 10, 64)
	st, err3 := strconv.ParseInt(f[12], 10, 64)
	threads, err4 := strconv.Atoi(f[17])
	start, err5 := strconv.ParseUint(f[19], 10, 64)
	rss, err6 := strconv.ParseInt(f[21], 10, 64)
	cut, err7 := strconv.ParseInt(f[13], 10, 64)
	cst, err8 := strconv.ParseInt(f[14], 10, 64)
	if err := errors.Join(err1, err2, err3, err4, err5, err6, err7, err8); err != nil {
		return Stat{}, err
	}
	return Stat{PPID: ppid, Name: s[open+1 : end], State: f[0], CPU: time.Duration(ut+st) * clockTick,
		ChildCPU: time.Duration(cut+cst) * clockTick, Threads: threads, Start: start, RSS: rss * int64(os.Getpagesize())}, nil
}

// TreeCPU returns the CPU time (user + system) that pid and the processes
// below it have used so far: each live one's own and that of the children
// it waited for, from /proc (a process that exited counts once its parent
// waited for it; pid is a child-subreaper supervisor in sandbox.Run, which
// waits for all below it). ok is false when pid's stat cannot be read.
func TreeCPU(pid int) (cpu time.Duration, ok bool) {
	st, err := ReadStat(pid)
	if err != nil {
		return 0, false
	}
	cpu = st.CPU + st.ChildCPU
	for _, p := range descendants(pid) {
		if st, err := ReadStat(p); err == nil {
			cpu += st.CPU + st.ChildCPU
		}
	}
	return cpu, true
}
