package proxy_test

// lifecycle_test.go checks what the proxy does with messages after
// shutdown (LSP 3.17 "shutdown": requests error with InvalidRequest, only
// exit is expected): no feature runs and nothing reaches JDT LS.

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/repilot-lsp/repilot-lsp/jsonrpc"
	"github.com/repilot-lsp/repilot-lsp/proxy"
	"github.com/repilot-lsp/repilot-lsp/proxy/feature/repairfeat"
)

// openCounter observes didOpen, as the warm-up does.
type openCounter struct{ n atomic.Int32 }

func (*openCounter) Name() string       { return "opens" }
func (*openCounter) Commands() []string { return nil }
func (*openCounter) CodeActions(*proxy.Document, *protocol.CodeActionParams) []protocol.CodeAction {
	return nil
}
func (*openCounter) Execute(context.Context, proxy.Client, string, []json.RawMessage) (any, error) {
	return nil, nil
}
func (o *openCounter) Methods() []proxy.Method {
	return []proxy.Method{{Name: "textDocument/didOpen", Notify: func(proxy.Client, json.RawMessage) { o.n.Add(1) }}}
}

func TestNothingRunsAfterShutdown(t *testing.T) {
	rep := &fakeRepairer{result: onePatch()}
	opens := &openCounter{}
	e := startEditor(t, harness{repairer: rep, exts: []proxy.Extension{opens}})
	f, _ := e.initialize(false)
	e.open(javaURI, greeter, 1)
	f.expectMethod("textDocument/didOpen")
	id := e.request("shutdown", nil)
	f.expectMethod("shutdown")
	if r := e.response(id); r.Error != nil {
		t.Fatalf("shutdown: %v", r.Error)
	}
	for name, req := range map[string]struct {
		method string
		params any
	}{
		"our command":     {"workspace/executeCommand", repairCmd(javaURI, 5, 0, 6, 0, 1)},
		"apply a patch":   {"workspace/executeCommand", map[string]any{"command": repairfeat.CommandApplyPatch, "arguments": []any{map[string]any{"uri": javaURI}}}},
		"a code action":   {"textDocument/codeAction", codeActionParams(javaURI, 5, 0, 5, 10)},
		"a JDT LS method": {"textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": javaURI}, "position": pos(0, 0)}},
	} {
		r := e.response(e.request(req.method, req.params))
		if r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidRequest {
			t.Errorf("%s after shutdown: %s", name, r.Raw)
		}
	}
	e.open("file:///work/project/src/demo/Other.java", "class Other {}", 1)
	f.none(t, 100*time.Millisecond, func(m *jsonrpc.Message) bool { return m.Method != "exit" })
	rep.mu.Lock()
	n := len(rep.reqs)
	rep.mu.Unlock()
	if n != 0 || opens.n.Load() != 1 {
		t.Errorf("after shutdown: %d repairs ran, the features saw %d didOpens (want 0 and the 1 before)", n, opens.n.Load())
	}
}

// TestProgressCreateUnanswered: an editor that never answers
// window/workDoneProgress/create must not hold up the work: after
// Options.ProgressCreateTimeout the repair goes on without progress (and
// the proxy cancels its create request).
func TestProgressCreateUnanswered(t *testing.T) {
	e := startEditor(t, harness{repairer: &fakeRepairer{result: onePatch()},
		mutate: func(o *proxy.Options) { o.ProgressCreateTimeout = 200 * time.Millisecond }})
	e.initialize(false)
	e.open(javaURI, greeter, 1)
	id := e.request("workspace/executeCommand", repairCmd(javaURI, 5, 0, 6, 0, 1))
	create := e.expectMethod("window/workDoneProgress/create")
	c := e.expectMethod("$/cancelRequest")
	if !strings.Contains(string(c.Params), string(create.ID)) {
		t.Errorf("cancelled %s, want the create %s", c.Params, create.ID)
	}
	if r := e.response(id); r.Error != nil {
		t.Fatalf("repair with an unanswered progress create: %s", r.Raw)
	}
}

// initCounter counts its Initialized calls.
type initCounter struct {
	openCounter
	inits atomic.Int32
}

func (c *initCounter) Initialized(context.Context, proxy.Client) { c.inits.Add(1) }

// TestInitializedTwice: a second initialized notification (a client bug)
// starts no feature twice (semantic search would index twice) and does
// not reach JDT LS again.
func TestInitializedTwice(t *testing.T) {
	c := &initCounter{}
	e := startEditor(t, harness{exts: []proxy.Extension{c}})
	f, _ := e.initialize(false)
	e.notify("initialized", map[string]any{})
	f.none(t, 200*time.Millisecond, func(m *jsonrpc.Message) bool { return m.Method == "initialized" })
	if n := c.inits.Load(); n != 1 {
		t.Errorf("the features' Initialized ran %d times, want once", n)
	}
}

// progressAtStart begins and ends progress from Initialized, as the
// warm-up does.
type progressAtStart struct{ openCounter }

func (*progressAtStart) Initialized(ctx context.Context, c proxy.Client) {
	c.BeginProgress(ctx, "preparing").End("ready")
}

// TestProgressOutsideRequestNotCancellable: progress a feature begins
// outside a request (the warm-up's) has no request to cancel, so it must
// not offer the editor a cancel button that does nothing.
func TestProgressOutsideRequestNotCancellable(t *testing.T) {
	e := startEditor(t, harness{exts: []proxy.Extension{&progressAtStart{}}})
	e.initialize(false)
	create := e.expectMethod("window/workDoneProgress/create")
	e.sendRaw(`{"jsonrpc":"2.0","id":` + string(create.ID) + `,"result":null}`)
	begin := e.expectMethod("$/progress")
	if !strings.Contains(string(begin.Params), `"begin"`) || strings.Contains(string(begin.Params), "cancellable") {
		t.Errorf("progress outside a request: %s", begin.Params)
	}
}

// TestRestartAfterInitializedWithoutParams: an editor that sends
// initialized with no params (LSP 3.17 gives it {}, some clients send
// none) still has it replayed to a JDT LS restarted after a crash.
func TestRestartAfterInitializedWithoutParams(t *testing.T) {
	e := startEditor(t, harness{})
	id := e.request("initialize", map[string]any{"processId": nil, "rootUri": "file://" + testRoot, "capabilities": clientCaps(false)})
	f1 := e.server()
	f1.expectMethod("initialize")
	e.response(id)
	e.sendRaw(`{"jsonrpc":"2.0","method":"initialized"}`)
	f1.expectMethod("initialized")
	f1.crash()
	f2 := e.server()
	f2.expectMethod("initialize")
	f2.expectMethod("initialized")
}

// TestHungJDTLSIsRestarted: a JDT LS that stops reading its input (a
// notification handler waiting for a lock, for good) cannot make the
// proxy's queue for it grow without bound: past the bound it is killed and
// restarted, and the new one gets the document as the editor last sent it.
func TestHungJDTLSIsRestarted(t *testing.T) {
	// Restored after the proxy has stopped (the editor's clean-up, which
	// runs first): restored by a defer, the proxy's read loop raced with it.
	t.Cleanup(proxy.SetMaxServerQueue(1 << 20))
	stuck := make(chan struct{})
	defer close(stuck)
	handle := func(f *fakeJDT, m *jsonrpc.Message) {
		if f.gen == 1 && m.Method == "textDocument/didChange" {
			<-stuck // reads nothing more
			return
		}
		defaultHandle(f, m)
	}
	e := startEditor(t, harness{handle: handle})
	f1, _ := e.initialize(false)
	e.open(javaURI, greeter, 1)
	f1.expectMethod("textDocument/didOpen")
	pad := "// " + strings.Repeat("x", 64<<10) + "\n"
	var last string
	for v := 2; v <= 40; v++ { // 39 bodies of 64 KiB: more than 1 MiB waits
		last = greeter + strings.Repeat(pad, v%3+1)
		e.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": javaURI, "version": v},
			"contentChanges": []any{map[string]any{"text": last}}})
	}
	f2 := e.server() // the hung one was killed
	f2.expectMethod("initialize")
	// The restart re-opens the document from the mirror; changes sent
	// after that reach the new JDT LS as changes.
	f2.expect("the last text", func(m *jsonrpc.Message) bool {
		var p struct {
			TextDocument   struct{ Text string } `json:"textDocument"`
			ContentChanges []struct{ Text string }
		}
		if json.Unmarshal(m.Params, &p) != nil {
			return false
		}
		switch m.Method {
		case "textDocument/didOpen":
			return p.TextDocument.Text == last
		case "textDocument/didChange":
			return len(p.ContentChanges) == 1 && p.ContentChanges[0].Text == last
		}
		return false
	})
}

// TestCrashDuringFirstInitialize: JDT LS exiting before it answered the
// editor's initialize (killed, out of memory, a damaged workspace) is
// restarted, and the restarted one answers the editor's initialize, merged
// as usual; the editor's start does not fail. When the restarts run out,
// the editor gets the error. Before, the editor got "JDT LS exited
// unexpectedly before answering initialize" while the proxy restarted JDT
// LS anyway.
func TestCrashDuringFirstInitialize(t *testing.T) {
	for _, crashes := range []int{1, 3} {
		handle := func(f *fakeJDT, m *jsonrpc.Message) {
			if f.gen <= crashes && m.Method == "initialize" {
				go f.crash()
				return
			}
			defaultHandle(f, m)
		}
		e := startEditor(t, harness{repairer: &fakeRepairer{}, handle: handle,
			mutate: func(o *proxy.Options) { o.MaxRestarts = 2 }})
		id := e.request("initialize", map[string]any{"processId": nil, "rootUri": "file://" + testRoot, "capabilities": clientCaps(false)})
		r := e.response(id)
		if crashes > 2 {
			if r.Error == nil || !strings.Contains(r.Error.Message, "initialize") {
				t.Errorf("%d crashes, 2 restarts: initialize answered %s; want an error", crashes, r.Raw)
			}
			continue
		}
		if r.Error != nil || !strings.Contains(string(r.Result), repairfeat.CommandRepairHunk) {
			t.Fatalf("%d crash: initialize answered %s; want JDT LS #2's result with our commands merged", crashes, r.Raw)
		}
		e.server() // the one that exited
		f2 := e.server()
		if n := strings.Count(f2.expectMethod("initialize").IDKey(), "repilot/"); n != 0 {
			t.Errorf("JDT LS #2 got the proxy's initialize, not the editor's")
		}
		e.notify("initialized", map[string]any{})
		f2.expectMethod("initialized")
		e.open(javaURI, greeter, 1)
		f2.expectMethod("textDocument/didOpen")
	}
}
