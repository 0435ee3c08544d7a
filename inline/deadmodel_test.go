package inline

// deadmodel_test.go: automatic ghost text while the model server
// (llama-server behind lm/openai) is down reports that, instead of showing
// nothing as if the budget had run out.

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/engine"
	"github.com/repilot-lsp/repilot-lsp/lm/openai"
)

func TestAutomaticGhostTextReportsADeadModelServer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // the server is gone: nothing listens here now
	// The defaults of serve: 3 retries from a 250 ms backoff, a 1 s budget.
	m, err := openai.New(openai.Config{BaseURL: "http://" + addr + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	c := &funcCompiler{f: func(string) []engine.CompileError { return nil }}
	s := newTestService(m, c, Options{AutomaticBudget: time.Second})
	began := time.Now()
	got, err := s.Suggest(context.Background(), Request{URI: "file:///A.java", Text: doc, Offset: strings.Index(doc, "= ") + 2})
	took := time.Since(began)
	if err == nil || !strings.Contains(err.Error(), addr) || !strings.Contains(err.Error(), "cannot connect") {
		t.Fatalf("Suggest = %+v, %v (totals %+v); want an error naming %s and the refused connection", got, err, s.Totals(), addr)
	}
	if took > time.Second {
		t.Errorf("the error came after %s, past the 1 s budget", took)
	}
	t.Logf("after %s: %v", took.Round(time.Millisecond), err)
}
