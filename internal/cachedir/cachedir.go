// Package cachedir is the one place that says where repilot-lsp keeps its
// caches: $REPILOT_CACHE, else ~/.cache/repilot-lsp, the directory the
// install scripts fill (scripts/lib.sh) with JDT LS, llama.cpp and the test
// models, and under which the program keeps its JDT LS state, n-gram counts
// and search indexes.
//
// It imports no package of the module, so that any package (and any test
// helper) can use it.
package cachedir

import (
	"os"
	"path/filepath"
)

// Env is the environment variable that, when set, is the cache root.
const Env = "REPILOT_CACHE"

// Root returns the cache root: $REPILOT_CACHE when set, else
// $HOME/.cache/repilot-lsp, else (no home directory) repilot-lsp under the
// system's temporary directory. It creates nothing.
func Root() string {
	if c := os.Getenv(Env); c != "" {
		return c
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "repilot-lsp")
	}
	return filepath.Join(home, ".cache", "repilot-lsp")
}
