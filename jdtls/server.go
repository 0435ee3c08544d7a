// server.go answers the requests and consumes the notifications JDT LS sends
// the client (language/status, publishDiagnostics, workspace/configuration,
// dynamic registration, window/logMessage, ...).

package jdtls

import (
	"context"
	"encoding/json"
	"time"

	"go.lsp.dev/protocol"

	"github.com/repilot-lsp/repilot-lsp/jsonrpc"
)

// handle answers server->client requests and consumes notifications. It runs
// on the connection's read goroutine and never blocks on the server.
func (c *Client) handle(_ context.Context, m *jsonrpc.Message) (any, error) {
	switch m.Method {
	case "language/status":
		// JDT LS's own notification: {"type": "Starting" | "ServiceReady" | ..., "message": ...}.
		var p struct{ Type, Message string }
		if json.Unmarshal(m.Params, &p) == nil && p.Type == "ServiceReady" {
			c.readyOnce.Do(func() {
				c.mu.Lock()
				c.timings.Ready = time.Since(c.spawned)
				c.mu.Unlock()
				close(c.ready)
			})
		}
	case "textDocument/publishDiagnostics":
		c.notePublish(m.Params)
	case "window/logMessage":
		c.noteLogMessage(m.Params)
	case "workspace/configuration":
		var p protocol.ConfigurationParams
		if err := json.Unmarshal(m.Params, &p); err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
		}
		out := make([]any, len(p.Items))
		for i, it := range p.Items {
			out[i] = lookupSetting(c.settings, it.Section)
		}
		return out, nil
	case "client/registerCapability":
		var p protocol.RegistrationParams
		if json.Unmarshal(m.Params, &p) == nil {
			c.mu.Lock()
			for _, r := range p.Registrations {
				c.regs[r.ID] = r.Method
			}
			c.mu.Unlock()
		}
	case "client/unregisterCapability":
		var p protocol.UnregistrationParams // "unregisterations", sic (LSP 3.17)
		if json.Unmarshal(m.Params, &p) == nil {
			c.mu.Lock()
			for _, r := range p.Unregisterations {
				delete(c.regs, r.ID)
			}
			c.mu.Unlock()
		}
	case "workspace/applyEdit":
		return protocol.ApplyWorkspaceEditResponse{Applied: false, FailureReason: "the completion engine applies no edits"}, nil
	}
	// The notifications above, window/workDoneProgress/create,
	// workspace/executeClientCommand (_java.reloadBundles.command and
	// others), window/showMessageRequest, and anything else: a null result
	// (for a notification, nothing is sent). Notifications not listed above
	// ($/progress, ...) are dropped.
	return nil, nil
}

// Registered reports whether the server has dynamically registered method
// (e.g. "textDocument/completion") and not unregistered it.
func (c *Client) Registered(method string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range c.regs {
		if m == method {
			return true
		}
	}
	return false
}
