package cli

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServeSIGTERMIsInterrupted: SIGTERM ends serve like repair and search,
// "interrupted (SIGTERM)" with exit status 143, not "Error: context
// canceled" with exit status 1. JDT LS is not needed: serve waits for the
// editor's initialize before it starts one.
func TestServeSIGTERMIsInterrupted(t *testing.T) {
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer inW.Close()
	go io.Copy(io.Discard, outR)
	oldIn, oldOut, oldFlags := os.Stdin, os.Stdout, serveFlags
	os.Stdin, os.Stdout = inR, outW
	defer func() { os.Stdin, os.Stdout, serveFlags = oldIn, oldOut, oldFlags }()
	logFile := filepath.Join(t.TempDir(), "serve.log")
	serveFlags.logFile, serveFlags.jdtls, serveFlags.warm = logFile, filepath.Join(t.TempDir(), "no-jdtls"), false
	serveFlags.model = defaultModelFlags()
	t.Setenv(EnvModelBaseURL, "")
	t.Setenv("REPILOT_CACHE", t.TempDir())

	done := make(chan error, 1)
	serveCmd.SetContext(context.Background())
	go func() { done <- runServe(serveCmd, nil) }()
	deadline := time.Now().Add(20 * time.Second)
	for {
		b, _ := os.ReadFile(logFile)
		if strings.Contains(string(b), "proxy started") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not start; log:\n%s", b)
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // the signal handler is set before proxy.Run logs
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		var ie *interruptedError
		if !errors.As(err, &ie) || ie.exitCode() != 143 || err.Error() != "interrupted (SIGTERM)" {
			t.Errorf("serve after SIGTERM: %v, want interrupted (SIGTERM) with exit status 143", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve still runs 10 s after SIGTERM")
	}
}
