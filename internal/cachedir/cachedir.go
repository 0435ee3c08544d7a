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
	"crypto/sha256"
	"encoding/hex"
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

// Path returns the cache entry elem under Root, e.g. Path("ngram") for the
// n-gram model's counts. It creates nothing.
func Path(elem ...string) string {
	return filepath.Join(append([]string{Root()}, elem...)...)
}

// ProjectState returns the default state directory of a project root (an
// absolute path): Root()/state/<first 16 hex digits of the SHA-256 of root>.
// The editor's JDT LS keeps its data in <it>/jdtls, the repair engine's
// JDT LS in <it>/engine. It creates nothing.
func ProjectState(root string) string {
	return Path("state", RootKey(root))
}

// RootKey is the first 16 hex digits of the SHA-256 of a project root: the
// name of its state directory.
func RootKey(root string) string {
	sum := sha256.Sum256([]byte(root))
	return hex.EncodeToString(sum[:8])
}
