package repairfeat

// apply.go is the command repilot.applyPatch: it applies one of a repair's
// patches through workspace/applyEdit (the server-to-client request, LSP 3.17
// "Applies a WorkspaceEdit"), after checking that the document is still at
// the version the repair read, so that any LSP client applies a patch in one
// step.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/repilot-lsp/repilot-lsp/jsonrpc"
	"github.com/repilot-lsp/repilot-lsp/proxy"
)

// CommandApplyPatch is the workspace/executeCommand id that applies a patch.
// Its one argument is ApplyPatchArgs (a RepairPatch's Command carries it);
// its result is ApplyPatchResult.
const CommandApplyPatch = "repilot.applyPatch"

// ApplyPatchArgs is the argument of CommandApplyPatch: the patch's edit, the
// document it changes and the document version the repair read. The edit
// must change that document only.
type ApplyPatchArgs struct {
	URI     protocol.DocumentURI   `json:"uri"`
	Version int32                  `json:"version"`
	Title   string                 `json:"title,omitempty"`
	Edit    protocol.WorkspaceEdit `json:"edit"`
}

// ApplyPatchResult is CommandApplyPatch's result. Applied is true when the
// editor applied the edit (workspace/applyEdit answered applied: true). An
// editor without workspace.applyEdit gets Applied false and the Edit to apply
// itself.
type ApplyPatchResult struct {
	Applied bool                    `json:"applied"`
	Edit    *protocol.WorkspaceEdit `json:"edit,omitempty"`
}

// MsgDocumentChanged starts the error CommandApplyPatch returns
// (ContentModified) when the document is no longer at the repair's version.
const MsgDocumentChanged = "the document changed since the repair"

// applyCommand is the Command that applies pt through CommandApplyPatch.
func applyCommand(uri protocol.DocumentURI, version int32, pt RepairPatch) *protocol.Command {
	return &protocol.Command{Title: pt.Title, Command: CommandApplyPatch,
		Arguments: []any{ApplyPatchArgs{URI: uri, Version: version, Title: pt.Title, Edit: pt.Edit}}}
}

// applyPatch runs CommandApplyPatch.
func (x *repairExt) applyPatch(ctx context.Context, c proxy.Client, command string, args []json.RawMessage) (any, error) {
	if len(args) != 1 {
		return nil, proxy.Errorf(jsonrpc.CodeInvalidParams, "%s takes one argument {uri, version, edit}, got %d", command, len(args))
	}
	var a ApplyPatchArgs
	if err := json.Unmarshal(args[0], &a); err != nil || a.URI == "" {
		msg := "uri is missing"
		if err != nil {
			msg = err.Error()
		}
		return nil, proxy.Errorf(jsonrpc.CodeInvalidParams, "%s: bad argument (want {uri, version, edit}): %s", command, msg)
	}
	if err := editsOnly(a.Edit, a.URI, a.Version); err != nil {
		return nil, proxy.Errorf(jsonrpc.CodeInvalidParams, "%s: %v", command, err)
	}
	doc, ok := c.Document(a.URI)
	if !ok {
		return nil, proxy.Errorf(jsonrpc.CodeInvalidParams, "%s is not open in the editor: the patch was not applied", a.URI)
	}
	if doc.Version != a.Version {
		return nil, proxy.Errorf(jsonrpc.CodeContentModified, "%s (version %d, now %d): the patch was not applied; repair the lines again",
			MsgDocumentChanged, a.Version, doc.Version)
	}
	if err := x.claim(a.URI, a.Version); err != nil {
		return nil, err
	}
	if !c.Capabilities().ApplyEdit {
		x.unclaim(a.URI, a.Version) // the editor applies it, or not
		edit := a.Edit
		return ApplyPatchResult{Edit: &edit}, nil
	}
	label := a.Title
	if label == "" {
		label = "Apply Repilot patch"
	}
	actx, cancel := context.WithTimeout(ctx, x.applyTimeout)
	applied, err := c.ApplyEdit(actx, label, a.Edit)
	cancel()
	if err != nil || !applied {
		// Not applied (or not known to be: a cancelled applyEdit the editor
		// applied anyway moves the version on, which the check above sees).
		x.unclaim(a.URI, a.Version)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, proxy.Errorf(jsonrpc.CodeRequestCancelled, "applying the patch was cancelled")
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, proxy.Errorf(jsonrpc.CodeRequestFailed, "the patch was not applied: the editor did not answer workspace/applyEdit within %v (if it applies the edit later, the document's version moves on)", x.applyTimeout)
		}
		return nil, proxy.Errorf(jsonrpc.CodeRequestFailed, "the patch was not applied: %v", err)
	}
	if !applied {
		return nil, proxy.Errorf(jsonrpc.CodeRequestFailed, "the patch was not applied: the editor refused the edit without a reason (the document may have changed)")
	}
	return ApplyPatchResult{Applied: true}, nil
}

// editsOnly checks that edit is non-empty and changes the document uri
// only, at version where its documentChanges name one.
func editsOnly(edit protocol.WorkspaceEdit, uri protocol.DocumentURI, version int32) error {
	n := 0
	for u, tes := range edit.Changes {
		if u != uri {
			return fmt.Errorf("the edit changes %s, not the patch's document %s", u, uri)
		}
		n += len(tes)
	}
	for _, dc := range edit.DocumentChanges {
		if dc.TextDocument.URI != uri {
			return fmt.Errorf("the edit changes %s, not the patch's document %s", dc.TextDocument.URI, uri)
		}
		if v := dc.TextDocument.Version; v != nil && *v != version {
			return fmt.Errorf("the edit is for version %d of the document, the patch for version %d", *v, version)
		}
		n += len(dc.Edits)
	}
	if n == 0 {
		return fmt.Errorf("the edit is empty")
	}
	return nil
}

// patchVersions is what the feature knows of one open document's patches:
// the versions repairs read (whose patches repilot.applyPatch may apply)
// and the versions a patch has been applied to, or is being applied to.
// Both are forgotten when the document is closed or opened again: the
// editor may reopen it at the same version number with other text.
type patchVersions struct {
	repaired map[int32]bool
	applied  map[int32]bool
}

// maxRepairedVersions bounds patchVersions.repaired: the oldest version is
// forgotten first (a patch of it is then refused as stale).
const maxRepairedVersions = 64

// noteRepaired records that a repair read uri at version. It returns the
// document's record, which didClose and didOpen replace: a repair that
// finds another one at its end read a document closed since.
func (x *repairExt) noteRepaired(uri protocol.DocumentURI, version int32) *patchVersions {
	x.mu.Lock()
	defer x.mu.Unlock()
	pv := x.patched[uri]
	if pv == nil {
		pv = &patchVersions{repaired: map[int32]bool{}, applied: map[int32]bool{}}
		x.patched[uri] = pv
	}
	if len(pv.repaired) >= maxRepairedVersions {
		oldest := version
		for v := range pv.repaired {
			oldest = min(oldest, v)
		}
		delete(pv.repaired, oldest)
	}
	pv.repaired[version] = true
	return pv
}

// claim reserves version of uri for one patch: it fails (ContentModified)
// when no repair of the document as it is open now read that version (it
// was closed since, or the patch is another server's), and when a patch
// was already applied to it or is being applied (a double click, or the
// editor's didChange still on its way). Two claims of one version cannot
// both succeed (x.mu); an edit typed between the version check and the
// applyEdit is caught by the editor only when the edit names its version
// (documentChanges).
func (x *repairExt) claim(uri protocol.DocumentURI, version int32) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	pv := x.patched[uri]
	if pv == nil || !pv.repaired[version] {
		return proxy.Errorf(jsonrpc.CodeContentModified, "%s: no repair of %s at version %d since it was opened (it was closed and reopened, or the server restarted): the patch was not applied; repair the lines again",
			MsgDocumentChanged, uri, version)
	}
	if pv.applied[version] {
		return proxy.Errorf(jsonrpc.CodeContentModified, "%s: a patch was already applied to version %d (or is being applied): the patch was not applied; repair the lines again",
			MsgDocumentChanged, version)
	}
	pv.applied[version] = true
	return nil
}

// unclaim frees version of uri after a patch was not applied.
func (x *repairExt) unclaim(uri protocol.DocumentURI, version int32) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if pv := x.patched[uri]; pv != nil {
		delete(pv.applied, version)
	}
}

// Methods observes textDocument/didOpen and didClose: either ends what the
// feature knows of the document's patches (the remembered result offered
// as code actions, and the versions repilot.applyPatch accepts).
func (x *repairExt) Methods() []proxy.Method {
	forget := func(_ proxy.Client, params json.RawMessage) {
		var p struct {
			TextDocument struct {
				URI protocol.DocumentURI `json:"uri"`
			} `json:"textDocument"`
		}
		if json.Unmarshal(params, &p) != nil || p.TextDocument.URI == "" {
			return
		}
		x.mu.Lock()
		delete(x.last, p.TextDocument.URI)
		delete(x.patched, p.TextDocument.URI)
		x.mu.Unlock()
	}
	return []proxy.Method{{Name: "textDocument/didOpen", Notify: forget}, {Name: "textDocument/didClose", Notify: forget}}
}
