package proxy_test

// apply_test.go checks repilot.applyPatch over the wire: the repair result's
// patches carry the command, running it sends workspace/applyEdit to the
// editor (in the proxy's own id space) and reports the editor's answer; a
// document that changed since the repair is refused before any edit is sent;
// an editor without workspace.applyEdit gets no command and, if it runs one
// anyway, the edit back.

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/repilot-lsp/repilot-lsp/jsonrpc"
	"github.com/repilot-lsp/repilot-lsp/proxy/feature/repairfeat"
)

// repairOnce runs one repair of line 6 and returns its patches.
func repairOnce(t *testing.T, e *testEditor, version int) []repairfeat.RepairPatch {
	t.Helper()
	id := e.request("workspace/executeCommand", repairCmd(javaURI, 5, 0, 6, 0, version))
	create := e.expectMethod("window/workDoneProgress/create")
	e.sendRaw(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":null}`, create.ID))
	r := e.response(id)
	if r.Error != nil {
		t.Fatalf("repair: %v", r.Error)
	}
	var res repairfeat.RepairResult
	if err := json.Unmarshal(r.Result, &res); err != nil {
		t.Fatal(err)
	}
	return res.Patches
}

// applyPatch runs a patch's command and returns the response.
func applyPatch(e *testEditor, cmd *protocol.Command) json.RawMessage {
	return e.request("workspace/executeCommand", map[string]any{"command": cmd.Command, "arguments": cmd.Arguments})
}

func TestApplyPatchCommand(t *testing.T) {
	e := startEditor(t, harness{repairer: &fakeRepairer{result: onePatch()}})
	f, _ := e.initialize(false)
	e.open(javaURI, greeter, 1)
	patches := repairOnce(t, e, 1)
	cmd := patches[0].Command
	if cmd == nil || cmd.Command != repairfeat.CommandApplyPatch || cmd.Title != patches[0].Title {
		t.Fatalf("patch 1's command %+v", cmd)
	}

	// The editor refuses: a clear error with its reason, or without one
	// (and the version stays free for another patch).
	for _, answer := range []string{`{"applied":false,"failureReason":"the file is read-only"}`, `{"applied":false}`} {
		id := applyPatch(e, patches[1].Command)
		ae := e.expectMethod("workspace/applyEdit")
		e.sendRaw(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, ae.ID, answer))
		r := e.response(id)
		if r.Error == nil || r.Error.Code != jsonrpc.CodeRequestFailed || !strings.Contains(r.Error.Message, "the patch was not applied") {
			t.Errorf("refused (%s): %s", answer, r.Raw)
		} else if strings.Contains(answer, "read-only") && !strings.Contains(r.Error.Message, "the file is read-only") {
			t.Errorf("the editor's reason is lost: %s", r.Error.Message)
		}
	}

	// Applied: the editor gets workspace/applyEdit with the patch's edit.
	id := applyPatch(e, cmd)
	ae := e.expectMethod("workspace/applyEdit")
	if !strings.HasPrefix(string(ae.ID), `"repilot/`) {
		t.Errorf("applyEdit id %s is not in the proxy's id space", ae.ID)
	}
	var params protocol.ApplyWorkspaceEditParams
	if err := json.Unmarshal(ae.Params, &params); err != nil {
		t.Fatal(err)
	}
	if params.Label != patches[0].Title || len(params.Edit.DocumentChanges) != 1 ||
		params.Edit.DocumentChanges[0].Edits[0].NewText != onePatch().Patches[0].Hunk {
		t.Errorf("applyEdit params %s", ae.Params)
	}
	e.sendRaw(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"applied":true}}`, ae.ID))
	if r := e.response(id); r.Error != nil || string(r.Result) != `{"applied":true}` {
		t.Errorf("applyPatch: %s", r.Raw)
	}
	f.none(t, 100*time.Millisecond, func(m *jsonrpc.Message) bool {
		return m.Method == "workspace/executeCommand" || m.Method == "workspace/applyEdit" || m.IsResponse()
	})

	// The document changed since the repair: refused, no edit sent.
	e.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": javaURI, "version": 2},
		"contentChanges": []any{map[string]any{"text": greeter + "\n"}}})
	r := e.response(applyPatch(e, cmd))
	if r.Error == nil || r.Error.Code != jsonrpc.CodeContentModified || !strings.Contains(r.Error.Message, repairfeat.MsgDocumentChanged) ||
		!strings.Contains(r.Error.Message, "version 1, now 2") {
		t.Errorf("stale patch: %s", r.Raw)
	}
	e.none("workspace/applyEdit", 100*time.Millisecond, func(m *jsonrpc.Message) bool { return m.Method == "workspace/applyEdit" })

	// Bad arguments.
	other := map[string]any{"uri": "file:///work/project/src/demo/Other.java", "version": 2,
		"edit": map[string]any{"changes": map[string]any{javaURI: []any{map[string]any{"range": map[string]any{"start": pos(0, 0), "end": pos(0, 0)}, "newText": "x"}}}}}
	for name, args := range map[string][]any{
		"no argument":       {},
		"not an object":     {42},
		"empty edit":        {map[string]any{"uri": javaURI, "version": 2, "edit": map[string]any{}}},
		"another document":  {other},
		"document not open": {map[string]any{"uri": "file:///work/project/src/demo/Other.java", "version": 2, "edit": other["edit"].(map[string]any)}},
		"edit of another version": {map[string]any{"uri": javaURI, "version": 2, "edit": map[string]any{"documentChanges": []any{map[string]any{
			"textDocument": map[string]any{"uri": javaURI, "version": 1},
			"edits":        []any{map[string]any{"range": map[string]any{"start": pos(0, 0), "end": pos(0, 0)}, "newText": "x"}}}}}}},
	} {
		r := e.response(e.request("workspace/executeCommand", map[string]any{"command": repairfeat.CommandApplyPatch, "arguments": args}))
		if r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("%s: %s", name, r.Raw)
		}
	}
}

func TestApplyPatchWithoutApplyEdit(t *testing.T) {
	e := startEditor(t, harness{repairer: &fakeRepairer{result: onePatch()}})
	caps := clientCaps(false)
	caps["workspace"].(map[string]any)["applyEdit"] = false
	id := e.request("initialize", map[string]any{"processId": nil, "rootUri": "file://" + testRoot, "capabilities": caps})
	f := e.server()
	f.expectMethod("initialize")
	e.response(id)
	e.notify("initialized", map[string]any{})
	f.expectMethod("initialized")
	e.open(javaURI, greeter, 1)
	patches := repairOnce(t, e, 1)
	if patches[0].Command != nil || len(patches[0].Edit.DocumentChanges) != 1 {
		t.Fatalf("patch without applyEdit: command %+v, edit %+v", patches[0].Command, patches[0].Edit)
	}
	// Run anyway: the edit comes back for the editor to apply.
	args := repairfeat.ApplyPatchArgs{URI: javaURI, Version: 1, Edit: patches[0].Edit}
	r := e.response(e.request("workspace/executeCommand", map[string]any{"command": repairfeat.CommandApplyPatch, "arguments": []any{args}}))
	var res repairfeat.ApplyPatchResult
	if r.Error != nil || json.Unmarshal(r.Result, &res) != nil || res.Applied || res.Edit == nil ||
		res.Edit.DocumentChanges[0].Edits[0].NewText != onePatch().Patches[0].Hunk {
		t.Errorf("applyPatch without applyEdit: %s", r.Raw)
	}
	e.none("workspace/applyEdit", 100*time.Millisecond, func(m *jsonrpc.Message) bool { return m.Method == "workspace/applyEdit" })
}

// TestApplyPatchCommandsOnlyClient: an editor without
// codeActionLiteralSupport but with workspace.applyEdit is offered the
// patches as Commands (repilot.applyPatch) after a repair.
func TestApplyPatchCommandsOnlyClient(t *testing.T) {
	e := startEditor(t, harness{repairer: &fakeRepairer{result: onePatch()}})
	caps := clientCaps(false)
	delete(caps["textDocument"].(map[string]any)["codeAction"].(map[string]any), "codeActionLiteralSupport")
	id := e.request("initialize", map[string]any{"processId": nil, "rootUri": "file://" + testRoot, "capabilities": caps})
	f := e.server()
	f.expectMethod("initialize")
	e.response(id)
	e.notify("initialized", map[string]any{})
	f.expectMethod("initialized")
	e.open(javaURI, greeter, 1)
	repairOnce(t, e, 1)
	r := e.response(e.request("textDocument/codeAction", codeActionParams(javaURI, 5, 0, 5, 10)))
	var cmds []protocol.Command
	if err := json.Unmarshal(r.Result, &cmds); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cmds {
		got = append(got, c.Command)
	}
	if fmt.Sprint(got) != fmt.Sprintf("[ %s %s %s]", repairfeat.CommandRepairHunk, repairfeat.CommandApplyPatch, repairfeat.CommandApplyPatch) {
		t.Errorf("commands offered after a repair: %q (%s)", got, r.Result)
	}
}

// TestApplyPatchOnce: a patch is applied at most once per document
// version: a second repilot.applyPatch while the first waits for the
// editor, or after it applied but before the editor's didChange arrives
// (a double click), is refused without a second workspace/applyEdit; a
// cancelled apply (the editor never answers) frees the version again.
func TestApplyPatchOnce(t *testing.T) {
	e := startEditor(t, harness{repairer: &fakeRepairer{result: onePatch()}})
	e.initialize(false)
	e.open(javaURI, greeter, 1)
	patches := repairOnce(t, e, 1)

	// The editor never answers: the editor cancels, the proxy cancels its
	// workspace/applyEdit in turn.
	id := applyPatch(e, patches[0].Command)
	ae := e.expectMethod("workspace/applyEdit")
	e.notify("$/cancelRequest", map[string]any{"id": json.RawMessage(id)})
	if r := e.response(id); r.Error == nil || r.Error.Code != jsonrpc.CodeRequestCancelled {
		t.Fatalf("cancelled apply: %s", r.Raw)
	}
	c := e.expectMethod("$/cancelRequest")
	if !strings.Contains(string(c.Params), string(ae.ID)) {
		t.Errorf("the proxy cancelled %s, want its applyEdit %s", c.Params, ae.ID)
	}

	// The editor answers with an error, or with nonsense: not applied, and
	// the version stays free.
	for _, answer := range []string{`"error":{"code":-32603,"message":"editor bug"}`, `"result":5`, `"result":null`} {
		id := applyPatch(e, patches[0].Command)
		ae := e.expectMethod("workspace/applyEdit")
		e.sendRaw(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,%s}`, ae.ID, answer))
		if r := e.response(id); r.Error == nil || r.Error.Code != jsonrpc.CodeRequestFailed || !strings.Contains(r.Error.Message, "not applied") {
			t.Errorf("editor answered %s: %s", answer, r.Raw)
		}
	}

	// Two at once: the second is refused while the first is outstanding.
	first := applyPatch(e, patches[0].Command)
	ae = e.expectMethod("workspace/applyEdit")
	r := e.response(applyPatch(e, patches[1].Command))
	if r.Error == nil || r.Error.Code != jsonrpc.CodeContentModified {
		t.Errorf("second apply while the first is outstanding: %s", r.Raw)
	}
	e.sendRaw(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"applied":true}}`, ae.ID))
	if r := e.response(first); r.Error != nil {
		t.Fatalf("first apply: %s", r.Raw)
	}
	// Applied, the didChange not yet here: refused all the same.
	r = e.response(applyPatch(e, patches[0].Command))
	if r.Error == nil || r.Error.Code != jsonrpc.CodeContentModified || !strings.Contains(r.Error.Message, "already") {
		t.Errorf("apply again before the editor's didChange: %s", r.Raw)
	}
	e.none("workspace/applyEdit", 100*time.Millisecond, func(m *jsonrpc.Message) bool { return m.Method == "workspace/applyEdit" })
}

// TestApplyPatchAfterReopen: closing a document forgets its patches: the
// editor may reopen it at the same version with other text (changed on
// disk), so neither the code actions nor repilot.applyPatch offer or apply
// an edit computed on the old text.
func TestApplyPatchAfterReopen(t *testing.T) {
	e := startEditor(t, harness{repairer: &fakeRepairer{result: onePatch()}})
	e.initialize(false)
	e.open(javaURI, greeter, 1)
	patches := repairOnce(t, e, 1)
	e.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": javaURI}})
	changed := strings.Replace(greeter, "int n = 0;", "int n = 0; // changed on disk", 1)
	e.open(javaURI, changed, 1)

	r := e.response(e.request("textDocument/codeAction", codeActionParams(javaURI, 5, 0, 6, 0)))
	if strings.Contains(string(r.Result), "Apply Repilot patch") {
		t.Errorf("patches of the closed document offered after it reopened: %s", r.Result)
	}
	r = e.response(applyPatch(e, patches[0].Command))
	if r.Error == nil || r.Error.Code != jsonrpc.CodeContentModified {
		t.Errorf("a patch of the closed document applied after it reopened: %s", r.Raw)
	}
	e.none("workspace/applyEdit", 100*time.Millisecond, func(m *jsonrpc.Message) bool { return m.Method == "workspace/applyEdit" })
}

// TestApplyPatchEditorSilent: an editor that never answers
// workspace/applyEdit (and never cancels) gets RequestFailed after
// repairfeat.Options.ApplyTimeout, the proxy cancels its request, and the
// version is free again.
func TestApplyPatchEditorSilent(t *testing.T) {
	e := startEditor(t, harness{repairer: &fakeRepairer{result: onePatch()}, repairOpts: repairfeat.Options{ApplyTimeout: 200 * time.Millisecond}})
	e.initialize(false)
	e.open(javaURI, greeter, 1)
	patches := repairOnce(t, e, 1)
	id := applyPatch(e, patches[0].Command)
	ae := e.expectMethod("workspace/applyEdit")
	if r := e.response(id); r.Error == nil || r.Error.Code != jsonrpc.CodeRequestFailed || !strings.Contains(r.Error.Message, "did not answer") {
		t.Fatalf("silent editor: %s", r.Raw)
	}
	if c := e.expectMethod("$/cancelRequest"); !strings.Contains(string(c.Params), string(ae.ID)) {
		t.Errorf("cancelled %s, want %s", c.Params, ae.ID)
	}
	id = applyPatch(e, patches[0].Command)
	ae = e.expectMethod("workspace/applyEdit")
	e.sendRaw(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"applied":true}}`, ae.ID))
	if r := e.response(id); r.Error != nil {
		t.Errorf("apply after the timeout: %s", r.Raw)
	}
}

// TestRepairOfClosedDocument: a document closed (and reopened with other
// text at the same version) while its repair runs gets no patches: the
// result's edits were made for the old text.
func TestRepairOfClosedDocument(t *testing.T) {
	rep := &fakeRepairer{block: make(chan struct{}), started: make(chan struct{}), result: onePatch()}
	e := startEditor(t, harness{repairer: rep})
	e.initialize(false)
	e.open(javaURI, greeter, 1)
	id := e.request("workspace/executeCommand", repairCmd(javaURI, 5, 0, 6, 0, 1))
	create := e.expectMethod("window/workDoneProgress/create")
	e.sendRaw(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":null}`, create.ID))
	<-rep.started
	e.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": javaURI}})
	e.open(javaURI, strings.Replace(greeter, "int n = 0;", "int n = 0; // changed on disk", 1), 1)
	close(rep.block)
	if r := e.response(id); r.Error == nil || r.Error.Code != jsonrpc.CodeContentModified {
		t.Errorf("repair of a document closed meanwhile: %s", r.Raw)
	}
	r := e.response(e.request("textDocument/codeAction", codeActionParams(javaURI, 5, 0, 6, 0)))
	if strings.Contains(string(r.Result), "Apply Repilot patch") {
		t.Errorf("patches of the closed document offered: %s", r.Result)
	}
}

// TestShutdownWhileApplying: shutdown and exit while a workspace/applyEdit
// waits for the editor end the proxy at once; the editor's late answer is
// harmless.
func TestShutdownWhileApplying(t *testing.T) {
	for _, answer := range []bool{true, false} {
		t.Run(fmt.Sprintf("answered %v", answer), func(t *testing.T) {
			e := startEditor(t, harness{repairer: &fakeRepairer{result: onePatch()}})
			f, _ := e.initialize(false)
			e.open(javaURI, greeter, 1)
			patches := repairOnce(t, e, 1)
			applyPatch(e, patches[0].Command)
			ae := e.expectMethod("workspace/applyEdit")
			id := e.request("shutdown", nil)
			f.expectMethod("shutdown")
			if r := e.response(id); r.Error != nil {
				t.Fatalf("shutdown: %s", r.Raw)
			}
			if answer {
				e.sendRaw(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"applied":true}}`, ae.ID))
			}
			e.notify("exit", nil)
			select {
			case err := <-e.runErr:
				if err != nil {
					t.Errorf("Run: %v", err)
				}
				e.runErr <- err
			case <-time.After(3 * time.Second):
				t.Fatal("the proxy still runs 3 s after exit with an applyEdit outstanding")
			}
		})
	}
}
