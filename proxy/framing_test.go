package proxy_test

// framing_test.go checks how the proxy treats the editor's framing: bytes real
// clients put between messages are skipped, a message cut off at the end of
// the stream is an error (not a clean close), a body over the limit is skipped
// and the proxy keeps serving, and JDT LS is told to watch the proxy's pid.

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/jsonrpc"
)

func TestTrailingCRLFKeepsServing(t *testing.T) {
	e := startEditor(t, harness{})
	e.initialize(false)
	hover := func(id int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"textDocument/hover","params":{"textDocument":{"uri":%q},"position":{"line":0,"character":0}}}`, id, javaURI)
	}
	for _, id := range []int{101, 102} {
		body := hover(id)
		if _, err := fmt.Fprintf(e.in, "Content-Length: %d\r\n\r\n%s\r\n", len(body), body); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []string{"101", "102"} {
		if r := e.response(json.RawMessage(id)); r.Error != nil {
			t.Errorf("hover %s after a trailing CRLF: %v", id, r.Error)
		}
	}
	select {
	case err := <-e.runErr:
		t.Fatalf("the proxy stopped: %v", err)
	default:
	}
}

func TestCutOffHeaderIsAnError(t *testing.T) {
	e := startEditor(t, harness{})
	e.initialize(false)
	if _, err := e.in.Write([]byte("Content-Len")); err != nil {
		t.Fatal(err)
	}
	e.in.Close()
	select {
	case err := <-e.runErr:
		if err == nil || !strings.Contains(err.Error(), "unexpected EOF") {
			t.Errorf("Run after a cut-off header: %v, want an unexpected EOF error", err)
		}
		e.runErr <- err
	case <-time.After(waitTimeout):
		t.Fatal("Run did not return")
	}
}

func TestTooLargeMessageIsSkipped(t *testing.T) {
	t.Setenv(jsonrpc.EnvMaxBody, "1000")
	e := startEditor(t, harness{})
	e.initialize(false)
	e.sendRaw(`{"jsonrpc":"2.0","method":"x/big","params":"` + strings.Repeat("a", 2000) + `"}`)
	id := e.request("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": javaURI}, "position": map[string]any{"line": 0, "character": 0}})
	if r := e.response(id); r.Error != nil {
		t.Errorf("hover after a skipped message: %v", r.Error)
	}
}

func TestJDTLSWatchesTheProxyPID(t *testing.T) {
	e := startEditor(t, harness{})
	id := e.request("initialize", map[string]any{"processId": 1, "rootUri": "file://" + testRoot, "capabilities": clientCaps(false)})
	f := e.server()
	m := f.expectMethod("initialize")
	var p struct {
		ProcessID int    `json:"processId"`
		RootURI   string `json:"rootUri"`
	}
	if err := json.Unmarshal(m.Params, &p); err != nil {
		t.Fatal(err)
	}
	if p.ProcessID != os.Getpid() || p.RootURI != "file://"+testRoot {
		t.Errorf("JDT LS got processId %d rootUri %q, want the proxy's pid %d and the editor's root", p.ProcessID, p.RootURI, os.Getpid())
	}
	if r := e.response(id); r.Error != nil {
		t.Fatal(r.Error)
	}
}

// TestSelectAllEndsAtLineCount: "select all" ends at (lineCount, 0), where
// editors count the empty line after the final newline or do not; both
// mean the whole file, and the repairer gets lines 1..11 of Greeter.java
// (11 lines, as repair.LineCount counts them).
func TestSelectAllEndsAtLineCount(t *testing.T) {
	for _, endLine := range []int{11, 12} {
		rep := &fakeRepairer{result: onePatch()}
		e := startEditor(t, harness{repairer: rep})
		e.initialize(false)
		e.open(javaURI, greeter, 1)
		id := e.request("workspace/executeCommand", repairCmd(javaURI, 0, 0, endLine, 0, 1))
		m := e.expect("response or create", func(m *jsonrpc.Message) bool {
			return (m.IsResponse() && m.IDKey() == string(id)) || m.Method == "window/workDoneProgress/create"
		})
		if m.Method != "" {
			e.sendRaw(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":null}`, m.ID))
			m = e.response(id)
		}
		if m.Error != nil {
			t.Errorf("select all ending at (%d, 0): %v", endLine, m.Error)
			continue
		}
		rep.mu.Lock()
		got := rep.reqs[len(rep.reqs)-1]
		rep.mu.Unlock()
		if got.StartLine != 1 || got.EndLine != 11 {
			t.Errorf("select all ending at (%d, 0): repairer got lines %d-%d, want 1-11", endLine, got.StartLine, got.EndLine)
		}
	}
}

// TestTooLargeMessagesAreAnswered: what the editor sends over the body
// limit is skipped unread, but not lost without a word: a request gets
// InvalidRequest naming the limit; an answer to JDT LS's request reaches
// JDT LS as an error in the editor's place; a didChange closes the
// document in JDT LS (whose text would otherwise be wrong from then on)
// and the user is told to reopen it, and a restart does not re-open it.
// Before, the request was never answered, JDT LS waited for its answer,
// and JDT LS went on with the text before the lost change.
func TestTooLargeMessagesAreAnswered(t *testing.T) {
	t.Setenv(jsonrpc.EnvMaxBody, "4096")
	e := startEditor(t, harness{})
	f, _ := e.initialize(false)
	e.open(javaURI, greeter, 1)
	f.expectMethod("textDocument/didOpen")
	pad := strings.Repeat("a", 5000)

	e.sendRaw(`{"jsonrpc":"2.0","id":77,"method":"textDocument/hover","params":{"x":"` + pad + `"}}`)
	r := e.expect("the answer to the request over the limit", func(m *jsonrpc.Message) bool { return m.IsResponse() })
	if string(r.ID) != "77" || r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidRequest || !strings.Contains(r.Error.Message, jsonrpc.EnvMaxBody) {
		t.Errorf("request over the limit answered %s", r.Raw)
	}

	f.send(`{"jsonrpc":"2.0","id":"cfg-1","method":"workspace/configuration","params":{"items":[{"section":"java"}]}}`)
	e.expectMethod("workspace/configuration")
	e.sendRaw(`{"jsonrpc":"2.0","id":"cfg-1","result":["` + pad + `"]}`)
	a := f.expect("the editor's answer", func(m *jsonrpc.Message) bool { return m.IsResponse() && m.IDKey() == `"cfg-1"` })
	if a.Error == nil || !strings.Contains(a.Error.Message, "not read") {
		t.Errorf("JDT LS got %s for its request whose answer was over the limit", a.Raw)
	}

	e.sendRaw(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"` + javaURI + `","version":2},"contentChanges":[{"text":"` + pad + `"}]}}`)
	c := f.expectMethod("textDocument/didClose")
	if !strings.Contains(string(c.Params), javaURI) {
		t.Errorf("didClose %s", c.Params)
	}
	msg := e.expectMethod("window/showMessage")
	if !strings.Contains(string(msg.Params), "Greeter.java") || !strings.Contains(string(msg.Params), "reopen") {
		t.Errorf("showMessage %s", msg.Params)
	}
	f.crash()
	e.expectMethod("window/showMessage") // restarting
	f2 := e.server()
	f2.expectMethod("initialize")
	f2.expectMethod("initialized")
	f2.none(t, 100*time.Millisecond, func(m *jsonrpc.Message) bool { return m.Method == "textDocument/didOpen" })
	if w := e.expectMethod("window/showMessage"); !strings.Contains(string(w.Params), "Greeter.java") {
		t.Errorf("after the restart: %s", w.Params)
	}
}

// TestTooLargeJDTLSAnswerIsAnError: an answer from JDT LS over the body
// limit (64 MiB) reaches the editor as an error answer to its request, and
// a JDT LS request over it is answered with an error; before, the editor's
// request and JDT LS's waited forever.
func TestTooLargeJDTLSAnswerIsAnError(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 64 MiB twice")
	}
	pad := strings.Repeat("a", jsonrpc.MaxBodyBytes)
	handle := func(f *fakeJDT, m *jsonrpc.Message) {
		if m.Method == "textDocument/hover" {
			f.send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"contents":"` + pad + `"}}`)
			return
		}
		defaultHandle(f, m)
	}
	e := startEditor(t, harness{handle: handle})
	f, _ := e.initialize(false)
	id := e.request("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": javaURI}, "position": map[string]any{"line": 0, "character": 0}})
	r := e.response(id)
	if r.Error == nil || !strings.Contains(r.Error.Message, "not read") {
		t.Errorf("hover answered over the limit reached the editor as %.200s", r.Raw)
	}
	f.send(`{"jsonrpc":"2.0","id":"big-1","method":"workspace/configuration","params":{"x":"` + pad + `"}}`)
	a := f.expect("an answer to the request over the limit", func(m *jsonrpc.Message) bool { return m.IsResponse() && m.IDKey() == `"big-1"` })
	if a.Error == nil {
		t.Errorf("JDT LS's request over the limit answered %s", a.Raw)
	}
}
