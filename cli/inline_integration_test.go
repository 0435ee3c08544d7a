package cli

// inline_integration_test.go runs ghost text end to end: a fake editor talks
// LSP to the proxy (proxy.Run, the editor's real JDT LS behind it) with the
// ghost-text extension over the package's shared repair pool (a real shadow
// JDT LS and the real n-gram model), on the undo-stack fixture. Without JDT
// LS it fails, saying how to install it, unless REPILOT_SKIP_JDTLS=1.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/engine"
	"github.com/repilot-lsp/repilot-lsp/inline"
	"github.com/repilot-lsp/repilot-lsp/jsonrpc"
	"github.com/repilot-lsp/repilot-lsp/proxy"
	"github.com/repilot-lsp/repilot-lsp/proxy/feature/inlinefeat"
	"github.com/repilot-lsp/repilot-lsp/repair"
	"github.com/repilot-lsp/repilot-lsp/textpos"
)

// recordingSuggester records every answer of an inline.Service.
type recordingSuggester struct {
	s       *inline.Service
	mu      sync.Mutex
	answers []answer
	started chan struct{}
}

type answer struct {
	sug  *inline.Suggestion
	err  error
	when time.Time
}

func (r *recordingSuggester) Suggest(ctx context.Context, req inline.Request) (*inline.Suggestion, error) {
	select {
	case r.started <- struct{}{}:
	default:
	}
	s, err := r.s.Suggest(ctx, req)
	r.mu.Lock()
	r.answers = append(r.answers, answer{s, err, time.Now()})
	r.mu.Unlock()
	return s, err
}

func (r *recordingSuggester) Forget(uri string) { r.s.Forget(uri) }

func (r *recordingSuggester) last() answer {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.answers[len(r.answers)-1]
}

// teeWriter copies what the proxy writes to the editor's JDT LS.
type teeWriter struct {
	io.WriteCloser
	mu  sync.Mutex
	buf bytes.Buffer
}

func (w *teeWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.buf.Write(p)
	w.mu.Unlock()
	return w.WriteCloser.Write(p)
}

// ghostEditor is the fake editor: it records publishDiagnostics.
type ghostEditor struct {
	t     *testing.T
	conn  *jsonrpc.Conn
	mu    sync.Mutex
	diags []publish
	ver   int32
	text  string
	uri   string
}

type publish struct {
	at    time.Time
	uri   string
	diags []struct {
		Severity int    `json:"severity"`
		Message  string `json:"message"`
		Range    struct {
			Start struct{ Line int } `json:"start"`
		} `json:"range"`
	}
}

func (ed *ghostEditor) change(text string) time.Time {
	ed.t.Helper()
	ed.ver++
	ed.text = text
	sent := time.Now()
	if err := ed.conn.Notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": ed.uri, "version": ed.ver},
		"contentChanges": []any{map[string]any{"text": text}},
	}); err != nil {
		ed.t.Fatal(err)
	}
	return sent
}

// errorsAfter waits for the editor's JDT LS to publish the diagnostics of the
// buffer as changed at sent (a publish after sent, then 2 s without a newer
// one) and returns its errors.
func (ed *ghostEditor) errorsAfter(sent time.Time) []engine.CompileError {
	ed.t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		ed.mu.Lock()
		var last *publish
		for i := range ed.diags {
			if ed.diags[i].uri == ed.uri && ed.diags[i].at.After(sent) {
				last = &ed.diags[i]
			}
		}
		ed.mu.Unlock()
		if last != nil && time.Since(last.at) > 2*time.Second {
			var out []engine.CompileError
			for _, d := range last.diags {
				if d.Severity == 1 {
					out = append(out, engine.CompileError{Line: d.Range.Start.Line + 1, Message: d.Message})
				}
			}
			return out
		}
		time.Sleep(100 * time.Millisecond)
	}
	ed.t.Fatalf("the editor's JDT LS published no diagnostics for %s", ed.uri)
	return nil
}

func (ed *ghostEditor) inline(ctx context.Context, offset int, trigger int) (string, error) {
	p := textpos.New(ed.text).Position(offset)
	raw, err := ed.conn.CallRaw(ctx, "textDocument/inlineCompletion", map[string]any{
		"textDocument": map[string]any{"uri": ed.uri},
		"position":     map[string]any{"line": p.Line, "character": p.Character},
		"context":      map[string]any{"triggerKind": trigger},
	})
	if err != nil {
		return "", err
	}
	var list inlinefeat.InlineCompletionList
	if err := json.Unmarshal(raw, &list); err != nil {
		return "", err
	}
	if len(list.Items) == 0 {
		return "", nil
	}
	it := list.Items[0]
	if it.Range.Start != it.Range.End || int(it.Range.Start.Line) != p.Line || int(it.Range.Start.Character) != p.Character {
		ed.t.Errorf("item range %+v, want empty at the caret %+v", it.Range, p)
	}
	return it.InsertText, nil
}

// undoStackFixture returns the undo-stack fixture's project root, the
// absolute path of its UndoStack.java and that file's bytes: the file the
// ghost-text integration tests type into (they restore it themselves).
func undoStackFixture(t *testing.T) (root, file string, orig []byte) {
	t.Helper()
	root, err := filepath.Abs("../testdata/bugs/undo-stack-extra-decrement/project")
	if err != nil {
		t.Fatal(err)
	}
	file = filepath.Join(root, "src/org/example/editor/UndoStack.java")
	if orig, err = os.ReadFile(file); err != nil {
		t.Fatal(err)
	}
	return root, file, orig
}

func TestGhostTextEndToEnd(t *testing.T) {
	pl := realRepairer(t) // the shared engine's pool: ghost text acquires from it as serve's does
	root, file, orig := undoStackFixture(t)
	rec := &recordingSuggester{s: inline.NewService(pl.InlineAcquire(), inline.Options{}), started: make(chan struct{}, 1)}
	tee := &teeWriter{}
	launch := proxy.JDTLSLauncher("", 0, io.Discard)
	state := t.TempDir()
	cin, pout := io.Pipe()
	pin, cout := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- proxy.Run(ctx, pin, pout, proxy.Options{StateDir: state, Log: io.Discard,
			Extensions: []proxy.Extension{inlinefeat.New(rec)},
			Launch: func(ctx context.Context, dir string) (*proxy.Backend, error) {
				b, err := launch(ctx, dir)
				if err == nil {
					tee.WriteCloser = b.Stdin
					b.Stdin = tee
				}
				return b, err
			}})
	}()
	ed := &ghostEditor{t: t, uri: repair.FileURI(file), text: string(orig), ver: 1}
	ed.conn = jsonrpc.NewConn(cin, cout, "editor/", func(ctx context.Context, m *jsonrpc.Message) (any, error) {
		switch m.Method {
		case "workspace/configuration":
			var p struct{ Items []json.RawMessage }
			_ = json.Unmarshal(m.Params, &p)
			return make([]any, len(p.Items)), nil
		case "textDocument/publishDiagnostics":
			var p struct {
				URI         string          `json:"uri"`
				Diagnostics json.RawMessage `json:"diagnostics"`
			}
			_ = json.Unmarshal(m.Params, &p)
			pub := publish{at: time.Now(), uri: p.URI}
			_ = json.Unmarshal(p.Diagnostics, &pub.diags)
			if strings.Contains(string(p.Diagnostics), "repilot-sync") {
				t.Errorf("an engine diagnostic reached the editor: %s", p.Diagnostics)
			}
			ed.mu.Lock()
			ed.diags = append(ed.diags, pub)
			ed.mu.Unlock()
		}
		return nil, nil
	})
	go func() { _ = ed.conn.Run(context.Background()) }()

	call := func(method string, params any) json.RawMessage {
		c, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		raw, err := ed.conn.CallRaw(c, method, params)
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		return raw
	}
	initRes := call("initialize", map[string]any{
		"processId": nil, "rootUri": repair.FileURI(root),
		"capabilities": map[string]any{"textDocument": map[string]any{"inlineCompletion": map[string]any{}}},
	})
	if !strings.Contains(string(initRes), `"inlineCompletionProvider":true`) {
		t.Fatalf("initialize result lacks inlineCompletionProvider: %.400s", initRes)
	}
	_ = ed.conn.Notify("initialized", map[string]any{})
	_ = ed.conn.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": ed.uri, "languageId": "java", "version": 1, "text": string(orig)}})

	// 1. Every suggestion served, inserted into the editor's buffer, compiles
	// by the editor's own JDT LS (inline.Introduced against the cut file).
	// The last caret is inside an identifier (token healing: the suggestion
	// is the rest of the name and of the line, inserted at the caret).
	midIdent := "throw new NoSuch"
	carets := []string{"items[size] = ", "return (T) items[", "if (size == items.", "throw new NoSuchElementException(", midIdent}
	served := 0
	healed := ""
	var typeThrough struct {
		text, suggestion string
		offset           int
	}
	for _, c := range carets {
		at := strings.Index(string(orig), c) + len(c)
		lineEnd := at + strings.IndexByte(string(orig)[at:], '\n')
		cut := string(orig[:at]) + string(orig[lineEnd:])
		sentCut := ed.change(cut)
		oldErrs := ed.errorsAfter(sentCut)
		rctx, rcancel := context.WithTimeout(context.Background(), 5*time.Minute)
		sug, err := ed.inline(rctx, at, 1)
		rcancel()
		if err != nil {
			t.Fatalf("inlineCompletion after %q: %v", c, err)
		}
		t.Logf("after %q (removed %q): suggestion %q, stats %+v", c, string(orig[at:lineEnd]), sug, rec.last().sug)
		if sug == "" {
			continue
		}
		served++
		if c == midIdent {
			healed = sug
		}
		if typeThrough.suggestion == "" && len(sug) >= 2 {
			typeThrough.text, typeThrough.suggestion, typeThrough.offset = cut, sug, at
		}
		inserted := cut[:at] + sug + cut[at:]
		newErrs := ed.errorsAfter(ed.change(inserted))
		span := inline.Span{From: strings.Count(cut[:at], "\n") + 1}
		span.To = span.From + strings.Count(sug, "\n")
		if bad := inline.Introduced(newErrs, oldErrs, span); len(bad) > 0 {
			t.Errorf("suggestion %q after %q introduces errors (editor's JDT LS): %v", sug, c, bad)
		}
	}
	if served == 0 {
		t.Fatalf("no suggestion served at any of %d carets", len(carets))
	}
	if healed == "" {
		t.Errorf("no suggestion served inside the identifier after %q", midIdent)
	}

	// 2. Typing through a suggestion: the rest comes from the cache.
	if s := typeThrough.suggestion; s != "" {
		ed.change(typeThrough.text)
		rctx, rcancel := context.WithTimeout(context.Background(), 5*time.Minute)
		if got, err := ed.inline(rctx, typeThrough.offset, 2); err != nil || got != s {
			t.Fatalf("asking again at the same caret: %q, %v; want %q", got, err, s)
		}
		typed := typeThrough.text[:typeThrough.offset] + s[:1] + typeThrough.text[typeThrough.offset:]
		ed.change(typed)
		got, err := ed.inline(rctx, typeThrough.offset+1, 2)
		rcancel()
		a := rec.last()
		if err != nil || got != s[1:] || a.sug == nil || !a.sug.Cached || a.sug.Stats.ModelCalls != 0 || a.sug.Stats.EngineCalls != 0 {
			t.Errorf("after typing %q: %q, %v (answer %+v); want %q from the cache, no model or engine call", s[:1], got, err, a.sug, s[1:])
		}
	}

	// 3. A superseded request is cancelled: $/cancelRequest, then a newer
	// request for the same document.
	at := strings.Index(string(orig), "T top = ") + len("T top = ")
	lineEnd := at + strings.IndexByte(string(orig)[at:], '\n')
	ed.change(string(orig[:at]) + string(orig[lineEnd:]))
	for _, how := range []string{"$/cancelRequest", "newer request"} {
		rec.mu.Lock()
		n := len(rec.answers)
		rec.mu.Unlock()
		for len(rec.started) > 0 {
			<-rec.started
		}
		rctx, rcancel := context.WithCancel(context.Background())
		go ed.inline(rctx, at, 1)
		<-rec.started
		time.Sleep(20 * time.Millisecond) // inside the request
		var sent time.Time
		if how == "$/cancelRequest" {
			sent = time.Now()
			rcancel()
		} else {
			sent = time.Now()
			go ed.inline(context.Background(), at-1, 2)
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			rec.mu.Lock()
			var got *answer
			if len(rec.answers) > n {
				got = &rec.answers[n]
			}
			rec.mu.Unlock()
			if got != nil {
				if got.err == nil || !(errors.Is(got.err, context.Canceled) || errors.Is(got.err, inline.ErrSuperseded)) {
					t.Errorf("%s: the request ended with %v (suggestion %+v), want cancelled", how, got.err, got.sug)
				}
				t.Logf("%s: the request stopped %v after the cancellation was sent", how, got.when.Sub(sent).Round(time.Millisecond))
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: the request did not stop within 10 s", how)
			}
			time.Sleep(time.Millisecond)
		}
		rcancel()
	}

	// 4. After the burst: the editor's JDT LS received exactly the editor's
	// document changes (no suggestion text), and has the editor's text: back
	// to the original file, it reports no error.
	time.Sleep(time.Second) // let the newer request of step 3 finish
	sent := ed.change(string(orig))
	if errs := ed.errorsAfter(sent); len(errs) > 0 {
		t.Errorf("the editor's JDT LS reports errors for the original file: %v", errs)
	}
	tee.mu.Lock()
	stream := tee.buf.Bytes()
	tee.mu.Unlock()
	r := jsonrpc.NewReader(bytes.NewReader(stream))
	var versions []int32
	for {
		body, err := r.ReadBody()
		if err != nil {
			break
		}
		m, err := jsonrpc.Decode(body)
		if err != nil {
			t.Fatal(err)
		}
		switch m.Method {
		case "textDocument/didChange":
			var p struct {
				TextDocument struct{ Version int32 } `json:"textDocument"`
			}
			_ = json.Unmarshal(m.Params, &p)
			versions = append(versions, p.TextDocument.Version)
		case "textDocument/inlineCompletion":
			t.Errorf("the editor's JDT LS received an inlineCompletion request")
		}
	}
	if int32(len(versions)) != ed.ver-1 || (len(versions) > 0 && versions[len(versions)-1] != ed.ver) {
		t.Errorf("the editor's JDT LS got didChange versions %v, want 2..%d (the editor's own changes only)", versions, ed.ver)
	}
	c2, cancel2 := context.WithTimeout(context.Background(), time.Minute)
	defer cancel2()
	_, _ = ed.conn.CallRaw(c2, "shutdown", nil)
	_ = ed.conn.Notify("exit", nil)
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Errorf("the proxy did not stop after exit")
	}
}
