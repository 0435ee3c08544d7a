package repairfeat

// apply.go is the command repilot.applyPatch: it applies one of a repair's
// patches through workspace/applyEdit (the server-to-client request, LSP 3.17
// "Applies a WorkspaceEdit"), after checking that the document is still at
// the version the repair read, so that any LSP client applies a patch in one
// step.

import (
	"context"
	"encoding/json"
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
	if err := editsOnly(a.Edit, a.URI); err != nil {
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
	if !c.Capabilities().ApplyEdit {
		edit := a.Edit
		return ApplyPatchResult{Edit: &edit}, nil
	}
	label := a.Title
	if label == "" {
		label = "Apply Repilot patch"
	}
	applied, err := c.ApplyEdit(ctx, label, a.Edit)
	if err != nil {
		if ctx.Err() != nil {
			return nil, proxy.Errorf(jsonrpc.CodeRequestCancelled, "applying the patch was cancelled")
		}
		return nil, proxy.Errorf(jsonrpc.CodeRequestFailed, "the patch was not applied: %v", err)
	}
	if !applied {
		return nil, proxy.Errorf(jsonrpc.CodeRequestFailed, "the patch was not applied: the editor refused the edit without a reason (the document may have changed)")
	}
	return ApplyPatchResult{Applied: true}, nil
}

// editsOnly checks that edit is non-empty and changes the document uri only.
func editsOnly(edit protocol.WorkspaceEdit, uri protocol.DocumentURI) error {
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
		n += len(dc.Edits)
	}
	if n == 0 {
		return fmt.Errorf("the edit is empty")
	}
	return nil
}
