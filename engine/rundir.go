package engine

import (
	"os"
	"path/filepath"

	"github.com/repilot-lsp/repilot-lsp/internal/cachedir"
)

// runDir makes the folder a shadow JDT LS of this process keeps its
// configuration and workspace data in: <stateDir>/run-<pid>-<n>, new for
// each start and removed by Close, after removing the run folders of
// processes that no longer exist (a run ended by SIGKILL;
// cachedir.RunDir).
//
// Why not reuse <stateDir> across runs: JDT LS 1.20, started again on the
// workspace data of an earlier run, answered type searches without JDK types
// that the file imports on demand (`import java.util.*;`): after
// `Object o = new ` the list lacked ArrayList, after `Iterator` the
// following `<` was judged impossible, so the engine pruned valid code in
// every run after the first on a project (TestRestartKeepsOnDemandTypes). A
// fresh data folder costs a fresh index each start, which the warm-up pays.
func runDir(stateDir string) (string, error) {
	if err := os.MkdirAll(stateDir, 0o755); err != nil {
		return "", err
	}
	removeLegacyLayout(stateDir)
	return cachedir.RunDir(stateDir, runPrefix)
}

// runPrefix names the run folders: run-<pid>-<n>.
const runPrefix = "run-"

// removeStaleRuns removes stateDir's run-<pid>-<n> folders whose process is
// gone (cachedir.RemoveDeadRuns).
func removeStaleRuns(stateDir string) { cachedir.RemoveDeadRuns(stateDir, runPrefix) }

// removeLegacyLayout removes the configuration and workspace folders that
// versions before per-run folders (b0ccd2d) kept directly in stateDir,
// <stateDir>/config and <stateDir>/data, which no version reads any more:
// a JDT LS install's configuration copy takes a few MB and the workspace
// data an index of the project and the JDK, tens of MB. Only that exact
// layout goes: config when it holds Equinox's config.ini, data when it
// holds Eclipse's workspace metadata (.metadata), and neither while a
// process holds a lock in them (legacyInUse: a JDT LS of an older binary
// still running on them). Errors are ignored: a folder left behind only
// takes space.
func removeLegacyLayout(stateDir string) {
	cfg, data := filepath.Join(stateDir, "config"), filepath.Join(stateDir, "data")
	oldCfg := isDir(cfg) && isRegular(filepath.Join(cfg, "config.ini"))
	oldData := isDir(data) && isDir(filepath.Join(data, ".metadata"))
	if !oldCfg && !oldData || legacyInUse(cfg, data) {
		return
	}
	if oldCfg {
		_ = os.RemoveAll(cfg)
	}
	if oldData {
		_ = os.RemoveAll(data)
	}
}

// isDir reports whether path is a directory itself (not a link to one).
func isDir(path string) bool {
	st, err := os.Lstat(path)
	return err == nil && st.IsDir()
}

// isRegular reports whether path is a regular file (not a link to one).
func isRegular(path string) bool {
	st, err := os.Lstat(path)
	return err == nil && st.Mode().IsRegular()
}
