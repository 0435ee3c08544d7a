package repairfeat

// warm.go starts a project's repair backends when the editor opens its first
// Java document, through the optional Warmer method of the Repairer.

import (
	"context"
	"encoding/json"

	"go.lsp.dev/protocol"

	"github.com/repilot-lsp/repilot-lsp/proxy"
	"github.com/repilot-lsp/repilot-lsp/repair"
)

// Warmer is an optional Repairer method: Warm starts the backends of the
// project at root (its shadow JDT LS and model) ahead of the first repair,
// and returns when they are ready, when they fail, or when ctx ends. The
// repair feature calls it on a goroutine of its own, once per project root,
// when the editor opens the root's first Java document
// (textDocument/didOpen, which the feature observes through the proxy's
// method table).
type Warmer interface {
	Warm(ctx context.Context, root string, progress repair.Progress) error
}

// Methods observes textDocument/didOpen, to warm the backends.
func (x *repairExt) Methods() []proxy.Method {
	if _, ok := x.r.(Warmer); !ok {
		return nil
	}
	return []proxy.Method{{Name: "textDocument/didOpen", Notify: x.didOpen}}
}

// Initialized keeps the proxy's life (the context warming runs under) and
// the editor's capabilities (for the code actions).
func (x *repairExt) Initialized(ctx context.Context, c proxy.Client) {
	x.mu.Lock()
	x.ctx = ctx
	x.caps = c.Capabilities()
	x.mu.Unlock()
}

// didOpen warms the backends of the project of an opened Java document,
// once per project root. It returns at once.
func (x *repairExt) didOpen(c proxy.Client, params json.RawMessage) {
	var p struct {
		TextDocument protocol.TextDocumentItem `json:"textDocument"`
	}
	if json.Unmarshal(params, &p) != nil || !proxy.IsJavaURI(string(p.TextDocument.URI)) {
		return
	}
	file, err := proxy.URIPath(string(p.TextDocument.URI))
	if err != nil {
		return
	}
	root := repair.ProjectRoot(file, p.TextDocument.Text, c.Root())
	x.mu.Lock()
	if x.warmed[root] {
		x.mu.Unlock()
		return
	}
	x.warmed[root] = true
	ctx := x.ctx
	x.mu.Unlock()
	if ctx == nil { // didOpen before the Initialized hook ran
		ctx = context.Background()
	}
	w := x.r.(Warmer)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				c.Logf("bug: warming the repair backends of %s panicked: %v", root, r)
			}
		}()
		if err := w.Warm(ctx, root, func(string, int) {}); err != nil && ctx.Err() == nil {
			c.Logf("repair: starting the backends of %s ahead of the first repair failed: %v", root, err)
		}
	}()
}
