package proxy_test

// badparams_test.go sends every method of the method table (the proxy's own
// and those the features register) with params of the wrong shape: each
// request gets an answer, no handler panics, and the proxy keeps serving.

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/proxy"
	"github.com/repilot-lsp/repilot-lsp/proxy/feature/inlinefeat"
	"github.com/repilot-lsp/repilot-lsp/proxy/feature/searchfeat"
	"github.com/repilot-lsp/repilot-lsp/search"
)

// logBuf keeps the proxy's log and passes it on to t.Log.
type logBuf struct {
	t  *testing.T
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	l.b.Write(p)
	l.mu.Unlock()
	l.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestMethodTableBadParams(t *testing.T) {
	exts := []proxy.Extension{
		searchfeat.New(func(string) (*search.Engine, error) { return nil, errors.New("no engine in this test") }),
		inlinefeat.New(&fakeSuggester{}),
	}
	log := &logBuf{t: t}
	e := startEditor(t, harness{repairer: &fakeRepairer{result: onePatch()}, exts: exts,
		mutate: func(o *proxy.Options) { o.Log = log }})
	caps := clientCaps(false)
	caps["textDocument"].(map[string]any)["inlineCompletion"] = map[string]any{}
	id := e.request("initialize", map[string]any{"processId": nil, "rootUri": "file://" + testRoot, "capabilities": caps})
	f := e.server()
	f.expectMethod("initialize")
	e.response(id)
	e.notify("initialized", map[string]any{})
	f.expectMethod("initialized")
	e.open(javaURI, greeter, 1)

	methods := []string{"textDocument/didOpen", "textDocument/didChange", "textDocument/didClose",
		"textDocument/didSave", "workspace/didChangeWatchedFiles", "workspace/didChangeWorkspaceFolders",
		"$/cancelRequest", "window/workDoneProgress/cancel"}
	requests := []string{"textDocument/codeAction", "codeAction/resolve", "workspace/executeCommand",
		"workspace/symbol", "textDocument/inlineCompletion"}
	bad := []string{`null`, `[]`, `[1,2]`, `42`, `"x"`, `{}`, `{"textDocument":5}`, `{"textDocument":{"uri":7}}`,
		`{"textDocument":{"uri":"` + javaURI + `","version":"one","text":3}}`, `{"command":5}`, `{"command":"repilot.repairHunk","arguments":{}}`,
		`{"command":"repilot.applyPatch","arguments":[null]}`, `{"query":5}`, `{"id":{}}`, `{"token":[]}`,
		`{"changes":"x"}`, `{"event":null}`, `{"position":{"line":-1}}`}
	n := 0
	for _, m := range methods {
		for _, p := range bad {
			e.sendRaw(fmt.Sprintf(`{"jsonrpc":"2.0","method":%q,"params":%s}`, m, p))
		}
	}
	for _, m := range requests {
		for _, p := range bad {
			n++
			id := fmt.Sprintf(`"bad-%d"`, n)
			e.sendRaw(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`, id, m, p))
			e.response([]byte(id))
		}
	}
	// Still serving: the document mirror and a repair work.
	e.open(javaURI, greeter, 7)
	if got := repairOnce(t, e, 7); len(got) == 0 {
		t.Error("no patch after the bad params")
	}
	time.Sleep(50 * time.Millisecond)
	if l := log.String(); strings.Contains(l, "bug:") || strings.Contains(l, "panic") {
		t.Errorf("a handler panicked on bad params:\n%s", l)
	}
}
