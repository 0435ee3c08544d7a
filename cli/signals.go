package cli

// signals.go turns SIGINT (Ctrl-C) and SIGTERM into a cancelled context for
// the long-running commands (repair, search, bench ...), so that their
// deferred clean-up runs (stopping JDT LS, the model server), and into one
// clear error line and exit status 128+signal instead of whatever error the
// cancelled work happened to return.

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
)

// interruptedError is the error of a command ended by a signal.
type interruptedError struct{ sig os.Signal }

// Error is the line Execute prints: "interrupted (SIGINT)".
func (e *interruptedError) Error() string {
	name := "SIGTERM"
	if e.sig == os.Interrupt {
		name = "SIGINT"
	}
	return "interrupted (" + name + ")"
}

// exitCode is the shell's status for a process killed by the signal.
func (e *interruptedError) exitCode() int {
	if s, ok := e.sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 1
}

// withSignals returns a context cancelled by the first SIGINT or SIGTERM; a
// second one gets the default action (the process ends at once). interrupted
// replaces any error returned after that signal with an *interruptedError.
// stop releases the signal handler; call it when the command returns.
func withSignals(parent context.Context) (ctx context.Context, interrupted func(error) error, stop func()) {
	if parent == nil {
		parent = context.Background()
	}
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			signal.Stop(ch)
			cancel(&interruptedError{sig: s})
		case <-done:
		}
	}()
	interrupted = func(err error) error {
		var ie *interruptedError
		if err != nil && errors.As(context.Cause(ctx), &ie) {
			return ie
		}
		return err
	}
	stop = func() {
		signal.Stop(ch)
		close(done)
		cancel(nil)
	}
	return ctx, interrupted, stop
}
