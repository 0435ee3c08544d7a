package proxy

// lsp.go defines the LSP 3.17 shapes the proxy decodes with local structs
// instead of go.lsp.dev/protocol v0.12.0 (which follows LSP 3.16), each with
// the reason, and helpers that build JSON-RPC bodies.

import (
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/repilot-lsp/repilot-lsp/jsonrpc"
	"github.com/repilot-lsp/repilot-lsp/textpos"
)

// initializeParams holds only the InitializeParams fields the proxy reads
// (LSP 3.17 "initialize"). Local because protocol.InitializeParams decodes the
// whole 3.16 ClientCapabilities tree: one 3.17 field of an unexpected type
// would fail the decode, and the proxy forwards the params raw anyway.
type initializeParams struct {
	RootURI          string `json:"rootUri"`
	RootPath         string `json:"rootPath"`
	WorkspaceFolders []struct {
		URI  string `json:"uri"`
		Name string `json:"name"`
	} `json:"workspaceFolders"`
	Capabilities struct {
		Workspace struct {
			ApplyEdit      bool `json:"applyEdit"`
			ExecuteCommand struct {
				DynamicRegistration bool `json:"dynamicRegistration"`
			} `json:"executeCommand"`
			WorkspaceEdit struct {
				DocumentChanges bool `json:"documentChanges"`
			} `json:"workspaceEdit"`
		} `json:"workspace"`
		TextDocument struct {
			CodeAction struct {
				DynamicRegistration      bool            `json:"dynamicRegistration"`
				CodeActionLiteralSupport json.RawMessage `json:"codeActionLiteralSupport"`
			} `json:"codeAction"`
		} `json:"textDocument"`
		Window struct {
			WorkDoneProgress bool `json:"workDoneProgress"`
		} `json:"window"`
	} `json:"capabilities"`
}

// contentChange is a TextDocumentContentChangeEvent (LSP 3.17). Local because
// protocol.TextDocumentContentChangeEvent has a non-pointer Range, so a
// full-text change (no range) cannot be told from an edit at 0:0-0:0.
type contentChange struct {
	Range *protocol.Range `json:"range"`
	Text  string          `json:"text"`
}

// didChangeParams is DidChangeTextDocumentParams with contentChange.
type didChangeParams struct {
	TextDocument   protocol.VersionedTextDocumentIdentifier `json:"textDocument"`
	ContentChanges []contentChange                          `json:"contentChanges"`
}

// executeCommandParams is ExecuteCommandParams (LSP 3.17). Local because
// protocol.ExecuteCommandParams decodes arguments into interface{} (the
// extension wants the raw JSON) and its ProgressToken cannot be re-sent
// unchanged (see progressParams).
type executeCommandParams struct {
	Command       string            `json:"command"`
	Arguments     []json.RawMessage `json:"arguments"`
	WorkDoneToken json.RawMessage   `json:"workDoneToken,omitempty"`
}

// progressParams is the $/progress notification (LSP 3.17 "Progress
// Support"); tokens stay raw JSON. Local because protocol.ProgressToken
// implements MarshalJSON on its pointer only (a token held by value encodes as
// {}), and it turns a string token "7" into the number 7.
type progressParams struct {
	Token json.RawMessage `json:"token"`
	Value any             `json:"value"`
}

// tokenParams is WorkDoneProgressCreateParams and WorkDoneProgressCancelParams
// (local for the same reason as progressParams).
type tokenParams struct {
	Token json.RawMessage `json:"token"`
}

// cancelParams is $/cancelRequest's params with the id kept raw, so that 1 and
// "1" stay distinct (protocol.CancelParams uses interface{}).
type cancelParams struct {
	ID json.RawMessage `json:"id"`
}

// registration and registrationParams are client/registerCapability's params
// with registerOptions kept raw, so that a registration the proxy does not
// change is forwarded as it came (protocol.Registration uses interface{}).
type registration struct {
	ID              string          `json:"id"`
	Method          string          `json:"method"`
	RegisterOptions json.RawMessage `json:"registerOptions,omitempty"`
}

type registrationParams struct {
	Registrations []registration `json:"registrations"`
}

// unregistrationParams is client/unregisterCapability's params; the field name
// keeps the specification's historical misspelling "unregisterations".
type unregistrationParams struct {
	Unregisterations []struct {
		ID     string `json:"id"`
		Method string `json:"method"`
	} `json:"unregisterations"`
}

// workDoneProgressValue is the value of a $/progress notification for work
// done progress: WorkDoneProgressBegin, Report or End in one struct. Local
// because protocol's Percentage is omitempty, so a report of 0% vanishes.
type workDoneProgressValue struct {
	Kind        string `json:"kind"`
	Title       string `json:"title,omitempty"`
	Cancellable bool   `json:"cancellable,omitempty"`
	Message     string `json:"message,omitempty"`
	Percentage  *int   `json:"percentage,omitempty"`
}

// responseBody encodes a success response for id.
func responseBody(id json.RawMessage, result any) ([]byte, error) {
	b, err := json.Marshal(result)
	if err != nil {
		return nil, err
	}
	return jsonrpc.Encode(&jsonrpc.Message{ID: id, Result: b})
}

// errorBody encodes an error response for id. A nil id (the request could not
// be read) is written as "id": null, as JSON-RPC 2.0 requires.
func errorBody(id json.RawMessage, e *jsonrpc.Error) []byte {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *jsonrpc.Error  `json:"error"`
	}{"2.0", id, e})
	if err != nil { // cannot happen: all fields marshal
		return []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"internal error"}}`)
	}
	return b
}

// notificationBody encodes a notification.
func notificationBody(method string, params any) ([]byte, error) {
	p, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	return jsonrpc.Encode(&jsonrpc.Message{Method: method, Params: p})
}

// requestBody encodes a request with a raw id and raw params.
func requestBody(id json.RawMessage, method string, params json.RawMessage) ([]byte, error) {
	return jsonrpc.Encode(&jsonrpc.Message{ID: id, Method: method, Params: params})
}

// Errorf returns a response error (JSON-RPC 2.0 "Error Object") with code
// (jsonrpc.Code*, LSP 3.17 "ErrorCodes") and a formatted message for users.
// Features return it from Execute and Method.Request to choose the code.
func Errorf(code int64, format string, args ...any) *jsonrpc.Error {
	return &jsonrpc.Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ToTextpos converts an LSP position (UTF-16 code units) to the textpos mapper's.
func ToTextpos(p protocol.Position) textpos.Position {
	return textpos.Position{Line: int(p.Line), Character: int(p.Character)}
}

// FromTextpos converts a textpos position to a protocol position.
func FromTextpos(p textpos.Position) protocol.Position {
	return protocol.Position{Line: uint32(p.Line), Character: uint32(p.Character)}
}

// URIPath returns the local path of a file: URI, or an error naming the
// scheme for anything else (untitled:, jdt:, ...), or saying that the URI
// names no absolute path ("file:A.java").
func URIPath(u string) (string, error) {
	parsed, err := url.Parse(u)
	if err != nil {
		return "", fmt.Errorf("bad document URI %q: %v", u, err)
	}
	if parsed.Scheme != "file" {
		return "", fmt.Errorf("%q is not a file: URI", u)
	}
	path := filepath.FromSlash(parsed.Path)
	if !filepath.IsAbs(path) {
		// "file:A.java" (opaque): a file URI names an absolute path (RFC 8089).
		return "", fmt.Errorf("%q names no absolute path", u)
	}
	return path, nil
}

// IsJavaURI reports whether the URI's path ends in ".java".
func IsJavaURI(u string) bool {
	parsed, err := url.Parse(u)
	if err != nil {
		return false
	}
	return strings.HasSuffix(parsed.Path, ".java")
}

// kindMatches reports whether a code action of kind k passes a
// CodeActionContext.only filter (LSP 3.17: kinds are hierarchical, "a.b"
// matches filter "a").
func kindMatches(k protocol.CodeActionKind, only []protocol.CodeActionKind) bool {
	if len(only) == 0 {
		return true
	}
	for _, o := range only {
		if k == o || strings.HasPrefix(string(k), string(o)+".") {
			return true
		}
	}
	return false
}
