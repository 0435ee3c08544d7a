// Package proxy is the editor-facing language server of repilot-lsp: it sits
// between the editor and Eclipse JDT LS, forwards every LSP message both ways
// as raw bytes, and hosts a few features (extensions, in proxy/feature/...)
// beside JDT LS.
//
// # Bird's-eye view
//
//	editor --stdin--> clientLoop --(raw bytes, arrival order)--> JDT LS stdin
//	editor <--stdout-- (raw bytes) <-- serverLoop <------------- JDT LS stdout
//
// Only the methods in the proxy's method table are intercepted (routes.go:
// the forwarder's own, and those the features register);
// everything else, including JDT LS's own extensions (language/status, java/*,
// workspace/executeClientCommand "_java.reloadBundles.command") and opaque
// "data" fields, passes through byte-for-byte. Server-to-client requests and
// their responses pass through as well.
//
// # Code map
//
//   - proxy.go: Options, Run, the routing loops and the tables of requests in
//     flight.
//   - routes.go: the method table, which drives dispatch, the intercepted
//     list and the features' capabilities.
//   - lsp.go: the few LSP 3.17 shapes decoded locally, and message builders.
//   - mirror.go: the document mirror (didOpen/didChange/didClose, UTF-16
//     positions through package textpos; a document that edits grow past
//     the editor's message body limit is dropped from it).
//   - initialize.go: merging the proxy's capabilities into JDT LS's initialize
//     result and into its dynamic registrations.
//   - codeaction.go, command.go: the intercepted feature requests
//     (code actions, commands, cancellation), and the Client handle
//     extensions use to talk to the editor.
//   - supervise.go: starting JDT LS, crash handling, restart, shutdown.
//   - extension.go: the Extension interface features implement, with
//     MethodHandler (the methods a feature adds to the table) and
//     Initializer.
//   - feature/...: the features, one package each (repairfeat, searchfeat,
//     inlinefeat); they import this package, never the reverse, so the
//     forwarder knows no feature by name.
//   - EXTENSIONS.md: what editors see beyond JDT LS (commands, results,
//     errors), kept in step by extensions_doc_test.go.
//
// # Id spaces
//
// Requests the proxy itself sends, to either side, use string ids
// "repilot/<tag>/<n>", tag random per process, never one a peer's request in
// flight has; their responses are consumed by the proxy and never
// forwarded. A peer's request that copies one still waiting is answered
// with InvalidRequest instead of being passed on. Client requests keep their ids on the way to JDT LS, and JDT LS's
// requests keep theirs on the way to the editor: the two peers' id spaces are
// independent (LSP 3.17, "Base Protocol"), so the proxy tracks them in
// separate tables.
//
// # Architecture invariants
//
//   - Client messages reach JDT LS in arrival order; nothing that can block
//     (model work, waiting on the editor) runs on the read loops.
//   - The proxy never writes to stdout except LSP messages, and never writes
//     the user's files: edits are offered to the editor as WorkspaceEdits.
//   - Extensions see editor terms (documents, ranges, commands); only this
//     package speaks the wire.
package proxy
