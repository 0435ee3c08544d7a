package openai

// kill_llama_test.go kills a real llama-server while a request is in flight:
// the request must fail within its time limit with an error that names the
// server and says the connection was cut (not only what the last retry met:
// "cannot connect" alone reads as a server that was never there), after a
// bounded number of attempts, and leave no goroutine behind.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/lm/openai/llamatest"
	"github.com/repilot-lsp/repilot-lsp/repair"
)

func TestLlamaServerKilledMidRequest(t *testing.T) {
	for _, op := range []string{"completions", "infill"} {
		t.Run(op, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			srv := llamatest.StartRandom(ctx, t, "deepseek-coder", "tiny", llamatest.Options{Threads: 1,
				LogFile: filepath.Join(os.TempDir(), fmt.Sprintf("repilot-llamatest-kill-%d.log", os.Getpid()))})
			const timeout = 20 * time.Second
			c, err := NewClient(Config{BaseURL: srv.URL, Timeout: timeout, MaxRetries: 3, RetryBackoff: 50 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			before := runtime.NumGoroutine()
			// A long generation: the server is still sampling when it is killed.
			extra := map[string]any{"ignore_eos": true}
			done := make(chan error, 1)
			began := time.Now()
			go func() {
				var err error
				if op == "infill" {
					_, err = c.Infill(context.Background(), InfillRequest{Prefix: javaPrefix, Suffix: javaSuffix,
						MaxTokens: 6000, Probs: 20, Temperature: 1, Extra: extra})
				} else {
					_, err = c.CreateCompletion(context.Background(), CompletionRequest{Prompt: javaPrefix,
						MaxTokens: 6000, Logprobs: 20, Temperature: 1, Extra: extra})
				}
				done <- err
			}()
			select {
			case err := <-done:
				t.Fatalf("the request ended (%v) before the server was killed; make it longer", err)
			case <-time.After(700 * time.Millisecond):
			}
			srv.Kill()
			var got error
			select {
			case got = <-done:
			case <-time.After(timeout):
				t.Fatalf("no answer %s after the server was killed", timeout)
			}
			took := time.Since(began)
			var e *Error
			if !errors.As(got, &e) {
				t.Fatalf("error %v (%T); want *Error", got, got)
			}
			t.Logf("after %s: %v", took.Round(time.Millisecond), got)
			msg := got.Error()
			if !strings.Contains(msg, srv.Root) {
				t.Errorf("error %q does not name the server %s", msg, srv.Root)
			}
			if !strings.Contains(msg, "closed the connection") {
				t.Errorf("error %q does not say the server closed the connection mid-request", msg)
			}
			if e.Attempts < 1 || e.Attempts > 4 {
				t.Errorf("%d attempts; want 1 to 4 (MaxRetries 3)", e.Attempts)
			}
			deadline := time.Now().Add(5 * time.Second)
			for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
				time.Sleep(50 * time.Millisecond)
			}
			if n := runtime.NumGoroutine(); n > before {
				buf := make([]byte, 1<<16)
				t.Errorf("%d goroutines after the failed request, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
			}
		})
	}
}

// TestLlamaServerKilledDuringRepair: a repair sampling from a llama-server
// that is killed mid-run ends with an error naming the server, within the
// request time limit, and leaves no goroutine behind.
func TestLlamaServerKilledDuringRepair(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv := llamatest.StartRandom(ctx, t, "deepseek-coder", "tiny", llamatest.Options{Threads: 1})
	eng, bug, root := sharedJDT(t)
	const timeout = 20 * time.Second
	m, err := New(Config{BaseURL: srv.URL, Timeout: timeout, RetryBackoff: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	done := make(chan error, 1)
	go func() {
		_, err := repair.NewService(repair.Backends{Model: m, Engine: eng, Compiler: eng}).Repair(ctx, repairRequest(t, bug, root, e2eOptions(1, 500)), nil)
		done <- err
	}()
	for m.Client().Requests() < 5 {
		select {
		case err := <-done:
			t.Fatalf("the repair ended (%v) before the server was killed", err)
		case <-time.After(20 * time.Millisecond):
		}
	}
	srv.Kill()
	var got error
	select {
	case got = <-done:
	case <-time.After(timeout):
		t.Fatalf("the repair did not end %s after the server was killed", timeout)
	}
	if got == nil || !strings.Contains(got.Error(), srv.Root) {
		t.Fatalf("repair error %v; want one naming the server %s", got, srv.Root)
	}
	t.Logf("%v", got)
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines after the failed repair, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
}
