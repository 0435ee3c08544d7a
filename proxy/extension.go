package proxy

// extension.go defines what a feature added beside JDT LS implements
// (Extension, and the optional MethodHandler and Initializer), and the Client
// handle through which it reaches the editor.

import (
	"context"
	"encoding/json"

	"go.lsp.dev/protocol"
)

// Extension is one feature the proxy adds beside JDT LS ("Repair with
// Repilot", "Semantic search in repo"). The proxy calls CodeActions on its read
// loop and Execute on a goroutine of its own.
//
// Methods may be called concurrently; an extension guards its own state.
// A panic in an extension is recovered, logged as a bug and answered with an
// InternalError; it does not bring the proxy down.
type Extension interface {
	// Name identifies the extension in logs and in the "data" of its code
	// actions (so the proxy can answer codeAction/resolve for them).
	Name() string

	// Commands returns the workspace/executeCommand ids the extension
	// handles, e.g. "repilot.repairHunk". They are advertised to the editor
	// (merged into JDT LS's executeCommandProvider or its dynamic
	// registration) and routed to Execute. The list must not change.
	Commands() []string

	// CodeActions returns the extension's code actions for a
	// textDocument/codeAction request (LSP 3.17). doc is the editor's buffer
	// for params.TextDocument.URI, or nil when the document is not open.
	//
	// It must be cheap: no model work, no IO, no waiting. Editors send
	// codeAction on every cursor move; expensive work belongs in Execute
	// (gopls defers it the same way). Actions whose kind does not match
	// params.Context.Only are dropped by the proxy.
	CodeActions(doc *Document, params *protocol.CodeActionParams) []protocol.CodeAction

	// Execute runs one of Commands with the request's raw arguments. The
	// result is marshalled as the workspace/executeCommand result. An error
	// of type *jsonrpc.Error is sent as is; any other error becomes a
	// RequestFailed error with err.Error() as the message, so write messages
	// for users. ctx is cancelled by $/cancelRequest for this request, by
	// window/workDoneProgress/cancel for its progress, and when the proxy
	// stops.
	Execute(ctx context.Context, c Client, command string, args []json.RawMessage) (any, error)
}

// MethodHandler is an optional Extension method: the client methods the
// extension handles beside its commands and code actions. The proxy puts
// them in its method table (routes.go), which drives dispatch, the list of
// intercepted methods and the capabilities merged into JDT LS's initialize
// result alike. Methods is called once, when the proxy starts.
type MethodHandler interface {
	Methods() []Method
}

// Method is one client method an extension handles: a request it answers
// instead of JDT LS (Request), a notification it observes (Notify), or
// both.
type Method struct {
	// Name is the LSP method, e.g. "workspace/symbol".
	Name string

	// Request answers the request, off the read loop, with its raw params;
	// the result is marshalled as the response's result, and errors are
	// treated as Execute's are. ctx is cancelled by $/cancelRequest, by
	// window/workDoneProgress/cancel for its progress (the request's own
	// workDoneToken is used when it has one), and when the proxy stops.
	// A feature may not answer a method the proxy handles itself
	// (initialize, codeAction, executeCommand, ...).
	Request func(ctx context.Context, c Client, params json.RawMessage) (any, error)

	// Claims, when set, reports cheaply and on the read loop whether Request
	// answers a request with these params; unclaimed requests go to JDT LS.
	// nil claims every request.
	Claims func(params json.RawMessage) bool

	// Notify observes the notification on the read loop, after the document
	// mirror has been updated, in arrival order (the notification still
	// reaches JDT LS). It must return at once; params must not be retained
	// without copying.
	Notify func(c Client, params json.RawMessage)

	// Capability names the ServerCapabilities member (LSP 3.17 "initialize")
	// that advertises Request, e.g. "workspaceSymbolProvider"; "" for none.
	// The proxy sets it where JDT LS declares none of its own.
	Capability string

	// Advertise returns Capability's value given the editor's initialize
	// params (raw JSON); nil or empty leaves the capability out. A nil
	// Advertise means the value true.
	Advertise func(initializeParams json.RawMessage) json.RawMessage
}

// Initializer is an optional Extension method, called once on a goroutine
// after the editor's "initialized" notification, when Client.Root is known
// (search starts indexing there). ctx ends when the proxy stops.
type Initializer interface {
	Initialized(ctx context.Context, c Client)
}

// Document is an immutable snapshot of an editor buffer as the document
// mirror holds it: the text after every didChange so far, and the version the
// editor gave it (LSP 3.17 "TextDocumentItem").
type Document struct {
	URI        protocol.DocumentURI
	LanguageID string
	Version    int32
	Text       string
}

// ClientCapabilities are the editor capabilities an extension may need to
// shape its answers (from the initialize request; LSP 3.17
// "ClientCapabilities").
type ClientCapabilities struct {
	// DocumentChanges: WorkspaceEdits may use versioned documentChanges
	// (workspace.workspaceEdit.documentChanges); otherwise use changes.
	DocumentChanges bool
	// ApplyEdit: the editor accepts workspace/applyEdit.
	ApplyEdit bool
	// WorkDoneProgress: the editor accepts window/workDoneProgress/create.
	WorkDoneProgress bool
	// CodeActionLiterals: codeAction may return CodeAction literals;
	// otherwise only Commands (textDocument.codeAction.codeActionLiteralSupport).
	CodeActionLiterals bool
}

// Client is an extension's handle on the editor for one request. Its methods
// are safe for concurrent use and never block the proxy's read loops.
type Client interface {
	// Root is the project root directory from the initialize request (the
	// first workspace folder, else rootUri, else rootPath); "" when the
	// editor opened no folder.
	Root() string

	// Capabilities reports what the editor supports.
	Capabilities() ClientCapabilities

	// Document returns the mirror's snapshot of an open document. For a
	// request's Client (a command, a feature's Request) it is the document as
	// it stood when the request arrived, after every notification the editor
	// sent before it and none after (LSP 3.17 "Request, Notification and
	// Response Ordering"), however late the handler asks; for the handle
	// Initialized and Notify get, the mirror as it is now.
	Document(uri protocol.DocumentURI) (Document, bool)

	// ShowMessage sends window/showMessage.
	ShowMessage(typ protocol.MessageType, message string)

	// ApplyEdit asks the editor to apply edit (workspace/applyEdit) and
	// reports whether it did. It waits for the editor's answer or ctx.
	ApplyEdit(ctx context.Context, label string, edit protocol.WorkspaceEdit) (bool, error)

	// BeginProgress starts work done progress titled title (LSP 3.17 "Work
	// Done Progress"): with the request's workDoneToken when the editor sent
	// one, else with window/workDoneProgress/create when the editor supports
	// it (waiting at most Options.ProgressCreateTimeout for its answer),
	// else it returns a Progress that does nothing. The progress is
	// cancellable: the editor's window/workDoneProgress/cancel cancels the
	// request's ctx.
	BeginProgress(ctx context.Context, title string) Progress

	// Logf writes to the proxy's log (never to the editor).
	Logf(format string, args ...any)

	// Notify sends the editor a notification of the proxy's own (a method
	// under "repilot/", documented in EXTENSIONS.md).
	Notify(method string, params any)
}

// Progress reports on work begun with Client.BeginProgress ($/progress).
type Progress interface {
	// Report sends a report; percent is 0-100, kept non-decreasing, and a
	// negative percent sends none.
	Report(message string, percent int)
	// End sends the end notification; later calls do nothing.
	End(message string)
}
