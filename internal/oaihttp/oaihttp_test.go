package oaihttp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"syscall"
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

// cutServer answers every request by closing the connection without a
// response, as a model server killed mid-request does; it counts the
// requests it got.
func cutServer(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		io.Copy(io.Discard, r.Body)
		conn, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		conn.Close()
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// TestCutPOSTIsRetriedOnlyAsTheCallAllows: a POST whose connection the
// server cut mid-request had reached it (the server may have died of it),
// so it is sent again only Call.CutRetries times, each retry logged, and
// the error is the cut; a GET is retried like a refused request. Before,
// a cut POST was sent again up to MaxRetries times without a word.
func TestCutPOSTIsRetriedOnlyAsTheCallAllows(t *testing.T) {
	srv, hits := cutServer(t)
	var logged []string
	tr, err := New(Options{MaxRetries: 3, RetryBackoff: time.Millisecond,
		Logf: func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) }})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		method     string
		cutRetries int
		attempts   int
		logs       int
	}{
		{http.MethodPost, 0, 1, 0},
		{http.MethodPost, 1, 2, 1},
		{http.MethodPost, 5, 4, 3}, // never more than MaxRetries
		{http.MethodGet, 0, 4, 0},
	} {
		hits.Store(0)
		logged = nil
		cl := &Call{CutRetries: tc.cutRetries}
		var body io.Reader
		if tc.method == http.MethodPost {
			body = strings.NewReader(`{"prompt":"x"}`)
		}
		req, _ := http.NewRequestWithContext(WithCall(context.Background(), cl), tc.method, srv.URL+"/v1/completions?key=secret", body)
		_, err := tr.Do(req)
		if err == nil || !IsCut(err) || cl.Cut == nil {
			t.Errorf("%s, %d cut retries: error %v; want the cut", tc.method, tc.cutRetries, err)
		}
		if cl.Attempts != tc.attempts || int(hits.Load()) != tc.attempts || cl.Cuts != tc.attempts {
			t.Errorf("%s, %d cut retries: %d attempts (%d reached the server, %d cut); want %d",
				tc.method, tc.cutRetries, cl.Attempts, hits.Load(), cl.Cuts, tc.attempts)
		}
		if len(logged) != tc.logs {
			t.Errorf("%s, %d cut retries: logged %q; want %d lines", tc.method, tc.cutRetries, logged, tc.logs)
		}
		for _, l := range logged {
			if !strings.Contains(l, "closed the connection") || !strings.Contains(l, srv.URL+"/v1/completions") || strings.Contains(l, "secret") {
				t.Errorf("log line %q: want the cut and the endpoint named, without the query", l)
			}
		}
	}
}

// TestExplain: the words both users of the transport give a failure.
func TestExplain(t *testing.T) {
	ctx := context.Background()
	refused := &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}
	cut := &url.Error{Op: "Post", URL: "http://h/v1?key=k", Err: io.EOF}
	for _, tc := range []struct {
		err  error
		cl   *Call
		want string
	}{
		{cut, &Call{Cut: cut}, "the server closed the connection before its answer was complete (EOF)"},
		{refused, &Call{Cut: cut}, "the server closed the connection before its answer was complete (EOF): did it crash or restart? (see its log); then cannot connect"},
		{refused, &Call{}, "cannot connect (connection refused)"},
		{errors.New("HTTP 400"), &Call{}, "other"},
	} {
		if got := Explain(ctx, tc.err, tc.cl, "other"); !strings.HasPrefix(got, tc.want) {
			t.Errorf("Explain(%v) = %q; want it to start with %q", tc.err, got, tc.want)
		}
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	if got := Explain(done, refused, &Call{Cut: cut}, "cancelled"); got != "cancelled" {
		t.Errorf("Explain after cancellation = %q", got)
	}
}
