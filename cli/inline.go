package cli

// inline.go wires ghost text (package inline) into serve, over the repair
// pool's per-root backends (backend.Pool: one shadow JDT LS and model per
// project, used by one request at a time).

import (
	"time"

	"github.com/repilot-lsp/repilot-lsp/backend"
	"github.com/repilot-lsp/repilot-lsp/inline"
	"github.com/repilot-lsp/repilot-lsp/proxy"
	"github.com/repilot-lsp/repilot-lsp/proxy/feature/inlinefeat"
	"github.com/repilot-lsp/repilot-lsp/repair"
)

// inlineExtension returns the ghost-text extension over the repair service's
// backends, or nil when rep is not the pooled service (repair unavailable).
func inlineExtension(rep repair.Repairer) proxy.Extension {
	p, ok := rep.(*backend.Pool)
	if !ok {
		return nil
	}
	return inlinefeat.New(inline.NewService(p.InlineAcquire(), inline.Options{AutomaticBudget: inlineAutomaticBudget,
		AutomaticSamples: inlineAutomaticSamples, AutomaticTemperature: inlineAutomaticTemperature,
		InvokedBudget: inlineInvokedBudget}))
}

// inlineAutomaticBudget bounds a whole automatic ghost-text request in serve
// (and bench inline's default), sampling and compile checks together
// (inline.Options.AutomaticBudget): without it, a request that meets many
// engine calls took up to 16 s under load (bench inline on gson, p95 warm),
// long after the user typed on.
const inlineAutomaticBudget = time.Second

// inlineInvokedBudget bounds the work of an invoked ghost-text request in
// serve (and bench inline --invoked), sampling and compile checks together,
// counted once the project's backends are held (inline.Options.InvokedBudget):
// without it an invoked request tried its samples whatever their checks
// cost, 16.9 s once in VS Code under load. Five times the automatic budget:
// an explicit ask may wait longer, and a cold first check of a file under
// load (1-2.5 s) still fits.
const inlineInvokedBudget = 5 * time.Second

// inlineAutomaticSamples and inlineAutomaticTemperature: an automatic
// request tries the greedy sample and, when it fails the compile check, one
// more at temperature 0.3, within inlineAutomaticBudget (inline.Options).
// Measured side by side (bench inline --compare-samples 2
// --compare-temperature 0.3, README "Ghost text"): on gson 43% of requests
// shown instead of 37%, exact match 27% instead of 23% (unguided 23%); on the
// JDK's jdk.internal.opt 31.2% instead of 26.2%, exact 15.0% instead of 12.5%
// (unguided 13.8%). The second sample runs only where the greedy one showed
// nothing, so a greedy suggestion comes as fast as before; p50 warm over all
// requests doubled (202 to 429 ms, 117 to 253 ms). At temperature 0.8 the
// second sample often ran out the budget and showed no more on
// jdk.internal.opt.
const (
	inlineAutomaticSamples     = 2
	inlineAutomaticTemperature = 0.3
)
