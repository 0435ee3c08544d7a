// initialize.go runs the LSP initialize handshake (LSP 3.17 "Initialize
// Request") and declares the client capabilities a completion engine uses.

package jdtls

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"go.lsp.dev/protocol"
)

// initializeParams are protocol.InitializeParams with the capabilities as
// clientCapabilities builds them: the field here is shallower than the
// embedded one, so encoding/json writes this one and ignores the other.
type initializeParams struct {
	protocol.InitializeParams
	Capabilities map[string]any `json:"capabilities"`
}

// initializationOptions are JDT LS's initializationOptions (its
// InitHandler): the client settings, the workspace folders' URIs, and the
// extended client capabilities (JDT LS's own, outside the specification).
type initializationOptions struct {
	Settings                   map[string]any             `json:"settings"`
	WorkspaceFolders           []string                   `json:"workspaceFolders"`
	ExtendedClientCapabilities extendedClientCapabilities `json:"extendedClientCapabilities"`
}

// extendedClientCapabilities: no class file contents (java/classFileContents),
// which a completion engine never asks for.
type extendedClientCapabilities struct {
	ClassFileContentsSupport bool `json:"classFileContentsSupport"`
}

// initialize sends initialize and initialized (LSP 3.17 "Initialize Request").
func (c *Client) initialize(ctx context.Context) error {
	rootURI := FileURI(c.opts.Root)
	folders := []protocol.WorkspaceFolder{{URI: rootURI, Name: filepath.Base(c.opts.Root)}}
	folderURIs := []string{rootURI}
	for _, f := range c.opts.Folders {
		folders = append(folders, protocol.WorkspaceFolder{URI: FileURI(f), Name: filepath.Base(f)})
		folderURIs = append(folderURIs, FileURI(f))
	}
	params := initializeParams{
		InitializeParams: protocol.InitializeParams{
			ProcessID:  int32(os.Getpid()),
			ClientInfo: &protocol.ClientInfo{Name: "repilot-lsp engine"},
			// rootUri and rootPath are deprecated (LSP 3.17 "Initialize
			// Request": workspaceFolders) but still sent, for a server
			// that reads only them; they name the same root.
			//lint:ignore SA1019 sent on purpose, see above
			RootURI: protocol.DocumentURI(rootURI),
			//lint:ignore SA1019 sent on purpose, see above
			RootPath:         c.opts.Root,
			WorkspaceFolders: folders,
			InitializationOptions: initializationOptions{
				Settings:         c.settings,
				WorkspaceFolders: folderURIs,
			},
			Trace: protocol.TraceOff,
		},
		Capabilities: clientCapabilities(),
	}
	if _, err := c.call(ctx, "initialize", params); err != nil {
		return fmt.Errorf("jdtls: initialize: %w", err)
	}
	if err := c.conn.Notify("initialized", protocol.InitializedParams{}); err != nil {
		return fmt.Errorf("jdtls: initialized: %w", c.wrapErr(err))
	}
	return nil
}

// clientCapabilities declares what a completion engine uses (LSP 3.17
// "ClientCapabilities"): plain-text completion (no snippets) with label details
// and list item defaults, versioned diagnostics, workspace/configuration, and
// dynamic registration (JDT LS registers completion only dynamically).
//
// It stays a map, not protocol.ClientCapabilities: go.lsp.dev/protocol v0.12
// (LSP 3.16) has no labelDetailsSupport or completionList.itemDefaults
// (3.17), and its boolean fields are omitempty, so the explicit false values
// below (snippetSupport, applyEdit, ...) would not be sent.
func clientCapabilities() map[string]any {
	kinds := make([]int, 25)
	for i := range kinds {
		kinds[i] = i + 1
	}
	return map[string]any{
		"workspace": map[string]any{
			"configuration":          true,
			"workspaceFolders":       true,
			"applyEdit":              false,
			"didChangeConfiguration": map[string]any{"dynamicRegistration": true},
			"executeCommand":         map[string]any{"dynamicRegistration": true},
			"didChangeWatchedFiles":  map[string]any{"dynamicRegistration": false},
		},
		"textDocument": map[string]any{
			"synchronization": map[string]any{"dynamicRegistration": true, "didSave": false,
				"willSave": false, "willSaveWaitUntil": false},
			"completion": map[string]any{
				"dynamicRegistration": true,
				"contextSupport":      true,
				"completionItem": map[string]any{
					"snippetSupport":          false,
					"commitCharactersSupport": false,
					"documentationFormat":     []string{"plaintext"},
					"deprecatedSupport":       true,
					"labelDetailsSupport":     true,
					"insertReplaceSupport":    false,
				},
				"completionItemKind": map[string]any{"valueSet": kinds},
				"completionList": map[string]any{
					"itemDefaults": []string{"commitCharacters", "editRange", "insertTextFormat", "insertTextMode", "data"},
				},
			},
			"publishDiagnostics": map[string]any{
				"relatedInformation": false,
				"versionSupport":     true,
				"tagSupport":         map[string]any{"valueSet": []int{1, 2}},
			},
		},
		"window": map[string]any{"workDoneProgress": false},
	}
}
