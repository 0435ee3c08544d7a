package cli

// wire.go builds the real repair service (embedded or OpenAI-compatible model,
// JDT LS completion engine) from command-line flags, for "serve" and "repair".
//
// Per project root (started on the first repair there, kept for later ones,
// closed least recently used first and on shutdown; see pool.go):
//   - a shadow JDT LS as completion engine and compiler (engine.StartJDT),
//     with its data in <state>/engine/<hash of root>;
//   - the embedded n-gram model (lm/ngram) trained on the project's .java
//     files plus the JDK's java.base sources, whose counts are cached on disk
//     in <cache>/ngram, so a later start only lexes the project.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/repilot-lsp/repilot-lsp/engine"
	"github.com/repilot-lsp/repilot-lsp/jdtls"
	"github.com/repilot-lsp/repilot-lsp/lm/ngram"
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

// engineStartTimeout bounds starting a shadow JDT LS until ServiceReady
// (Maven projects import their build first).
const engineStartTimeout = 5 * time.Minute

// rootKey is the first 16 hex digits of the SHA-256 of a project root.
func rootKey(root string) string {
	sum := sha256.Sum256([]byte(root))
	return hex.EncodeToString(sum[:8])
}

// engineStateDir is where the shadow JDT LS of root keeps its data: apart from
// the editor-facing JDT LS's (<state>/jdtls), since two live servers must not
// share one.
func engineStateDir(stateDir, root string) string {
	if stateDir != "" {
		return filepath.Join(stateDir, "engine", rootKey(root))
	}
	return filepath.Join(jdtls.CacheDir(), "state", rootKey(root), "engine")
}

// buildRepairer returns the repair service used by serve and repair. It fails
// at once when JDT LS or java is missing; JDT LS and the model start on the
// first repair of each project. The result implements io.Closer: Close stops
// every JDT LS it started.
func buildRepairer(cfg RepairConfig) (repair.Repairer, error) {
	home, err := jdtls.ResolveHome(cfg.JDTLSHome)
	if err != nil {
		return nil, err
	}
	if _, err := jdtls.JavaBinary(); err != nil {
		return nil, err
	}
	progress := cfg.Progress
	if progress == nil {
		progress = func(string, int) {}
	}
	start := func(ctx context.Context, root string) (repair.Backends, func() error, error) {
		return startBackends(ctx, home, cfg.StateDir, root, progress)
	}
	p := newPool(start, cfg.MaxRoots)
	p.alive = engineAlive
	return p, nil
}

// engineAlive reports the exit of a JDT engine's process.
func engineAlive(b repair.Backends) error {
	if j, ok := b.Engine.(*engine.JDT); ok {
		return j.Client().Err()
	}
	return nil
}

// startBackends starts the shadow JDT LS and trains the model for root, in
// parallel.
func startBackends(ctx context.Context, home, stateDir, root string, progress repair.Progress) (repair.Backends, func() error, error) {
	ctx, cancel := context.WithTimeout(ctx, engineStartTimeout)
	defer cancel()
	var (
		wg     sync.WaitGroup
		eng    *engine.JDT
		engErr error
		model  *ngram.Model
		lmErr  error
	)
	wg.Add(2)
	go func() {
		defer wg.Done()
		eng, engErr = startEngine(ctx, home, engineStateDir(stateDir, root), root, nil, progress)
	}()
	go func() {
		defer wg.Done()
		model, lmErr = trainModel(ctx, root, progress)
	}()
	wg.Wait()
	if err := errors.Join(engErr, lmErr); err != nil {
		if eng != nil {
			eng.Close()
		}
		return repair.Backends{}, nil, err
	}
	return repair.Backends{Model: model, Engine: eng, Compiler: eng}, eng.Close, nil
}

// startEngine starts a shadow JDT LS on root (and further project folders)
// with its data in dir and its stderr in dir/stderr.log.
func startEngine(ctx context.Context, home, dir, root string, folders []string, progress repair.Progress) (*engine.JDT, error) {
	began := time.Now()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	logf, err := os.OpenFile(filepath.Join(dir, "stderr.log"), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	what := root
	if len(folders) > 0 {
		what = fmt.Sprintf("%d projects", 1+len(folders))
	}
	progress(fmt.Sprintf("starting JDT LS (completion engine) for %s", what), 0)
	heap := 0
	if len(folders) > 0 {
		heap = 2048
	}
	eng, err := engine.StartJDT(ctx, jdtls.Options{Home: home, Root: root, Folders: folders, StateDir: dir, Stderr: logf, HeapMB: heap})
	if err != nil {
		logf.Close()
		return nil, fmt.Errorf("starting JDT LS for %s (log: %s): %w", what, logf.Name(), err)
	}
	go func() { <-eng.Client().Done(); logf.Close() }()
	progress(fmt.Sprintf("JDT LS ready after %s", time.Since(began).Round(100*time.Millisecond)), 0)
	return eng, nil
}

// trainModel trains the n-gram model on root's .java files plus the JDK's
// java.base sources (their counts cached on disk).
func trainModel(ctx context.Context, root string, progress repair.Progress) (*ngram.Model, error) {
	began := time.Now()
	progress(fmt.Sprintf("training the n-gram model on %s and the JDK sources", root), 0)
	last := ""
	model, err := ngram.Train(ctx, ngram.Sources{Roots: []string{root}}, ngram.Options{
		UseJDK:   true,
		CacheDir: filepath.Join(jdtls.CacheDir(), "ngram"),
		Progress: func(stage string, done, total int) {
			if stage != last {
				last = stage
				progress(fmt.Sprintf("n-gram model: %s (%d/%d)", stage, done, total), 0)
			}
		},
	})
	if err != nil {
		return nil, fmt.Errorf("training the n-gram model on %s: %w", root, err)
	}
	for _, s := range model.Sources() {
		if s.Note != "" {
			progress(fmt.Sprintf("n-gram model: %s source not used: %s", s.Kind, s.Note), 0)
		}
	}
	progress(fmt.Sprintf("n-gram model %s ready after %s", model.Name(), time.Since(began).Round(100*time.Millisecond)), 0)
	return model, nil
}

// sharedRepairer serves several known project roots (a bug corpus) from one
// shadow JDT LS, which imports them all as workspace folders: one start
// instead of one per project. Models are still per root (pooled).
type sharedRepairer struct {
	*pool
	once sync.Once
	eng  *engine.JDT
	err  error
}

// buildSharedRepairer returns a repair service for repairs in roots only
// (absolute project directories), with one JDT LS for all of them, started on
// the first repair. Close stops it.
func buildSharedRepairer(cfg RepairConfig, roots []string) (repair.Repairer, error) {
	home, err := jdtls.ResolveHome(cfg.JDTLSHome)
	if err != nil {
		return nil, err
	}
	if _, err := jdtls.JavaBinary(); err != nil {
		return nil, err
	}
	if len(roots) == 0 {
		return nil, errors.New("no project roots")
	}
	progress := cfg.Progress
	if progress == nil {
		progress = func(string, int) {}
	}
	known := map[string]bool{}
	for _, r := range roots {
		known[r] = true
	}
	s := &sharedRepairer{}
	dir := engineStateDir(cfg.StateDir, "shared:"+strings.Join(roots, "\x00"))
	start := func(ctx context.Context, root string) (repair.Backends, func() error, error) {
		if !known[root] {
			return repair.Backends{}, nil, fmt.Errorf("project %s is not one of the shared engine's projects", root)
		}
		s.once.Do(func() {
			ctx, cancel := context.WithTimeout(ctx, engineStartTimeout)
			defer cancel()
			s.eng, s.err = startEngine(ctx, home, dir, roots[0], roots[1:], progress)
		})
		if s.err != nil {
			return repair.Backends{}, nil, s.err
		}
		model, err := trainModel(ctx, root, progress)
		if err != nil {
			return repair.Backends{}, nil, err
		}
		return repair.Backends{Model: model, Engine: s.eng, Compiler: s.eng}, func() error { return nil }, nil
	}
	s.pool = newPool(start, cfg.MaxRoots)
	return s, nil
}

// Close stops the pool and the shared JDT LS.
func (s *sharedRepairer) Close() error {
	err := s.pool.Close()
	if s.eng != nil {
		err = errors.Join(err, s.eng.Close())
	}
	return err
}
