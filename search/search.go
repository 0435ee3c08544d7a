// Package search is semantic code search over a workspace: "find the code
// that does X" for Java, Python and Go, in the editor and on the command
// line. It follows the RepoRift pipeline (Jain et al. 2024) with an offline
// default:
//
//  1. lexical: BM25 over code-aware terms of each unit (package lexical);
//  2. dense: embeddings of the query against the units (package dense);
//  3. augmentation: the chat model rewrites the query with the repository's
//     own context (README, packages, related symbol names), and the
//     rewritten query runs through streams 1 and 2 again;
//  4. generation: the chat model writes code for the query; the code is
//     embedded and compared with the units, then each of its functions is
//     compared one by one (best match per unit), and it also serves as a
//     lexical query;
//  5. reranking: the chat model reorders the top fused candidates.
//
// The streams' rankings are fused with reciprocal rank fusion (package fuse).
// Every stream can be switched off; with no model configured the lexical
// stream alone answers (the offline default).
//
// Units come from the workspace index (package index), which stays in step
// with the editor through Update, Remove and UpdateFromDisk.
//
// Architecture invariant: this package speaks in paths, units and byte or
// LSP positions (textpos); it knows nothing of JSON-RPC or LSP messages.
// The proxy (proxy/feature/searchfeat) and the CLI (cli/search.go) adapt it.
package search

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/repilot-lsp/repilot-lsp/internal/cachedir"
	"github.com/repilot-lsp/repilot-lsp/search/dense"
	"github.com/repilot-lsp/repilot-lsp/search/index"
	"github.com/repilot-lsp/repilot-lsp/search/lexical"
	"github.com/repilot-lsp/repilot-lsp/search/llm"
	"github.com/repilot-lsp/repilot-lsp/search/units"
)

// Stream names, as they appear in Result.Streams, Hit.Ranks and reports.
const (
	StreamLexical    = "lexical"     // BM25 of the query
	StreamDense      = "dense"       // cosine of query and unit embeddings
	StreamAugLexical = "aug-lexical" // BM25 of the augmented query
	StreamAugDense   = "aug-dense"   // cosine of the augmented query
	StreamGenDense   = "gen-dense"   // cosine of the generated code
	StreamGenParts   = "gen-parts"   // best cosine over the generated code's functions
	StreamGenLexical = "gen-lexical" // BM25 with the generated code as the query
	StreamFused      = "fused"       // reciprocal rank fusion of the above
	StreamRerank     = "rerank"      // the chat model's order of the top fused
)

// Streams switches the pipeline's parts on. The zero value means all of
// them; a stream whose model is not configured is off regardless.
type Streams struct {
	Lexical  bool // stream 1
	Dense    bool // stream 2 (needs an Embedder)
	Augment  bool // stream 3 (needs a Chat; its dense half needs an Embedder)
	Generate bool // stream 4 (needs a Chat; its dense halves need an Embedder)
	Rerank   bool // step 5 (needs a Chat)
}

// AllStreams enables everything.
var AllStreams = Streams{true, true, true, true, true}

// ParseStreams reads a comma-separated list of "lexical", "dense",
// "augment", "generate", "rerank" (or "all").
func ParseStreams(s string) (Streams, error) {
	var st Streams
	for _, f := range strings.Split(s, ",") {
		switch strings.TrimSpace(f) {
		case "all":
			st = AllStreams
		case "lexical":
			st.Lexical = true
		case "dense":
			st.Dense = true
		case "augment":
			st.Augment = true
		case "generate":
			st.Generate = true
		case "rerank":
			st.Rerank = true
		case "":
		default:
			return st, fmt.Errorf("search: unknown stream %q (want lexical, dense, augment, generate, rerank or all)", f)
		}
	}
	return st, nil
}

// Config configures an Engine. Only Root is required; the zero values of
// the rest give the editor's offline default.
type Config struct {
	// Root is the workspace root.
	Root string
	// CacheDir keeps the unit cache and embeddings between runs ("" keeps
	// nothing; DefaultCacheDir gives the usual place).
	CacheDir string
	// Tuning overrides the ranking parameters (nil: DefaultTuning(); only
	// "bench search" sets it).
	Tuning *Tuning
	// Embedder serves the dense streams; nil turns them off.
	Embedder llm.Embedder
	// Chat serves augmentation, generation and reranking; nil turns them off.
	Chat llm.Chat
	// Streams enabled (zero value: all that the models allow).
	Streams Streams
	// Dense tunes the dense store.
	Dense dense.Options
	// Tests says how test code (units.IsTestPath) ranks: TestsBelow (the
	// default, ""), TestsInclude or TestsExclude (not even indexed).
	// Query.Tests overrides it per query, except that an excluded test is
	// not in the index to include.
	Tests TestPolicy
	// Persist keeps the analysed lexical index in CacheDir between runs
	// (persist.go): Build reads it back when the units and the tuning are
	// those it was saved for, else analyses the units and Close saves it.
	// Results arrive only when Build ends (the CLI's case; the editor,
	// which searches while it indexes, leaves it off).
	Persist bool
	// Include limits the index to some files (nil: all supported files).
	Include func(rel string) bool
	// Transform, when set, rewrites each unit before the streams see it (the
	// benchmark strips doc comments with it). Hits carry the rewritten unit.
	Transform func(units.Unit) units.Unit
}

// TestPolicy says how search treats test code (units.IsTestPath).
type TestPolicy string

// Test policies.
const (
	// TestsBelow ranks every test unit below every main-code unit that the
	// fused ranking holds, keeping each side's order; a query that names
	// tests ("test", "tests", "testing") ranks them like other code.
	TestsBelow TestPolicy = "below"
	// TestsInclude ranks test code like any other code.
	TestsInclude TestPolicy = "include"
	// TestsExclude leaves test code out of the results.
	TestsExclude TestPolicy = "exclude"
)

// ParseTestPolicy reads "below", "include" or "exclude" ("" is below).
func ParseTestPolicy(s string) (TestPolicy, error) {
	switch p := TestPolicy(strings.TrimSpace(s)); p {
	case "":
		return TestsBelow, nil
	case TestsBelow, TestsInclude, TestsExclude:
		return p, nil
	}
	return "", fmt.Errorf("search: unknown test policy %q (want below, include or exclude)", s)
}

// AssocConfig sets lexical.Assoc's parameters (zero fields keep the
// package's defaults, except Weight and Reweight, which are always taken: 0
// turns expansion, respectively query-word reweighting, off).
type AssocConfig struct {
	Weight                   float64 // lexical.Assoc.Weight
	MinPair                  int     // lexical.Assoc.MinPair
	Top                      int     // lexical.Assoc.Top
	Lift                     float64 // lexical.Assoc.Lift
	Sentence                 bool    // lexical.Assoc.Sentence
	Reweight                 float64 // lexical.Assoc.SelfExp
	ReweightMin, ReweightMax float64 // lexical.Assoc.SelfMin, SelfMax
}

// DefaultCacheDir is where a workspace's caches live:
// <cache>/search/<base name of root>-<hash of root>, <cache> being
// cachedir.Root ($REPILOT_CACHE, else ~/.cache/repilot-lsp).
func DefaultCacheDir(root string) string {
	base := cachedir.Root()
	abs, _ := filepath.Abs(root)
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(base, "search", filepath.Base(abs)+"-"+hex.EncodeToString(sum[:6]))
}

// Status is the state of the background work.
type Status struct {
	Indexing   bool   // the initial index build is running
	Files      int    // files indexed so far
	TotalFiles int    // files found
	Units      int    // units indexed
	TooLarge   int    // files skipped unread for being over units.MaxFileBytes
	Embedded   int    // units with a vector (dense streams)
	Pending    int    // units waiting for a vector
	Err        string // the last background error, if any
}

// Engine is the search service of one workspace. It is safe for concurrent
// use.
type Engine struct {
	cfg   Config
	idx   *index.Index
	lex   *lexical.BM25
	dense *dense.Store // nil without an Embedder
	cache *dense.Cache
	assoc *lexical.Assoc // nil when off; learns from the units as indexed (docs kept)

	mu     sync.RWMutex
	view   map[string]units.Unit // the units as the streams see them
	langs  map[string]int        // units per language
	dirs   map[string]int        // units per directory
	readme string
	status Status

	deferring bool           // Build defers the lexical analysis (Persist)
	deferred  [][]units.Unit // batches of units seen while deferring, in arrival order
	snapKey   string         // the lexical state's snapshot key ("": changed since, do not save)
	snapSaved bool           // the state came from (or went to) the snapshot unchanged
	// snapUpdated: the state came from the snapshot and the files changed
	// since were applied to it (finishBuild); snapFiles: the files the
	// state is analysed from, for the next snapshot.
	snapUpdated bool
	snapFiles   []index.FileState

	kick chan struct{} // wakes the embedding loop
}

// New creates the engine; nothing is indexed until Build or Start.
func New(cfg Config) (*Engine, error) {
	if cfg.Root == "" {
		return nil, errors.New("search: no workspace root")
	}
	if cfg.Streams == (Streams{}) {
		cfg.Streams = AllStreams
	}
	if cfg.Tuning == nil {
		t := DefaultTuning()
		cfg.Tuning = &t
	} else {
		t := cfg.Tuning.clone()
		cfg.Tuning = &t
	}
	t := cfg.Tuning
	if t.Depth <= 0 {
		t.Depth = 100
	}
	if t.RerankTopN <= 0 {
		t.RerankTopN = 20
	}
	var err error
	if cfg.Tests, err = ParseTestPolicy(string(cfg.Tests)); err != nil {
		return nil, err
	}
	include := cfg.Include
	if cfg.Tests == TestsExclude {
		include = func(rel string) bool {
			return !units.IsTestPath(rel) && (cfg.Include == nil || cfg.Include(rel))
		}
	}
	e := &Engine{cfg: cfg, view: map[string]units.Unit{}, langs: map[string]int{}, dirs: map[string]int{},
		kick: make(chan struct{}, 1)}
	e.lex, e.assoc = t.newBM25()
	idx, err := index.New(index.Options{Root: cfg.Root, CacheDir: cfg.CacheDir, Include: include, MapCache: cfg.Persist})
	if err != nil {
		return nil, err
	}
	e.idx = idx
	if cfg.Embedder != nil {
		dir := ""
		if cfg.CacheDir != "" {
			dir = filepath.Join(cfg.CacheDir, "embeddings")
		}
		c, err := dense.OpenCache(dir, cfg.Embedder.Model())
		if err != nil {
			// A cache folder that cannot be written (read-only, full)
			// fails no search, as the unit cache's does not: the vectors
			// are kept in memory, and EmbeddingCacheErr says why.
			c, _ = dense.OpenCache("", cfg.Embedder.Model())
			c.SetWriteErr(err)
		}
		e.cache = c
		e.dense = dense.NewStore(cfg.Embedder, c, cfg.Dense)
	}
	idx.Subscribe(e.apply)
	return e, nil
}

// Index is the workspace index (for Update, Remove, UpdateFromDisk).
func (e *Engine) Index() *index.Index { return e.idx }

// Config returns the engine's configuration (with defaults filled in).
func (e *Engine) Config() Config { return e.cfg }

// HasDense says whether the dense streams can run.
func (e *Engine) HasDense() bool { return e.dense != nil }

// apply receives index changes and keeps the streams in step.
func (e *Engine) apply(ch index.Change) {
	ups := ch.Upserted
	if e.cfg.Transform != nil {
		ups = make([]units.Unit, len(ch.Upserted))
		for i, u := range ch.Upserted {
			ups[i] = e.cfg.Transform(u)
		}
	}
	e.mu.Lock()
	for _, id := range ch.Removed {
		if old, ok := e.view[id]; ok {
			e.count(old, -1)
			delete(e.view, id)
		}
	}
	var dirPath, dir string // units arrive file by file: one Dir per file
	for _, u := range ups {
		if old, ok := e.view[u.ID]; ok {
			e.count(old, -1)
		}
		e.view[u.ID] = u
		e.langs[u.Lang]++
		if u.Path != dirPath {
			dirPath, dir = u.Path, filepath.ToSlash(filepath.Dir(u.Path))
		}
		e.dirs[dir]++
	}
	e.status.Units = len(e.view)
	deferring := e.deferring
	if deferring {
		e.deferred = append(e.deferred, ups) // the index never reuses a Change's slice
	} else {
		e.snapKey = "" // the state no longer matches a snapshot's key
	}
	e.mu.Unlock()
	if !deferring { // else the lexical side takes the batch later (persist.go), the dense store now
		if e.assoc != nil {
			// The association model reads the docs, so it sees the units
			// before Transform (the benchmark's csn mode strips docs from the
			// streams' view only; Query.Exclude keeps a target's doc out).
			e.assoc.Delete(ch.Removed)
			e.assoc.Upsert(ch.Upserted)
		}
		if len(ch.Removed) > 0 {
			e.lex.Delete(ch.Removed)
		}
		if len(ups) > 0 {
			e.lex.Upsert(ups)
		}
	}
	if e.dense != nil {
		e.dense.Delete(ch.Removed)
		e.dense.Upsert(ups)
		select {
		case e.kick <- struct{}{}:
		default:
		}
	}
}

func (e *Engine) count(u units.Unit, d int) {
	e.langs[u.Lang] += d
	e.dirs[filepath.ToSlash(filepath.Dir(u.Path))] += d
}

// Replace swaps the streams' view of one unit without touching the index
// (the benchmark's "keep-docs" mode indexes a target without its doc for
// one query). The unit's vector must be in the embedding cache already
// (see WarmEmbeddings), or the dense streams will miss it.
func (e *Engine) Replace(u units.Unit) {
	e.mu.Lock()
	e.view[u.ID] = u
	e.mu.Unlock()
	e.lex.Upsert([]units.Unit{u})
	if e.dense != nil {
		e.dense.Upsert([]units.Unit{u})
	}
}

// Unit returns the streams' view of a unit.
func (e *Engine) Unit(id string) (units.Unit, bool) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	u, ok := e.view[id]
	return u, ok
}

// Status reports the background work.
func (e *Engine) Status() Status {
	e.mu.RLock()
	st := e.status
	e.mu.RUnlock()
	if e.dense != nil {
		st.Embedded, st.Pending = e.dense.Len(), e.dense.Pending()
	}
	return st
}

// Build indexes the workspace (synchronously), reading the README for the
// augmentation context. progress may be nil.
func (e *Engine) Build(ctx context.Context, progress func(index.Progress)) error {
	e.mu.Lock()
	e.status.Indexing = true
	e.mu.Unlock()
	e.readReadme()
	persist := e.persisting()
	if persist {
		e.mu.Lock()
		e.deferring = true
		e.mu.Unlock()
	}
	err := e.idx.Build(ctx, func(p index.Progress) {
		e.mu.Lock()
		e.status.Files, e.status.TotalFiles, e.status.TooLarge = p.Files, p.TotalFiles, p.TooLarge
		e.mu.Unlock()
		if progress != nil {
			progress(p)
		}
	})
	if persist {
		e.finishBuild()
	}
	e.mu.Lock()
	e.status.Indexing = false
	if err != nil {
		e.status.Err = err.Error()
	}
	e.mu.Unlock()
	return err
}

func (e *Engine) readReadme() {
	for _, name := range []string{"README.md", "README.rst", "README.txt", "README", "readme.md"} {
		// Only a regular file (a FIFO's open would wait for a writer for
		// good), and only its start.
		path := filepath.Join(e.idx.Root(), name)
		if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
			continue
		}
		f, err := os.Open(path)
		if err != nil {
			continue
		}
		b, err := io.ReadAll(io.LimitReader(f, 4*llm.MaxReadme))
		f.Close()
		if err == nil {
			e.mu.Lock()
			e.readme = string(b)
			e.mu.Unlock()
			return
		}
	}
}

// SyncEmbeddings embeds every unit still without a vector (synchronously).
// It is a no-op without an Embedder.
func (e *Engine) SyncEmbeddings(ctx context.Context, progress func(done, total int)) error {
	if e.dense == nil {
		return nil
	}
	return e.dense.Sync(ctx, progress)
}

// EmbeddingCacheErr returns the first error writing the embedding cache
// (a full disk; dense.Store.CacheErr), nil if none or without the dense
// stream: the vectors are in memory, and the next process embeds those not
// written again.
func (e *Engine) EmbeddingCacheErr() error {
	if e.dense == nil {
		return nil
	}
	return e.dense.CacheErr()
}

// WarmEmbeddings puts the vectors of us into the embedding cache without
// indexing them (for Replace).
func (e *Engine) WarmEmbeddings(ctx context.Context, us []units.Unit) error {
	if e.dense == nil {
		return nil
	}
	return e.dense.Warm(ctx, us)
}

// Start builds the index in the background and then keeps embedding new
// and changed units until ctx ends; report (may be nil) is called as the
// status changes (at most every 200 ms, and when the build ends).
func (e *Engine) Start(ctx context.Context, report func(Status)) {
	var last time.Time
	tell := func(force bool) {
		if report != nil && (force || time.Since(last) > 200*time.Millisecond) {
			last = time.Now()
			report(e.Status())
		}
	}
	go func() {
		if err := e.Build(ctx, func(index.Progress) { tell(false) }); err != nil && ctx.Err() == nil {
			e.mu.Lock()
			e.status.Err = err.Error()
			e.mu.Unlock()
		}
		tell(true)
		go e.idx.AutoSave(ctx, time.Minute)
		if e.dense == nil {
			return
		}
		for {
			if err := e.dense.Sync(ctx, func(int, int) { tell(false) }); err != nil && ctx.Err() == nil {
				e.mu.Lock()
				e.status.Err = err.Error()
				e.mu.Unlock()
			}
			tell(true)
			select {
			case <-ctx.Done():
				return
			case <-e.kick:
			}
		}
	}()
}

// Close saves the caches.
func (e *Engine) Close() error {
	err := e.idx.Save()
	if e.persisting() {
		if serr := e.saveSnapshot(); err == nil {
			err = serr
		}
	}
	if e.cache != nil {
		if cerr := e.cache.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// mainLang is the language with the most units ("java" when empty).
func (e *Engine) mainLang() string {
	e.mu.RLock()
	defer e.mu.RUnlock()
	best, n := "java", 0
	for l, c := range e.langs {
		if c > n || c == n && l < best {
			best, n = l, c
		}
	}
	return best
}

// packages lists the directories with the most units as package names.
func (e *Engine) packages(max int) []string {
	e.mu.RLock()
	type dn struct {
		d string
		n int
	}
	var ds []dn
	for d, n := range e.dirs {
		if n > 0 && d != "." {
			ds = append(ds, dn{d, n})
		}
	}
	e.mu.RUnlock()
	sort.Slice(ds, func(i, j int) bool {
		if ds[i].n != ds[j].n {
			return ds[i].n > ds[j].n
		}
		return ds[i].d < ds[j].d
	})
	var out []string
	for _, d := range ds {
		if len(out) == max {
			break
		}
		p := d.d
		for _, pre := range []string{"src/main/java/", "src/test/java/", "src/"} {
			p = strings.TrimPrefix(p, pre)
		}
		out = append(out, strings.ReplaceAll(p, "/", "."))
	}
	return out
}
