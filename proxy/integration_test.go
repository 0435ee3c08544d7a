package proxy_test

// integration_test.go runs a fake *editor* (jsonrpc.Conn) against the real
// JDT LS 1.20, once straight and once through the proxy, on the small
// plain-folder project in testdata/project, and compares what the editor
// gets; then it kills the proxied JDT LS in the middle of a request and
// checks the recovery. Three JDT LS starts in all (two of them in parallel).

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/internal/realpart"
	"github.com/repilot-lsp/repilot-lsp/jdtls"
	"github.com/repilot-lsp/repilot-lsp/jsonrpc"
	"github.com/repilot-lsp/repilot-lsp/proxy"
	"github.com/repilot-lsp/repilot-lsp/proxy/feature/repairfeat"
)

// requireJDTLS returns the JDT LS install or fails (skips only with
// REPILOT_SKIP_JDTLS=1).
func requireJDTLS(t *testing.T) string {
	t.Helper()
	home, err := jdtls.ResolveHome("")
	realpart.JDTLS.Require(t, err)
	return home
}

// lspEditor is a fake editor on a jsonrpc.Conn: it answers the server's
// requests as VS Code would and records notifications and registrations.
type lspEditor struct {
	t    *testing.T
	name string
	conn *jsonrpc.Conn

	mu     sync.Mutex
	notes  []*jsonrpc.Message
	regs   []proxy.Registration
	signal chan struct{}
}

func newLSPEditor(t *testing.T, name string, r io.Reader, w io.Writer) *lspEditor {
	ed := &lspEditor{t: t, name: name, signal: make(chan struct{}, 1)}
	ed.conn = jsonrpc.NewConn(r, w, "editor/", func(ctx context.Context, m *jsonrpc.Message) (any, error) {
		switch m.Method {
		case "workspace/configuration":
			var p struct{ Items []json.RawMessage }
			_ = json.Unmarshal(m.Params, &p)
			return make([]any, len(p.Items)), nil
		case "client/registerCapability":
			var p proxy.RegistrationParams
			_ = json.Unmarshal(m.Params, &p)
			ed.mu.Lock()
			ed.regs = append(ed.regs, p.Registrations...)
			ed.mu.Unlock()
			ed.poke()
			return nil, nil
		}
		if m.IsNotification() {
			ed.mu.Lock()
			ed.notes = append(ed.notes, m)
			ed.mu.Unlock()
			ed.poke()
		}
		return nil, nil
	})
	go func() { _ = ed.conn.Run(context.Background()) }()
	return ed
}

func (ed *lspEditor) poke() {
	select {
	case ed.signal <- struct{}{}:
	default:
	}
}

// waitNote waits for a notification satisfying pred.
func (ed *lspEditor) waitNote(what string, d time.Duration, pred func(m *jsonrpc.Message) bool) *jsonrpc.Message {
	ed.t.Helper()
	deadline := time.After(d)
	seen := 0
	for {
		ed.mu.Lock()
		notes := ed.notes
		ed.mu.Unlock()
		for ; seen < len(notes); seen++ {
			if pred(notes[seen]) {
				return notes[seen]
			}
		}
		select {
		case <-ed.signal:
		case <-deadline:
			ed.t.Fatalf("%s: no %s within %v", ed.name, what, d)
		}
	}
}

func (ed *lspEditor) call(method string, params any) json.RawMessage {
	ed.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	start := time.Now()
	raw, err := ed.conn.CallRaw(ctx, method, params)
	if err != nil {
		ed.t.Fatalf("%s: %s: %v", ed.name, method, err)
	}
	ed.t.Logf("%s: %s took %v", ed.name, method, time.Since(start).Round(time.Millisecond))
	return raw
}

func pos(line, char int) map[string]any { return map[string]any{"line": line, "character": char} }

// editorCaps are VS Code-like capabilities: dynamic registration, code
// action literals, work done progress.
func editorCaps() map[string]any {
	return map[string]any{
		"workspace": map[string]any{"applyEdit": true, "configuration": true, "workspaceFolders": true,
			"workspaceEdit":  map[string]any{"documentChanges": true},
			"executeCommand": map[string]any{"dynamicRegistration": true}},
		"textDocument": map[string]any{
			"synchronization":    map[string]any{"dynamicRegistration": true},
			"completion":         map[string]any{"dynamicRegistration": true},
			"hover":              map[string]any{"contentFormat": []string{"markdown", "plaintext"}},
			"publishDiagnostics": map[string]any{"relatedInformation": true},
			"codeAction": map[string]any{"dynamicRegistration": true, "resolveSupport": map[string]any{"properties": []string{"edit"}},
				"dataSupport": true, "codeActionLiteralSupport": map[string]any{"codeActionKind": map[string]any{
					"valueSet": []string{"quickfix", "refactor", "refactor.extract", "refactor.rewrite", "source"}}}}},
		"window": map[string]any{"workDoneProgress": true},
	}
}

// session is what one editor saw, for comparison.
type session struct {
	init       map[string]any
	hover      any
	completion []string
	definition any
	diags      any
	actions    []string
}

// runSession drives the standard scenario on ed; initOpts, when not nil,
// are the initialize request's initializationOptions.
func runSession(t *testing.T, ed *lspEditor, root string, initOpts any) *session {
	s := &session{}
	rootURI := "file://" + root
	params := map[string]any{"processId": os.Getpid(), "rootUri": rootURI, "capabilities": editorCaps(),
		"workspaceFolders": []any{map[string]any{"uri": rootURI, "name": "project"}}}
	if initOpts != nil {
		params["initializationOptions"] = initOpts
	}
	raw := ed.call("initialize", params)
	_ = json.Unmarshal(raw, &s.init)
	if err := ed.conn.Notify("initialized", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"Greeter.java", "Main.java"} {
		b, err := os.ReadFile(filepath.Join(root, "src/demo", f))
		if err != nil {
			t.Fatal(err)
		}
		_ = ed.conn.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": rootURI + "/src/demo/" + f, "languageId": "java", "version": 1, "text": string(b)}})
	}
	mainURI := rootURI + "/src/demo/Main.java"
	greeterURI := rootURI + "/src/demo/Greeter.java"
	d := ed.waitNote("diagnostics for Main.java", 120*time.Second, func(m *jsonrpc.Message) bool {
		return m.Method == "textDocument/publishDiagnostics" && strings.Contains(string(m.Params), mainURI) &&
			strings.Contains(string(m.Params), "undefinedVariable")
	})
	_ = json.Unmarshal(d.Params, &s.diags)

	_ = json.Unmarshal(ed.call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": greeterURI}, "position": pos(12, 28)}), &s.hover)
	var comp struct {
		Items []struct{ Label string }
	}
	_ = json.Unmarshal(ed.call("textDocument/completion", map[string]any{"textDocument": map[string]any{"uri": mainURI}, "position": pos(5, 35)}), &comp)
	for _, it := range comp.Items {
		s.completion = append(s.completion, it.Label)
	}
	_ = json.Unmarshal(ed.call("textDocument/definition", map[string]any{"textDocument": map[string]any{"uri": mainURI}, "position": pos(4, 10)}), &s.definition)
	// Quick fixes and refactorings, as an editor's lightbulb asks; source
	// actions (organize imports) wait for JDT LS to index the JDK, which
	// takes minutes on a fresh workspace on a busy machine.
	var acts []struct{ Title string }
	_ = json.Unmarshal(ed.call("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": greeterURI},
		"range":   map[string]any{"start": pos(17, 0), "end": pos(18, 0)},
		"context": map[string]any{"diagnostics": []any{}, "only": []string{"quickfix", "refactor"}}}), &acts)
	for _, a := range acts {
		s.actions = append(s.actions, a.Title)
	}
	return s
}

// killOnWrite wraps JDT LS's stdin: the first write containing marker is
// followed at once by kill, so the request is in flight when JDT LS dies.
type killOnWrite struct {
	io.WriteCloser
	mu     sync.Mutex
	marker string
	kill   func() error
}

func (k *killOnWrite) Write(b []byte) (int, error) {
	n, err := k.WriteCloser.Write(b)
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.marker != "" && strings.Contains(string(b), k.marker) {
		k.marker = ""
		_ = k.kill()
	}
	return n, err
}

func (k *killOnWrite) arm(marker string) {
	k.mu.Lock()
	k.marker = marker
	k.mu.Unlock()
}

func TestRealJDTLS(t *testing.T) {
	home := requireJDTLS(t)
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS("testdata/project")); err != nil {
		t.Fatal(err)
	}
	started := time.Now()

	// Straight to JDT LS.
	cmd, err := jdtls.Command(home, t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	direct := newLSPEditor(t, "direct", stdout, stdin)

	// Through the proxy, with a launcher whose stdin can kill JDT LS on cue.
	var (
		kmu     sync.Mutex
		killers []*killOnWrite
	)
	realLaunch := proxy.JDTLSLauncher(home, 0, testLog{t})
	launch := func(ctx context.Context, dir string) (*proxy.Backend, error) {
		b, err := realLaunch(ctx, dir)
		if err != nil {
			return nil, err
		}
		k := &killOnWrite{WriteCloser: b.Stdin, kill: b.Kill}
		b.Stdin = k
		kmu.Lock()
		killers = append(killers, k)
		kmu.Unlock()
		return b, nil
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	runErr := make(chan error, 1)
	ctx, cancel := context.WithCancel(context.Background())
	// Made before the clean-up below that stops the proxy, so that it is
	// removed after (t.TempDir on the goroutine could come later, and be
	// removed while JDT LS still wrote there).
	stateDir := t.TempDir()
	go func() {
		runErr <- proxy.Run(ctx, inR, outW, proxy.Options{Launch: launch, StateDir: stateDir, Log: testLog{t},
			Extensions: []proxy.Extension{repairfeat.New(&fakeRepairer{result: onePatch()}, repairfeat.Options{})}})
		outW.Close()
	}()
	t.Cleanup(func() {
		cancel()
		inW.Close()
		select {
		case <-runErr:
		case <-time.After(30 * time.Second):
			t.Errorf("proxy did not stop")
		}
	})
	proxied := newLSPEditor(t, "proxied", outR, inW)

	var wg sync.WaitGroup
	var ds, ps *session
	wg.Add(2)
	// The direct JDT LS gets the source folders the proxy adds to the
	// editor's initialize for this plain folder (src: JDT LS 1.60's own
	// inference takes src/demo), so that the two see the same project.
	sourcePaths := jdtls.InferSourcePathsAll([]string{root})
	if !reflect.DeepEqual(sourcePaths, []any{"src"}) {
		t.Fatalf("inferred source folders %v, want [src]", sourcePaths)
	}
	directOpts := map[string]any{"settings": map[string]any{"java": map[string]any{"project": map[string]any{"sourcePaths": sourcePaths}}}}
	go func() { defer wg.Done(); ds = runSession(t, direct, root, directOpts) }()
	go func() { defer wg.Done(); ps = runSession(t, proxied, root, nil) }()
	wg.Wait()
	if t.Failed() {
		return
	}
	t.Logf("both sessions done after %v", time.Since(started).Round(time.Millisecond))

	t.Run("same results", func(t *testing.T) {
		if !reflect.DeepEqual(ds.init, ps.init) {
			t.Errorf("initialize differs (dynamic registration: the proxy adds nothing static)\ndirect:  %v\nproxied: %v", ds.init, ps.init)
		}
		if !reflect.DeepEqual(ds.hover, ps.hover) || !strings.Contains(fmt.Sprint(ds.hover), "String name") {
			t.Errorf("hover: direct %v, proxied %v", ds.hover, ps.hover)
		}
		if !reflect.DeepEqual(ds.completion, ps.completion) || !strings.Contains(strings.Join(ds.completion, "|"), "greet()") {
			t.Errorf("completion: direct %v, proxied %v", ds.completion, ps.completion)
		}
		if !reflect.DeepEqual(ds.definition, ps.definition) || !strings.Contains(fmt.Sprint(ds.definition), "Greeter.java") {
			t.Errorf("definition: direct %v, proxied %v", ds.definition, ps.definition)
		}
		if !reflect.DeepEqual(ds.diags, ps.diags) {
			t.Errorf("diagnostics: direct %v, proxied %v", ds.diags, ps.diags)
		}
		if strings.Contains(fmt.Sprint(ps.diags), "expected package") {
			t.Errorf("the proxied JDT LS took another source folder than src: %v", ps.diags)
		}
		want := append(append([]string{}, ds.actions...), "Repair with Repilot")
		if !reflect.DeepEqual(want, ps.actions) || len(ds.actions) == 0 {
			t.Errorf("code actions: direct %v, proxied %v", ds.actions, ps.actions)
		}
		proxied.mu.Lock()
		defer proxied.mu.Unlock()
		var exec []string
		for _, r := range proxied.regs {
			if r.Method == "workspace/executeCommand" {
				_, cmds, _ := proxy.CommandOptions(r.RegisterOptions)
				exec = append(exec, cmds...)
			}
		}
		if !strings.Contains(strings.Join(exec, " "), repairfeat.CommandRepairHunk) || !strings.Contains(strings.Join(exec, " "), "java.edit.organizeImports") {
			t.Errorf("executeCommand registrations carry %v", exec)
		}
	})

	t.Run("crash and restart", func(t *testing.T) {
		greeterURI := "file://" + root + "/src/demo/Greeter.java"
		// An edit first, so that the re-opened document must come from the mirror.
		_ = proxied.conn.Notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": greeterURI, "version": 2},
			"contentChanges": []any{map[string]any{"range": map[string]any{"start": pos(0, 0), "end": pos(0, 0)}, "text": "// edited\n"}}})
		kmu.Lock()
		k := killers[0]
		kmu.Unlock()
		k.arm(`"textDocument/hover"`)
		crashAt := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		_, err := proxied.conn.CallRaw(ctx, "textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": greeterURI}, "position": pos(13, 28)})
		cancel()
		if err == nil || !strings.Contains(err.Error(), "JDT LS exited unexpectedly") || !strings.Contains(err.Error(), "textDocument/hover") {
			t.Fatalf("hover in flight at the crash: %v", err)
		}
		// The kill is proc.Stop: SIGTERM to JDT LS's supervisor, which
		// kills JDT LS and all below it and exits by that SIGTERM.
		proxied.waitNote("showMessage", 10*time.Second, func(m *jsonrpc.Message) bool {
			return m.Method == "window/showMessage" && strings.Contains(string(m.Params), "JDT LS exited unexpectedly (signal: terminated); restarting")
		})
		// Hover works again on the re-opened document (line 13 now: the edit added one).
		deadline := time.Now().Add(120 * time.Second)
		for {
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			raw, err := proxied.conn.CallRaw(ctx, "textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": greeterURI}, "position": pos(13, 28)})
			cancel()
			if err == nil && strings.Contains(string(raw), "String name") {
				t.Logf("hover works again %v after the kill", time.Since(crashAt).Round(time.Millisecond))
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("hover after the restart: %s, %v", raw, err)
			}
			time.Sleep(time.Second)
		}
		kmu.Lock()
		n := len(killers)
		kmu.Unlock()
		if n != 2 {
			t.Errorf("%d JDT LS starts through the proxy, want 2", n)
		}
		// The restarted JDT LS's registrations did not reach the editor twice.
		proxied.mu.Lock()
		count := map[string]int{}
		for _, r := range proxied.regs {
			count[r.Method]++
		}
		proxied.mu.Unlock()
		for m, c := range count {
			if c > 1 {
				t.Errorf("the editor got %d registrations of %s", c, m)
			}
		}
	})
	t.Logf("total %v", time.Since(started).Round(time.Millisecond))
}
