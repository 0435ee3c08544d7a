package cli

// signals_test.go checks that SIGINT cancels a command's context and turns
// its error into "interrupted (SIGINT)" with exit status 130.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"
)

func TestWithSignalsReportsInterrupted(t *testing.T) {
	ctx, interrupted, stop := withSignals(context.Background())
	defer stop()
	if err := interrupted(errors.New("other")); err == nil || err.Error() != "other" {
		t.Fatalf("before a signal: %v, want the error unchanged", err)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("SIGINT did not cancel the context")
	}
	err := interrupted(fmt.Errorf("completion engine: checking %q: %w", " +", context.Canceled))
	var ie *interruptedError
	if !errors.As(err, &ie) || err.Error() != "interrupted (SIGINT)" || ie.exitCode() != 130 {
		t.Errorf("after SIGINT: %v, want interrupted (SIGINT) with exit status 130", err)
	}
	if err := interrupted(nil); err != nil {
		t.Errorf("a command that still succeeded: %v, want nil", err)
	}
}
