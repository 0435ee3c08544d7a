package proxy_test

// ids_test.go checks that the proxy's own request ids never collide with a
// peer's: the editor and JDT LS choose their ids freely (LSP 3.17, "Base
// Protocol"), so either may use "repilot/<n>" strings. Before the ids had a
// random tag, the proxy's first request to the editor was "repilot/1", the
// same id as a JDT LS request to the editor still waiting for its answer,
// and the editor's answers crossed.

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/jsonrpc"
)

func TestOwnIDsNeverCollideWithJDTLSRequests(t *testing.T) {
	e := startEditor(t, harness{repairer: &fakeRepairer{result: onePatch()}})
	f, _ := e.initialize(false)
	e.open(javaURI, greeter, 1)

	// JDT LS asks the editor 40 things with ids the proxy used to use.
	const n = 40
	theirs := map[string]bool{}
	for i := 1; i <= n; i++ {
		f.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":"repilot/%d","method":"workspace/configuration","params":{"items":[{"section":"s%d"}]}}`, i, i))
		theirs[fmt.Sprintf(`"repilot/%d"`, i)] = true
	}
	for i := 1; i <= n; i++ {
		e.expect(fmt.Sprintf("JDT LS's request %d", i), func(m *jsonrpc.Message) bool {
			return m.Method == "workspace/configuration" && m.IDKey() == fmt.Sprintf(`"repilot/%d"`, i)
		})
	}

	// A repair makes the proxy ask the editor for a progress token.
	id := e.request("workspace/executeCommand", repairCmd(javaURI, 5, 0, 6, 0, 1))
	create := e.expectMethod("window/workDoneProgress/create")
	if theirs[create.IDKey()] {
		t.Fatalf("the proxy's request has id %s, which a JDT LS request in flight to the editor has", create.IDKey())
	}
	if !strings.HasPrefix(create.IDKey(), `"repilot/`) {
		t.Errorf("the proxy's id %s is not in its repilot/ space", create.IDKey())
	}

	// JDT LS copies the proxy's id: the editor never sees a second request
	// with it, and JDT LS is told.
	f.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"workspace/configuration","params":{"items":[]}}`, create.ID))
	ans := f.expect("an error for the copied id", func(m *jsonrpc.Message) bool {
		return m.IsResponse() && m.IDKey() == create.IDKey()
	})
	if ans.Error == nil || ans.Error.Code != jsonrpc.CodeInvalidRequest || !strings.Contains(ans.Error.Message, "in use") {
		t.Errorf("JDT LS's request with the proxy's id: %s", ans.Raw)
	}
	e.none("a second request with the proxy's id", 100*time.Millisecond, func(m *jsonrpc.Message) bool {
		return m.IsRequest() && m.IDKey() == create.IDKey()
	})

	// Every answer goes where it belongs.
	e.sendRaw(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":null}`, create.ID))
	for i := 1; i <= n; i++ {
		e.sendRaw(fmt.Sprintf(`{"jsonrpc":"2.0","id":"repilot/%d","result":["v%d"]}`, i, i))
	}
	if r := e.response(id); r.Error != nil {
		t.Errorf("repair: %s", r.Raw)
	}
	for i := 1; i <= n; i++ {
		m := f.expect(fmt.Sprintf("the editor's answer %d", i), func(m *jsonrpc.Message) bool {
			return m.IsResponse() && m.IDKey() == fmt.Sprintf(`"repilot/%d"`, i)
		})
		var got []string
		if json.Unmarshal(m.Result, &got) != nil || len(got) != 1 || got[0] != fmt.Sprintf("v%d", i) {
			t.Errorf("JDT LS's request %d got %s", i, m.Raw)
		}
	}
}

func TestOwnIDsNeverCollideWithEditorRequests(t *testing.T) {
	handle := func(f *fakeJDT, m *jsonrpc.Message) {
		if m.Method == "test/slow" {
			return // answered never: in flight when the proxy asks
		}
		defaultHandle(f, m)
	}
	e := startEditor(t, harness{handle: handle})
	f, _ := e.initialize(false)
	const n = 40
	theirs := map[string]bool{}
	for i := 1; i <= n; i++ {
		e.sendRaw(fmt.Sprintf(`{"jsonrpc":"2.0","id":"repilot/%d","method":"test/slow","params":{}}`, i))
		theirs[fmt.Sprintf(`"repilot/%d"`, i)] = true
	}
	for i := 1; i <= n; i++ {
		f.expect("the editor's request", func(m *jsonrpc.Message) bool {
			return m.Method == "test/slow" && m.IDKey() == fmt.Sprintf(`"repilot/%d"`, i)
		})
	}
	// The editor goes without exit: the proxy sends JDT LS its own shutdown.
	e.in.Close()
	sd := f.expectMethod("shutdown")
	if theirs[sd.IDKey()] {
		t.Errorf("the proxy's shutdown has id %s, which an editor request in flight to JDT LS has", sd.IDKey())
	}
}
