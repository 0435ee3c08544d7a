package proxy

// extension.go defines what a feature added beside JDT LS implements
// (Extension, and the optional SymbolProvider, Initializer and Observer), and
// the Client handle through which it reaches the editor.

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

// SymbolProvider is an Extension that answers some workspace/symbol queries
// itself (semantic search answers queries starting with "?").
type SymbolProvider interface {
	Extension

	// ClaimsSymbolQuery reports, cheaply and on the read loop, whether the
	// extension answers query; unclaimed queries go to JDT LS.
	ClaimsSymbolQuery(query string) bool

	// WorkspaceSymbols answers a claimed query (LSP 3.17 "workspace/symbol").
	// It runs off the read loop; ctx is cancelled by $/cancelRequest.
	WorkspaceSymbols(ctx context.Context, c Client, params *protocol.WorkspaceSymbolParams) ([]protocol.SymbolInformation, error)
}

// Initializer is an optional Extension method, called once on a goroutine
// after the editor's "initialized" notification, when Client.Root is known
// (search starts indexing there). ctx ends when the proxy stops.
type Initializer interface {
	Initialized(ctx context.Context, c Client)
}

// Observer is an optional Extension method: Observe is called on the read loop
// for every notification the editor sends (textDocument/didSave,
// workspace/didChangeWatchedFiles, ...), after the document mirror has been
// updated, in arrival order. It must return at once; params must not be
// retained without copying.
type Observer interface {
	Observe(method string, params json.RawMessage)
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

	// Document returns the mirror's snapshot of an open document.
	Document(uri protocol.DocumentURI) (Document, bool)

	// ShowMessage sends window/showMessage.
	ShowMessage(typ protocol.MessageType, message string)

	// ApplyEdit asks the editor to apply edit (workspace/applyEdit) and
	// reports whether it did. It waits for the editor's answer or ctx.
	ApplyEdit(ctx context.Context, label string, edit protocol.WorkspaceEdit) (bool, error)

	// BeginProgress starts work done progress titled title (LSP 3.17 "Work
	// Done Progress"): with the request's workDoneToken when the editor sent
	// one, else with window/workDoneProgress/create when the editor supports
	// it, else it returns a Progress that does nothing. The progress is
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
