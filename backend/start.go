package backend

// start.go starts the real backends of a project root:
//   - a shadow JDT LS as completion engine and compiler (engine.StartJDT),
//     with its data in <state>/engine/<root key> (EngineStateDir);
//   - the embedded n-gram model (lm/ngram) trained on the project's .java
//     files plus the JDK's java.base sources, whose counts are cached on disk
//     in <cache>/ngram, so a later start only lexes the project; or, when a
//     model server is configured (ModelConfig), one lm/openai model shared by
//     every root.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/repilot-lsp/repilot-lsp/engine"
	"github.com/repilot-lsp/repilot-lsp/internal/cachedir"
	"github.com/repilot-lsp/repilot-lsp/jdtls"
	"github.com/repilot-lsp/repilot-lsp/lm"
	"github.com/repilot-lsp/repilot-lsp/lm/ngram"
	"github.com/repilot-lsp/repilot-lsp/repair"
)

// Config is what a Pool of real backends needs (package cli fills it from
// flags and environment).
type Config struct {
	JDTLSHome string // JDT LS install (flag --jdtls, env REPILOT_JDTLS_HOME; "": jdtls.ResolveHome's default)
	StateDir  string // engine JDT LS data in <StateDir>/engine/<root key> (flag --state-dir; "": see EngineStateDir)
	// Progress, if set, receives messages about slow start-up work (starting
	// JDT LS, training the model) of every root, besides the progress given
	// to Warm.
	Progress repair.Progress
	// MaxRoots bounds how many projects keep a live JDT LS and model at once
	// (0: DefaultMaxRoots); the least recently used project's are closed
	// first.
	MaxRoots int
	// Model chooses the language model (zero value: the embedded n-gram
	// model).
	Model ModelConfig
	// Engine tunes the shadow JDT LS engine (request and compile timeouts:
	// bench repair's --request-timeout and --compile-timeout).
	Engine []engine.JDTOption
}

// EngineStartTimeout bounds starting a shadow JDT LS until ServiceReady
// (Maven projects import their build first).
const EngineStartTimeout = 5 * time.Minute

// EngineStateDir is where the shadow JDT LS of root keeps its data: apart
// from the editor-facing JDT LS's (<state>/jdtls), since two live servers must
// not share one. stateDir "" means the cache's (cachedir.ProjectState).
func EngineStateDir(stateDir, root string) string {
	if stateDir != "" {
		return filepath.Join(stateDir, "engine", cachedir.RootKey(root))
	}
	return filepath.Join(cachedir.ProjectState(root), "engine")
}

// NGramCacheDir is where the n-gram model caches its JDK counts:
// <cache>/ngram.
func NGramCacheDir() string { return cachedir.Path("ngram") }

// checkJava fails when JDT LS or java is missing; it returns the JDT LS
// install.
func checkJava(home string) (string, error) {
	home, err := jdtls.ResolveHome(home)
	if err != nil {
		return "", err
	}
	if _, err := jdtls.JavaBinary(); err != nil {
		return "", err
	}
	return home, nil
}

// tee reports to both a and b (either may be nil).
func tee(a, b repair.Progress) repair.Progress {
	return func(msg string, pct int) {
		if a != nil {
			a(msg, pct)
		}
		if b != nil {
			b(msg, pct)
		}
	}
}

// New returns the Pool used by serve, repair and bench repair: per root, a
// shadow JDT LS and the configured model. It fails at once when JDT LS or
// java is missing or the model configuration is bad; it contacts no server
// and starts nothing (the first request or Warm of each root does). Close
// stops every JDT LS it started.
func New(cfg Config) (*Pool, error) {
	home, err := checkJava(cfg.JDTLSHome)
	if err != nil {
		return nil, err
	}
	shared, err := cfg.Model.LM()
	if err != nil {
		return nil, err
	}
	start := func(ctx context.Context, root string, progress repair.Progress) (repair.Backends, func() error, error) {
		return startBackends(ctx, home, cfg.StateDir, root, shared, tee(cfg.Progress, progress), cfg.Engine)
	}
	p := NewPool(start, cfg.MaxRoots)
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

// startBackends starts the shadow JDT LS and trains the n-gram model for
// root, in parallel; with a shared model (a model server) it only starts JDT
// LS.
func startBackends(ctx context.Context, home, stateDir, root string, shared lm.Model, progress repair.Progress, opts []engine.JDTOption) (repair.Backends, func() error, error) {
	ctx, cancel := context.WithTimeout(ctx, EngineStartTimeout)
	defer cancel()
	var (
		wg     sync.WaitGroup
		eng    *engine.JDT
		engErr error
		model  lm.Model = shared
		lmErr  error
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		eng, engErr = StartEngine(ctx, EngineSpec{Home: home, Dir: EngineStateDir(stateDir, root), Root: root, Progress: progress, Options: opts})
	}()
	if shared == nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			model, lmErr = TrainNGram(ctx, []string{root}, progress)
		}()
	}
	wg.Wait()
	if err := errors.Join(engErr, lmErr); err != nil {
		if eng != nil {
			eng.Close()
		}
		return repair.Backends{}, nil, err
	}
	return repair.Backends{Model: model, Engine: eng, Compiler: eng}, eng.Close, nil
}

// EngineSpec says which shadow JDT LS StartEngine starts.
type EngineSpec struct {
	Home    string   // JDT LS install
	Dir     string   // its data (created if missing)
	Root    string   // the project root (absolute)
	Folders []string // further project folders it imports (one JDT LS for a corpus)
	// Stderr receives JDT LS's standard error; nil: a file of this start's
	// own, Dir/stderr-<pid>-<n>.log (engineLog), which errors then name.
	Stderr io.Writer
	// HeapMB bounds the Java heap in MiB (0: 2048 with Folders, else
	// jdtls.Options' default).
	HeapMB int
	// Settings are JDT LS client settings over jdtls.DefaultSettings.
	Settings map[string]any
	// Progress, if set, hears "starting JDT LS ..." and "JDT LS ready after
	// ...".
	Progress repair.Progress
	// Options go to engine.StartJDT (timeouts, for
	// instance: engine.WithRequestTimeout); nil keeps its defaults.
	Options []engine.JDTOption
}

// StartEngine starts a shadow JDT LS as completion engine and compiler for
// s.Root (and s.Folders). Errors: the data directory's, and JDT LS's start
// (naming its log file when it writes one).
func StartEngine(ctx context.Context, s EngineSpec) (*engine.JDT, error) {
	progress := tee(s.Progress, nil)
	began := time.Now()
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		return nil, stateDirErr(s.Dir, err)
	}
	stderr, where, closeLog := s.Stderr, "", func() {}
	if stderr == nil {
		logf, err := engineLog(s.Dir)
		if err != nil {
			return nil, stateDirErr(s.Dir, err)
		}
		stderr, where, closeLog = logf, " (log: "+logf.Name()+")", func() { logf.Close() }
	}
	what := s.Root
	if len(s.Folders) > 0 {
		what = fmt.Sprintf("%d projects", 1+len(s.Folders))
	}
	progress(fmt.Sprintf("starting JDT LS (completion engine) for %s", what), 0)
	heap := s.HeapMB
	if heap == 0 && len(s.Folders) > 0 {
		heap = 2048
	}
	stopBeat := heartbeat(progress, startHeartbeat, began)
	eng, err := engine.StartJDT(ctx, jdtls.Options{Home: s.Home, Root: s.Root, Folders: s.Folders, StateDir: s.Dir, Stderr: stderr, HeapMB: heap, Settings: s.Settings}, s.Options...)
	stopBeat()
	if err != nil {
		closeLog()
		return nil, fmt.Errorf("starting JDT LS for %s%s: %w%s", what, where, err, lowSpace(s.Dir))
	}
	go func() { <-eng.Client().Done(); closeLog() }()
	progress(fmt.Sprintf("JDT LS ready after %s", time.Since(began).Round(100*time.Millisecond)), 0)
	return eng, nil
}

// engineLog creates the file a shadow JDT LS's standard error goes to:
// <dir>/stderr-<pid>-<n>.log, its own for each start, after removing those
// of processes that have ended (cachedir.RunFile). Before, every start on
// a state directory truncated and wrote one stderr.log: two repairs on one
// --state-dir at once wrote over each other's log, and the log a failed
// start named held the other run's lines.
func engineLog(dir string) (*os.File, error) {
	return cachedir.RunFile(dir, "stderr-", ".log")
}

// stateDirErr is err (creating the state directory dir or a file in it:
// a read-only path, no permission) with what to do about it.
func stateDirErr(dir string, err error) error {
	return fmt.Errorf("JDT LS state directory %s: %w (choose a writable folder with --state-dir, or move the cache root with $%s)", dir, err, cachedir.Env)
}

// lowSpaceBytes is the free space below which a failed start of JDT LS is
// blamed on its state directory's file system: JDT LS copies its
// configuration there and keeps the workspace's index (of the project and
// the JDK), tens of MB. On a full disk JDT LS's start failed with
// "initialize: jsonrpc error -32603: Internal error." and nothing else
// (a 1 MiB tmpfs as --state-dir).
const lowSpaceBytes = 256 << 20

// freeBytes returns the bytes free to this user on the file system of
// path (ok false where it cannot be told). A variable for tests.
var freeBytes = func(path string) (uint64, bool) {
	var st syscall.Statfs_t
	if syscall.Statfs(path, &st) != nil {
		return 0, false
	}
	return st.Bavail * uint64(st.Bsize), true
}

// lowSpace returns a note for a failed start's error when dir's file
// system has less than lowSpaceBytes free, else "".
func lowSpace(dir string) string {
	free, ok := freeBytes(dir)
	if !ok || free >= lowSpaceBytes {
		return ""
	}
	amount := fmt.Sprintf("%d MiB", free>>20)
	if free < 1<<20 {
		amount = fmt.Sprintf("%d KiB", free>>10)
	}
	return fmt.Sprintf(" (the file system of the state directory %s has %s free: JDT LS keeps its configuration and index there, tens of MB; free some space or choose another folder with --state-dir)", dir, amount)
}

// startHeartbeat is how often StartEngine says that JDT LS is still
// starting: its start took 35-110 s on 2 cores at load average 19-25, with
// no other line between "starting JDT LS" and "JDT LS ready after".
const startHeartbeat = 15 * time.Second

// heartbeat calls progress("JDT LS still starting (N s so far)", 0) every
// interval, N counted from began, until the returned stop is called; stop
// returns after the last call, so none comes after it.
func heartbeat(progress repair.Progress, interval time.Duration, began time.Time) (stop func()) {
	return repair.Periodic(interval, interval, func() bool {
		progress(fmt.Sprintf("JDT LS still starting (%s so far)", time.Since(began).Round(time.Second)), 0)
		return true
	})
}

// TrainNGram trains the embedded n-gram model on the .java files under roots
// plus the JDK's java.base sources (their counts cached in NGramCacheDir);
// no roots: the JDK's only. progress (nil: none) hears each stage.
func TrainNGram(ctx context.Context, roots []string, progress repair.Progress) (*ngram.Model, error) {
	progress = tee(progress, nil)
	began := time.Now()
	on := "the JDK sources"
	if len(roots) > 0 {
		on = strings.Join(roots, ", ") + " and the JDK sources"
	}
	progress(fmt.Sprintf("training the n-gram model on %s", on), 0)
	last := ""
	model, err := ngram.Train(ctx, ngram.Sources{Roots: roots}, ngram.Options{
		UseJDK:   true,
		CacheDir: NGramCacheDir(),
		Progress: func(stage string, done, total int) {
			if stage != last {
				last = stage
				progress(fmt.Sprintf("n-gram model: %s (%d/%d)", stage, done, total), 0)
			}
		},
	})
	if err != nil {
		return nil, fmt.Errorf("training the n-gram model on %s: %w", cmp.Or(strings.Join(roots, ", "), "the JDK sources"), err)
	}
	for _, s := range model.Sources() {
		if s.Note != "" {
			progress(fmt.Sprintf("n-gram model: %s source not used: %s", s.Kind, s.Note), 0)
		} else if s.Chosen != "" {
			progress(fmt.Sprintf("n-gram model: learned from the sources of %s", s.Chosen), 0)
		}
	}
	progress(fmt.Sprintf("n-gram model %s ready after %s", model.Name(), time.Since(began).Round(100*time.Millisecond)), 0)
	return model, nil
}

// NewShared returns a Pool for repairs in roots only (absolute project
// directories) with one shadow JDT LS for all of them, which imports them
// all as workspace folders: one start instead of one per project (a bug
// corpus). It is started on the first request; models are still per root.
// Close stops it. Errors: no Java or JDT LS (as New), no roots, or the
// model configuration's (ModelConfig.LM).
func NewShared(cfg Config, roots []string) (*Pool, error) {
	home, err := checkJava(cfg.JDTLSHome)
	if err != nil {
		return nil, err
	}
	if len(roots) == 0 {
		return nil, errors.New("no project roots")
	}
	known := map[string]bool{}
	for _, r := range roots {
		known[r] = true
	}
	sharedModel, err := cfg.Model.LM()
	if err != nil {
		return nil, err
	}
	// The shared JDT LS is started by the first request and started again
	// by the first request after it died (engineAlive): with sync.Once, one
	// crash left the dead engine to every later bug of a bench run. A
	// failed start is kept and returned to every request, as before.
	var (
		mu   sync.Mutex
		eng  *engine.JDT
		eerr error
	)
	dir := EngineStateDir(cfg.StateDir, "shared:"+strings.Join(roots, "\x00"))
	start := func(ctx context.Context, root string, progress repair.Progress) (repair.Backends, func() error, error) {
		if !known[root] {
			return repair.Backends{}, nil, fmt.Errorf("project %s is not one of the shared engine's projects", root)
		}
		progress = tee(cfg.Progress, progress)
		mu.Lock()
		if eng != nil && eng.Client().Err() != nil {
			progress(fmt.Sprintf("the shared JDT LS ended (%v); starting it again", eng.Client().Err()), 0)
			_ = eng.Close()
			eng = nil
		}
		if eng == nil && eerr == nil {
			sctx, cancel := context.WithTimeout(ctx, EngineStartTimeout)
			eng, eerr = StartEngine(sctx, EngineSpec{Home: home, Dir: dir, Root: roots[0], Folders: roots[1:], Progress: progress, Options: cfg.Engine})
			cancel()
		}
		cur, err := eng, eerr
		mu.Unlock()
		if err != nil {
			return repair.Backends{}, nil, err
		}
		var model lm.Model = sharedModel
		if model == nil {
			m, err := TrainNGram(ctx, []string{root}, progress)
			if err != nil {
				return repair.Backends{}, nil, err
			}
			model = m
		}
		return repair.Backends{Model: model, Engine: cur, Compiler: cur}, func() error { return nil }, nil
	}
	p := NewPool(start, cfg.MaxRoots)
	p.alive = engineAlive // a root still holding the dead engine starts again, and gets the new one
	p.onClose = func() error {
		mu.Lock()
		defer mu.Unlock()
		if eng != nil {
			return eng.Close()
		}
		return nil
	}
	return p, nil
}
