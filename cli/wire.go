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
//     in <cache>/ngram, so a later start only lexes the project; or, when a
//     model server is configured (ModelConfig), one lm/openai model shared by
//     every root.
//
// The model flags and their environment fallbacks (what the editor plugins
// set) are read here and only here: modelFlags, used by serve, repair and
// bench repair.

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

	"github.com/spf13/pflag"

	"github.com/repilot-lsp/repilot-lsp/engine"
	"github.com/repilot-lsp/repilot-lsp/jdtls"
	"github.com/repilot-lsp/repilot-lsp/lm"
	"github.com/repilot-lsp/repilot-lsp/lm/ngram"
	"github.com/repilot-lsp/repilot-lsp/lm/openai"
	"github.com/repilot-lsp/repilot-lsp/repair"
)

// RepairConfig is what the repair service needs from flags and environment.
type RepairConfig struct {
	JDTLSHome string // JDT LS install (flag --jdtls, env REPILOT_JDTLS_HOME)
	StateDir  string // engine JDT LS data in <StateDir>/engine/<root hash> (flag --state-dir; "": see engineStateDir)
	// Progress, if set, receives messages about slow start-up work (starting
	// JDT LS, training the model).
	Progress repair.Progress
	// MaxRoots bounds how many projects keep a live JDT LS and model at once
	// (0: 4); the least recently used project's are closed first.
	MaxRoots int
	// Model chooses the language model (zero value: the embedded n-gram
	// model).
	Model ModelConfig
	// Engine tunes the shadow JDT LS engine (request and compile timeouts:
	// bench repair's --request-timeout and --compile-timeout).
	Engine []engine.JDTOption
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
	shared, err := cfg.Model.lmModel()
	if err != nil {
		return nil, err
	}
	start := func(ctx context.Context, root string) (repair.Backends, func() error, error) {
		return startBackends(ctx, home, cfg.StateDir, root, shared, progress, cfg.Engine)
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

// startBackends starts the shadow JDT LS and trains the n-gram model for
// root, in parallel; with a shared model (a model server) it only starts JDT
// LS.
func startBackends(ctx context.Context, home, stateDir, root string, shared lm.Model, progress repair.Progress, opts []engine.JDTOption) (repair.Backends, func() error, error) {
	ctx, cancel := context.WithTimeout(ctx, engineStartTimeout)
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
		eng, engErr = startEngine(ctx, home, engineStateDir(stateDir, root), root, nil, progress, opts)
	}()
	if shared == nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			model, lmErr = trainModel(ctx, root, progress)
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

// startEngine starts a shadow JDT LS on root (and further project folders)
// with its data in dir and its stderr in dir/stderr.log.
func startEngine(ctx context.Context, home, dir, root string, folders []string, progress repair.Progress, opts []engine.JDTOption) (*engine.JDT, error) {
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
	eng, err := engine.StartJDT(ctx, jdtls.Options{Home: home, Root: root, Folders: folders, StateDir: dir, Stderr: logf, HeapMB: heap}, opts...)
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
		} else if s.Chosen != "" {
			progress(fmt.Sprintf("n-gram model: learned from the sources of %s", s.Chosen), 0)
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
	sharedModel, err := cfg.Model.lmModel()
	if err != nil {
		return nil, err
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
			s.eng, s.err = startEngine(ctx, home, dir, roots[0], roots[1:], progress, cfg.Engine)
		})
		if s.err != nil {
			return repair.Backends{}, nil, s.err
		}
		var model lm.Model = sharedModel
		if model == nil {
			if model, err = trainModel(ctx, root, progress); err != nil {
				return repair.Backends{}, nil, err
			}
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

// Environment variables read by the model flags when the flag is not given:
// what the editor plugins (editors/vscode, editors/neovim) set for the server
// they start. The API key is read from the variable named by --api-key-env
// (default openai.EnvAPIKey, REPILOT_API_KEY).
const (
	EnvModelBaseURL = "REPILOT_MODEL_BASE_URL" // OpenAI-compatible server, "http://127.0.0.1:8080/v1"
	EnvModelName    = "REPILOT_MODEL_NAME"     // model name sent with each request
	EnvModelFIM     = "REPILOT_MODEL_FIM"      // FIM template name or "infill"
)

// ModelConfig chooses the language model of the repair service: the embedded
// n-gram model (lm/ngram, trained per project) when OpenAI.BaseURL is empty,
// else one lm/openai model for every project.
type ModelConfig struct {
	OpenAI openai.Config
}

// Remote reports whether a model server is configured.
func (c ModelConfig) Remote() bool { return c.OpenAI.BaseURL != "" }

// String describes the choice for logs and progress in words, e.g.
// "model server http://127.0.0.1:8080/v1 (model: the first one it lists;
// prompt: FIM template guessed from the model name; dialect: detected; API
// key: none)". It never includes the API key, nor the URL's user info or
// query, either of which may carry credentials.
func (c ModelConfig) String() string {
	if !c.Remote() {
		return "embedded n-gram model (lm/ngram)"
	}
	o := c.OpenAI
	orElse := func(v, empty string) string {
		if v == "" {
			return empty
		}
		return v
	}
	prompt := "FIM template " + orElse(o.FIM, "guessed from the model name")
	if o.FIM == openai.FIMInfill {
		prompt = "llama.cpp's /infill"
	}
	key := "none"
	if o.APIKey != "" {
		key = "set"
	}
	return fmt.Sprintf("model server %s (model: %s; prompt: %s; dialect: %s; API key: %s)",
		openai.SafeURL(o.BaseURL), orElse(o.Model, "the first one it lists"), prompt, orElse(o.Dialect, "detected"), key)
}

// build returns the shared model server's lm.Model, or nil for the n-gram
// model (trained per root by startBackends). It contacts nothing.
func (c ModelConfig) build() (*openai.Model, error) {
	if !c.Remote() {
		return nil, nil
	}
	return openai.New(c.OpenAI)
}

// lmModel is build as an lm.Model: nil (not a nil *openai.Model) for the
// n-gram model.
func (c ModelConfig) lmModel() (lm.Model, error) {
	m, err := c.build()
	if err != nil || m == nil {
		return nil, err
	}
	return m, nil
}

// checkModel contacts a configured model server once (openai.Model.Check) so
// that a server that is down, refuses the key or returns no logprobs is
// reported before JDT LS is started; nil for the n-gram model.
func checkModel(ctx context.Context, c ModelConfig) error {
	m, err := c.build()
	if err != nil || m == nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, modelCheckTimeout)
	defer cancel()
	if err := m.Check(ctx); err != nil {
		return fmt.Errorf("the model server does not work for Repilot: %w", err)
	}
	return nil
}

// modelCheckTimeout bounds checkModel (a cold llama-server loads its model
// on the first request).
const modelCheckTimeout = 2 * time.Minute

// modelFlags are the language-model flags of serve, repair and bench repair.
// Each falls back to an environment variable (read in resolve, so --help never
// prints a configured value).
type modelFlags struct {
	baseURL     string
	name        string
	apiKeyEnv   string
	fim         string
	dialect     string
	timeout     time.Duration
	concurrency int
	retries     int
	noSpeculate bool
}

// addModelFlags registers the model flags on fs, bound to f.
func addModelFlags(fs *pflag.FlagSet, f *modelFlags) {
	fs.StringVar(&f.baseURL, "model-base-url", "", "OpenAI-compatible model server with its version path, e.g. http://127.0.0.1:8080/v1 for llama.cpp's llama-server (env "+EnvModelBaseURL+"; empty: the embedded n-gram model)")
	fs.StringVar(&f.name, "model", "", "model name sent to the server (env "+EnvModelName+"; empty: the first model the server lists)")
	fs.StringVar(&f.apiKeyEnv, "api-key-env", openai.EnvAPIKey, "environment variable holding the server's API key (the key is never a flag, never logged; "+openai.EnvOpenAIAPIKey+" is the last fallback)")
	fs.StringVar(&f.fim, "fim-template", "", `fill-in-the-middle prompt template: qwen, deepseek, starcoder, codellama, codestral, none, or "infill" for llama.cpp's /infill (env `+EnvModelFIM+`; empty: guessed from the model name)`)
	fs.StringVar(&f.dialect, "model-dialect", "", "server dialect: llama.cpp, vllm, openai, other (empty: detect from GET /v1/models)")
	fs.DurationVar(&f.timeout, "model-timeout", 60*time.Second, "time limit of one request to the model server")
	fs.IntVar(&f.concurrency, "model-concurrency", 4, "requests in flight to the model server at most")
	fs.IntVar(&f.retries, "model-retries", 3, "retries after HTTP 429/5xx or a refused connection, with backoff (0: none)")
	fs.BoolVar(&f.noSpeculate, "no-speculate", false, "ask the model server token by token (one request per token) instead of speculative guided decoding")
}

// resolve turns the flags and, for flags left empty, the environment (getenv)
// into a ModelConfig. Errors: --api-key-env names a variable other than the
// default that is unset (the message names the variable, never a value).
func (f modelFlags) resolve(getenv func(string) string) (ModelConfig, error) {
	pick := func(flag, env string) string {
		if flag != "" {
			return flag
		}
		return strings.TrimSpace(getenv(env))
	}
	base := pick(f.baseURL, EnvModelBaseURL)
	if base == "" {
		return ModelConfig{}, nil
	}
	keyEnv := f.apiKeyEnv
	if keyEnv == "" {
		keyEnv = openai.EnvAPIKey
	}
	key := getenv(keyEnv)
	if key == "" && keyEnv != openai.EnvAPIKey {
		return ModelConfig{}, fmt.Errorf("--api-key-env %s: that environment variable is not set", keyEnv)
	}
	if key == "" {
		key = getenv(openai.EnvOpenAIAPIKey)
	}
	retries := f.retries
	if retries == 0 {
		retries = -1 // openai.Config: negative means never
	}
	return ModelConfig{OpenAI: openai.Config{
		BaseURL:       base,
		Model:         pick(f.name, EnvModelName),
		APIKey:        key,
		FIM:           pick(f.fim, EnvModelFIM),
		Dialect:       f.dialect,
		Timeout:       f.timeout,
		MaxConcurrent: f.concurrency,
		MaxRetries:    retries,
		NoSpeculate:   f.noSpeculate,
	}}, nil
}
