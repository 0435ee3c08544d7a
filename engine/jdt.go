package engine

// jdt.go defines JDT, the strict completion engine backed by its own JDT LS
// (the "shadow server"): its options, the shadow documents it keeps open, and
// CompileErrors. session.go holds a hunk's Session (the decisions) and
// memberlist.go what one completion answer says. See the package comment for
// the contract, site.go and context.go for where the engine is strict, and
// simple.go for simple names.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/repilot-lsp/repilot-lsp/jdtls"
	"github.com/repilot-lsp/repilot-lsp/textpos"
)

// Defaults of a JDT engine (see JDTOption).
const (
	// DefaultSiteCacheSize is how many receiver sites' member lists are kept.
	DefaultSiteCacheSize = 2048
	// DefaultRequestTimeout bounds one completion request; on timeout the
	// decision is Unknown. The first completion on a fresh JDT LS, which
	// indexes the JDK, took 6 s on an idle 2-core machine and 17 s on a
	// loaded one.
	DefaultRequestTimeout = 30 * time.Second
	// DefaultCompileTimeout bounds waiting for a text's diagnostics.
	DefaultCompileTimeout = 60 * time.Second
)

// JDTOption tunes a JDT engine.
type JDTOption func(*jdtConfig)

type jdtConfig struct {
	siteCache      int
	requestTimeout time.Duration
	compileTimeout time.Duration
	noWarmUp       bool
	shortLived     bool
}

// WithShortLived says the shadow server serves one short job (the repair
// command) and then ends: StartJDT starts it with jdtls.Options.ShortLived
// (the C1 compiler only), which starts and warms up sooner.
func WithShortLived() JDTOption { return func(c *jdtConfig) { c.shortLived = true } }

// WithWarmUp sets whether StartJDT warms the shadow server up before it
// returns (default true; warmUp). It pays where the start runs ahead of the
// first request (serve starts a project's engine when a Java file opens);
// where the caller waits for the start and the first repair alike (the
// repair command) it only moves time. On the example, 3 runs each,
// alternating, load 3.3-3.9: JDT LS ready after 4.7-5.1 s without it
// against 5.9-7.4 s with it; first plausible patch median 8.9 s against
// 9.8 s, the whole command 18.8 s against 19.3 s (within the noise).
func WithWarmUp(on bool) JDTOption { return func(c *jdtConfig) { c.noWarmUp = !on } }

// WithSiteCache sets how many receiver sites' member lists are cached (n <= 0
// disables the cache: every strict check then sends a completion request,
// which is how the cache's benefit is measured).
func WithSiteCache(n int) JDTOption { return func(c *jdtConfig) { c.siteCache = n } }

// WithRequestTimeout bounds each completion request (default
// DefaultRequestTimeout).
func WithRequestTimeout(d time.Duration) JDTOption {
	return func(c *jdtConfig) { c.requestTimeout = d }
}

// WithCompileTimeout bounds each CompileErrors wait (default
// DefaultCompileTimeout).
func WithCompileTimeout(d time.Duration) JDTOption {
	return func(c *jdtConfig) { c.compileTimeout = d }
}

// JDT is the strict completion engine over one shadow JDT LS for one project.
// It implements Engine and Compiler and is safe for concurrent use; requests
// to the shadow server are serialized (each sets the document text it needs,
// then asks).
type JDT struct {
	client *jdtls.Client
	// peer is what sessions send their completion requests through: the
	// client itself (tests put a fake peer here).
	peer peer
	cfg  jdtConfig

	// mu serializes every text change + request pair on the shadow server,
	// and guards open. Waits for it that have a context use lockCtx, so a
	// cancelled request stops waiting at once (ctxMutex).
	mu    ctxMutex
	open  map[string]*shadowDoc
	sites *lru.Cache[string, *memberList] // nil when disabled
	// reopened counts the fresh documents closed and opened again with a
	// request's text (setTextLocked), for tests.
	reopened int
	// runDir is the server's state folder of this run (runDir), removed by
	// Close; "" for a JDT made by NewJDT.
	runDir string

	// indexes holds each project's latest type index (typeindex.go), by
	// the project's root; indexOf, when set, replaces typeIndexFor's work
	// (tests).
	indexMu sync.Mutex
	indexes map[string]*indexEntry
	indexOf func(ctx context.Context, uri string) (*typeIndex, error)
}

// peer is the part of the shadow server a session's decisions use: set a
// document's text (jdtls.Client.Change), ask for completions there
// (jdtls.Client.Completion), and whether the server has died
// (jdtls.Client.Err). A *jdtls.Client is one; the engine's unit tests use a
// fake that answers from canned lists.
type peer interface {
	Err() error
	Change(ctx context.Context, uri, text string) (int, error)
	Completion(ctx context.Context, uri string, pos textpos.Position) (*jdtls.CompletionList, error)
}

// shadowDoc is a document open in the shadow server: by sessions (count) or
// by CompileErrors (compile, kept open until the next CompileErrors on
// another URI or Close). borrowed: it was already open in the client (another
// engine on the same client opened it), so this engine never closes it.
//
// pending: a session holds it but no request has been made, so nothing was
// sent yet; the first request opens it with its own text (setTextLocked).
// fresh: this engine opened it and no completion has been answered on it
// since. JDT LS 1.60 answers the first completion after a didOpen for the
// opened text, even when a didChange came between (seen in 1 of 4 runs of a
// test, and in the CI of stop 22); such an answer can pass consistent and
// decide a prune (a scope list computed on the opened text, witnessing
// empty answers for a name in scope). So a completion is only ever asked
// on a fresh document for the text it was opened with: a fresh document
// whose text must change is closed and opened again with the new text.
type shadowDoc struct {
	sessions int
	compile  bool
	borrowed bool
	pending  bool
	fresh    bool
}

// StartJDT starts a shadow JDT LS with o and waits until it reports
// ServiceReady (bounded by ctx). The engine owns the process: Close stops it.
// The server keeps its data in a folder of its own under o.StateDir, new for
// this start and removed by Close (runDir: a server started again on an
// earlier run's data missed JDK types in its type searches). The error is
// jdtls.Start's, WaitReady's, or ctx's.
func StartJDT(ctx context.Context, o jdtls.Options, opts ...JDTOption) (*JDT, error) {
	if o.StateDir == "" {
		return nil, errors.New("engine: no state directory")
	}
	run, err := runDir(o.StateDir)
	if err != nil {
		return nil, err
	}
	o.StateDir = run
	cfg := newJDTConfig(opts) // once: an option is applied once per start
	o.ShortLived = o.ShortLived || cfg.shortLived
	// The type index's JDK part (typeindex.go), in the background while
	// JDT LS starts (about 0.3 s of CPU), not beside the first requests.
	preloadJDK()
	c, err := jdtls.Start(ctx, o)
	if err != nil {
		_ = os.RemoveAll(run)
		return nil, err
	}
	fail := func(err error) (*JDT, error) {
		c.Kill()
		_ = os.RemoveAll(run)
		return nil, err
	}
	if err := c.WaitReady(ctx); err != nil {
		return fail(err)
	}
	e := newJDT(c, cfg)
	e.runDir = run
	if e.cfg.noWarmUp {
		return e, nil
	}
	if err := e.warmUp(ctx, o.Root); err != nil && ctx.Err() != nil {
		return fail(ctx.Err())
	}
	return e, nil
}

// warmUpTail is what warmUp appends to a project file: a class whose method
// names a type by a prefix and a String member, where the server searches
// its type index and loads the JDK's classes, and starts an empty statement.
const warmUpTail = "\nclass RepilotWarmUp {\n    void m() {\n        Obj;\n        \"\".\n        ;\n    }\n}\n"

// warmUpCarets are the completions warmUp asks, each right after its text
// in warmUpTail: a type prefix, a String member list, and a statement's
// start with no identifier typed, as the hunk's scope list is asked
// (simple.go, scopeList).
var warmUpCarets = []string{"Obj", "\"\".", "\"\".\n        "}

// warmUp asks the shadow server for completions once, in a copy of a Java
// file under root, before the first session does. A fresh JDT LS spends its
// first completion and its first type search loading its indexes and the
// JDK's classes: 14-17 s and 3-9 s on this 2-core machine under load 26-31,
// against 0.3-1.3 s for the same requests afterwards (measured with JDT LS
// 1.20 on testdata/project and in bench repair). Without it the first repair's
// first decisions pay for that; with it StartJDT does, which serve runs
// ahead of the first repair (backend.Pool.Warm). The answers are discarded:
// no decision rests on them. The document is opened with the file's text
// plus warmUpTail and closed again; nothing is written. Last, the project's
// type index is built (typeindex.go), so that its two commands are not a
// fresh server's first either. A root without a Java file, or a request
// that fails, is no error: the server is only colder. The error is ctx's
// when ctx ended.
func (e *JDT) warmUp(ctx context.Context, root string) error {
	path := firstJavaFile(root)
	if path == "" {
		return nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	return e.warmText(ctx, jdtls.FileURI(path), string(b), len(b), warmUpTail)
}

// warmUpMember is what WarmFile inserts before the last "}" of a file: a
// method of the file's last top-level type (or of the last type the file
// closes), with the carets of warmUpCarets, where a completion lists that
// type's own fields and methods as a hunk's scope list does.
const warmUpMember = "\n    void repilotWarmUp() {\n        Obj;\n        \"\".\n        ;\n    }\n"

// WarmFile warms the shadow server up on one project file, text being its
// content (the editor's buffer), before a repair of it is asked for: serve
// calls it (backend.Pool.WarmFile) when the editor opens a Java document of
// a project whose backends are started. JDT LS's first completion in a
// document it has not seen costs several times its later ones (the hunk's
// scope list, a repair's first request: 0.25-1.25 s against 0.07-0.2 s
// for the same request again, bench/README.md's ninth pass). It asks the
// completions of warmUpCarets in a method inserted into the file's last type
// (warmUpMember; at the end of the file, in a class of its own, when the
// text has no "}"), then the project's type index, and closes the document
// again. Nothing is written and no decision rests on the answers; a file
// already open in the shadow server (a session's, or CompileErrors') is
// left alone. The error is ctx's when ctx ended; a request that fails is
// no error.
func (e *JDT) WarmFile(ctx context.Context, path, text string) error {
	if i := strings.LastIndexByte(text, '}'); i >= 0 {
		return e.warmText(ctx, jdtls.FileURI(path), text, i, warmUpMember)
	}
	return e.warmText(ctx, jdtls.FileURI(path), text, len(text), warmUpTail)
}

// warmText opens uri with src and piece inserted at byte offset at, asks
// the completions of warmUpCarets in piece, builds the project's type
// index, and closes uri again; nothing when uri is open already.
func (e *JDT) warmText(ctx context.Context, uri, src string, at int, piece string) error {
	if e.client == nil {
		return nil
	}
	text := src[:at] + piece + src[at:]
	m := textpos.New(text)
	if err := e.mu.lockCtx(ctx); err != nil {
		return err
	}
	defer e.mu.Unlock()
	if _, ok := e.open[uri]; ok {
		return nil
	}
	if _, _, open := e.client.Document(uri); open {
		return nil
	}
	if _, err := e.client.Open(ctx, uri, text); err != nil && !errors.Is(err, jdtls.ErrInFlight) {
		return nil
	}
	defer e.client.Close(ctx, uri) //nolint:errcheck // committed even when ctx has ended
	for _, after := range warmUpCarets {
		rctx, cancel := context.WithTimeout(ctx, e.cfg.requestTimeout)
		_, _ = e.client.Completion(rctx, uri, m.Position(at+strings.Index(piece, after)+len(after)))
		cancel()
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	// The type index of the file's project (typeindex.go): its two
	// commands' first answers, and the index, kept for the sessions whose
	// fingerprint matches.
	_ = e.typeIndexFor(ctx, uri)
	return ctx.Err()
}

// firstJavaFile returns a .java file under root (not module-info.java or
// package-info.java), looking at most 20,000 entries and skipping hidden
// folders and build outputs; "" when there is none.
func firstJavaFile(root string) string {
	if root == "" {
		return ""
	}
	found, seen := "", 0
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if seen++; err != nil || found != "" || seen > 20000 {
			return fs.SkipAll
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || name == "target" || name == "build" || name == "out" || name == "bin" || name == "node_modules") {
				return fs.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".java") && name != "module-info.java" && name != "package-info.java" && d.Type().IsRegular() {
			found = p
			return fs.SkipAll
		}
		return nil
	})
	return found
}

// NewJDT returns an engine over a started client (the caller keeps ownership
// of the process only if it never calls Close).
func NewJDT(c *jdtls.Client, opts ...JDTOption) *JDT {
	return newJDT(c, newJDTConfig(opts))
}

// newJDTConfig is the defaults with opts applied, in order.
func newJDTConfig(opts []JDTOption) jdtConfig {
	cfg := jdtConfig{siteCache: DefaultSiteCacheSize, requestTimeout: DefaultRequestTimeout,
		compileTimeout: DefaultCompileTimeout}
	for _, o := range opts {
		o(&cfg)
	}
	return cfg
}

// newJDT is NewJDT with its configuration built.
func newJDT(c *jdtls.Client, cfg jdtConfig) *JDT {
	e := &JDT{client: c, peer: c, cfg: cfg, open: map[string]*shadowDoc{}}
	if cfg.siteCache > 0 {
		e.sites, _ = lru.New[string, *memberList](cfg.siteCache)
	}
	return e
}

// Client returns the shadow server's client (for timings and tests).
func (e *JDT) Client() *jdtls.Client { return e.client }

// Close shuts the shadow server down. A server that StartJDT started keeps
// everything (its configuration and workspace data) in its run folder,
// which Close removes: it has nothing to save, so it is stopped at once
// (jdtls.Client.Kill) and the folder removed once it has ended. JDT LS 1.20
// answered "shutdown" in 0.4-0.6 s and then did not exit within
// jdtls.ShutdownGrace of "exit" at the end of any example repair measured, so
// the polite way cost every repair about 3 s after its results were printed.
// Any other server (NewJDT's) is asked to shut down and killed if it does not
// exit within jdtls.ShutdownGrace.
func (e *JDT) Close() error {
	if e.runDir != "" {
		e.client.Kill()
		_ = os.RemoveAll(e.runDir)
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), jdtls.ShutdownGrace)
	defer cancel()
	return e.client.Shutdown(ctx)
}

// Open starts a session for h: it opens h.URI in the shadow server with the
// text Prefix+Suffix (the hunk removed).
func (e *JDT) Open(ctx context.Context, h Hunk) (Session, error) {
	if err := e.client.Err(); err != nil {
		return nil, err
	}
	if err := e.mu.lockCtx(ctx); err != nil {
		return nil, err
	}
	defer e.mu.Unlock()
	d := e.open[h.URI]
	if d == nil {
		if _, _, open := e.client.Document(h.URI); open {
			var err error
			if d, _, err = e.openLocked(ctx, h.URI, h.Prefix+h.Suffix); err != nil {
				if d != nil { // committed all the same: give it back
					d.sessions++
					e.releaseLocked(h.URI, false)
				}
				return nil, err
			}
		} else {
			d = &shadowDoc{pending: true}
			e.open[h.URI] = d
		}
	}
	d.sessions++
	win := newLexWindow(h.Prefix)
	return &jdtSession{e: e, h: h, id: hunkID(h), win: win,
		syntax: syntaxJudge{h: h, level: fileLevel(h.URI)}, stmtStart: atStatementBoundary(win)}, nil
}

// hunkID is the identity of h's document text in the site cache's keys: a
// hash of its URI, Prefix and Suffix. Every cached list is keyed under it,
// so a list answered on one version of the file around the hunk never
// answers for another (an edit anywhere outside the hunk changes it).
func hunkID(h Hunk) string {
	sum := sha256.Sum256([]byte(h.URI + "\x00" + h.Prefix + "\x00" + h.Suffix))
	return hex.EncodeToString(sum[:12])
}

// openLocked makes uri's shadow document hold text, opening it if needed,
// and returns its record and version. Called with e.mu held. On an error
// the record is brought in line with the client's (resyncLocked): a
// notification that ctx cut short (jdtls.ErrInFlight) is committed, and
// one refused before it was committed changed nothing; the record is then
// returned with the error only when the document is open.
func (e *JDT) openLocked(ctx context.Context, uri, text string) (*shadowDoc, int, error) {
	if d := e.open[uri]; d != nil {
		e.resyncLocked(uri)
		var v int
		var err error
		if d.pending {
			v, err = e.client.Open(ctx, uri, text)
		} else {
			v, err = e.client.Change(ctx, uri, text)
		}
		if err != nil {
			e.resyncLocked(uri)
			return nil, 0, err
		}
		if d.pending {
			d.pending, d.fresh = false, true
		}
		return d, v, nil
	}
	d := &shadowDoc{}
	var v int
	var err error
	if _, _, open := e.client.Document(uri); open {
		d.borrowed = true
		v, err = e.client.Change(ctx, uri, text)
	} else {
		v, err = e.client.Open(ctx, uri, text)
		d.fresh = true
	}
	if err != nil && !errors.Is(err, jdtls.ErrInFlight) {
		return nil, 0, err // nothing committed
	}
	e.open[uri] = d
	return d, v, err
}

// resyncLocked brings uri's record in line with the client's view of the
// document after a notification failed or was cut short by its context
// (jdtls.ErrInFlight: committed all the same): a document this engine
// opened that the client no longer has open becomes pending (the next
// request opens it with its own text), and a pending one the client has
// open becomes fresh. JDT LS receives what the client's record holds, in
// order, before any later request (jdtls.Client.Open), so the record stays
// the one truth about the server's text. Called with e.mu held.
func (e *JDT) resyncLocked(uri string) {
	d := e.open[uri]
	if d == nil || d.borrowed || e.client == nil {
		return
	}
	_, _, open := e.client.Document(uri)
	switch {
	case !open:
		d.pending, d.fresh = true, false
	case d.pending:
		d.pending, d.fresh = false, true
	}
}

// setTextLocked makes uri's shadow document hold text before a completion
// request: a pending document is opened with text; a fresh one (no
// completion answered since its didOpen) whose text differs is closed and
// opened again with text, so that the next answer cannot be for another
// text (shadowDoc); otherwise a didChange (none when the text is the same).
// A URI this engine does not track (a fake peer in tests) gets the change
// through e.peer. Called with e.mu held; the error is the client's or ctx's
// (the record is then resynchronised: resyncLocked).
func (e *JDT) setTextLocked(ctx context.Context, uri, text string) error {
	e.resyncLocked(uri)
	d := e.open[uri]
	switch {
	case d == nil || d.borrowed || (!d.pending && !d.fresh):
		_, err := e.peer.Change(ctx, uri, text)
		if err != nil && d != nil {
			e.resyncLocked(uri)
		}
		return err
	case d.pending:
		_, _, err := e.openLocked(ctx, uri, text)
		return err
	}
	if cur, _, _ := e.client.Document(uri); cur == text {
		return nil
	}
	err := e.client.Close(ctx, uri)
	if err == nil || errors.Is(err, jdtls.ErrInFlight) {
		e.reopened++
		_, err = e.client.Open(ctx, uri, text)
	}
	if err != nil {
		e.resyncLocked(uri)
	}
	return err
}

// answered records that a completion on uri was answered: its document is
// no longer fresh. Called with e.mu held.
func (e *JDT) answeredLocked(uri string) {
	if d := e.open[uri]; d != nil {
		d.fresh = false
	}
}

// release drops one user of uri; the last one closes the shadow document.
// Called with e.mu held.
func (e *JDT) releaseLocked(uri string, compile bool) {
	d := e.open[uri]
	if d == nil {
		return
	}
	if compile {
		d.compile = false
	} else if d.sessions > 0 {
		d.sessions--
	}
	if d.sessions == 0 && !d.compile {
		delete(e.open, uri)
		if !d.borrowed && !d.pending {
			// Committed at once; the write is not waited for (noWait).
			_ = e.client.Close(noWait, uri)
		}
	}
}

// noWait is a context that has ended: jdtls.Client.Close commits a close
// and queues its notification without waiting for the write.
var noWait = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()

// tryLock takes the mutex when it is free, without waiting.
func (m *ctxMutex) tryLock() bool {
	m.init()
	select {
	case m.ch <- struct{}{}:
		return true
	default:
		return false
	}
}

// ctxMutex is a mutex whose wait can be abandoned when a context ends
// (lockCtx). A sync.Mutex cannot: a request cancelled while another held the
// engine (a compile check waits up to CheckTimeout for JDT LS's diagnostics,
// a completion up to requestTimeout) went on waiting for it, and only then
// saw its cancellation. The zero value is an unlocked mutex (its channel is
// made on first use).
type ctxMutex struct {
	once sync.Once
	ch   chan struct{} // holds one token while locked
}

func (m *ctxMutex) init() { m.once.Do(func() { m.ch = make(chan struct{}, 1) }) }

// Lock waits for the mutex without a context.
func (m *ctxMutex) Lock() {
	m.init()
	m.ch <- struct{}{}
}

// lockCtx waits for the mutex until ctx ends; the error is ctx's, and the
// mutex is then not held. A ctx that has already ended never takes it.
func (m *ctxMutex) lockCtx(ctx context.Context) error {
	m.init()
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case m.ch <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Unlock releases the mutex; unlocking an unlocked one panics, as
// sync.Mutex's does.
func (m *ctxMutex) Unlock() {
	m.init()
	select {
	case <-m.ch:
	default:
		panic("engine: unlock of unlocked ctxMutex")
	}
}

// CompileErrors sets uri's shadow document to text and returns its
// error-severity diagnostics (LSP DiagnosticSeverity 1) as JDT LS publishes
// them for exactly that text (see jdtls.Client.Diagnostics for how the
// publish is matched to the text). Lines are 1-based. Nothing is written to
// disk. The document stays open for the next call on the same URI (a repair
// validates many candidates of one file) and is closed when CompileErrors
// moves to another URI.
func (e *JDT) CompileErrors(ctx context.Context, uri, text string) ([]CompileError, error) {
	if err := e.client.Err(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, e.cfg.compileTimeout)
	defer cancel()
	if err := e.mu.lockCtx(ctx); err != nil {
		return nil, err
	}
	defer e.mu.Unlock()
	for other, d := range e.open {
		if other != uri && d.compile {
			e.releaseLocked(other, true)
		}
	}
	d, version, err := e.openLocked(ctx, uri, text)
	if d != nil {
		d.compile = true // committed (even when cut short): released by the next CompileErrors or Close
	}
	if err != nil {
		return nil, err
	}
	// JDT LS publishes a change's diagnostics after two debounced jobs (400
	// ms, then 400-2000 ms, adaptive: about 3 s per check measured under
	// load); java.project.refreshDiagnostics reconciles and publishes the
	// open document at once (0.5-1.3 s under the same load). Diagnostics
	// waits for the publish of this version either way, so a failed refresh
	// only costs the wait.
	go e.client.Call(ctx, "workspace/executeCommand", map[string]any{ //nolint:errcheck
		"command": "java.project.refreshDiagnostics", "arguments": []any{uri, "thisFile", false}})
	diags, err := e.client.Diagnostics(ctx, uri, version)
	if err != nil {
		return nil, err
	}
	var out []CompileError
	for _, d := range diags {
		if d.Severity == 1 {
			out = append(out, CompileError{Line: d.Range.Start.Line + 1, Message: d.Message})
		}
	}
	return out, nil
}
