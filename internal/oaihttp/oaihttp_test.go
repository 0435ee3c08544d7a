package oaihttp

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestTooLargeIsNotRetriedAndNamesItsVariable(t *testing.T) {
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		w.Header().Set("Content-Length", "5000")
		w.Write([]byte(strings.Repeat("x", 5000)))
	}))
	defer srv.Close()
	tr, err := New(Options{MaxResponseBytes: 1000, MaxRetries: 3})
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
	_, err = tr.Do(req)
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Limit != 1000 || !strings.Contains(err.Error(), EnvMaxResponseBytes) {
		t.Fatalf("err = %v", err)
	}
	if hits != 1 {
		t.Errorf("%d attempts for a response over the bound, want 1", hits)
	}
}

func TestRetryAfterIsHonoured(t *testing.T) {
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		if hits == 1 {
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	tr, _ := New(Options{})
	var waits []time.Duration
	tr.Sleep = func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
	req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
	resp, err := tr.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("%v %v", resp, err)
	}
	if len(waits) != 1 || waits[0] != 7*time.Second {
		t.Errorf("waits %v, want one of 7s (Retry-After)", waits)
	}
	if RetryAfter("3") != 3*time.Second || RetryAfter("") != 0 || RetryAfter("soon") != 0 {
		t.Error("RetryAfter parsing")
	}
}

func TestNewRejectsBadEnv(t *testing.T) {
	t.Setenv(EnvMaxResponseBytes, "lots")
	if _, err := New(Options{}); err == nil || !strings.Contains(err.Error(), EnvMaxResponseBytes) {
		t.Fatalf("err = %v", err)
	}
}

// TestRetryDoesNotSleepPastTheDeadline: against a server that is down, a
// retry whose backoff would end after the request's deadline is not waited
// for; the request fails at once with the connection error, not later with
// the deadline's, which would hide that the server is down (ghost text's 1 s
// budget ran out in the third backoff and the request showed nothing).
func TestRetryDoesNotSleepPastTheDeadline(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens here now
	tr, err := New(Options{MaxRetries: 3, RetryBackoff: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	cl := &Call{}
	req, _ := http.NewRequestWithContext(WithCall(ctx, cl), http.MethodPost, "http://"+addr+"/v1/completions", strings.NewReader("{}"))
	began := time.Now()
	_, err = tr.Do(req)
	took := time.Since(began)
	if err == nil || !IsUnreachable(err) || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %v; want the refused connection, not the deadline", err)
	}
	if took >= 450*time.Millisecond || cl.Attempts != 2 {
		t.Fatalf("%d attempts in %s; want 2 (the second backoff, 400 ms or more, would pass the 500 ms deadline), returned before it", cl.Attempts, took)
	}
}
