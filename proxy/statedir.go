package proxy

// statedir.go gives the editor's JDT LS a configuration and workspace data
// folder that no other live JDT LS uses: two `serve` processes on one
// project (two editor windows) share a state directory, and two JDT LS on
// one Eclipse workspace would fight over its lock and its index.

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"

	"github.com/repilot-lsp/repilot-lsp/internal/cachedir"
)

// editorState is the folder the editor's JDT LS keeps its state in, held
// for this process.
type editorState struct {
	dir     string
	lock    *os.File // holds the flock on <stateDir>/jdtls.lock; nil for a private folder
	private bool     // dir is this process's own (removed by release)
}

// sharedRunPrefix names the private folders: jdtls-run-<pid>-<n>.
const sharedRunPrefix = "jdtls-run-"

// lockEditorState picks the editor JDT LS's folder under stateDir:
// <stateDir>/jdtls while this process holds the exclusive flock(2) on
// <stateDir>/jdtls.lock, so that a serve started again on the project finds
// its workspace data (and JDT LS's index) again; when another live process
// holds that lock (a second serve on the project), a folder of its own,
// <stateDir>/jdtls-run-<pid>-<n> (cachedir.RunDir, which also removes those
// of dead processes), removed by release. The lock goes with the process,
// however it ends (the descriptor is not inherited by JDT LS: close on
// exec).
func lockEditorState(stateDir string) (*editorState, error) {
	if err := os.MkdirAll(stateDir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(stateDir, "jdtls.lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if err == nil {
		cachedir.RemoveDeadRuns(stateDir, sharedRunPrefix)
		return &editorState{dir: filepath.Join(stateDir, "jdtls"), lock: f}, nil
	}
	f.Close()
	if !errors.Is(err, syscall.EWOULDBLOCK) {
		return nil, err
	}
	dir, err := cachedir.RunDir(stateDir, sharedRunPrefix)
	if err != nil {
		return nil, err
	}
	return &editorState{dir: dir, private: true}, nil
}

// release gives the folder back: a private one is removed, the shared
// one's lock is released. Call it once JDT LS has exited.
func (s *editorState) release() {
	if s == nil {
		return
	}
	if s.private {
		_ = os.RemoveAll(s.dir)
	}
	if s.lock != nil {
		_ = s.lock.Close()
	}
}
