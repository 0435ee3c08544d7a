package jdtls

// server_test.go tests the answers to server->client requests on an offline
// client (no process).

import (
	"context"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/jsonrpc"
)

// offlineClient is a Client with no process: its connection writes to
// nowhere, and tests feed server messages to handle directly.
func offlineClient(t *testing.T) *Client {
	t.Helper()
	pr, pw := io.Pipe()
	t.Cleanup(func() { pw.Close() })
	c := &Client{
		settings: mergeSettings(DefaultSettings(), nil),
		ready:    make(chan struct{}),
		done:     make(chan struct{}),
		docs:     map[string]*docState{},
		diags:    map[string]*diagState{},
		diagWake: make(chan struct{}),
		regs:     map[string]string{},
	}
	c.conn = jsonrpc.NewConn(pr, io.Discard, IDPrefix, c.handle)
	return c
}

func serverMessage(t *testing.T, method string, params any) *jsonrpc.Message {
	t.Helper()
	p, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	return &jsonrpc.Message{ID: json.RawMessage(`"s1"`), Method: method, Params: p}
}

func TestServerRequests(t *testing.T) {
	c := offlineClient(t)
	ctx := context.Background()
	res, err := c.handle(ctx, serverMessage(t, "workspace/configuration", map[string]any{
		"items": []any{map[string]any{"section": "java.completion.maxResults"}, map[string]any{"section": "java.nope"}},
	}))
	if err != nil || !reflect.DeepEqual(res, []any{0, nil}) {
		t.Errorf("workspace/configuration = %#v, %v", res, err)
	}
	if _, err := c.handle(ctx, serverMessage(t, "client/registerCapability", map[string]any{
		"registrations": []any{map[string]any{"id": "r1", "method": "textDocument/completion"}},
	})); err != nil || !c.Registered("textDocument/completion") {
		t.Errorf("registerCapability: %v registered=%v", err, c.Registered("textDocument/completion"))
	}
	if _, err := c.handle(ctx, serverMessage(t, "client/unregisterCapability", map[string]any{
		"unregisterations": []any{map[string]any{"id": "r1", "method": "textDocument/completion"}},
	})); err != nil || c.Registered("textDocument/completion") {
		t.Errorf("unregisterCapability: %v", err)
	}
	res, _ = c.handle(ctx, serverMessage(t, "workspace/applyEdit", map[string]any{"edit": map[string]any{}}))
	if b, _ := json.Marshal(res); !strings.Contains(string(b), `"applied":false`) {
		t.Errorf("applyEdit = %s", b)
	}
	for _, m := range []string{"window/workDoneProgress/create", "workspace/executeClientCommand", "x/unknown"} {
		if res, err := c.handle(ctx, serverMessage(t, m, map[string]any{"command": "_java.reloadBundles.command"})); res != nil || err != nil {
			t.Errorf("%s = %v, %v; want null", m, res, err)
		}
	}
	select {
	case <-c.Ready():
		t.Fatal("ready before ServiceReady")
	default:
	}
	c.handle(ctx, serverMessage(t, "language/status", map[string]any{"type": "Started", "message": "x"}))
	c.handle(ctx, serverMessage(t, "language/status", map[string]any{"type": "ServiceReady", "message": "ServiceReady"}))
	c.handle(ctx, serverMessage(t, "language/status", map[string]any{"type": "ServiceReady", "message": "again"}))
	if err := c.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
}
