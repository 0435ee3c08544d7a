package openai

// check_test.go tests Model.Check against a fake server: a working server, one
// without logprobs, one that is down.

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestCheck(t *testing.T) {
	f := newFake(t, map[string]http.HandlerFunc{
		"/v1/models":      jsonReply(llamaModels),
		"/v1/completions": jsonReply(llamaCompletion("1", "length", nil, [][][3]any{{{16, "1", -0.5}, {17, "2", -1.5}}})),
	})
	m := newTestModel(t, f, Config{})
	if err := m.Check(context.Background()); err != nil {
		t.Fatalf("Check on a working server: %v", err)
	}
	if got := f.count(); got != 3 {
		t.Errorf("Check made %d requests, want 3 (models, llama.cpp's props for its context, one completion)", got)
	}
	if r := f.last(); r["max_tokens"] != float64(1) {
		t.Errorf("Check asked for max_tokens %v, want 1", r["max_tokens"])
	}

	f.handlers["/v1/completions"] = jsonReply(`{"choices":[{"text":" x","index":0,"finish_reason":"length","logprobs":null}]}`)
	m = newTestModel(t, f, Config{})
	if err := m.Check(context.Background()); !errors.Is(err, ErrNoLogprobs) {
		t.Errorf("Check without logprobs: %v, want ErrNoLogprobs", err)
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	m, err = New(Config{BaseURL: "http://" + addr + "/v1", APIKey: "sk-check-secret", MaxRetries: -1, RetryBackoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	err = m.Check(context.Background())
	var e *Error
	if !errors.As(err, &e) || !e.Unreachable || strings.Contains(err.Error(), "sk-check-secret") {
		t.Errorf("Check on a closed port: %v; want Unreachable without the key", err)
	}
}
