package cli

// wire.go builds the real repair service (embedded or OpenAI-compatible model,
// JDT LS completion engine) from command-line flags, for "serve" and "repair".

import (
	"errors"

	"github.com/repilot-lsp/repilot-lsp/repair"
)

// RepairConfig is what the repair service needs from flags and environment.
type RepairConfig struct {
	JDTLSHome string // JDT LS install (flag --jdtls, env REPILOT_JDTLS_HOME)
	StateDir  string // where engine JDT LS data and model caches live
	// Progress, if set, receives messages about slow start-up work (starting
	// JDT LS, training the model).
	Progress repair.Progress
	// MaxRoots bounds how many projects keep a live JDT LS and model at once
	// (0: 4); the least recently used project's are closed first.
	MaxRoots int
}

// buildRepairer returns the repair service used by serve and repair.
func buildRepairer(cfg RepairConfig) (repair.Repairer, error) {
	return nil, errors.New("repair service not wired yet")
}
