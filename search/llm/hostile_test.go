package llm

// hostile_test.go: embedding and chat servers that pad their answers or never
// answer end in a clear error within the bounds of the shared transport
// (internal/oaihttp), with memory bounded.

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
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
	if _, err := c.Complete(context.Background(), "s", "u"); err == nil {
		t.Fatal("a server that never answers: no error")
	}
	if took := time.Since(start); took > 2*limit {
		t.Errorf("took %v with a %v limit per attempt: a timeout was retried", took, limit)
	}
}
