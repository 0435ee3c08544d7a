package llm

// hostile_test.go: embedding and chat servers that pad their answers or never
// answer end in a clear error within the bounds of the shared transport
// (internal/oaihttp), with memory bounded.

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/internal/oaihttp"
)

func TestPaddedResponsesAreBounded(t *testing.T) {
	pad := func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"data":[`)
		chunk := []byte(strings.Repeat(" ", 1<<20))
		for i := 0; i < 100; i++ { // 100 MiB
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
		io.WriteString(w, `]}`)
	}
	srv := httptest.NewServer(http.HandlerFunc(pad))
	defer srv.Close()
	const limit = 1 << 20
	e, err := NewEmbedder(Config{BaseURL: srv.URL + "/v1", Model: "m", MaxResponseBytes: limit})
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewChat(Config{BaseURL: srv.URL + "/v1", Model: "m", MaxResponseBytes: limit})
	if err != nil {
		t.Fatal(err)
	}
	for name, call := range map[string]func() error{
		"embeddings": func() error { _, err := e.Embed(context.Background(), []string{"a"}); return err },
		"chat":       func() error { _, err := c.Complete(context.Background(), "s", "u"); return err },
	} {
		var a, b runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&a)
		err := call()
		runtime.ReadMemStats(&b)
		if err == nil || !strings.Contains(err.Error(), oaihttp.EnvMaxResponseBytes) || !strings.Contains(err.Error(), "1048576") {
			t.Errorf("%s: err = %v, want the response bound and its variable named", name, err)
		}
		if alloc := b.TotalAlloc - a.TotalAlloc; alloc > 16<<20 {
			t.Errorf("%s: allocated %d MiB for a response bounded at 1 MiB", name, alloc>>20)
		}
	}
}

func TestSilentServerIsNotRetriedPastItsTimeLimit(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		<-r.Context().Done()
	}))
	defer srv.Close()
	const limit = time.Second
	c, err := NewChat(Config{BaseURL: srv.URL + "/v1", Model: "m", Timeout: limit, Retries: 2})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = c.Complete(context.Background(), "s", "u")
	if err == nil {
		t.Fatal("a server that never answers: no error")
	}
	if took := time.Since(start); took > 2*limit {
		t.Errorf("took %v with a %v limit per attempt: a timeout was retried", took, limit)
	}
	// The error names the limit (before: net/http's "context deadline
	// exceeded (Client.Timeout exceeded while awaiting headers)").
	if !strings.Contains(err.Error(), "no answer within 1s") {
		t.Errorf("chat: %v, want the time limit named", err)
	}
	emb, err := NewEmbedder(Config{BaseURL: srv.URL + "/v1", Model: "m", Timeout: limit})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := emb.Embed(context.Background(), []string{"x"}); err == nil || !strings.Contains(err.Error(), "no answer within 1s") {
		t.Errorf("embeddings: %v, want the time limit named", err)
	}
}

// TestCutConnectionIsNamed: a model server killed mid-request (it closes
// the connection without an answer) is named as such, with the endpoint,
// as lm/openai names it (the shared words, oaihttp.Explain); a chat
// request is not sent again, an embedding batch once, logged. Before,
// search/llm said only `Post "...": EOF`, after sending each request three
// times without a word.
func TestCutConnectionIsNamed(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		io.Copy(io.Discard, r.Body)
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	}))
	defer srv.Close()
	var logged []string
	var mu sync.Mutex
	cfg := Config{BaseURL: srv.URL + "/v1", Model: "m", Retries: 2, Logf: func(f string, a ...any) {
		mu.Lock()
		logged = append(logged, fmt.Sprintf(f, a...))
		mu.Unlock()
	}}
	c, err := NewChat(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewEmbedder(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		call     func() error
		endpoint string
		attempts int
	}{
		{"chat", func() error { _, err := c.Complete(context.Background(), "s", "u"); return err }, "/v1/chat/completions", 1},
		{"embeddings", func() error { _, err := e.Embed(context.Background(), []string{"a"}); return err }, "/v1/embeddings", 2},
	} {
		hits.Store(0)
		logged = nil
		err := tc.call()
		if err == nil || !strings.Contains(err.Error(), "closed the connection before its answer was complete") ||
			!strings.Contains(err.Error(), srv.URL+tc.endpoint) {
			t.Errorf("%s: error %v; want the cut connection and the endpoint named", tc.name, err)
		}
		if n := hits.Load(); n != int64(tc.attempts) {
			t.Errorf("%s: %d requests reached the server; want %d", tc.name, n, tc.attempts)
		}
		if len(logged) != tc.attempts-1 {
			t.Errorf("%s: logged %q; want one line per retry after a cut", tc.name, logged)
		}
	}
}
