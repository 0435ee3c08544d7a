package proxy_test

// features_test.go tests the extension side with a fake JDT LS and a fake
// Repairer: code action merging, the repair command (progress, cancellation,
// results, every unhappy path), the document mirror, and crash recovery.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/repilot-lsp/repilot-lsp/jsonrpc"
	"github.com/repilot-lsp/repilot-lsp/proxy"
	"github.com/repilot-lsp/repilot-lsp/proxy/feature/repairfeat"
	"github.com/repilot-lsp/repilot-lsp/repair"
)

func onePatch() *repair.Result {
	return &repair.Result{Patches: []repair.Patch{
		{Hunk: "        for (int i = 0; i < s.length(); i++) {\n", Diff: "-<=\n+<\n", LogProb: -1.5, Compilable: true, Plausible: true},
		{Hunk: "        for (int i = 1; i <= s.length(); i++) {\n", Diff: "d2", LogProb: -3, Compilable: true},
	}, Stats: repair.Stats{Samples: 20, Unique: 2, Duration: 1500 * time.Millisecond}}
}

// repairCmd is executeCommand params for repilot.repairHunk.
func repairCmd(uri string, sl, sc, el, ec, version int) map[string]any {
	return map[string]any{"command": repairfeat.CommandRepairHunk, "arguments": []any{map[string]any{
		"uri": uri, "version": version,
		"range": map[string]any{"start": map[string]any{"line": sl, "character": sc}, "end": map[string]any{"line": el, "character": ec}}}}}
}

func codeActionParams(uri string, sl, sc, el, ec int, only ...string) map[string]any {
	ctx := map[string]any{"diagnostics": []any{}}
	if len(only) > 0 {
		ctx["only"] = only
	}
	return map[string]any{"textDocument": map[string]any{"uri": uri}, "context": ctx,
		"range": map[string]any{"start": map[string]any{"line": sl, "character": sc}, "end": map[string]any{"line": el, "character": ec}}}
}

// titles decodes a codeAction result's titles.
func titles(t *testing.T, r *jsonrpc.Message) []string {
	t.Helper()
	if r.Error != nil {
		t.Fatalf("codeAction: %v", r.Error)
	}
	var acts []struct{ Title string }
	if err := json.Unmarshal(r.Result, &acts); err != nil {
		t.Fatalf("codeAction result %s: %v", r.Result, err)
	}
	var out []string
	for _, a := range acts {
		out = append(out, a.Title)
	}
	return out
}

func TestCodeActionMerge(t *testing.T) {
	e := startEditor(t, harness{repairer: &fakeRepairer{}})
	f, _ := e.initialize(false)
	e.open(javaURI, greeter, 1)
	e.open("file:///work/project/notes.txt", "hello\nworld\n", 1)

	// Ours after JDT LS's, whose bytes (and opaque data) are kept.
	id := e.request("textDocument/codeAction", codeActionParams(javaURI, 5, 0, 6, 0))
	r := e.response(id)
	if !strings.HasPrefix(string(r.Result), `[{"title":"Invert conditions","kind":"refactor","data":{"pid":"0","rid":"0"}},{"title":"Repair with Repilot","kind":"quickfix"`) {
		t.Errorf("merged result %s", r.Result)
	}
	var acts []protocol.CodeAction
	json.Unmarshal(r.Result, &acts)
	cmd := acts[1].Command
	if cmd == nil || cmd.Command != repairfeat.CommandRepairHunk {
		t.Fatalf("repair action %+v", acts[1])
	}
	raw, _ := json.Marshal(cmd.Arguments[0])
	var args repairfeat.RepairArgs
	json.Unmarshal(raw, &args)
	if args.URI != javaURI || args.Range != (protocol.Range{Start: protocol.Position{Line: 5}, End: protocol.Position{Line: 6}}) ||
		args.Version == nil || *args.Version != 1 {
		t.Errorf("args %s", raw)
	}

	// No actions of ours: the request and response pass unchanged.
	for _, c := range []struct {
		name   string
		params map[string]any
	}{
		{"empty range", codeActionParams(javaURI, 5, 3, 5, 3)},
		{"not java", codeActionParams("file:///work/project/notes.txt", 0, 0, 1, 0)},
		{"not open", codeActionParams("file:///work/project/src/demo/Other.java", 0, 0, 1, 0)},
		{"only refactor", codeActionParams(javaURI, 5, 0, 6, 0, "refactor")},
	} {
		id := e.request("textDocument/codeAction", c.params)
		if got := titles(t, e.response(id)); fmt.Sprint(got) != "[Invert conditions]" {
			t.Errorf("%s: %v", c.name, got)
		}
	}
	if got := titles(t, e.response(e.request("textDocument/codeAction", codeActionParams(javaURI, 5, 0, 6, 0, "quickfix")))); len(got) != 2 {
		t.Errorf("only quickfix: %v", got)
	}

	// JDT LS fails or answers null: ours alone.
	f.setHandle(func(f *fakeJDT, m *jsonrpc.Message) {
		if m.Method == "textDocument/codeAction" {
			f.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"NPE"}}`, m.ID))
		}
	})
	if got := titles(t, e.response(e.request("textDocument/codeAction", codeActionParams(javaURI, 5, 0, 6, 0)))); fmt.Sprint(got) != "[Repair with Repilot]" {
		t.Errorf("JDT LS error: %v", got)
	}
	f.setHandle(func(f *fakeJDT, m *jsonrpc.Message) {
		if m.Method == "textDocument/codeAction" {
			f.reply(m, "null")
		}
	})
	if got := titles(t, e.response(e.request("textDocument/codeAction", codeActionParams(javaURI, 5, 0, 6, 0)))); fmt.Sprint(got) != "[Repair with Repilot]" {
		t.Errorf("JDT LS null: %v", got)
	}

	// codeAction/resolve for ours is answered here; JDT LS's is forwarded.
	f.setHandle(defaultHandle)
	ours, _ := json.Marshal(acts[1])
	id = e.request("codeAction/resolve", json.RawMessage(ours))
	if r := e.response(id); string(r.Result) != string(ours) {
		t.Errorf("resolve ours: %s", r.Raw)
	}
	id = e.request("codeAction/resolve", json.RawMessage(`{"title":"Invert conditions","data":{"pid":"0","rid":"0"}}`))
	f.expectMethod("codeAction/resolve")
	e.response(id)
}

func TestCommandsOnlyClient(t *testing.T) {
	e := startEditor(t, harness{repairer: &fakeRepairer{}})
	id := e.request("initialize", map[string]any{"processId": nil, "capabilities": map[string]any{}})
	e.server()
	e.response(id)
	e.open(javaURI, greeter, 1)
	r := e.response(e.request("textDocument/codeAction", codeActionParams(javaURI, 5, 0, 6, 0)))
	if !strings.HasSuffix(string(r.Result), `,{"title":"Repair with Repilot","command":"repilot.repairHunk","arguments":[{"uri":"`+javaURI+`","range":{"start":{"line":5,"character":0},"end":{"line":6,"character":0}},"version":1}]}]`) {
		t.Errorf("an editor without codeActionLiteralSupport got %s", r.Result)
	}
}

func TestRepairCommand(t *testing.T) {
	rep := &fakeRepairer{result: onePatch()}
	e := startEditor(t, harness{repairer: rep})
	f, _ := e.initialize(false)
	e.open(javaURI, greeter, 1)
	// An incremental edit the repair must see: rename "s" on line 3 (0-based) to "word"... in two steps.
	e.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": javaURI, "version": 2},
		"contentChanges": []any{map[string]any{"range": map[string]any{"start": map[string]any{"line": 3, "character": 21}, "end": map[string]any{"line": 3, "character": 22}}, "text": "w"}}})
	f.expectMethod("textDocument/didChange")
	want := strings.Replace(greeter, "count(String s)", "count(String w)", 1)

	id := e.request("workspace/executeCommand", repairCmd(javaURI, 5, 4, 6, 0, 2))
	create := e.expectMethod("window/workDoneProgress/create")
	e.sendRaw(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":null}`, create.ID))
	var tok proxy.TokenParams
	json.Unmarshal(create.Params, &tok)
	var kinds []string
	var end string
	for len(kinds) == 0 || kinds[len(kinds)-1] != "end" {
		m := e.expectMethod("$/progress")
		var pp struct {
			Token json.RawMessage
			Value proxy.WorkDoneProgressValue
		}
		json.Unmarshal(m.Params, &pp)
		if string(pp.Token) != string(tok.Token) {
			t.Fatalf("progress token %s, want %s", pp.Token, tok.Token)
		}
		kinds = append(kinds, pp.Value.Kind)
		end = pp.Value.Message
	}
	if fmt.Sprint(kinds) != "[begin report report end]" {
		t.Errorf("progress %v", kinds)
	}
	// The end says the counts and the repair's time.
	if !regexp.MustCompile(`^2 patches, 2 compilable in [0-9.]+m?s$`).MatchString(end) {
		t.Errorf("progress end %q, want \"2 patches, 2 compilable in 0s\"", end)
	}
	r := e.response(id)
	if r.Error != nil {
		t.Fatalf("repair: %v", r.Error)
	}
	var res repairfeat.RepairResult
	if err := json.Unmarshal(r.Result, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Patches) != 2 || res.Patches[0].Title != "Apply Repilot patch 1: for (int i = 0; i < s.length(); i++) {" ||
		!res.Patches[0].Compilable || !res.Patches[0].Plausible || res.Patches[0].LogProb != -1.5 || res.Patches[0].Diff == "" {
		t.Errorf("patches %+v", res.Patches)
	}
	if res.Stats.Samples != 20 || !strings.Contains(string(r.Result), `"stats":{"samples":20`) {
		t.Errorf("stats %s", r.Result)
	}
	dc := res.Patches[0].Edit.DocumentChanges
	if len(dc) != 1 || *dc[0].TextDocument.Version != 2 || dc[0].TextDocument.URI != javaURI ||
		dc[0].Edits[0].Range != (protocol.Range{Start: protocol.Position{Line: 5}, End: protocol.Position{Line: 6}}) {
		t.Errorf("edit %+v", res.Patches[0].Edit)
	}
	reqs := rep.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d repair requests", len(reqs))
	}
	q := reqs[0]
	if q.Root != testRoot || q.File != "/work/project/src/demo/Greeter.java" || q.Text != want || q.StartLine != 6 || q.EndLine != 6 {
		t.Errorf("request %+v", q)
	}
	e.expect("summary", func(m *jsonrpc.Message) bool {
		return m.Method == "window/showMessage" && strings.Contains(string(m.Params), "2 patches, 2 compilable")
	})
	f.none(t, 100*time.Millisecond, func(m *jsonrpc.Message) bool { return m.Method == "workspace/executeCommand" })

	// Later code actions on the same lines and version offer the patches.
	got := titles(t, e.response(e.request("textDocument/codeAction", codeActionParams(javaURI, 5, 0, 5, 10))))
	if fmt.Sprint(got) != "[Invert conditions Repair with Repilot Apply Repilot patch 1: for (int i = 0; i < s.length(); i++) { Apply Repilot patch 2: for (int i = 1; i <= s.length(); i++) {]" {
		t.Errorf("after repair: %q", got)
	}
	r = e.response(e.request("textDocument/codeAction", codeActionParams(javaURI, 5, 0, 5, 10)))
	var acts []protocol.CodeAction
	json.Unmarshal(r.Result, &acts)
	if acts[2].Edit == nil || acts[2].Edit.DocumentChanges[0].Edits[0].NewText != onePatch().Patches[0].Hunk {
		t.Errorf("apply action %+v", acts[2])
	}
	// Other lines, or a new version: no patches.
	if got := titles(t, e.response(e.request("textDocument/codeAction", codeActionParams(javaURI, 4, 0, 5, 10)))); len(got) != 2 {
		t.Errorf("other lines: %v", got)
	}
	e.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": javaURI, "version": 3},
		"contentChanges": []any{map[string]any{"text": greeter}}})
	if got := titles(t, e.response(e.request("textDocument/codeAction", codeActionParams(javaURI, 5, 0, 5, 10)))); len(got) != 2 {
		t.Errorf("new version: %v", got)
	}
}

func TestRepairUnhappyPaths(t *testing.T) {
	big := "class Big {\n" + strings.Repeat("// padding padding padding padding\n", 40000) + "}\n"
	cases := []struct {
		name   string
		rep    *fakeRepairer
		params map[string]any
		code   int64
		msg    string
	}{
		{"empty range", &fakeRepairer{result: onePatch()}, repairCmd(javaURI, 5, 2, 5, 2, 1), jsonrpc.CodeInvalidParams, "the selection is empty"},
		{"not java", &fakeRepairer{result: onePatch()}, repairCmd("file:///work/project/notes.txt", 0, 0, 1, 0, 1), jsonrpc.CodeInvalidParams, "not a .java file"},
		{"not open", &fakeRepairer{result: onePatch()}, repairCmd("file:///work/project/Other.java", 0, 0, 1, 0, 1), jsonrpc.CodeInvalidParams, "is not open in the editor"},
		{"stale version", &fakeRepairer{result: onePatch()}, repairCmd(javaURI, 5, 0, 6, 0, 7), jsonrpc.CodeContentModified, "the document changed"},
		{"past the end", &fakeRepairer{result: onePatch()}, repairCmd(javaURI, 5, 0, 40, 0, 1), jsonrpc.CodeInvalidParams, "the range ends at line 40 but Greeter.java has 11 lines"},
		{"repairer error", &fakeRepairer{err: errors.New("engine: JDT LS did not start")}, repairCmd(javaURI, 5, 0, 6, 0, 1), jsonrpc.CodeRequestFailed, "Repilot repair failed: engine: JDT LS did not start"},
		// A time limit inside the repair (a compile check's) is the repair's
		// error, not "did not finish within" the repair's own limit; nor is
		// a cancellation inside it the editor's cancelling.
		{"inner time limit", &fakeRepairer{err: fmt.Errorf("compile check: %w", context.DeadlineExceeded)}, repairCmd(javaURI, 5, 0, 6, 0, 1), jsonrpc.CodeRequestFailed, "Repilot repair failed: compile check: context deadline exceeded"},
		{"inner cancellation", &fakeRepairer{err: fmt.Errorf("model: %w", context.Canceled)}, repairCmd(javaURI, 5, 0, 6, 0, 1), jsonrpc.CodeRequestFailed, "Repilot repair failed: model: context canceled"},
		{"unavailable", nil, repairCmd(javaURI, 5, 0, 6, 0, 1), jsonrpc.CodeRequestFailed, "the repair service is not available: repair service not wired yet"},
		{"no patch", &fakeRepairer{result: &repair.Result{}}, repairCmd(javaURI, 5, 0, 6, 0, 1), jsonrpc.CodeRequestFailed, repairfeat.MsgNoCandidate},
		{"huge file", &fakeRepairer{result: onePatch()}, repairCmd("file:///work/project/Big.java", 1, 0, 2, 0, 1), jsonrpc.CodeRequestFailed, "Repilot repairs files up to 1024 KiB"},
		{"bad args", &fakeRepairer{result: onePatch()}, map[string]any{"command": repairfeat.CommandRepairHunk, "arguments": []any{"x"}}, jsonrpc.CodeInvalidParams, "bad argument"},
		{"no args", &fakeRepairer{result: onePatch()}, map[string]any{"command": repairfeat.CommandRepairHunk}, jsonrpc.CodeInvalidParams, "takes one argument"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var rep repair.Repairer = c.rep
			if c.rep == nil {
				rep = repairfeat.UnavailableRepairer(errors.New("repair service not wired yet"))
			}
			e := startEditor(t, harness{repairer: rep})
			f, _ := e.initialize(false)
			e.open(javaURI, greeter, 1)
			e.open("file:///work/project/notes.txt", "a\nb\n", 1)
			if c.name == "huge file" {
				e.open("file:///work/project/Big.java", big, 1)
			}
			id := e.request("workspace/executeCommand", c.params)
			m := e.expect("response or create", func(m *jsonrpc.Message) bool {
				return (m.IsResponse() && m.IDKey() == string(id)) || m.Method == "window/workDoneProgress/create"
			})
			if m.Method != "" {
				e.sendRaw(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":null}`, m.ID))
				m = e.response(id)
			}
			if m.Error == nil || m.Error.Code != c.code || !strings.Contains(m.Error.Message, c.msg) {
				t.Fatalf("got %s, want code %d and %q", m.Raw, c.code, c.msg)
			}
			if c.name == "no patch" {
				e.expect("showMessage", func(m *jsonrpc.Message) bool {
					return m.Method == "window/showMessage" && strings.Contains(string(m.Params), repairfeat.MsgNoCandidate)
				})
			}
			// The server keeps serving.
			hid := e.request("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": javaURI}, "position": map[string]any{"line": 0, "character": 0}})
			if r := e.response(hid); r.Error != nil {
				t.Errorf("hover afterwards: %v", r.Error)
			}
			_ = f
		})
	}
}

func TestRepairCancellation(t *testing.T) {
	for _, how := range []string{"cancelRequest", "progressCancel", "ignoring ctx"} {
		t.Run(how, func(t *testing.T) {
			rep := &fakeRepairer{block: make(chan struct{}), started: make(chan struct{}), result: onePatch(), ignore: how == "ignoring ctx"}
			defer close(rep.block)
			e := startEditor(t, harness{repairer: rep})
			f, _ := e.initialize(false)
			e.open(javaURI, greeter, 1)
			id := e.request("workspace/executeCommand", repairCmd(javaURI, 5, 0, 6, 0, 1))
			create := e.expectMethod("window/workDoneProgress/create")
			e.sendRaw(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":null}`, create.ID))
			<-rep.started
			var tok proxy.TokenParams
			json.Unmarshal(create.Params, &tok)
			if how == "progressCancel" {
				e.notify("window/workDoneProgress/cancel", map[string]any{"token": tok.Token})
			} else {
				e.notify("$/cancelRequest", map[string]any{"id": id})
			}
			r := e.response(id)
			if r.Error == nil || r.Error.Code != jsonrpc.CodeRequestCancelled {
				t.Fatalf("cancelled repair: %s", r.Raw)
			}
			e.expect("progress end", func(m *jsonrpc.Message) bool {
				return m.Method == "$/progress" && strings.Contains(string(m.Params), `"kind":"end"`)
			})
			f.none(t, 100*time.Millisecond, func(m *jsonrpc.Message) bool {
				return m.Method == "$/cancelRequest" || m.Method == "window/workDoneProgress/cancel"
			})
		})
	}
	// A cancellation of a JDT LS request is forwarded.
	e := startEditor(t, harness{})
	f, _ := e.initialize(false)
	e.notify("$/cancelRequest", map[string]any{"id": 99})
	f.expectMethod("$/cancelRequest")
	e.notify("window/workDoneProgress/cancel", map[string]any{"token": "jdt-token"})
	f.expectMethod("window/workDoneProgress/cancel")
}

// TestRepairTestCommand: the editor's test-command setting reaches the
// Repairer as Request.TestCmd; a bad one is refused before any work.
func TestRepairTestCommand(t *testing.T) {
	rep := &fakeRepairer{result: onePatch()}
	e := startEditor(t, harness{repairer: rep})
	e.initialize(false)
	e.open(javaURI, greeter, 1)
	withTest := func(argv []string) map[string]any {
		c := repairCmd(javaURI, 5, 0, 6, 0, 1)
		c["arguments"].([]any)[0].(map[string]any)["testCommand"] = argv
		return c
	}
	id := e.request("workspace/executeCommand", withTest([]string{"mvn", "-q", "test"}))
	create := e.expectMethod("window/workDoneProgress/create")
	e.sendRaw(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":null}`, create.ID))
	if r := e.response(id); r.Error != nil {
		t.Fatalf("repair: %v", r.Error)
	}
	rep.mu.Lock()
	got := rep.reqs[len(rep.reqs)-1].TestCmd
	rep.mu.Unlock()
	if fmt.Sprint(got) != "[mvn -q test]" || !rep.reqs[len(rep.reqs)-1].TestBuggy {
		t.Errorf("TestCmd %q, TestBuggy %v; want the tests run on the unchanged code too", got, rep.reqs[len(rep.reqs)-1].TestBuggy)
	}
	// Tests that pass on the unchanged code too: the result and the
	// summary (a Warning) say so.
	passing := onePatch()
	passing.BuggyTest = &repair.TestRun{Passed: true}
	rep.mu.Lock()
	rep.result = passing
	rep.mu.Unlock()
	id = e.request("workspace/executeCommand", withTest([]string{"true"}))
	create = e.expectMethod("window/workDoneProgress/create")
	e.sendRaw(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":null}`, create.ID))
	r := e.response(id)
	var res repairfeat.RepairResult
	if err := json.Unmarshal(r.Result, &res); r.Error != nil || err != nil || !res.TestsPassOnBuggy {
		t.Fatalf("repair: %v %v %s; want testsPassOnBuggy", r.Error, err, r.Result)
	}
	e.expect("warning", func(m *jsonrpc.Message) bool {
		var smp protocol.ShowMessageParams
		json.Unmarshal(m.Params, &smp)
		return m.Method == "window/showMessage" && smp.Type == protocol.MessageTypeWarning &&
			strings.Contains(smp.Message, repairfeat.MsgTestsPassOnBuggy) && strings.Contains(smp.Message, repair.TestsPassOnBuggyMsg)
	})
	rep.mu.Lock()
	rep.result = onePatch()
	rep.mu.Unlock()
	for _, bad := range [][]string{{""}, make([]string, repairfeat.MaxTestArgs+1), {"sh", strings.Repeat("x", repairfeat.MaxTestArgBytes+1)}} {
		r := e.response(e.request("workspace/executeCommand", withTest(bad)))
		if r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams || !strings.Contains(r.Error.Message, "testCommand") {
			t.Errorf("testCommand of %d words: %s", len(bad), r.Raw)
		}
	}
	rep.mu.Lock()
	n := len(rep.reqs)
	rep.mu.Unlock()
	if n != 2 {
		t.Errorf("%d repairs ran; the bad test commands should start none", n-1)
	}
}

// TestCancelEscapedToken: tokens and ids are compared as JSON values, not as
// bytes. Neovim's JSON encoder writes "/" as "\/", so a cancel for the token
// "repilot/progress/1" arrives as "repilot\/progress\/1".
func TestCancelEscapedToken(t *testing.T) {
	for _, how := range []string{"our token escaped", "editor's token escaped in the request", "request id escaped"} {
		t.Run(how, func(t *testing.T) {
			rep := &fakeRepairer{block: make(chan struct{}), started: make(chan struct{}), result: onePatch()}
			defer close(rep.block)
			e := startEditor(t, harness{repairer: rep})
			e.initialize(false)
			e.open(javaURI, greeter, 1)
			cmd := proxy.MustJSON(repairCmd(javaURI, 5, 0, 6, 0, 1))
			id := json.RawMessage(`"req/1"`)
			switch how {
			case "our token escaped":
				e.sendRaw(`{"jsonrpc":"2.0","id":"req/1","method":"workspace/executeCommand","params":` + string(cmd) + `}`)
				create := e.expectMethod("window/workDoneProgress/create")
				e.sendRaw(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":null}`, create.ID))
				<-rep.started
				var tok proxy.TokenParams
				json.Unmarshal(create.Params, &tok)
				if !strings.Contains(string(tok.Token), "/") {
					t.Fatalf("token %s has no slash to escape", tok.Token)
				}
				e.sendRaw(`{"jsonrpc":"2.0","method":"window/workDoneProgress/cancel","params":{"token":` + strings.ReplaceAll(string(tok.Token), "/", `\/`) + `}}`)
			case "editor's token escaped in the request":
				withToken := strings.Replace(string(cmd), "{", `{"workDoneToken":"bar\/1",`, 1)
				e.sendRaw(`{"jsonrpc":"2.0","id":"req/1","method":"workspace/executeCommand","params":` + withToken + `}`)
				<-rep.started
				e.notify("window/workDoneProgress/cancel", map[string]any{"token": "bar/1"})
			case "request id escaped":
				e.sendRaw(`{"jsonrpc":"2.0","id":"req/1","method":"workspace/executeCommand","params":` + string(cmd) + `}`)
				create := e.expectMethod("window/workDoneProgress/create")
				e.sendRaw(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":null}`, create.ID))
				<-rep.started
				e.sendRaw(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"req\/1"}}`)
			}
			r := e.response(id)
			if r.Error == nil || r.Error.Code != jsonrpc.CodeRequestCancelled {
				t.Fatalf("cancelled repair: %s", r.Raw)
			}
		})
	}
}

func TestCrashRestartReopen(t *testing.T) {
	// The restart waits until the test has sent an edit and a request, so
	// that both happen while JDT LS is down.
	sent := make(chan struct{})
	gate := func(gen int) {
		if gen == 2 {
			<-sent
		}
	}
	e := startEditor(t, harness{repairer: &fakeRepairer{}, dynamic: true, gate: gate})
	f1, _ := e.initialize(true)
	regs := e.answerRegistrations(2)
	e.open(javaURI, greeter, 1)
	f1.expectMethod("textDocument/didOpen")

	// A hover JDT LS never answers, then the crash.
	f1.setHandle(func(f *fakeJDT, m *jsonrpc.Message) {})
	hid := e.request("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": javaURI}, "position": map[string]any{"line": 1, "character": 0}})
	f1.expectMethod("textDocument/hover")
	cid := e.request("textDocument/codeAction", codeActionParams(javaURI, 5, 0, 6, 0))
	f1.expectMethod("textDocument/codeAction")
	f1.crash()

	r := e.response(hid)
	if r.Error == nil || !strings.Contains(r.Error.Message, "JDT LS exited unexpectedly (exit status 13) before answering textDocument/hover") {
		t.Errorf("in-flight hover: %s", r.Raw)
	}
	if got := titles(t, e.response(cid)); fmt.Sprint(got) != "[Repair with Repilot]" {
		t.Errorf("in-flight codeAction: %v", got)
	}
	sm := e.expectMethod("window/showMessage")
	var smp protocol.ShowMessageParams
	json.Unmarshal(sm.Params, &smp)
	if smp.Type != protocol.MessageTypeError || smp.Message != "JDT LS exited unexpectedly (exit status 13); restarting" {
		t.Errorf("showMessage %+v", smp)
	}

	// Edits and requests while it restarts are kept.
	e.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": javaURI, "version": 2},
		"contentChanges": []any{map[string]any{"range": map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 0, "character": 0}}, "text": "// edited\n"}}})
	qid := e.request("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": javaURI}, "position": map[string]any{"line": 1, "character": 0}})
	// The proxy answers this itself, in order: once the answer is here, the
	// edit and the hover above have been read (and queued).
	rid := e.request("codeAction/resolve", map[string]any{"title": "Repair with Repilot", "data": map[string]any{proxy.DataKey: "repair"}})
	e.response(rid)
	close(sent)

	f2 := e.server()
	init := f2.expectMethod("initialize")
	if !strings.HasPrefix(init.IDKey(), `"repilot/`) {
		t.Errorf("re-initialize id %s", init.IDKey())
	}
	if !strings.Contains(string(init.Params), `"rootUri":"file:///work/project"`) {
		t.Errorf("re-initialize params %s", init.Params)
	}
	f2.expectMethod("initialized")
	open := f2.expectMethod("textDocument/didOpen")
	var op protocol.DidOpenTextDocumentParams
	json.Unmarshal(open.Params, &op)
	if op.TextDocument.Version != 2 || op.TextDocument.Text != "// edited\n"+greeter {
		t.Errorf("re-opened %d %q", op.TextDocument.Version, op.TextDocument.Text)
	}
	f2.expect("queued hover", func(m *jsonrpc.Message) bool { return m.Method == "textDocument/hover" })
	if r := e.response(qid); !strings.Contains(string(r.Result), "hover from fake #2") {
		t.Errorf("queued hover: %s", r.Raw)
	}
	// The initialize response and the repeated registrations stayed in the proxy.
	e.none("re-registration", 200*time.Millisecond, func(m *jsonrpc.Message) bool {
		return m.Method == "client/registerCapability" || strings.Contains(m.IDKey(), "repilot/")
	})
	f2.expect("registration answered", func(m *jsonrpc.Message) bool { return m.IsResponse() && m.IDKey() == `"1"` && m.Error == nil })

	// Unregistering with the new id reaches the editor with the id it knows.
	f2.send(`{"jsonrpc":"2.0","id":"9","method":"client/unregisterCapability","params":{"unregisterations":[{"id":"ca-1","method":"textDocument/codeAction"}]}}`)
	u := e.expectMethod("client/unregisterCapability")
	var rp proxy.RegistrationParams
	json.Unmarshal(regs[1].Params, &rp)
	if !strings.Contains(string(u.Params), `"id":"`+rp.Registrations[0].ID+`"`) {
		t.Errorf("unregister %s", u.Params)
	}

	id := e.request("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": javaURI}, "position": map[string]any{"line": 1, "character": 0}})
	if r := e.response(id); !strings.Contains(string(r.Result), "hover from fake #2") {
		t.Errorf("hover after restart: %s", r.Raw)
	}
}

func TestCrashRestartIDsAreNotReused(t *testing.T) {
	// The restarted fake re-registers with new ids; make them differ from
	// generation 1 so the alias is observable.
	handle := func(f *fakeJDT, m *jsonrpc.Message) {
		if m.Method == "initialized" && f.gen > 1 {
			f.send(`{"jsonrpc":"2.0","id":"1","method":"client/registerCapability","params":{"registrations":[{"id":"exec-new","method":"workspace/executeCommand","registerOptions":{"commands":["java.edit.organizeImports"]}}]}}`)
			return
		}
		defaultHandle(f, m)
	}
	e := startEditor(t, harness{repairer: &fakeRepairer{}, dynamic: true, handle: handle})
	f1, _ := e.initialize(true)
	e.answerRegistrations(2)
	f1.crash()
	f2 := e.server()
	f2.expect("registration answered by the proxy", func(m *jsonrpc.Message) bool { return m.IsResponse() && m.IDKey() == `"1"` })
	f2.send(`{"jsonrpc":"2.0","id":"2","method":"client/unregisterCapability","params":{"unregisterations":[{"id":"exec-new","method":"workspace/executeCommand"}]}}`)
	u := e.expectMethod("client/unregisterCapability")
	if !strings.Contains(string(u.Params), `"id":"exec-1"`) {
		t.Errorf("unregister %s, want the editor's id exec-1", u.Params)
	}
	// Our commands left with that registration; the next one carries them.
	f2.send(`{"jsonrpc":"2.0","id":"3","method":"client/registerCapability","params":{"registrations":[{"id":"exec-3","method":"workspace/executeCommand","registerOptions":{"commands":["java.edit.organizeImports","java.reloadBundles"]}}]}}`)
	reg := e.expectMethod("client/registerCapability")
	if !strings.Contains(string(reg.Params), repairfeat.CommandRepairHunk) {
		t.Errorf("re-registration without our commands: %s", reg.Params)
	}
}

func TestRestartLimit(t *testing.T) {
	rep := &fakeRepairer{result: onePatch()}
	e := startEditor(t, harness{repairer: rep, mutate: func(o *proxy.Options) { o.MaxRestarts = 1 }})
	f1, _ := e.initialize(false)
	e.open(javaURI, greeter, 1)
	f1.crash()
	e.expect("restarting", func(m *jsonrpc.Message) bool {
		return m.Method == "window/showMessage" && strings.Contains(string(m.Params), "restarting")
	})
	f2 := e.server()
	f2.expectMethod("textDocument/didOpen")
	f2.crash()
	e.expect("giving up", func(m *jsonrpc.Message) bool {
		return m.Method == "window/showMessage" && strings.Contains(string(m.Params), "2 times within 5m0s; not restarting it again")
	})
	id := e.request("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": javaURI}, "position": map[string]any{"line": 0, "character": 0}})
	if r := e.response(id); r.Error == nil || !strings.Contains(r.Error.Message, "JDT LS is not running") {
		t.Errorf("hover with JDT LS down: %s", r.Raw)
	}
	// Repair does not need the editor's JDT LS.
	if got := titles(t, e.response(e.request("textDocument/codeAction", codeActionParams(javaURI, 5, 0, 6, 0)))); fmt.Sprint(got) != "[Repair with Repilot]" {
		t.Errorf("code actions with JDT LS down: %v", got)
	}
	id = e.request("workspace/executeCommand", repairCmd(javaURI, 5, 0, 6, 0, 1))
	m := e.expectMethod("window/workDoneProgress/create")
	e.sendRaw(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":null}`, m.ID))
	if r := e.response(id); r.Error != nil {
		t.Errorf("repair with JDT LS down: %v", r.Error)
	}
	select {
	case f := <-e.servers:
		t.Errorf("JDT LS #%d started after the limit", f.gen)
	case <-time.After(100 * time.Millisecond):
	}
}

func TestCrashDuringRepair(t *testing.T) {
	rep := &fakeRepairer{block: make(chan struct{}), started: make(chan struct{}), result: onePatch()}
	e := startEditor(t, harness{repairer: rep})
	f1, _ := e.initialize(false)
	e.open(javaURI, greeter, 1)
	id := e.request("workspace/executeCommand", repairCmd(javaURI, 5, 0, 6, 0, 1))
	m := e.expectMethod("window/workDoneProgress/create")
	e.sendRaw(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":null}`, m.ID))
	<-rep.started
	f1.crash()
	e.server().expectMethod("textDocument/didOpen")
	close(rep.block)
	if r := e.response(id); r.Error != nil || !strings.Contains(string(r.Result), `"patches"`) {
		t.Errorf("repair across a JDT LS crash: %s", r.Raw)
	}
}

func TestRepairTimeout(t *testing.T) {
	rep := &fakeRepairer{block: make(chan struct{}), result: onePatch(), ignore: true}
	defer close(rep.block)
	e := startEditor(t, harness{repairer: rep, repairOpts: repairfeat.Options{Timeout: 200 * time.Millisecond}})
	id := e.request("initialize", map[string]any{"processId": nil, "capabilities": map[string]any{}}) // no progress support
	e.server()
	e.response(id)
	e.open(javaURI, greeter, 1)
	id = e.request("workspace/executeCommand", repairCmd(javaURI, 5, 0, 6, 0, 1))
	if r := e.response(id); r.Error == nil || !strings.Contains(r.Error.Message, "did not finish within 200ms") {
		t.Errorf("stuck repair: %s", r.Raw)
	}
}

// panicky is an extension that panics everywhere, and answers
// workspace/symbol queries that start with "?".
type panicky struct{}

func (panicky) Name() string       { return "panicky" }
func (panicky) Commands() []string { return []string{"panicky.run"} }
func (panicky) CodeActions(*proxy.Document, *protocol.CodeActionParams) []protocol.CodeAction {
	panic("CodeActions bug")
}
func (panicky) Execute(context.Context, proxy.Client, string, []json.RawMessage) (any, error) {
	panic("Execute bug")
}
func (panicky) Methods() []proxy.Method {
	query := func(raw json.RawMessage) string {
		var p protocol.WorkspaceSymbolParams
		_ = json.Unmarshal(raw, &p)
		return p.Query
	}
	return []proxy.Method{{Name: "workspace/symbol", Capability: "workspaceSymbolProvider",
		Claims: func(raw json.RawMessage) bool { return strings.HasPrefix(query(raw), "?") },
		Request: func(ctx context.Context, c proxy.Client, raw json.RawMessage) (any, error) {
			return []protocol.SymbolInformation{{Name: "found " + query(raw), Kind: protocol.SymbolKindMethod,
				Location: protocol.Location{URI: javaURI}}}, nil
		}},
		{Name: "textDocument/didOpen", Notify: func(proxy.Client, json.RawMessage) { panic("Notify bug") }},
		{Name: "textDocument/hover", Claims: func(json.RawMessage) bool { panic("Claims bug") },
			Request: func(context.Context, proxy.Client, json.RawMessage) (any, error) { return "never", nil }},
	}
}

func TestExtensionBugsAndSymbols(t *testing.T) {
	e := startEditor(t, harness{exts: []proxy.Extension{panicky{}}})
	f, caps := e.initialize(false)
	if !strings.Contains(string(caps["executeCommandProvider"]), "panicky.run") {
		t.Errorf("caps %s", caps["executeCommandProvider"])
	}
	e.open(javaURI, greeter, 1) // Notify panics
	f.expectMethod("textDocument/didOpen")
	if got := titles(t, e.response(e.request("textDocument/codeAction", codeActionParams(javaURI, 5, 0, 6, 0)))); fmt.Sprint(got) != "[Invert conditions]" {
		t.Errorf("code actions with a panicking extension: %v", got)
	}
	// A Claims that panics leaves the request to JDT LS.
	if r := e.response(e.request("textDocument/hover", map[string]any{})); !strings.Contains(string(r.Result), "hover from fake") {
		t.Errorf("hover with a panicking Claims: %s", r.Raw)
	}
	r := e.response(e.request("workspace/executeCommand", map[string]any{"command": "panicky.run"}))
	if r.Error == nil || r.Error.Code != jsonrpc.CodeInternalError || !strings.Contains(r.Error.Message, "Execute bug") {
		t.Errorf("panicking command: %s", r.Raw)
	}
	r = e.response(e.request("workspace/symbol", map[string]any{"query": "?where is the greeting built"}))
	if !strings.Contains(string(r.Result), `"name":"found ?where is the greeting built"`) {
		t.Errorf("claimed symbol query: %s", r.Raw)
	}
	id := e.request("workspace/symbol", map[string]any{"query": "Greeter"})
	f.expectMethod("workspace/symbol")
	if r := e.response(id); !strings.Contains(string(r.Result), "echo") {
		t.Errorf("JDT LS symbol query: %s", r.Raw)
	}
}

// lateReader is an extension whose command waits for release, then reads
// the document, as a slow handler would.
type lateReader struct {
	release chan struct{}
}

func (x *lateReader) Name() string       { return "late" }
func (x *lateReader) Commands() []string { return []string{"test.late"} }
func (x *lateReader) CodeActions(*proxy.Document, *protocol.CodeActionParams) []protocol.CodeAction {
	return nil
}
func (x *lateReader) Execute(ctx context.Context, c proxy.Client, _ string, _ []json.RawMessage) (any, error) {
	select {
	case <-x.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	d, ok := c.Document(javaURI)
	if !ok {
		return nil, errors.New("no document")
	}
	return d.Version, nil
}

// TestCommandSeesTheDocumentAsItArrived: a command's handler runs off the
// read loop, so a didChange the editor sends after the command may be
// applied before the handler reads the document; the handler must still see
// the text the command was sent for (LSP message ordering). Found by the
// soak: a repair sent at the current version failed with ContentModified.
func TestCommandSeesTheDocumentAsItArrived(t *testing.T) {
	x := &lateReader{release: make(chan struct{})}
	e := startEditor(t, harness{exts: []proxy.Extension{x}})
	f, _ := e.initialize(false)
	e.open(javaURI, greeter, 1)
	id := e.request("workspace/executeCommand", map[string]any{"command": "test.late"})
	e.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": javaURI, "version": 2},
		"contentChanges": []any{map[string]any{"text": greeter + "// more\n"}}})
	f.expectMethod("textDocument/didChange") // the mirror has version 2 now
	close(x.release)
	r := e.response(id)
	if r.Error != nil {
		t.Fatal(r.Error)
	}
	if string(r.Result) != "1" {
		t.Errorf("the handler saw version %s; the command was sent at version 1", r.Result)
	}
}

// TestMirrorBoundsEditedDocuments: didChange edits that grow a document past
// the editor's message body limit ($REPILOT_LSP_MAX_BODY, which bounds a
// didOpen's text) drop it from the mirror with one window/showMessage and
// one log line: no Repilot action on it, while JDT LS still gets every
// change byte for byte. Opening it again brings the features back.
func TestMirrorBoundsEditedDocuments(t *testing.T) {
	t.Setenv(jsonrpc.EnvMaxBody, "16384")
	log := &logBuf{t: t}
	e := startEditor(t, harness{repairer: &fakeRepairer{}, mutate: func(o *proxy.Options) { o.Log = log }})
	f, _ := e.initialize(false)
	e.open(javaURI, greeter, 1)
	f.expectMethod("textDocument/didOpen")
	repairOffered := func() bool {
		t.Helper()
		got := titles(t, e.response(e.request("textDocument/codeAction", codeActionParams(javaURI, 5, 0, 6, 0))))
		return strings.Contains(fmt.Sprint(got), repairfeat.RepairActionTitle)
	}
	if !repairOffered() {
		t.Fatal("no repair action on a small document")
	}
	// 30 edits of 1000 bytes each: the text passes 16 KiB at the 17th.
	line := "//" + strings.Repeat("x", 997) + "\n"
	for v := 2; v <= 31; v++ {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":%q,"version":%d},"contentChanges":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"text":%q}]}}`,
			javaURI, v, line)
		e.sendRaw(body)
		if got := f.expectMethod("textDocument/didChange"); string(got.Raw) != body {
			t.Fatalf("didChange %d reached JDT LS as %s", v, got.Raw)
		}
	}
	msg := e.expectMethod("window/showMessage")
	if !strings.Contains(string(msg.Params), "Greeter.java grew past 16 KiB") {
		t.Errorf("showMessage %s", msg.Params)
	}
	if repairOffered() {
		t.Error("a repair action on a document dropped from the mirror")
	}
	e.none("a second showMessage", 100*time.Millisecond, func(m *jsonrpc.Message) bool { return m.Method == "window/showMessage" })
	if n := strings.Count(log.String(), "Greeter.java"); n != 1 {
		t.Errorf("%d log lines name the document, want 1:\n%s", n, log.String())
	}
	// Opened again (as after a revert): followed again.
	e.open(javaURI, greeter, 40)
	f.expectMethod("textDocument/didOpen")
	if !repairOffered() {
		t.Error("no repair action after the document was opened again")
	}
}

// TestRestartReportsDocumentsItCannotReopen: a JDT LS restarted after the
// mirror dropped an open document (grown past the body limit, or a change
// it could not apply) cannot get that document re-opened, since the proxy
// no longer has its text: the others are re-opened, and the user is told
// which documents JDT LS now reads from disk and to reopen them. Before,
// the restart re-opened the others without a word about these.
func TestRestartReportsDocumentsItCannotReopen(t *testing.T) {
	t.Setenv(jsonrpc.EnvMaxBody, "16384")
	log := &logBuf{t: t}
	e := startEditor(t, harness{repairer: &fakeRepairer{}, mutate: func(o *proxy.Options) { o.Log = log }})
	f1, _ := e.initialize(false)
	const big, bad = "file:///work/project/src/Big.java", "file:///work/project/src/Bad.java"
	e.open(javaURI, greeter, 1)
	e.open(big, greeter, 1)
	e.open(bad, greeter, 1)
	for range 3 {
		f1.expectMethod("textDocument/didOpen")
	}
	for v := 2; v <= 3; v++ { // two edits of 10,000 bytes: past 16 KiB at the second
		e.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": big, "version": v},
			"contentChanges": []any{map[string]any{"range": map[string]any{"start": map[string]any{"line": 0, "character": 0},
				"end": map[string]any{"line": 0, "character": 0}}, "text": strings.Repeat("x", 10000)}}})
		f1.expectMethod("textDocument/didChange")
	}
	e.expectMethod("window/showMessage") // grew past 16 KiB
	e.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": bad, "version": 2},
		"contentChanges": []any{map[string]any{"range": map[string]any{"start": map[string]any{"line": 99, "character": 0},
			"end": map[string]any{"line": 99, "character": 0}}, "text": "y"}}})
	f1.expectMethod("textDocument/didChange")
	f1.crash()
	e.expectMethod("window/showMessage") // restarting
	f2 := e.server()
	f2.expectMethod("initialize")
	f2.expectMethod("initialized")
	open := f2.expectMethod("textDocument/didOpen")
	if !strings.Contains(string(open.Params), javaURI) {
		t.Errorf("re-opened %s", open.Params)
	}
	f2.none(t, 100*time.Millisecond, func(m *jsonrpc.Message) bool { return m.Method == "textDocument/didOpen" })
	warn := e.expectMethod("window/showMessage")
	for _, want := range []string{"Big.java", "Bad.java", "reopen"} {
		if !strings.Contains(string(warn.Params), want) {
			t.Errorf("the warning after the restart %s does not name %q", warn.Params, want)
		}
	}
	if !strings.Contains(log.String(), "it grew past 16 KiB") || !strings.Contains(log.String(), "could not apply") {
		t.Errorf("the log does not say why each was not re-opened:\n%s", log.String())
	}
	// Opened again, a document is followed, and re-opened by the next restart.
	e.open(big, greeter, 3)
	f2.expectMethod("textDocument/didOpen")
	f2.crash()
	e.expectMethod("window/showMessage")
	f3 := e.server()
	f3.expectMethod("initialize")
	f3.expectMethod("initialized")
	f3.expectMethod("textDocument/didOpen")
	f3.expectMethod("textDocument/didOpen")
	warn = e.expectMethod("window/showMessage")
	if strings.Contains(string(warn.Params), "Big.java") || !strings.Contains(string(warn.Params), "Bad.java") {
		t.Errorf("after Big.java was opened again, the warning says %s", warn.Params)
	}
}

// TestOwnRequestsAreBounded: the requests the proxy answers itself that
// run at once are bounded; one past the bound, and one that reuses the id
// of a request still running, are answered at once with an error instead
// of starting more work, and those running are answered as usual. Before,
// every request started a goroutine, and a reused id made the first
// request impossible to cancel.
func TestOwnRequestsAreBounded(t *testing.T) {
	t.Cleanup(proxy.SetMaxOwnInFlight(3))
	x := &lateReader{release: make(chan struct{})}
	e := startEditor(t, harness{exts: []proxy.Extension{x}})
	e.initialize(false)
	e.open(javaURI, greeter, 1)
	var ids []json.RawMessage
	for range 3 {
		ids = append(ids, e.request("workspace/executeCommand", map[string]any{"command": "test.late"}))
	}
	e.sendRaw(`{"jsonrpc":"2.0","id":` + string(ids[0]) + `,"method":"workspace/executeCommand","params":{"command":"test.late"}}`)
	if r := e.response(ids[0]); r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidRequest {
		t.Errorf("a request reusing a running one's id: %s", r.Raw)
	}
	over := e.request("workspace/executeCommand", map[string]any{"command": "test.late"})
	if r := e.response(over); r.Error == nil || !strings.Contains(r.Error.Message, "still running") {
		t.Errorf("a request past the bound: %s", r.Raw)
	}
	close(x.release)
	for _, id := range ids {
		if r := e.response(id); r.Error != nil {
			t.Errorf("request %s: %v", id, r.Error)
		}
	}
	// Room again.
	if r := e.response(e.request("workspace/executeCommand", map[string]any{"command": "test.late"})); r.Error != nil {
		t.Errorf("after the others ended: %v", r.Error)
	}
}
