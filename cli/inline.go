package cli

// inline.go wires ghost text (package inline) into serve, over the repair
// pool's per-root backends (one shadow JDT LS and model per project, used by
// one request at a time).

import (
	"context"
	"errors"
	"time"

	"github.com/repilot-lsp/repilot-lsp/inline"
	"github.com/repilot-lsp/repilot-lsp/proxy"
	"github.com/repilot-lsp/repilot-lsp/proxy/feature/inlinefeat"
	"github.com/repilot-lsp/repilot-lsp/repair"
)

// inlineAcquire returns an inline.Acquire over p's backends.
func (p *pool) inlineAcquire() inline.Acquire {
	return func(ctx context.Context, root string, fn func(inline.Backends) error) error {
		if root == "" {
			return errors.New("ghost text needs a project folder: open a folder, not a single file")
		}
		e, err := p.acquire(ctx, root)
		if err != nil {
			return err
		}
		defer p.release(e)
		return fn(inline.Backends{Model: e.b.Model, Engine: e.b.Engine, Compiler: e.b.Compiler})
	}
}

// inlineExtension returns the ghost-text extension over the repair service's
// backends, or nil when rep is not the pooled service (repair unavailable).
func inlineExtension(rep repair.Repairer) proxy.Extension {
	p, ok := rep.(*pool)
	if !ok {
		return nil
	}
	return inlinefeat.New(inline.NewService(p.inlineAcquire(), inline.Options{AutomaticBudget: inlineAutomaticBudget}))
}

// inlineAutomaticBudget bounds the generation of an automatic ghost-text
// request in serve (and bench inline's default): without it, a request that
// meets many engine calls took up to 16 s under load (bench inline on gson,
// p95 warm), long after the user typed on.
const inlineAutomaticBudget = time.Second
