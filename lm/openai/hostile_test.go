package openai

// hostile_test.go runs the client against model servers that misbehave on
// purpose: a 100 MB token, a body padded to 100 MB, bytes dripped one per
// second, and no answer at all. Each must end in a clear error that names the
// bound it hit, within that bound, with the client's memory bounded.

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/internal/oaihttp"
)

// streamBody writes head, then n bytes of pad, then tail, in 1 MiB writes
// without a Content-Length; it stops when the client hangs up.
func streamBody(head string, pad byte, n int, tail string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if _, err := io.WriteString(w, head); err != nil {
			return
		}
		chunk := []byte(strings.Repeat(string(pad), 1<<20))
		for sent := 0; sent < n; sent += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
		io.WriteString(w, tail)
	}
}

// allocDuring returns the bytes allocated by the whole process while f runs.
func allocDuring(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

func hostileClient(t *testing.T, h http.HandlerFunc, cfg Config) *Client {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	cfg.BaseURL = srv.URL + "/v1"
	cfg.Model = "m"
	cfg.MaxRetries = -1
	c, err := NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestHugeTokenAndPaddedBodyAreBounded(t *testing.T) {
	const size = 100 << 20
	token := `{"choices":[{"text":"x","index":0,"finish_reason":"length","logprobs":{"content":[{"id":1,"token":"`
	for _, c := range []struct {
		name string
		h    http.HandlerFunc
	}{
		{"100 MB token", streamBody(token, 'a', size, `","logprob":-1,"top_logprobs":[]}]}}]}`)},
		{"body padded to 100 MB", streamBody(`{"choices":[{"text":"x","index":0,"finish_reason":"length"}]}`, ' ', size, "")},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl := hostileClient(t, c.h, Config{})
			var err error
			alloc := allocDuring(func() {
				_, err = cl.CreateCompletion(context.Background(), CompletionRequest{Prompt: "p", MaxTokens: 1, Logprobs: 1})
			})
			var tl *oaihttp.TooLargeError
			if !errors.As(errors.Unwrap(err), &tl) && !strings.Contains(errString(err), oaihttp.EnvMaxResponseBytes) {
				t.Fatalf("err = %v, want the response size bound named", err)
			}
			if !strings.Contains(err.Error(), "32") || !strings.Contains(err.Error(), oaihttp.EnvMaxResponseBytes) {
				t.Errorf("error %q does not name the bound and its variable", err)
			}
			// The bound is 32 MiB; reading up to it may double a buffer.
			if alloc > 3*oaihttp.DefaultMaxResponseBytes {
				t.Errorf("allocated %d MiB for a response bounded at %d MiB", alloc>>20, oaihttp.DefaultMaxResponseBytes>>20)
			}
		})
	}
}

func TestLongTokenIsAnError(t *testing.T) {
	body := llamaCompletion("x", "length", nil, [][][3]any{{{1, strings.Repeat("a", 5000), -0.1}}})
	cl := hostileClient(t, jsonReply(body), Config{})
	_, err := cl.CreateCompletion(context.Background(), CompletionRequest{Prompt: "p", MaxTokens: 1, Logprobs: 1})
	if err == nil || !strings.Contains(err.Error(), EnvMaxTokenBytes) || !strings.Contains(err.Error(), "1024") {
		t.Fatalf("err = %v, want the token bound (1024, $%s) named", err, EnvMaxTokenBytes)
	}
	t.Setenv(EnvMaxTokenBytes, "8000")
	cl = hostileClient(t, jsonReply(body), Config{})
	if _, err := cl.CreateCompletion(context.Background(), CompletionRequest{Prompt: "p", MaxTokens: 1, Logprobs: 1}); err != nil {
		t.Fatalf("with $%s=8000: %v", EnvMaxTokenBytes, err)
	}
}

func TestDrippedAndSilentServersTimeOut(t *testing.T) {
	const limit = 2 * time.Second
	for _, c := range []struct {
		name string
		h    http.HandlerFunc
	}{
		{"bytes dripped one per second", func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body) // lets the server notice the client hanging up
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(200)
			for i := 0; i < 60; i++ {
				if _, err := w.Write([]byte(" ")); err != nil {
					return
				}
				w.(http.Flusher).Flush()
				select {
				case <-r.Context().Done():
					return
				case <-time.After(time.Second):
				}
			}
		}},
		{"no answer at all", func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			<-r.Context().Done()
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl := hostileClient(t, c.h, Config{Timeout: limit, MaxRetries: 3})
			start := time.Now()
			_, err := cl.CreateCompletion(context.Background(), CompletionRequest{Prompt: "p", MaxTokens: 1})
			took := time.Since(start)
			if err == nil || !strings.Contains(err.Error(), "no answer within 2s") || !strings.Contains(err.Error(), "--model-timeout") {
				t.Fatalf("err = %v, want the time limit and its flag named", err)
			}
			if took > limit+time.Second {
				t.Errorf("took %v, over the %v limit", took, limit)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestCutCompletionIsRetriedOnceVisibly: a completion (and infill) request
// whose connection the server cut mid-request is sent again once, with a
// line in the log, and then fails naming the cut; before, it was sent four
// times (MaxRetries 3) without a word.
func TestCutCompletionIsRetriedOnceVisibly(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		io.Copy(io.Discard, r.Body)
		if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
			conn.Close()
		}
	}))
	defer srv.Close()
	var logs atomic.Int64
	c, err := NewClient(Config{BaseURL: srv.URL + "/v1", Model: "m", MaxRetries: 3, RetryBackoff: time.Millisecond,
		Logf: func(string, ...any) { logs.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	for name, call := range map[string]func() error{
		"completions": func() error {
			_, err := c.CreateCompletion(context.Background(), CompletionRequest{Prompt: "x", MaxTokens: 1})
			return err
		},
		"infill": func() error {
			_, err := c.Infill(context.Background(), InfillRequest{Prefix: "x", MaxTokens: 1})
			return err
		},
	} {
		hits.Store(0)
		logs.Store(0)
		err := call()
		var e *Error
		if !errors.As(err, &e) || !strings.Contains(err.Error(), "closed the connection") || e.Attempts != 2 {
			t.Errorf("%s: error %v; want the cut named after 2 attempts", name, err)
		}
		if hits.Load() != 2 || logs.Load() != 1 {
			t.Errorf("%s: %d requests reached the server, %d log lines; want 2 and 1", name, hits.Load(), logs.Load())
		}
	}
}
