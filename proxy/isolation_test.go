package proxy_test

// isolation_test.go checks the engine isolation of ARCHITECTURE.md against
// real JDT LS servers: a fake editor opens a file through the proxy, asks
// for "Repair with Repilot" (the real repair loop: the embedded n-gram
// model trained on the project, the JDT LS completion engine on its own
// shadow server) and keeps typing into the same file while the repair runs.
// Afterwards:
//   - the editor's text and the editor-facing JDT LS's view of it agree
//     exactly: every method the editor typed is in documentSymbol, with the
//     range the editor's text gives it, and hover on the last one names it;
//   - the editor never received a diagnostic for the engine's temporary
//     text: none on the hunk's line (the editor's text has none there, the
//     shadow server's candidates do), none with a message of the shadow
//     server's compile errors, and none naming an identifier only the
//     shadow server ever saw.
// Two JDT LS processes run: the editor's (through the proxy) and the shadow.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/engine"
	"github.com/repilot-lsp/repilot-lsp/jdtls"
	"github.com/repilot-lsp/repilot-lsp/jsonrpc"
	"github.com/repilot-lsp/repilot-lsp/lm/ngram"
	"github.com/repilot-lsp/repilot-lsp/proxy"
	"github.com/repilot-lsp/repilot-lsp/proxy/feature/repairfeat"
	"github.com/repilot-lsp/repilot-lsp/repair"
	"github.com/repilot-lsp/repilot-lsp/textpos"
)

// recordingCompiler passes CompileErrors to the shadow engine and keeps
// every error it reported, so the test knows what the shadow server said.
type recordingCompiler struct {
	engine.Compiler
	mu    sync.Mutex
	errs  []engine.CompileError
	calls int
}

func (r *recordingCompiler) CompileErrors(ctx context.Context, uri, text string) ([]engine.CompileError, error) {
	errs, err := r.Compiler.CompileErrors(ctx, uri, text)
	r.mu.Lock()
	r.calls++
	r.errs = append(r.errs, errs...)
	r.mu.Unlock()
	return errs, err
}

// isolationDiag is one diagnostic as publishDiagnostics carries it.
type isolationDiag struct {
	Range struct {
		Start struct{ Line, Character int }
	}
	Severity int
	Message  string
}

func TestEngineIsolationWhileTyping(t *testing.T) {
	home := requireJDTLS(t)
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS("../testdata/bugs/page-range-intersect-arg/project")); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(root, "src/org/example/print/PageRange.java")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	const hunkLine = 32 // 1-based: "int hi = Math.min(last, other.first);" (compiles; the bug is semantic)
	uri := jdtls.FileURI(file)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()

	// The repair service: the shadow JDT LS and an n-gram model of the project.
	eng, err := engine.StartJDT(ctx, jdtls.Options{Home: home, Root: root, StateDir: t.TempDir(), Stderr: testLog{t}})
	if err != nil {
		t.Fatalf("starting the shadow JDT LS: %v", err)
	}
	defer eng.Close()
	model, err := ngram.Train(ctx, ngram.Sources{Roots: []string{root}}, ngram.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recordingCompiler{Compiler: eng}
	svc := repair.NewService(repair.Backends{Model: model, Engine: eng, Compiler: rec})

	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	runErr := make(chan error, 1)
	pctx, pcancel := context.WithCancel(context.Background())
	go func() {
		runErr <- proxy.Run(pctx, inR, outW, proxy.Options{Launch: proxy.JDTLSLauncher(home, 0, testLog{t}), StateDir: t.TempDir(),
			Log: testLog{t}, Extensions: []proxy.Extension{repairfeat.New(svc, repairfeat.Options{})}})
		outW.Close()
	}()
	defer func() {
		pcancel()
		inW.Close()
		select {
		case <-runErr:
		case <-time.After(30 * time.Second):
			t.Errorf("proxy did not stop")
		}
	}()
	ed := newLSPEditor(t, "editor", outR, inW)
	rootURI := jdtls.FileURI(root)
	caps := editorCaps()
	caps["textDocument"].(map[string]any)["documentSymbol"] = map[string]any{"hierarchicalDocumentSymbolSupport": true}
	ed.call("initialize", map[string]any{"processId": os.Getpid(), "rootUri": rootURI, "capabilities": caps,
		"workspaceFolders": []any{map[string]any{"uri": rootURI, "name": "project"}}})
	if err := ed.conn.Notify("initialized", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	text := string(data)
	version := 1
	if err := ed.conn.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "java", "version": version, "text": text}}); err != nil {
		t.Fatal(err)
	}
	ed.waitNote("diagnostics for PageRange.java", 3*time.Minute, func(m *jsonrpc.Message) bool {
		return m.Method == "textDocument/publishDiagnostics" && strings.Contains(string(m.Params), uri)
	})

	// The repair, in the background.
	type answer struct {
		raw json.RawMessage
		err error
	}
	done := make(chan answer, 1)
	var repairing atomic.Bool
	repairing.Store(true)
	go func() {
		raw, err := ed.conn.CallRaw(ctx, "workspace/executeCommand", map[string]any{"command": repairfeat.CommandRepairHunk,
			"arguments": []any{map[string]any{"uri": uri, "range": map[string]any{"start": pos(hunkLine-1, 0), "end": pos(hunkLine, 0)}}}})
		repairing.Store(false)
		done <- answer{raw, err}
	}()

	// Typing: methods typedN() inserted before the class's closing brace, a
	// few characters per didChange, until the repair has answered (and at
	// least two methods).
	change := func(at int, s string) {
		t.Helper()
		p := textpos.New(text).Position(at)
		version++
		text = text[:at] + s + text[at:]
		if err := ed.conn.Notify("textDocument/didChange", map[string]any{
			"textDocument": map[string]any{"uri": uri, "version": version},
			"contentChanges": []any{map[string]any{"range": map[string]any{"start": pos(p.Line, p.Character),
				"end": pos(p.Line, p.Character)}, "text": s}}}); err != nil {
			t.Fatal(err)
		}
	}
	typed, during := 0, 0
	var res answer
	for n := 0; ; n++ {
		method := fmt.Sprintf("    int typed%d() { return %d; }\n", n, n)
		at := strings.LastIndex(text, "}")
		for i := 0; i < len(method); i += 5 {
			piece := method[i:min(i+5, len(method))]
			if repairing.Load() {
				during++
			}
			change(at+i, piece)
			time.Sleep(50 * time.Millisecond)
		}
		typed++
		time.Sleep(500 * time.Millisecond)
		if !repairing.Load() && typed >= 2 {
			res = <-done
			break
		}
	}
	if res.err != nil {
		t.Fatalf("the repair failed: %v", res.err)
	}
	var rr repairfeat.RepairResult
	if err := json.Unmarshal(res.raw, &rr); err != nil {
		t.Fatal(err)
	}
	if during == 0 {
		t.Fatal("the repair answered before any typing: nothing was tested")
	}
	t.Logf("repair: %d patches, %d engine requests, %d compile checks; the editor sent %d edits during it, %d methods typed in all",
		len(rr.Patches), rr.Stats.EngineRequests, rec.calls, during, typed)
	if rr.Stats.EngineRequests == 0 || rec.calls == 0 {
		t.Fatalf("the shadow engine did no work (requests %d, compile checks %d): isolation was not exercised", rr.Stats.EngineRequests, rec.calls)
	}

	// The shadow server reports an error on the hunk line for a text of
	// its own (and so did it for candidates during the repair, if any).
	const shadowOnly = "repilotShadowOnlyName"
	lines := strings.SplitAfter(string(data), "\n")
	broken := strings.Join(lines[:hunkLine-1], "") + "        int hi = " + shadowOnly + "(last);\n" + strings.Join(lines[hunkLine:], "")
	errs, err := rec.CompileErrors(ctx, uri, broken)
	if err != nil {
		t.Fatal(err)
	}
	if len(errs) == 0 || !strings.Contains(errs[0].Message, shadowOnly) {
		t.Fatalf("the shadow server reported %v for an undefined name", errs)
	}

	// The editor-facing JDT LS's view equals the editor's text: every
	// method, where the editor's text has it.
	var syms []struct {
		Name           string
		SelectionRange struct {
			Start struct{ Line, Character int }
		}
		Children []struct {
			Name           string
			SelectionRange struct {
				Start struct{ Line, Character int }
			}
		}
	}
	deadline := time.Now().Add(2 * time.Minute)
	want := map[string]textpos.Position{}
	m := textpos.New(text)
	for n := 0; n < typed; n++ {
		name := fmt.Sprintf("typed%d", n)
		want[name+"()"] = m.Position(strings.Index(text, name+"()"))
	}
	for {
		raw := ed.call("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}})
		syms = nil
		_ = json.Unmarshal(raw, &syms)
		got := map[string]textpos.Position{}
		for _, s := range syms {
			for _, c := range s.Children {
				if strings.HasPrefix(c.Name, "typed") {
					got[c.Name] = textpos.Position{Line: c.SelectionRange.Start.Line, Character: c.SelectionRange.Start.Character}
				}
			}
		}
		if fmt.Sprint(got) == fmt.Sprint(want) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("documentSymbol disagrees with the editor's text:\n got %v\nwant %v\ntext:\n%s", got, want, text)
		}
		time.Sleep(time.Second)
	}
	last := fmt.Sprintf("typed%d", typed-1)
	lp := m.Position(strings.Index(text, last+"()") + 2)
	hover := ed.call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": pos(lp.Line, lp.Character)})
	if !strings.Contains(string(hover), last+"()") {
		t.Errorf("hover on %s: %s", last, hover)
	}

	// Settle: JDT LS publishes the final diagnostics after the last edit;
	// give a stray publish from the shadow server time to show up too.
	time.Sleep(3 * time.Second)

	// Everything the shadow server said never reached the editor.
	rec.mu.Lock()
	shadowMsgs := map[string]bool{}
	for _, e := range rec.errs {
		if e.Line == hunkLine {
			shadowMsgs[e.Message] = true
		}
	}
	rec.mu.Unlock()
	ed.mu.Lock()
	notes := append([]*jsonrpc.Message(nil), ed.notes...)
	ed.mu.Unlock()
	publishes := 0
	for _, n := range notes {
		if n.Method != "textDocument/publishDiagnostics" {
			continue
		}
		var p struct {
			URI         string
			Diagnostics []isolationDiag
		}
		if err := json.Unmarshal(n.Params, &p); err != nil {
			t.Fatal(err)
		}
		if p.URI != uri {
			continue
		}
		publishes++
		for _, d := range p.Diagnostics {
			if d.Range.Start.Line == hunkLine-1 {
				t.Errorf("the editor got a diagnostic on the hunk's line, which its text never had an error on: %+v", d)
			}
			if shadowMsgs[d.Message] {
				t.Errorf("the editor got a diagnostic the shadow server reported for a candidate: %q", d.Message)
			}
			if strings.Contains(d.Message, shadowOnly) {
				t.Errorf("the editor got the shadow server's diagnostic %q", d.Message)
			}
		}
	}
	t.Logf("the editor got %d publishDiagnostics for the file; the shadow server reported %d distinct errors on the hunk line", publishes, len(shadowMsgs))
	if publishes == 0 {
		t.Error("the editor got no diagnostics for the file at all: the check above saw nothing")
	}
}
