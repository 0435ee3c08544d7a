package proxy_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/inline"
	"github.com/repilot-lsp/repilot-lsp/internal/testtree"
	"github.com/repilot-lsp/repilot-lsp/jsonrpc"
	"github.com/repilot-lsp/repilot-lsp/proxy"
	"github.com/repilot-lsp/repilot-lsp/proxy/feature/inlinefeat"
)

// fakeSuggester suggests "x();" at every caret and records the requests.
// With err set, it fails with err instead.
type fakeSuggester struct {
	mu   sync.Mutex
	reqs []inline.Request
	err  error
}

func (f *fakeSuggester) Suggest(ctx context.Context, req inline.Request) (*inline.Suggestion, error) {
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()
	if f.err != nil {
		return nil, f.err
	}
	return &inline.Suggestion{Text: "x();", Offset: req.Offset}, nil
}

func (f *fakeSuggester) Forget(string) {}

// calls is how many requests the suggester has had.
func (f *fakeSuggester) calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.reqs)
}

// inlineCompletion sends textDocument/inlineCompletion for uri at 4:16
// (after "int n = " in greeter) with triggerKind trigger (1 invoked, 2
// automatic) and returns the response.
func (e *testEditor) inlineCompletion(uri string, trigger int) *jsonrpc.Message {
	return e.response(e.request("textDocument/inlineCompletion", map[string]any{
		"textDocument": map[string]any{"uri": uri}, "position": pos(4, 16), "context": map[string]any{"triggerKind": trigger}}))
}

func TestInlineCapabilityOnlyWhenDeclared(t *testing.T) {
	for _, declared := range []bool{false, true} {
		e := startEditor(t, harness{exts: []proxy.Extension{inlinefeat.New(&fakeSuggester{})}})
		caps := clientCaps(false)
		if declared {
			caps["textDocument"].(map[string]any)["inlineCompletion"] = map[string]any{}
		}
		id := e.request("initialize", map[string]any{"processId": nil, "rootUri": "file://" + testRoot, "capabilities": caps})
		e.server().expectMethod("initialize")
		resp := e.response(id)
		got := strings.Contains(string(resp.Result), `"inlineCompletionProvider":true`)
		if got != declared {
			t.Errorf("editor declares inlineCompletion %v: provider advertised %v (%s)", declared, got, resp.Result)
		}
	}
}

func TestInlineCompletionAnsweredByProxy(t *testing.T) {
	s := &fakeSuggester{}
	e := startEditor(t, harness{exts: []proxy.Extension{inlinefeat.New(s)}})
	f, _ := e.initialize(false)
	e.open(javaURI, greeter, 3)
	// Line 4 "        int n = 0;": caret after "int n = " (character 16).
	id := e.request("textDocument/inlineCompletion", map[string]any{
		"textDocument": map[string]any{"uri": javaURI}, "position": pos(4, 16), "context": map[string]any{"triggerKind": 2}})
	resp := e.response(id)
	var list inlinefeat.InlineCompletionList
	if resp.Error != nil || json.Unmarshal(resp.Result, &list) != nil || len(list.Items) != 1 {
		t.Fatalf("inlineCompletion: %s %v", resp.Result, resp.Error)
	}
	it := list.Items[0]
	if it.InsertText != "x();" || it.Range.Start.Line != 4 || it.Range.Start.Character != 16 || it.Range.End != it.Range.Start {
		t.Errorf("item %+v, want x(); at 4:16 with an empty range", it)
	}
	s.mu.Lock()
	req := s.reqs[0]
	s.mu.Unlock()
	if want := strings.Index(greeter, "int n = ") + len("int n = "); req.Offset != want || req.Trigger != inline.Automatic || req.Root != testRoot || req.Text != greeter {
		t.Errorf("request %+v, want offset %d, automatic, root %s, the buffer's text", req, want, testRoot)
	}
	f.none(t, 200*time.Millisecond, func(m *jsonrpc.Message) bool { return m.Method == "textDocument/inlineCompletion" })

	// The command for older editors: same result; a stale version is
	// ContentModified.
	id = e.request("workspace/executeCommand", map[string]any{"command": inlinefeat.InlineSuggestCommand,
		"arguments": []any{map[string]any{"uri": javaURI, "position": pos(4, 16), "version": 3}}})
	if r := e.response(id); r.Error != nil || !strings.Contains(string(r.Result), `"insertText":"x();"`) {
		t.Errorf("%s: %s %v", inlinefeat.InlineSuggestCommand, r.Result, r.Error)
	}
	id = e.request("workspace/executeCommand", map[string]any{"command": inlinefeat.InlineSuggestCommand,
		"arguments": []any{map[string]any{"uri": javaURI, "position": pos(4, 16), "version": 2}}})
	if r := e.response(id); r.Error == nil || r.Error.Code != jsonrpc.CodeContentModified {
		t.Errorf("stale version: %s %v, want ContentModified", r.Result, r.Error)
	}
}

// TestInlineBadParamsAreErrors: a request or command without a document
// URI is InvalidParams naming the uri, not an empty answer that looks like
// "no suggestion here".
func TestInlineBadParamsAreErrors(t *testing.T) {
	e := startEditor(t, harness{exts: []proxy.Extension{inlinefeat.New(&fakeSuggester{})}})
	e.initialize(false)
	e.open(javaURI, greeter, 3)
	for _, params := range []any{nil, map[string]any{}, map[string]any{"position": pos(4, 16)},
		map[string]any{"textDocument": map[string]any{}, "position": pos(4, 16)}} {
		id := e.request("textDocument/inlineCompletion", params)
		if r := e.response(id); r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams || !strings.Contains(r.Error.Message, "uri") {
			t.Errorf("inlineCompletion %v: %s %+v, want InvalidParams naming the uri", params, r.Result, r.Error)
		}
	}
	for _, arg := range []any{nil, map[string]any{}, map[string]any{"position": pos(4, 16)}} {
		id := e.request("workspace/executeCommand", map[string]any{"command": inlinefeat.InlineSuggestCommand, "arguments": []any{arg}})
		if r := e.response(id); r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams || !strings.Contains(r.Error.Message, "uri is missing") {
			t.Errorf("%s %v: %s %+v, want InvalidParams saying the uri is missing", inlinefeat.InlineSuggestCommand, arg, r.Result, r.Error)
		}
	}
}

// TestInlineDocumentBound: on a document over inlinefeat.MaxDocumentBytes
// the suggester is not called: an automatic request gets no suggestion, an
// invoked one (and the command) an error naming the bound.
func TestInlineDocumentBound(t *testing.T) {
	s := &fakeSuggester{}
	e := startEditor(t, harness{exts: []proxy.Extension{inlinefeat.New(s)}})
	e.initialize(false)
	big := greeter + "//" + strings.Repeat("x", inlinefeat.MaxDocumentBytes-len(greeter)-2) + "\n"
	e.open(javaURI, big, 3)
	req := func(trigger int) *jsonrpc.Message { return e.inlineCompletion(javaURI, trigger) }
	if r := req(2); r.Error != nil || string(r.Result) != `{"items":[]}` {
		t.Fatalf("automatic, document over the bound: %s %v, want no items", r.Result, r.Error)
	}
	if r := req(1); r.Error == nil || r.Error.Code != jsonrpc.CodeRequestFailed || !strings.Contains(r.Error.Message, "up to 1024 KiB") {
		t.Fatalf("invoked, document over the bound: %s %+v, want an error naming the bound", r.Result, r.Error)
	}
	id := e.request("workspace/executeCommand", map[string]any{"command": inlinefeat.InlineSuggestCommand,
		"arguments": []any{map[string]any{"uri": javaURI, "position": pos(4, 16)}}})
	if r := e.response(id); r.Error == nil || !strings.Contains(r.Error.Message, "up to 1024 KiB") {
		t.Fatalf("command, document over the bound: %s %+v", r.Result, r.Error)
	}
	if n := s.calls(); n != 0 {
		t.Fatalf("the suggester was called %d times on a document over the bound", n)
	}
	// At the bound it is called.
	e.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": javaURI, "version": 4},
		"contentChanges": []any{map[string]any{"text": big[:inlinefeat.MaxDocumentBytes]}}})
	if r := req(2); r.Error != nil || !strings.Contains(string(r.Result), "x();") {
		t.Fatalf("automatic, document at the bound: %s %v", r.Result, r.Error)
	}
}

// TestInlineRootIsTheFilesProject: ghost text runs on the backends of the
// file's own project, the root a repair and the warm-up use
// (repair.ProjectRoot), not the workspace folder: a folder holding a Maven
// module would otherwise get a second shadow JDT LS, one that does not
// compile the file as part of its project, and with no workspace folder
// every request was an error.
func TestInlineRootIsTheFilesProject(t *testing.T) {
	ws := testtree.New(t, map[string]string{
		"app/pom.xml":                   "<project/>\n",
		"app/src/main/java/demo/A.java": "package demo;\n\nclass A {\n    void f() {\n        int n = 0;\n    }\n}\n",
	})
	file := filepath.Join(ws, "app", "src", "main", "java", "demo", "A.java")
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, rootURI := range []any{"file://" + ws, nil} {
		s := &fakeSuggester{}
		e := startEditor(t, harness{exts: []proxy.Extension{inlinefeat.New(s)}})
		id := e.request("initialize", map[string]any{"processId": nil, "rootUri": rootURI, "capabilities": clientCaps(false)})
		f := e.server()
		f.expectMethod("initialize")
		e.response(id)
		e.notify("initialized", map[string]any{})
		f.expectMethod("initialized")
		uri := "file://" + file
		e.open(uri, string(text), 1)
		r := e.response(e.request("textDocument/inlineCompletion", map[string]any{
			"textDocument": map[string]any{"uri": uri}, "position": pos(4, 16), "context": map[string]any{"triggerKind": 2}}))
		if r.Error != nil {
			t.Fatalf("root %v: %v", rootURI, r.Error)
		}
		s.mu.Lock()
		got := s.reqs[0].Root
		s.mu.Unlock()
		if want := filepath.Join(ws, "app"); got != want {
			t.Errorf("workspace root %v: ghost text on the backends of %s, want the file's project %s", rootURI, got, want)
		}
	}
}

// TestInlineMissingPositionIsAnError: a request or command without a
// position (absent or null; LSP's TextDocumentPositionParams requires one)
// is InvalidParams naming the position, not a suggestion at 0:0.
func TestInlineMissingPositionIsAnError(t *testing.T) {
	s := &fakeSuggester{}
	e := startEditor(t, harness{exts: []proxy.Extension{inlinefeat.New(s)}})
	e.initialize(false)
	e.open(javaURI, greeter, 3)
	doc := map[string]any{"uri": javaURI}
	for _, params := range []map[string]any{{"textDocument": doc}, {"textDocument": doc, "position": nil},
		{"textDocument": doc, "context": map[string]any{"triggerKind": 1}}} {
		r := e.response(e.request("textDocument/inlineCompletion", params))
		if r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams || !strings.Contains(r.Error.Message, "position") {
			t.Errorf("inlineCompletion %v: %s %+v, want InvalidParams naming the position", params, r.Result, r.Error)
		}
	}
	for _, arg := range []map[string]any{{"uri": javaURI}, {"uri": javaURI, "position": nil}, {"uri": javaURI, "version": 3}} {
		r := e.response(e.request("workspace/executeCommand", map[string]any{"command": inlinefeat.InlineSuggestCommand, "arguments": []any{arg}}))
		if r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams || !strings.Contains(r.Error.Message, "position") {
			t.Errorf("%s %v: %s %+v, want InvalidParams naming the position", inlinefeat.InlineSuggestCommand, arg, r.Result, r.Error)
		}
	}
	if n := s.calls(); n != 0 {
		t.Errorf("the suggester was called %d times without a position", n)
	}
}

// TestInlineAutomaticOnAnUnfollowedDocument: an automatic request on a
// document the mirror does not hold (never opened, or dropped for growing
// past the body limit) gets no suggestion rather than an error per
// keystroke (VS Code's client shows its output channel on each failed
// request); an invoked one, and the command, still get the error.
func TestInlineAutomaticOnAnUnfollowedDocument(t *testing.T) {
	t.Setenv(jsonrpc.EnvMaxBody, "16384")
	s := &fakeSuggester{}
	e := startEditor(t, harness{exts: []proxy.Extension{inlinefeat.New(s)}})
	e.initialize(false)
	e.open(javaURI, greeter, 3)
	for v := 4; v <= 5; v++ { // two edits of 9,000 bytes: past 16 KiB at the second
		e.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": javaURI, "version": v},
			"contentChanges": []any{map[string]any{"range": map[string]any{"start": pos(0, 0), "end": pos(0, 0)}, "text": "//" + strings.Repeat("x", 8998)}}})
	}
	e.expectMethod("window/showMessage")
	for _, uri := range []string{javaURI, "file:///work/project/src/demo/Never.java"} {
		req := func(trigger int) *jsonrpc.Message { return e.inlineCompletion(uri, trigger) }
		if r := req(2); r.Error != nil || string(r.Result) != `{"items":[]}` {
			t.Errorf("automatic on %s: %s %+v, want no items", uri, r.Result, r.Error)
		}
		if r := req(1); r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("invoked on %s: %s %+v, want InvalidParams", uri, r.Result, r.Error)
		}
	}
	if n := s.calls(); n != 0 {
		t.Errorf("the suggester was called %d times", n)
	}
}

// TestInlineAutomaticFailureShownOnce: while the suggester fails (the model
// server is down, say), automatic requests get no items and the editor one
// window/showMessage for the failure, not an error per keystroke; an
// invoked request gets the error itself.
func TestInlineAutomaticFailureShownOnce(t *testing.T) {
	s := &fakeSuggester{err: errors.New("lm/openai: cannot connect to http://127.0.0.1:9/v1/completions")}
	e := startEditor(t, harness{exts: []proxy.Extension{inlinefeat.New(s)}})
	e.initialize(false)
	e.open(javaURI, greeter, 3)
	req := func(trigger int) *jsonrpc.Message { return e.inlineCompletion(javaURI, trigger) }
	for i := 0; i < 3; i++ {
		if r := req(2); r.Error != nil || string(r.Result) != `{"items":[]}` {
			t.Errorf("automatic %d: %s %+v, want no items", i, r.Result, r.Error)
		}
	}
	m := e.expectMethod("window/showMessage")
	if !strings.Contains(string(m.Params), "cannot connect") {
		t.Errorf("showMessage %s, want the failure", m.Params)
	}
	e.none("a second showMessage for the same failure", 300*time.Millisecond, func(m *jsonrpc.Message) bool { return m.Method == "window/showMessage" })
	if r := req(1); r.Error == nil || !strings.Contains(r.Error.Message, "cannot connect") {
		t.Errorf("invoked: %s %+v, want the error", r.Result, r.Error)
	}
}

// gatedSuggester is fakeSuggester's answer, given only once the test
// releases it; started receives each request as it begins.
type gatedSuggester struct {
	started chan inline.Request
	release chan struct{}
}

func (g *gatedSuggester) Suggest(ctx context.Context, req inline.Request) (*inline.Suggestion, error) {
	g.started <- req
	select {
	case <-g.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return &inline.Suggestion{Text: "x();", Offset: req.Offset}, nil
}

func (g *gatedSuggester) Forget(string) {}

// TestInlineDocumentChangedDuringTheRequest: a suggestion made for a text
// the editor changed or closed meanwhile is not returned (its position is
// for the old text): ContentModified, for the 3.18 request and the command
// alike. Before, the stale suggestion came back as if for the new text.
func TestInlineDocumentChangedDuringTheRequest(t *testing.T) {
	g := &gatedSuggester{started: make(chan inline.Request, 1), release: make(chan struct{})}
	e := startEditor(t, harness{exts: []proxy.Extension{inlinefeat.New(g)}})
	f, _ := e.initialize(false)
	version := 3
	e.open(javaURI, greeter, version)
	change := func() {
		version++
		e.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": javaURI, "version": version},
			"contentChanges": []any{map[string]any{"range": map[string]any{"start": pos(0, 0), "end": pos(0, 0)}, "text": "\n"}}})
		f.expectMethod("textDocument/didChange") // the mirror has it
	}
	closeDoc := func() {
		e.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": javaURI}})
		f.expectMethod("textDocument/didClose")
	}
	inlineReq := func(trigger int) json.RawMessage {
		return e.request("textDocument/inlineCompletion", map[string]any{
			"textDocument": map[string]any{"uri": javaURI}, "position": pos(4, 16), "context": map[string]any{"triggerKind": trigger}})
	}
	command := func(int) json.RawMessage {
		return e.request("workspace/executeCommand", map[string]any{"command": inlinefeat.InlineSuggestCommand,
			"arguments": []any{map[string]any{"uri": javaURI, "position": pos(4, 16), "version": version}}})
	}
	for _, tc := range []struct {
		name  string
		send  func(int) json.RawMessage
		event func()
	}{
		{"automatic, changed", inlineReq, change},
		{"invoked, changed", func(int) json.RawMessage { return inlineReq(1) }, change},
		{"command, changed", command, change},
		{"automatic, closed", inlineReq, closeDoc},
		{"command, closed", command, closeDoc},
	} {
		id := tc.send(2)
		select {
		case <-g.started:
		case <-time.After(waitTimeout):
			t.Fatalf("%s: the suggester was not called", tc.name)
		}
		tc.event()
		g.release <- struct{}{}
		r := e.response(id)
		if r.Error == nil || r.Error.Code != jsonrpc.CodeContentModified {
			t.Errorf("%s: %s %+v, want ContentModified", tc.name, r.Result, r.Error)
		}
		if strings.Contains(tc.name, "closed") {
			version++
			e.open(javaURI, greeter, version)
		}
	}
	// Unchanged: the suggestion.
	id := inlineReq(2)
	<-g.started
	g.release <- struct{}{}
	if r := e.response(id); r.Error != nil || !strings.Contains(string(r.Result), `"insertText":"x();"`) {
		t.Errorf("unchanged: %s %+v", r.Result, r.Error)
	}
}

// blockingSuggester answers only when its request is cancelled.
type blockingSuggester struct{ n atomic.Int32 }

func (b *blockingSuggester) Suggest(ctx context.Context, req inline.Request) (*inline.Suggestion, error) {
	b.n.Add(1)
	<-ctx.Done()
	return nil, ctx.Err()
}

func (b *blockingSuggester) Forget(string) {}

// TestInlineCancelStorm: 100 ghost-text requests at once, each cancelled
// (twice), among cancellations of ids never sent: every request gets
// exactly one answer, RequestCancelled, and none is left running.
func TestInlineCancelStorm(t *testing.T) {
	b := &blockingSuggester{}
	e := startEditor(t, harness{exts: []proxy.Extension{inlinefeat.New(b)}})
	e.initialize(false)
	e.open(javaURI, greeter, 1)
	const n = 100
	var ids []json.RawMessage
	for i := 0; i < n; i++ {
		ids = append(ids, e.request("textDocument/inlineCompletion", map[string]any{
			"textDocument": map[string]any{"uri": javaURI}, "position": pos(4, i%20), "context": map[string]any{"triggerKind": 1 + i%2}}))
	}
	for deadline := time.Now().Add(waitTimeout); b.n.Load() < n; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d requests reached the suggester", b.n.Load(), n)
		}
	}
	for i, id := range ids {
		e.notify("$/cancelRequest", map[string]any{"id": json.RawMessage(id)})
		e.notify("$/cancelRequest", map[string]any{"id": 100000 + i})
		e.notify("$/cancelRequest", map[string]any{"id": json.RawMessage(id)})
	}
	for _, id := range ids {
		if r := e.response(id); r.Error == nil || r.Error.Code != jsonrpc.CodeRequestCancelled {
			t.Errorf("request %s: %s %+v, want RequestCancelled", id, r.Result, r.Error)
		}
	}
	e.none("a second answer", 200*time.Millisecond, func(m *jsonrpc.Message) bool { return m.IsResponse() })
	// The proxy still serves.
	if r := e.response(e.request("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": javaURI}, "position": pos(4, 9)})); r.Error != nil {
		t.Errorf("hover after the storm: %+v", r.Error)
	}
}
