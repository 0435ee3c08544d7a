package proxy_test

// fake_test.go is the unit tests' wire-level fakes: fakeJDT speaks LSP over
// pipes like a JDT LS process (and can crash on demand), testEditor drives
// the proxy like an editor, and fakeRepairer stands in for the repair
// service.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/jsonrpc"
	"github.com/repilot-lsp/repilot-lsp/proxy"
	"github.com/repilot-lsp/repilot-lsp/proxy/feature/repairfeat"
	"github.com/repilot-lsp/repilot-lsp/repair"
)

const waitTimeout = 5 * time.Second

// fakeJDT is one fake JDT LS process.
type fakeJDT struct {
	t       *testing.T
	gen     int
	w       *jsonrpc.Writer
	stdout  *io.PipeWriter // what the proxy reads
	stdin   *io.PipeReader // what the proxy writes
	got     chan *jsonrpc.Message
	backlog []*jsonrpc.Message // received, not yet expected (test goroutine only)
	exitErr chan error
	once    sync.Once
	out     chan []byte
	mu      sync.Mutex
	handle  func(f *fakeJDT, m *jsonrpc.Message)
	dynamic bool // registers executeCommand and codeAction dynamically
}

// send queues a raw body for the proxy. Like a real server, the fake writes
// on its own goroutine, so its reading never waits on its writing.
func (f *fakeJDT) send(body string) { f.out <- []byte(body) }

// setHandle replaces the fake's message handler.
func (f *fakeJDT) setHandle(h func(f *fakeJDT, m *jsonrpc.Message)) {
	f.mu.Lock()
	f.handle = h
	f.mu.Unlock()
}

func (f *fakeJDT) handler() func(f *fakeJDT, m *jsonrpc.Message) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.handle
}

func (f *fakeJDT) reply(m *jsonrpc.Message, result string) {
	f.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, result))
}

// exit ends the fake process with err (nil: exit status 0).
func (f *fakeJDT) exit(err error) {
	f.once.Do(func() {
		f.stdout.Close()
		f.stdin.Close()
		f.exitErr <- err
	})
}

// crash makes the fake exit unexpectedly.
func (f *fakeJDT) crash() { f.exit(errors.New("exit status 13")) }

// expect returns the first message the fake received (oldest first,
// including ones skipped by earlier expects) that satisfies pred.
func (f *fakeJDT) expect(what string, pred func(m *jsonrpc.Message) bool) *jsonrpc.Message {
	f.t.Helper()
	for i, m := range f.backlog {
		if pred(m) {
			f.backlog = append(f.backlog[:i], f.backlog[i+1:]...)
			return m
		}
	}
	deadline := time.After(waitTimeout)
	for {
		select {
		case m := <-f.got:
			if pred(m) {
				return m
			}
			f.backlog = append(f.backlog, m)
		case <-deadline:
			f.t.Fatalf("fake JDT LS #%d: no %s within %v", f.gen, what, waitTimeout)
			return nil
		}
	}
}

// none asserts that the fake receives no message satisfying pred within d.
func (f *fakeJDT) none(t *testing.T, d time.Duration, pred func(m *jsonrpc.Message) bool) {
	t.Helper()
	for _, m := range f.backlog {
		if pred(m) {
			t.Fatalf("fake JDT LS #%d: unexpected %s", f.gen, m.Raw)
		}
	}
	deadline := time.After(d)
	for {
		select {
		case m := <-f.got:
			if pred(m) {
				t.Fatalf("fake JDT LS #%d: unexpected %s", f.gen, m.Raw)
			}
			f.backlog = append(f.backlog, m)
		case <-deadline:
			return
		}
	}
}

func (f *fakeJDT) expectMethod(method string) *jsonrpc.Message {
	f.t.Helper()
	return f.expect(method, func(m *jsonrpc.Message) bool { return m.Method == method })
}

// jdtCommands are the fake's own commands.
var jdtCommands = []string{"java.edit.organizeImports", "java.project.getAll"}

// defaultHandle answers like JDT LS 1.20 does for what the tests use.
func defaultHandle(f *fakeJDT, m *jsonrpc.Message) {
	switch m.Method {
	case "initialize":
		caps := `{"hoverProvider":true,"textDocumentSync":{"openClose":true,"change":2}`
		if !f.dynamic {
			caps += `,"codeActionProvider":{"resolveProvider":true},"executeCommandProvider":{"commands":["java.edit.organizeImports","java.project.getAll"]}`
		}
		f.reply(m, `{"capabilities":`+caps+`},"serverInfo":{"name":"fake-jdtls"}}`)
	case "initialized":
		if f.dynamic {
			f.send(`{"jsonrpc":"2.0","id":"1","method":"client/registerCapability","params":{"registrations":[{"id":"exec-1","method":"workspace/executeCommand","registerOptions":{"commands":["java.edit.organizeImports","java.project.getAll"]}}]}}`)
			f.send(`{"jsonrpc":"2.0","id":"2","method":"client/registerCapability","params":{"registrations":[{"id":"ca-1","method":"textDocument/codeAction","registerOptions":{"codeActionKinds":["quickfix","refactor"],"resolveProvider":true}}]}}`)
		}
	case "shutdown":
		f.reply(m, "null")
	case "exit":
		f.exit(nil)
	case "textDocument/hover":
		f.reply(m, fmt.Sprintf(`{"contents":"hover from fake #%d"}`, f.gen))
	case "textDocument/codeAction":
		f.reply(m, `[{"title":"Invert conditions","kind":"refactor","data":{"pid":"0","rid":"0"}}]`)
	case "workspace/executeCommand":
		f.reply(m, `{"ranByJDT":true}`)
	default:
		if m.IsRequest() {
			f.reply(m, fmt.Sprintf(`{"echo":%q}`, m.Method))
		}
	}
}

// testEditor drives a proxy.Run over pipes.
type testEditor struct {
	t       *testing.T
	w       *jsonrpc.Writer
	in      *io.PipeWriter
	msgs    chan *jsonrpc.Message
	backlog []*jsonrpc.Message
	runErr  chan error
	servers chan *fakeJDT
	cancel  context.CancelFunc
	nextID  int
}

// harness options for startEditor.
type harness struct {
	dynamic    bool // the fake JDT LS (and the editor) use dynamic registration
	handle     func(f *fakeJDT, m *jsonrpc.Message)
	repairer   repair.Repairer // added first, as repairfeat.New(repairer, repairOpts)
	repairOpts repairfeat.Options
	exts       []proxy.Extension
	mutate     func(o *proxy.Options)
	gate       func(gen int) // called before launching generation gen
}

// startEditor runs the proxy with a fake JDT LS launcher.
func startEditor(t *testing.T, h harness) *testEditor {
	t.Helper()
	if h.handle == nil {
		h.handle = defaultHandle
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	e := &testEditor{t: t, w: jsonrpc.NewWriter(inW), in: inW, msgs: make(chan *jsonrpc.Message, 1000),
		runErr: make(chan error, 1), servers: make(chan *fakeJDT, 10)}
	gen := 0
	var mu sync.Mutex
	launch := func(ctx context.Context, stateDir string) (*proxy.Backend, error) {
		mu.Lock()
		gen++
		g := gen
		mu.Unlock()
		if h.gate != nil {
			h.gate(g)
		}
		toFakeR, toFakeW := io.Pipe()
		fromFakeR, fromFakeW := io.Pipe()
		f := &fakeJDT{t: t, gen: g, w: jsonrpc.NewWriter(fromFakeW), stdout: fromFakeW, stdin: toFakeR,
			got: make(chan *jsonrpc.Message, 1000), exitErr: make(chan error, 1), handle: h.handle, dynamic: h.dynamic,
			out: make(chan []byte, 1000)}
		go func() {
			for b := range f.out {
				if err := f.w.WriteBody(b); err != nil {
					t.Logf("fake JDT LS #%d: write: %v", f.gen, err)
				}
			}
		}()
		go func() {
			r := jsonrpc.NewReader(toFakeR)
			for {
				m, err := r.Read()
				if err != nil {
					var perr *jsonrpc.Error
					if errors.As(err, &perr) {
						continue
					}
					return
				}
				f.got <- m
				f.handler()(f, m)
			}
		}()
		e.servers <- f
		return &proxy.Backend{Stdin: toFakeW, Stdout: fromFakeR,
			Wait: func() error { return <-f.exitErr },
			Kill: func() error { f.exit(errors.New("signal: killed")); return nil }}, nil
	}
	var exts []proxy.Extension
	if h.repairer != nil { // first, as serve adds it
		exts = append(exts, repairfeat.New(h.repairer, h.repairOpts))
	}
	opts := proxy.Options{Extensions: append(exts, h.exts...), Launch: launch, Log: testLog{t},
		StateDir: t.TempDir(), ExitTimeout: 2 * time.Second}
	if h.mutate != nil {
		h.mutate(&opts)
	}
	ctx, cancel := context.WithCancel(context.Background())
	e.cancel = cancel
	go func() { e.runErr <- proxy.Run(ctx, inR, outW, opts); outW.Close() }()
	go func() {
		r := jsonrpc.NewReader(outR)
		for {
			m, err := r.Read()
			if err != nil {
				close(e.msgs)
				return
			}
			e.msgs <- m
		}
	}()
	t.Cleanup(func() {
		// The editor's stream ends first, so that Run returns after its
		// read loop has logged its end (with ctx cancelled first, Run could
		// return before, and that log line come after the test).
		inW.Close()
		select {
		case err := <-e.runErr:
			e.runErr <- err
		case <-time.After(2 * time.Second):
		}
		cancel()
		select {
		case <-e.runErr:
		case <-time.After(10 * time.Second):
			t.Errorf("Run did not return after the test")
		}
	})
	return e
}

// testLog sends the proxy's log to t.Log.
type testLog struct{ t *testing.T }

func (l testLog) Write(b []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(b), "\n"))
	return len(b), nil
}

// sendRaw writes a raw body to the proxy.
func (e *testEditor) sendRaw(body string) {
	e.t.Helper()
	if err := e.w.WriteBody([]byte(body)); err != nil {
		e.t.Fatalf("editor write: %v", err)
	}
}

// request sends a request with a fresh numeric id and returns the id.
func (e *testEditor) request(method string, params any) json.RawMessage {
	e.t.Helper()
	e.nextID++
	id := json.RawMessage(fmt.Sprint(e.nextID))
	e.sendRaw(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`, id, method, proxy.MustJSON(params)))
	return id
}

func (e *testEditor) notify(method string, params any) {
	e.t.Helper()
	e.sendRaw(fmt.Sprintf(`{"jsonrpc":"2.0","method":%q,"params":%s}`, method, proxy.MustJSON(params)))
}

// expect returns the first message (oldest first, including ones skipped by
// earlier expects) that satisfies pred.
func (e *testEditor) expect(what string, pred func(m *jsonrpc.Message) bool) *jsonrpc.Message {
	e.t.Helper()
	for i, m := range e.backlog {
		if pred(m) {
			e.backlog = append(e.backlog[:i], e.backlog[i+1:]...)
			return m
		}
	}
	deadline := time.After(waitTimeout)
	for {
		select {
		case m, ok := <-e.msgs:
			if !ok {
				e.t.Fatalf("editor: stream ended while waiting for %s", what)
			}
			if pred(m) {
				return m
			}
			e.backlog = append(e.backlog, m)
		case <-deadline:
			e.t.Fatalf("editor: no %s within %v", what, waitTimeout)
			return nil
		}
	}
}

// response waits for the response to id.
func (e *testEditor) response(id json.RawMessage) *jsonrpc.Message {
	e.t.Helper()
	return e.expect("response "+string(id), func(m *jsonrpc.Message) bool {
		return m.IsResponse() && m.IDKey() == string(id)
	})
}

func (e *testEditor) expectMethod(method string) *jsonrpc.Message {
	e.t.Helper()
	return e.expect(method, func(m *jsonrpc.Message) bool { return m.Method == method })
}

// none asserts that no message satisfying pred arrives within d.
func (e *testEditor) none(what string, d time.Duration, pred func(m *jsonrpc.Message) bool) {
	e.t.Helper()
	for _, m := range e.backlog {
		if pred(m) {
			e.t.Fatalf("editor: unexpected %s: %s", what, m.Raw)
		}
	}
	deadline := time.After(d)
	for {
		select {
		case m, ok := <-e.msgs:
			if !ok {
				return
			}
			if pred(m) {
				e.t.Fatalf("editor: unexpected %s: %s", what, m.Raw)
			}
			e.backlog = append(e.backlog, m)
		case <-deadline:
			return
		}
	}
}

// server waits for the next launched fake JDT LS.
func (e *testEditor) server() *fakeJDT {
	e.t.Helper()
	select {
	case f := <-e.servers:
		return f
	case <-time.After(waitTimeout):
		e.t.Fatalf("no JDT LS was launched within %v", waitTimeout)
		return nil
	}
}

// clientCaps builds editor capabilities.
func clientCaps(dynamic bool) map[string]any {
	return map[string]any{
		"workspace": map[string]any{"applyEdit": true, "workspaceEdit": map[string]any{"documentChanges": true},
			"executeCommand": map[string]any{"dynamicRegistration": dynamic}},
		"textDocument": map[string]any{"codeAction": map[string]any{"dynamicRegistration": dynamic,
			"codeActionLiteralSupport": map[string]any{"codeActionKind": map[string]any{"valueSet": []string{"quickfix", "refactor"}}}}},
		"window": map[string]any{"workDoneProgress": true},
	}
}

const testRoot = "/work/project"
const javaURI = "file:///work/project/src/demo/Greeter.java"

// initialize runs the handshake and returns the fake JDT LS and the merged
// initialize result.
func (e *testEditor) initialize(dynamic bool) (*fakeJDT, map[string]json.RawMessage) {
	e.t.Helper()
	id := e.request("initialize", map[string]any{"processId": nil, "rootUri": "file://" + testRoot,
		"capabilities": clientCaps(dynamic), "workspaceFolders": []any{map[string]any{"uri": "file://" + testRoot, "name": "project"}}})
	f := e.server()
	f.expectMethod("initialize")
	resp := e.response(id)
	if resp.Error != nil {
		e.t.Fatalf("initialize failed: %v", resp.Error)
	}
	var res struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	if err := json.Unmarshal(resp.Result, &res); err != nil {
		e.t.Fatalf("initialize result: %v", err)
	}
	e.notify("initialized", map[string]any{})
	f.expectMethod("initialized")
	return f, res.Capabilities
}

// answerRegistrations answers the fake's dynamic registrations as an editor
// would, returning them.
func (e *testEditor) answerRegistrations(n int) []*jsonrpc.Message {
	e.t.Helper()
	var out []*jsonrpc.Message
	for i := 0; i < n; i++ {
		m := e.expectMethod("client/registerCapability")
		e.sendRaw(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":null}`, m.ID))
		out = append(out, m)
	}
	return out
}

const greeter = "package demo;\n\npublic class Greeter {\n    int count(String s) {\n        int n = 0;\n        for (int i = 0; i <= s.length(); i++) {\n            n++;\n        }\n        return n;\n    }\n}\n"

// open sends didOpen for a document.
func (e *testEditor) open(uri, text string, version int) {
	e.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "java", "version": version, "text": text}})
}

// fakeRepairer is a scripted repair service.
type fakeRepairer struct {
	mu      sync.Mutex
	reqs    []repair.Request
	result  *repair.Result
	err     error
	block   chan struct{} // when set, Repair waits for it (or ctx)
	started chan struct{} // when set, closed as Repair starts
	ignore  bool          // ignore ctx while blocked
}

func (r *fakeRepairer) Repair(ctx context.Context, req repair.Request, progress repair.Progress) (*repair.Result, error) {
	r.mu.Lock()
	r.reqs = append(r.reqs, req)
	started := r.started
	r.mu.Unlock()
	progress("sampling", 10)
	if started != nil {
		close(started)
	}
	if r.block != nil {
		if r.ignore {
			<-r.block
		} else {
			select {
			case <-r.block:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
	}
	progress("validating", 90)
	return r.result, r.err
}

func (r *fakeRepairer) requests() []repair.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]repair.Request(nil), r.reqs...)
}
