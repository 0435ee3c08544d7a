package jdtls

// wire_test.go pins the JSON the Client sends JDT LS: the params of
// initialize, didOpen, didChange, didClose and completion, and the results of
// the server->client requests it answers. They are compared as decoded JSON
// (key order aside), so that moving a message from a map to a typed struct
// cannot change a field name, drop a false or zero value, or add a field.

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/jsonrpc"
	"github.com/repilot-lsp/repilot-lsp/textpos"
)

// syncBuffer is a bytes.Buffer safe for the connection's writer and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) bytes() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]byte(nil), s.b.Bytes()...)
}

// capturingClient is an offline Client (no process) whose connection writes
// into the returned buffer.
func capturingClient(t *testing.T, o Options) (*Client, *syncBuffer) {
	t.Helper()
	c := offlineClient(t)
	c.opts = o
	buf := &syncBuffer{}
	pr, pw := io.Pipe()
	t.Cleanup(func() { pw.Close() })
	c.conn = jsonrpc.NewConn(pr, buf, IDPrefix, c.handle)
	return c, buf
}

// sent decodes the framed messages in buf and returns the params of each
// message with method, in order.
func sent(t *testing.T, buf *syncBuffer, method string) []any {
	t.Helper()
	r := jsonrpc.NewReader(bytes.NewReader(buf.bytes()))
	var out []any
	for {
		m, err := r.Read()
		if err != nil {
			return out
		}
		if m.Method != method {
			continue
		}
		var v any
		if len(m.Params) > 0 {
			if err := json.Unmarshal(m.Params, &v); err != nil {
				t.Fatalf("%s params: %v", method, err)
			}
		}
		out = append(out, v)
	}
}

// wantJSON decodes a golden JSON text.
func wantJSON(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("golden %s: %v", s, err)
	}
	return v
}

func checkWire(t *testing.T, what string, got any, want string) {
	t.Helper()
	if w := wantJSON(t, want); !reflect.DeepEqual(got, w) {
		g, _ := json.Marshal(got)
		t.Errorf("%s sent\n%s\nwant\n%s", what, g, want)
	}
}

func TestWireInitialize(t *testing.T) {
	c, buf := capturingClient(t, Options{Root: "/p/root dir", Folders: []string{"/p/other"}})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_ = c.initialize(ctx) // no server answers; the request is on the wire
	got := sent(t, buf, "initialize")
	if len(got) != 1 {
		t.Fatalf("initialize sent %d times", len(got))
	}
	p := got[0].(map[string]any)
	if p["processId"] != float64(os.Getpid()) {
		t.Errorf("processId %v, want %d", p["processId"], os.Getpid())
	}
	delete(p, "processId")
	checkWire(t, "initialize", p, `{
"capabilities":{
 "textDocument":{
  "completion":{"completionItem":{"commitCharactersSupport":false,"deprecatedSupport":true,"documentationFormat":["plaintext"],"insertReplaceSupport":false,"labelDetailsSupport":true,"snippetSupport":false},
   "completionItemKind":{"valueSet":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25]},
   "completionList":{"itemDefaults":["commitCharacters","editRange","insertTextFormat","insertTextMode","data"]},
   "contextSupport":true,"dynamicRegistration":true},
  "publishDiagnostics":{"relatedInformation":false,"tagSupport":{"valueSet":[1,2]},"versionSupport":true},
  "synchronization":{"didSave":false,"dynamicRegistration":true,"willSave":false,"willSaveWaitUntil":false}},
 "window":{"workDoneProgress":false},
 "workspace":{"applyEdit":false,"configuration":true,"didChangeConfiguration":{"dynamicRegistration":true},"didChangeWatchedFiles":{"dynamicRegistration":false},"executeCommand":{"dynamicRegistration":true},"workspaceFolders":true}},
"clientInfo":{"name":"repilot-lsp engine"},
"initializationOptions":{
 "extendedClientCapabilities":{"classFileContentsSupport":false},
 "settings":{"java":{"autobuild":{"enabled":true},"completion":{"filteredTypes":[],"guessMethodArguments":false,"maxResults":0,"postfix":{"enabled":false}},"import":{"generatesMetadataFilesAtProjectRoot":false}}},
 "workspaceFolders":["file:///p/root%20dir","file:///p/other"]},
"rootPath":"/p/root dir",
"rootUri":"file:///p/root%20dir",
"trace":"off",
"workspaceFolders":[{"name":"root dir","uri":"file:///p/root%20dir"},{"name":"other","uri":"file:///p/other"}]
}`)
}

func TestWireDocuments(t *testing.T) {
	c, buf := capturingClient(t, Options{Root: "/p"})
	const uri = "file:///p/A.java"
	v1, err := c.Open(context.Background(), uri, "class A {}")
	if err != nil {
		t.Fatal(err)
	}
	v2, err := c.Change(context.Background(), uri, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(context.Background(), uri); err != nil {
		t.Fatal(err)
	}
	if v1 != 1 || v2 != 2 {
		t.Fatalf("versions %d, %d; want 1, 2", v1, v2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, _ = c.Completion(ctx, uri, textpos.Position{Line: 0, Character: 0})

	if _, err := c.Completion(ctx, uri, textpos.Position{Line: -1}); err == nil {
		t.Error("completion at a negative position")
	}

	open := sent(t, buf, "textDocument/didOpen")
	change := sent(t, buf, "textDocument/didChange")
	closed := sent(t, buf, "textDocument/didClose")
	compl := sent(t, buf, "textDocument/completion")
	if len(open) != 1 || len(change) != 1 || len(closed) != 1 || len(compl) != 1 {
		t.Fatalf("sent %d didOpen, %d didChange, %d didClose, %d completion; want one each", len(open), len(change), len(closed), len(compl))
	}
	checkWire(t, "didOpen", open[0], `{"textDocument":{"languageId":"java","text":"class A {}\n// TODO repilot-sync 1\n","uri":"file:///p/A.java","version":1}}`)
	// A full-text change: no range (a zero range would make it an insertion at 0:0).
	checkWire(t, "didChange", change[0], `{"contentChanges":[{"text":"// TODO repilot-sync 2\n"}],"textDocument":{"uri":"file:///p/A.java","version":2}}`)
	checkWire(t, "didClose", closed[0], `{"textDocument":{"uri":"file:///p/A.java"}}`)
	checkWire(t, "completion", compl[0], `{"context":{"triggerKind":1},"position":{"character":0,"line":0},"textDocument":{"uri":"file:///p/A.java"}}`)
}

func TestWireServerRequestResults(t *testing.T) {
	c := offlineClient(t)
	ctx := context.Background()
	for _, tc := range []struct {
		method string
		params any
		want   string
	}{
		{"workspace/configuration", map[string]any{"items": []any{
			map[string]any{"section": "java.completion.maxResults"},
			map[string]any{"scopeUri": "file:///p", "section": "java.completion.postfix"},
			map[string]any{"section": "java.nope"},
		}}, `[0,{"enabled":false},null]`},
		{"workspace/applyEdit", map[string]any{"edit": map[string]any{}},
			`{"applied":false,"failureReason":"the completion engine applies no edits"}`},
		{"client/registerCapability", map[string]any{"registrations": []any{map[string]any{"id": "r1", "method": "m"}}}, `null`},
		{"window/workDoneProgress/create", map[string]any{"token": "t"}, `null`},
	} {
		res, err := c.handle(ctx, serverMessage(t, tc.method, tc.params))
		if err != nil {
			t.Errorf("%s: %v", tc.method, err)
			continue
		}
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		var got any
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		checkWire(t, tc.method+" result", got, tc.want)
	}
}
