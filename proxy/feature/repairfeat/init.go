package repairfeat

import (
	"context"

	"github.com/repilot-lsp/repilot-lsp/proxy"
)

// Initialized keeps the editor's capabilities (which decide whether patches
// carry the repilot.applyPatch command).
func (x *repairExt) Initialized(_ context.Context, c proxy.Client) {
	x.mu.Lock()
	x.caps = c.Capabilities()
	x.mu.Unlock()
}
