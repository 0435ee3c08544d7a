package proxy_test

// proxy_test.go tests routing with a fake JDT LS on the wire: pass-through,
// id spaces, the initialize merge, code actions, commands, lifecycle, and
// malformed input.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/jsonrpc"
	"github.com/repilot-lsp/repilot-lsp/proxy"
	"github.com/repilot-lsp/repilot-lsp/proxy/feature/repairfeat"
)

func TestPassThroughIsByteForByte(t *testing.T) {
	e := startEditor(t, harness{repairer: &fakeRepairer{}})
	f, _ := e.initialize(false)

	// An unknown request with unknown fields, odd spacing and key order.
	req := `{"method" : "java/projectConfigurationUpdate", "jsonrpc":"2.0", "id": 77, "params": {"uri":"file:///x", "zz":[1, 2.50, {"a":null}]}, "extra": true}`
	e.sendRaw(req)
	got := f.expect("java/projectConfigurationUpdate", func(m *jsonrpc.Message) bool { return m.Method == "java/projectConfigurationUpdate" })
	if string(got.Raw) != req {
		t.Errorf("JDT LS got\n%s\nwant\n%s", got.Raw, req)
	}
	resp := e.response(json.RawMessage("77"))
	if !strings.Contains(string(resp.Raw), `"echo":"java/projectConfigurationUpdate"`) {
		t.Errorf("response %s", resp.Raw)
	}

	// JDT LS's own notifications, requests and opaque data.
	for _, body := range []string{
		`{"jsonrpc":"2.0","method":"language/status","params":{"type":"ServiceReady","message":"ServiceReady"}}`,
		`{"jsonrpc":"2.0","method":"$/progress","params":{"token":"2885b901","value":{"kind":"report","message":"Initialize Workspace","percentage":0}}}`,
		`{"jsonrpc":"2.0","id":"5","method":"workspace/executeClientCommand","params":{"command":"_java.reloadBundles.command","arguments":[]}}`,
	} {
		f.send(body)
		m := e.expect("the JDT LS message", func(m *jsonrpc.Message) bool { return string(m.Raw) == body })
		if m == nil {
			t.Fatal("missing")
		}
	}
	clientResp := `{"jsonrpc":"2.0","id":"5","result":[] , "x":1}`
	e.sendRaw(clientResp)
	if m := f.expect("the editor's response", func(m *jsonrpc.Message) bool { return m.IsResponse() && m.IDKey() == `"5"` }); string(m.Raw) != clientResp {
		t.Errorf("JDT LS got %s, want %s", m.Raw, clientResp)
	}

	// A JDT LS response with unknown fields goes back unchanged.
	f.setHandle(func(f *fakeJDT, m *jsonrpc.Message) {})
	e.sendRaw(`{"jsonrpc":"2.0","id":78,"method":"textDocument/semanticTokens/full","params":{"textDocument":{"uri":"file:///x"}}}`)
	m := f.expectMethod("textDocument/semanticTokens/full")
	jdtResp := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"data":[0,1,2]},"weird":{"k":"v"}}`, m.ID)
	f.send(jdtResp)
	if r := e.response(json.RawMessage("78")); string(r.Raw) != jdtResp {
		t.Errorf("editor got %s, want %s", r.Raw, jdtResp)
	}
	f.setHandle(defaultHandle) // answers shutdown at the end
}

func TestIDSpacesDoNotCollide(t *testing.T) {
	rep := &fakeRepairer{block: make(chan struct{}), started: make(chan struct{}), result: onePatch()}
	e := startEditor(t, harness{repairer: rep})
	f, _ := e.initialize(false)
	e.open(javaURI, greeter, 1)
	f.expectMethod("textDocument/didOpen")

	// The proxy's own request to the editor: window/workDoneProgress/create.
	repairID := e.request("workspace/executeCommand", repairCmd(javaURI, 5, 0, 6, 0, 1))
	create := e.expectMethod("window/workDoneProgress/create")
	if !strings.HasPrefix(create.IDKey(), `"repilot/`) {
		t.Fatalf("proxy request id %s is not in the repilot/ space", create.IDKey())
	}

	// Editor and JDT LS both use id 1, as number and as string.
	f.setHandle(func(f *fakeJDT, m *jsonrpc.Message) {})
	e.sendRaw(`{"jsonrpc":"2.0","id":1,"method":"textDocument/hover","params":{"textDocument":{"uri":"` + javaURI + `"},"position":{"line":0,"character":0}}}`)
	hover := f.expectMethod("textDocument/hover")
	f.send(`{"jsonrpc":"2.0","id":1,"method":"workspace/configuration","params":{"items":[{"section":"java.format.tabSize"}]}}`)
	f.send(`{"jsonrpc":"2.0","id":"1","method":"window/workDoneProgress/create","params":{"token":"jdt-token"}}`)
	cfg := e.expectMethod("workspace/configuration")
	jcreate := e.expect("JDT LS's create", func(m *jsonrpc.Message) bool {
		return m.Method == "window/workDoneProgress/create" && m.IDKey() == `"1"`
	})
	// Answer JDT LS's requests and the proxy's, then JDT LS answers hover.
	e.sendRaw(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":[4]}`, cfg.ID))
	e.sendRaw(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":null}`, jcreate.ID))
	e.sendRaw(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":null}`, create.ID))
	f.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"contents":"h"}}`, hover.ID))

	if m := f.expect("configuration response", func(m *jsonrpc.Message) bool { return m.IsResponse() && m.IDKey() == "1" }); string(m.Result) != "[4]" {
		t.Errorf("configuration response %s", m.Raw)
	}
	f.expect("create response", func(m *jsonrpc.Message) bool { return m.IsResponse() && m.IDKey() == `"1"` })
	if r := e.response(json.RawMessage("1")); !strings.Contains(string(r.Result), `"h"`) {
		t.Errorf("hover response %s", r.Raw)
	}
	e.expect("progress begin", func(m *jsonrpc.Message) bool {
		return m.Method == "$/progress" && strings.Contains(string(m.Params), `"begin"`)
	})
	close(rep.block)
	if r := e.response(repairID); r.Error != nil {
		t.Fatalf("repair: %v", r.Error)
	}
	// JDT LS never saw the proxy's request or its response.
	f.none(t, 200*time.Millisecond, func(m *jsonrpc.Message) bool { return strings.Contains(m.IDKey(), "repilot/") })
	f.setHandle(defaultHandle)
}

func TestInitializeMerge(t *testing.T) {
	ours := []string{repairfeat.CommandApplyPatch, repairfeat.CommandRepairHunk} // sorted
	t.Run("static", func(t *testing.T) {
		e := startEditor(t, harness{repairer: &fakeRepairer{}})
		_, caps := e.initialize(false)
		var ecp struct{ Commands []string }
		json.Unmarshal(caps["executeCommandProvider"], &ecp)
		want := append(append([]string{}, jdtCommands...), ours...)
		if fmt.Sprint(ecp.Commands) != fmt.Sprint(want) {
			t.Errorf("commands %v, want %v", ecp.Commands, want)
		}
		if string(caps["codeActionProvider"]) != `{"resolveProvider":true}` {
			t.Errorf("codeActionProvider %s, want JDT LS's", caps["codeActionProvider"])
		}
		if string(caps["hoverProvider"]) != "true" || string(caps["textDocumentSync"]) != `{"openClose":true,"change":2}` {
			t.Errorf("JDT LS's capabilities lost: %v", caps)
		}
	})
	t.Run("dynamic", func(t *testing.T) {
		e := startEditor(t, harness{repairer: &fakeRepairer{}, dynamic: true})
		_, caps := e.initialize(true)
		if _, ok := caps["executeCommandProvider"]; ok {
			t.Errorf("executeCommandProvider declared statically with dynamic registration: %s", caps["executeCommandProvider"])
		}
		if _, ok := caps["codeActionProvider"]; ok {
			t.Errorf("codeActionProvider declared statically with dynamic registration: %s", caps["codeActionProvider"])
		}
		regs := e.answerRegistrations(2)
		var exec proxy.RegistrationParams
		json.Unmarshal(regs[0].Params, &exec)
		_, cmds, _ := proxy.CommandOptions(exec.Registrations[0].RegisterOptions)
		want := append(append([]string{}, jdtCommands...), ours...)
		if exec.Registrations[0].Method != "workspace/executeCommand" || fmt.Sprint(cmds) != fmt.Sprint(want) {
			t.Errorf("registration %s, want commands %v", regs[0].Params, want)
		}
		// The codeAction registration already lists quickfix: unchanged bytes.
		wantCA := `{"jsonrpc":"2.0","id":"2","method":"client/registerCapability","params":{"registrations":[{"id":"ca-1","method":"textDocument/codeAction","registerOptions":{"codeActionKinds":["quickfix","refactor"],"resolveProvider":true}}]}}`
		if string(regs[1].Raw) != wantCA {
			t.Errorf("codeAction registration %s", regs[1].Raw)
		}
	})
	t.Run("client dynamic, JDT LS static", func(t *testing.T) {
		e := startEditor(t, harness{repairer: &fakeRepairer{}})
		_, caps := e.initialize(true)
		var ecp struct{ Commands []string }
		json.Unmarshal(caps["executeCommandProvider"], &ecp)
		if len(ecp.Commands) != 4 {
			t.Errorf("commands %v", ecp.Commands)
		}
	})
	t.Run("neither declares", func(t *testing.T) {
		handle := func(f *fakeJDT, m *jsonrpc.Message) {
			if m.Method == "initialize" {
				f.reply(m, `{"capabilities":{"hoverProvider":true}}`)
				return
			}
			defaultHandle(f, m)
		}
		e := startEditor(t, harness{repairer: &fakeRepairer{}, handle: handle})
		_, caps := e.initialize(false)
		if string(caps["executeCommandProvider"]) != `{"commands":["repilot.applyPatch","repilot.repairHunk"]}` || string(caps["codeActionProvider"]) != "true" {
			t.Errorf("caps %v", caps)
		}
	})
	t.Run("no extensions: unchanged", func(t *testing.T) {
		e := startEditor(t, harness{})
		id := e.request("initialize", map[string]any{"processId": nil, "capabilities": clientCaps(false)})
		e.server().expectMethod("initialize")
		r := e.response(id)
		if !strings.HasPrefix(string(r.Raw), `{"jsonrpc":"2.0","id":1,"result":{"capabilities":{"hoverProvider":true,"textDocumentSync"`) {
			t.Errorf("initialize result changed: %s", r.Raw)
		}
	})
}

func TestExecuteCommandRouting(t *testing.T) {
	e := startEditor(t, harness{repairer: &fakeRepairer{result: onePatch()}})
	f, _ := e.initialize(false)

	id := e.request("workspace/executeCommand", map[string]any{"command": "java.edit.organizeImports", "arguments": []any{"x"}})
	f.expect("JDT LS command", func(m *jsonrpc.Message) bool {
		return m.Method == "workspace/executeCommand" && strings.Contains(string(m.Params), "organizeImports")
	})
	if r := e.response(id); string(r.Result) != `{"ranByJDT":true}` {
		t.Errorf("JDT LS command result %s", r.Raw)
	}

	id = e.request("workspace/executeCommand", map[string]any{"command": "no.such.command"})
	r := e.response(id)
	if r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams || !strings.Contains(r.Error.Message, `unknown command "no.such.command"`) ||
		!strings.Contains(r.Error.Message, repairfeat.CommandRepairHunk) || !strings.Contains(r.Error.Message, "java.project.getAll") {
		t.Errorf("unknown command: %s", r.Raw)
	}
	f.none(t, 100*time.Millisecond, func(m *jsonrpc.Message) bool { return strings.Contains(string(m.Params), "no.such.command") })

	// With dynamic registration, a command JDT LS registered later is known.
	e2 := startEditor(t, harness{repairer: &fakeRepairer{}, dynamic: true})
	f2, _ := e2.initialize(true)
	e2.answerRegistrations(2)
	f2.send(`{"jsonrpc":"2.0","id":"3","method":"client/registerCapability","params":{"registrations":[{"id":"exec-2","method":"workspace/executeCommand","registerOptions":{"commands":["vscode.java.resolveMainClass"]}}]}}`)
	e2.answerRegistrations(1)
	id = e2.request("workspace/executeCommand", map[string]any{"command": "vscode.java.resolveMainClass"})
	if r := e2.response(id); r.Error != nil {
		t.Errorf("registered bundle command rejected: %v", r.Error)
	}
}

func TestRequestsBeforeInitialize(t *testing.T) {
	e := startEditor(t, harness{})
	id := e.request("textDocument/hover", map[string]any{})
	if r := e.response(id); r.Error == nil || r.Error.Code != jsonrpc.CodeServerNotReady {
		t.Errorf("hover before initialize: %s", r.Raw)
	}
	id = e.request("initialize", map[string]any{"processId": nil, "capabilities": map[string]any{}})
	e.server()
	e.response(id)
	id = e.request("initialize", map[string]any{"processId": nil, "capabilities": map[string]any{}})
	if r := e.response(id); r.Error == nil || !strings.Contains(r.Error.Message, "already") {
		t.Errorf("second initialize: %s", r.Raw)
	}
}

func TestLaunchFailure(t *testing.T) {
	e := startEditor(t, harness{repairer: &fakeRepairer{}, mutate: func(o *proxy.Options) {
		o.Launch = func(ctx context.Context, stateDir string) (*proxy.Backend, error) {
			return nil, errors.New("no JDT LS at /nowhere: run scripts/install-jdtls.sh")
		}
	}})
	id := e.request("initialize", map[string]any{"processId": nil, "capabilities": map[string]any{}})
	r := e.response(id)
	if r.Error == nil || !strings.Contains(r.Error.Message, "cannot start JDT LS") || !strings.Contains(r.Error.Message, "install-jdtls.sh") {
		t.Errorf("initialize with no JDT LS: %s", r.Raw)
	}
}

func TestMalformedMessages(t *testing.T) {
	e := startEditor(t, harness{repairer: &fakeRepairer{}})
	f, _ := e.initialize(false)

	e.sendRaw(`{"jsonrpc":"2.0","id":5,"method":"textDocument/hover",`) // truncated JSON
	r := e.expect("ParseError", func(m *jsonrpc.Message) bool {
		return m.IsResponse() && m.Error != nil && m.Error.Code == jsonrpc.CodeParseError
	})
	if string(r.ID) != "null" {
		t.Errorf("ParseError id %s, want null", r.ID)
	}
	e.sendRaw(`{"jsonrpc":"2.0"}`)
	e.expect("InvalidRequest", func(m *jsonrpc.Message) bool {
		return m.IsResponse() && m.Error != nil && m.Error.Code == jsonrpc.CodeInvalidRequest
	})

	for _, c := range []struct{ method, params string }{
		{"textDocument/codeAction", `{"textDocument":"not an object"}`},
		{"workspace/executeCommand", `{"command":42}`},
		{"workspace/executeCommand", `{}`},
	} {
		id := e.request(c.method, json.RawMessage(c.params))
		if r := e.response(id); r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("%s %s: %s", c.method, c.params, r.Raw)
		}
	}
	// A bad didChange is still forwarded (JDT LS decides), the stream goes on.
	e.notify("textDocument/didChange", json.RawMessage(`{"textDocument":{"uri":"file:///a.java","version":"x"}}`))
	f.expectMethod("textDocument/didChange")
	id := e.request("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": javaURI}, "position": map[string]any{"line": 0, "character": 0}})
	if r := e.response(id); r.Error != nil {
		t.Errorf("hover after malformed input: %v", r.Error)
	}
}

// TestIDsThatAreNeitherNumbersNorStrings: a request whose id is an object,
// an array or a boolean (LSP's base protocol allows integer | string) is
// answered with InvalidRequest and id null (JSON-RPC 2.0 "Error object")
// and reaches neither JDT LS nor a feature; a response with such an id is
// dropped. The messages around them are served as usual.
func TestIDsThatAreNeitherNumbersNorStrings(t *testing.T) {
	e := startEditor(t, harness{repairer: &fakeRepairer{}})
	f, _ := e.initialize(false)
	e.open(javaURI, greeter, 1)
	f.expectMethod("textDocument/didOpen")
	for _, id := range []string{`{"a":1}`, `[7]`, `true`, `false`, ` {}`} {
		for _, method := range []string{"textDocument/hover", "workspace/executeCommand", "textDocument/codeAction"} {
			e.sendRaw(`{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":{"textDocument":{"uri":"` + javaURI + `"},"position":{"line":0,"character":0},"command":"` + repairfeat.CommandRepairHunk + `"}}`)
			r := e.expect("InvalidRequest for id "+id, func(m *jsonrpc.Message) bool { return m.IsResponse() })
			if string(r.ID) != "null" || r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidRequest || !strings.Contains(r.Error.Message, "integer") {
				t.Errorf("%s with id %s: %s, want InvalidRequest with id null", method, id, r.Raw)
			}
		}
		e.sendRaw(`{"jsonrpc":"2.0","id":` + id + `,"result":{"applied":true}}`)
	}
	hover := e.request("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": javaURI}, "position": map[string]any{"line": 0, "character": 0}})
	if r := e.response(hover); r.Error != nil {
		t.Errorf("hover after bad ids: %v", r.Error)
	}
	// JDT LS got the good hover and nothing of the bad messages.
	f.expect("the good hover", func(m *jsonrpc.Message) bool { return m.Method == "textDocument/hover" && m.IDKey() == string(hover) })
	f.none(t, 100*time.Millisecond, func(m *jsonrpc.Message) bool { return true })
}

func TestShutdownExit(t *testing.T) {
	e := startEditor(t, harness{repairer: &fakeRepairer{}})
	f, _ := e.initialize(false)
	id := e.request("shutdown", nil)
	f.expectMethod("shutdown")
	if r := e.response(id); r.Error != nil {
		t.Fatalf("shutdown: %v", r.Error)
	}
	e.notify("exit", nil)
	f.expectMethod("exit")
	select {
	case err := <-e.runErr:
		if err != nil {
			t.Errorf("Run after shutdown+exit: %v", err)
		}
		e.runErr <- err
	case <-time.After(waitTimeout):
		t.Fatal("Run did not return after exit")
	}
}

func TestExitWithoutShutdown(t *testing.T) {
	e := startEditor(t, harness{})
	f, _ := e.initialize(false)
	e.notify("exit", nil)
	f.expectMethod("exit")
	select {
	case err := <-e.runErr:
		if !errors.Is(err, proxy.ErrExitWithoutShutdown) {
			t.Errorf("Run: %v, want ErrExitWithoutShutdown", err)
		}
		e.runErr <- err
	case <-time.After(waitTimeout):
		t.Fatal("Run did not return after exit")
	}
}

func TestEditorEOFShutsJDTLSDown(t *testing.T) {
	e := startEditor(t, harness{})
	f, _ := e.initialize(false)
	e.in.Close()
	f.expectMethod("shutdown")
	f.expectMethod("exit")
	select {
	case err := <-e.runErr:
		if err != nil {
			t.Errorf("Run after EOF: %v", err)
		}
		e.runErr <- err
	case <-time.After(waitTimeout):
		t.Fatal("Run did not return after EOF")
	}
}

func TestStubbornJDTLSIsKilled(t *testing.T) {
	killed := make(chan struct{})
	handle := func(f *fakeJDT, m *jsonrpc.Message) {
		if m.Method == "exit" {
			return // ignore exit
		}
		defaultHandle(f, m)
	}
	e := startEditor(t, harness{handle: handle, mutate: func(o *proxy.Options) {
		o.ExitTimeout = 300 * time.Millisecond
		launch := o.Launch
		o.Launch = func(ctx context.Context, dir string) (*proxy.Backend, error) {
			b, err := launch(ctx, dir)
			if err == nil {
				kill := b.Kill
				b.Kill = func() error { close(killed); return kill() }
			}
			return b, err
		}
	}})
	e.initialize(false)
	id := e.request("shutdown", nil)
	e.response(id)
	e.notify("exit", nil)
	select {
	case <-killed:
	case <-time.After(waitTimeout):
		t.Fatal("JDT LS that ignored exit was not killed")
	}
}

// TestInitializeSourcePaths: for a plain folder whose sources sit under
// src/<package folders>, JDT LS receives java.project.sourcePaths ["src"]
// in the forwarded initialize (JDT LS 1.60 infers the package's folder
// instead, and reports "The declared package ... does not match the expected
// package" on every file); the editor's own settings are kept, and a value
// the editor set is not replaced.
func TestInitializeSourcePaths(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "src", "org", "example", "A.java")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("package org.example;\nclass A {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		settings any
		want     string
	}{
		{"none set", nil, `{"java":{"project":{"sourcePaths":["src"]}}}`},
		{"others kept", map[string]any{"java": map[string]any{"format": map[string]any{"enabled": false}}},
			`{"java":{"format":{"enabled":false},"project":{"sourcePaths":["src"]}}}`},
		{"editor's value wins", map[string]any{"java.project.sourcePaths": []string{"lib"}}, `{"java.project.sourcePaths":["lib"]}`},
		// Integers past 2^53 pass unchanged (not rounded through float64).
		{"numbers kept exactly", map[string]any{"java": map[string]any{"big": json.Number("9007199254740993"), "neg": json.Number("-12345678901234567890"), "f": json.Number("1.5e300")}},
			`{"java":{"big":9007199254740993,"f":1.5e300,"neg":-12345678901234567890,"project":{"sourcePaths":["src"]}}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := startEditor(t, harness{})
			params := map[string]any{"processId": nil, "rootUri": "file://" + root, "capabilities": clientCaps(false)}
			if c.settings != nil {
				params["initializationOptions"] = map[string]any{"settings": c.settings}
			}
			e.request("initialize", params)
			m := e.server().expectMethod("initialize")
			var got struct {
				InitializationOptions struct{ Settings json.RawMessage } `json:"initializationOptions"`
			}
			if err := json.Unmarshal(m.Params, &got); err != nil {
				t.Fatal(err)
			}
			if string(got.InitializationOptions.Settings) != c.want {
				t.Errorf("JDT LS got settings %s, want %s", got.InitializationOptions.Settings, c.want)
			}
		})
	}
}

// TestJDTLSMessagesThatAreMalformed: what JDT LS sends with an id that is
// an object, an array or a boolean, with neither method nor id, or as an
// answer to no request in flight, never reaches the editor (it would be a
// malformed or unexpected message there); a request with a bad id is
// answered with InvalidRequest and id null, so JDT LS does not wait. The
// messages around them pass as usual. Before, all went to the editor
// unchanged.
func TestJDTLSMessagesThatAreMalformed(t *testing.T) {
	log := &logBuf{t: t}
	e := startEditor(t, harness{repairer: &fakeRepairer{}, mutate: func(o *proxy.Options) { o.Log = log }})
	f, _ := e.initialize(false)
	for _, id := range []string{`{"a":1}`, `[7]`, `true`} {
		f.send(`{"jsonrpc":"2.0","id":` + id + `,"result":{"contents":"x"}}`)
		f.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"workspace/configuration","params":{"items":[]}}`)
		r := f.expect("InvalidRequest for id "+id, func(m *jsonrpc.Message) bool { return m.IsResponse() })
		if string(r.ID) != "null" || r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidRequest {
			t.Errorf("JDT LS's request with id %s was answered %s; want InvalidRequest with id null", id, r.Raw)
		}
	}
	f.send(`{"jsonrpc":"2.0","id":"nobody-asked","result":1}`)
	f.send(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`)
	f.send(`{"jsonrpc":"2.0"}`)
	f.send(`{"jsonrpc":"2.0","method":"window/logMessage","params":{"type":3,"message":"after"}}`)
	got := e.expect("the good notification", func(m *jsonrpc.Message) bool { return true })
	if got.Method != "window/logMessage" {
		t.Errorf("the editor got %s before the good notification", got.Raw)
	}
	hover := e.request("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": javaURI}, "position": map[string]any{"line": 0, "character": 0}})
	if r := e.response(hover); r.Error != nil {
		t.Errorf("hover after the bad messages: %v", r.Error)
	}
	for _, want := range []string{"neither a number nor a string", "no request in flight", "neither method nor id"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the log does not say %q:\n%s", want, log.String())
		}
	}
}
