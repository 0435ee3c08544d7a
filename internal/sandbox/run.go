package sandbox

// run.go runs a test command in a copy: under a supervisor tied to our life
// (internal/proc.Supervise), in a process group of its own, ended with all
// it started when it exits, at the timeout or when ctx ends, with a bounded
// tail of its output.

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"time"

	"github.com/repilot-lsp/repilot-lsp/internal/proc"
)

// MaxOutput bounds Result.Output: the last 64 KiB of the command's output
// are kept (failures print last).
const MaxOutput = 64 << 10

// Result is the outcome of one run of a test command.
type Result struct {
	// Passed is true when the command exited with status 0 within the timeout.
	Passed bool
	// ExitCode is the exit status; -1 when the command was killed.
	ExitCode int
	// TimedOut is true when the timeout ended the command.
	TimedOut bool
	// Output is stdout and stderr interleaved: its last MaxOutput bytes.
	Output string
	// Truncated is true when Output lacks the beginning of the output.
	Truncated bool
	// Duration is the wall time of the run.
	Duration time.Duration
	// CPU is the user + system CPU time of the command and all it
	// started (the supervisor waits for each; 0 when the command did not
	// start, or outside Linux without a supervisor: the command's own).
	CPU time.Duration
}

// Run runs argv (argv[0] looked up as exec.Command does) with dir as its
// working directory and no standard input. Everything the command starts
// is ended when the command exits (what it left running in the background
// does not outlive it, nor does what left the group with setsid, with its
// environment or without), when timeout passes (0: no limit but ctx) or ctx
// ends, and when this process dies, even by SIGKILL: the command runs under
// a child-subreaper supervisor (proc.Supervise), and the process group and
// proc.Mark's mark are killed too.
// A failing or timed-out command is a Result with Passed false and a nil
// error. The error is non-nil when argv is empty, when the command cannot
// start, and when ctx ended (ctx.Err(); the Result says what ran until then).
func Run(ctx context.Context, dir string, argv []string, timeout time.Duration) (Result, error) {
	return RunWatched(ctx, dir, argv, timeout, nil)
}

// RunWatched is Run, and calls started (when not nil) once the command has
// started, on this goroutine, with a function that returns the CPU time
// (user + system) the command and all it started have used so far
// (proc.TreeCPU; ok false outside Linux or once the run is over). The
// function is safe to call from any goroutine.
func RunWatched(ctx context.Context, dir string, argv []string, timeout time.Duration, started func(cpu func() (time.Duration, bool))) (Result, error) {
	res := Result{ExitCode: -1}
	if len(argv) == 0 {
		return res, errors.New("sandbox: empty test command")
	}
	tctx, cancel := ctx, context.CancelFunc(func() {})
	if timeout > 0 {
		tctx, cancel = context.WithTimeout(ctx, timeout)
	}
	defer cancel()
	cmd := exec.CommandContext(tctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	var out tail
	cmd.Stdout, cmd.Stderr = &out, &out
	// Test commands are often sh -c pipelines or build tools that fork
	// JVMs, whose children would otherwise outlive the timeout, or us: the
	// supervisor ends all that is below it, wherever it went (setsid, a
	// daemon's double fork, an emptied environment).
	proc.Supervise(cmd)
	// The group and the mark are kept for a supervisor that could not do
	// its work (killed outright at WaitDelay): both are killed once it has
	// exited, not before (the supervisor carries the mark too).
	mark := proc.Mark(cmd)
	cmd.Cancel = func() error { return proc.Terminate(cmd) }
	cmd.WaitDelay = 2 * time.Second
	start := time.Now()
	err := cmd.Start()
	waited := func() {}
	if err == nil && started != nil {
		pid := cmd.Process.Pid
		var mu sync.Mutex
		over := false
		waited = func() { mu.Lock(); over = true; mu.Unlock() }
		started(func() (time.Duration, bool) {
			mu.Lock()
			defer mu.Unlock()
			if over { // the pid may be another process's by now
				return 0, false
			}
			return proc.TreeCPU(pid)
		})
	}
	if err == nil {
		// A background child the command forked and left running (a daemon,
		// a forgotten server) is killed with the rest of its group: it
		// would otherwise outlive the test run, and hold our output pipe
		// open until WaitDelay made a passing run an error.
		if gerr := proc.EndGroup(cmd); gerr != nil {
			_ = proc.KillGroup(cmd)
		}
		_, _ = proc.KillMarked(mark)
		err = cmd.Wait()
		waited()
	}
	res.Duration = time.Since(start)
	if cmd.ProcessState != nil {
		res.CPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	res.Output, res.Truncated = out.String(), out.dropped
	var exit *exec.ExitError
	switch {
	case err == nil:
		res.Passed, res.ExitCode = true, 0
	case ctx.Err() != nil:
		return res, ctx.Err()
	case tctx.Err() != nil:
		res.TimedOut = true
	case errors.As(err, &exit):
		res.ExitCode = exit.ExitCode()
	default:
		return res, fmt.Errorf("sandbox: running %q: %w", argv[0], err)
	}
	return res, nil
}

// tail keeps the last MaxOutput bytes written to it.
type tail struct {
	buf     []byte
	dropped bool
}

func (t *tail) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*MaxOutput {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-MaxOutput:]...)
		t.dropped = true
	}
	return len(p), nil
}

func (t *tail) String() string {
	if len(t.buf) > MaxOutput {
		t.buf = t.buf[len(t.buf)-MaxOutput:]
		t.dropped = true
	}
	return string(t.buf)
}
