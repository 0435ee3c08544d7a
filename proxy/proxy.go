package proxy

// proxy.go defines Options and Run, the proxy's state, the two read loops
// (editor -> JDT LS and JDT LS -> editor) and the tables that route responses
// back to whoever sent the request.

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path"
	"runtime/debug"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/protocol"

	"github.com/repilot-lsp/repilot-lsp/jsonrpc"
)

// Options configure Run. The zero value of every field but the ones marked
// required has a usable default.
type Options struct {
	// JDTLSHome is the JDT LS install directory (flag --jdtls); "" lets
	// jdtls.ResolveHome find it ($REPILOT_JDTLS_HOME, then the default cache).
	JDTLSHome string
	// StateDir holds the editor-facing JDT LS's configuration and workspace
	// data (in StateDir/jdtls, or, while another process holds that folder,
	// in a folder of this process's own: lockEditorState). "" means
	// StateDirFor(root), computed when the initialize request names the
	// project root.
	StateDir string
	// HeapMB bounds JDT LS's Java heap in MiB; 0 means 1024.
	HeapMB int
	// Extensions are the features beside JDT LS, in order (their code
	// actions are listed in this order): the packages under proxy/feature
	// (repairfeat, searchfeat, inlinefeat), or any other Extension.
	Extensions []Extension
	// Log receives the proxy's log; nil means os.Stderr. Never stdout: that
	// is the LSP stream.
	Log io.Writer
	// Trace logs the method and id of every message routed.
	Trace bool
	// Launch starts JDT LS; nil means JDTLSLauncher(JDTLSHome, HeapMB, Log).
	Launch Launcher
	// MaxRestarts bounds restarts after crashes within RestartWindow
	// (defaults 3 and 5 minutes); a crash beyond that leaves JDT LS down and
	// tells the user.
	MaxRestarts   int
	RestartWindow time.Duration
	// ExitTimeout bounds the wait for JDT LS to exit after exit, or after
	// the editor went away, before its process group is killed (default
	// 2 s, so that everything is gone within 5 s of the editor going:
	// editors give a server about 5 s before they kill it. An idle JDT LS
	// exits in well under 1 s; at load 26 on 2 cores one needed more than
	// 3 s, and once killed took 1.45 s more to be reaped, so a 3 s wait
	// made the soak test's exit take 5.04 s).
	ExitTimeout time.Duration
	// Stopping, if set, is called once, on its own goroutine, when the
	// proxy starts stopping (exit, end of the editor's stream, a failed
	// write to the editor, or ctx ending), so that the caller can stop its
	// own backends (the repair engines) alongside JDT LS. Run waits for it
	// before returning.
	Stopping func()
	// ProgressCreateTimeout bounds the wait for the editor's answer to
	// window/workDoneProgress/create (LSP 3.17): the work goes on without
	// progress after it (default 5 s).
	ProgressCreateTimeout time.Duration
	// InitTimeout bounds JDT LS's answer to the initialize request the proxy
	// re-sends after a restart (default 2 minutes).
	InitTimeout time.Duration
}

func (o *Options) setDefaults() {
	if o.Log == nil {
		o.Log = os.Stderr
	}
	if o.MaxRestarts == 0 {
		o.MaxRestarts = 3
	}
	if o.RestartWindow == 0 {
		o.RestartWindow = 5 * time.Minute
	}
	if o.ExitTimeout == 0 {
		o.ExitTimeout = 2 * time.Second
	}
	if o.ProgressCreateTimeout == 0 {
		o.ProgressCreateTimeout = 5 * time.Second
	}
	if o.InitTimeout == 0 {
		o.InitTimeout = 2 * time.Minute
	}
	if o.Launch == nil {
		o.Launch = JDTLSLauncher(o.JDTLSHome, o.HeapMB, o.Log)
	}
}

// ErrExitWithoutShutdown is returned by Run when the editor sent exit without
// shutdown first (LSP 3.17 "exit": the server then exits with code 1).
var ErrExitWithoutShutdown = errors.New("the editor sent exit without shutdown")

// Run serves LSP on in/out (the editor's stream) until the editor sends exit,
// closes in, or ctx ends. It starts JDT LS when the initialize request
// arrives, forwards messages both ways, restarts JDT LS after a crash, and on
// the way out shuts JDT LS down (killing it after Options.ExitTimeout).
//
// It returns nil after shutdown+exit or when in ends, ErrExitWithoutShutdown
// for exit without shutdown, ctx.Err() when ctx ends, and an error naming the
// problem when the editor's stream has an unreadable header (the framing is
// then lost; bad JSON in a well-framed body is answered with ParseError and
// the stream continues) or when a write to the editor fails (its end of the
// pipe has gone: the proxy stops as if the stream had ended).
func Run(ctx context.Context, in io.Reader, out io.Writer, opts Options) error {
	opts.setDefaults()
	p := newProxy(ctx, out, opts)
	defer p.cancel()
	short, table := p.intercepted()
	p.log.Printf("proxy started; intercepting %s, forwarding the rest unchanged", short)
	if p.opts.Trace {
		p.log.Printf("the method table:%s", table)
	}

	loopDone := make(chan error, 1)
	go func() { loopDone <- p.clientLoop(in) }()
	var err error
	select {
	case err = <-loopDone:
	case <-p.clientGone:
		err = p.clientErr
		p.log.Printf("the editor's stream cannot be written (%v): stopping", err)
	case <-ctx.Done():
		p.log.Printf("stopping: %v", context.Cause(ctx))
		err = ctx.Err()
	}
	stopped := make(chan struct{})
	if p.opts.Stopping != nil {
		go func() { defer close(stopped); p.opts.Stopping() }()
	} else {
		close(stopped)
	}
	p.stop(err)
	<-stopped
	p.mu.Lock()
	p.edState.release()
	p.edState = nil
	p.mu.Unlock()
	return err
}

// serverState says what the proxy does with a client message meant for JDT LS.
type serverState int

const (
	stateNew      serverState = iota // before initialize: requests get ServerNotInitialized
	stateStarting                    // JDT LS (re)starting: messages are queued
	stateReady                       // messages are forwarded
	stateDead                        // JDT LS could not be (re)started: requests get an error
	stateStopped                     // JDT LS exited after shutdown/exit
)

// respHook rewrites JDT LS's response to a client request (or the error the
// proxy makes up when JDT LS is gone) into the body sent to the editor.
type respHook func(resp *jsonrpc.Message) []byte

// inflight is a client request forwarded to JDT LS generation gen.
type inflight struct {
	method string
	gen    int
	hook   respHook
}

// queued is a client message held while JDT LS restarts.
type queued struct {
	m    *jsonrpc.Message
	hook respHook
}

// ownCall is a request the proxy sent; srv is nil for requests to the editor.
type ownCall struct {
	ch  chan *jsonrpc.Message
	srv *backendProc
}

// regInfo is a dynamic registration the editor has been told about.
type regInfo struct {
	method string
	gen    int // the JDT LS generation that owns it (re-registrations move it)
}

type proxy struct {
	opts   Options
	log    *log.Logger
	ctx    context.Context // ends when Run returns
	cancel context.CancelFunc
	cout   *jsonrpc.Writer
	mirror *mirror
	exts   []Extension
	cmds   map[string]Extension // our command ids
	routes map[string]*route    // the method table (routes.go)
	nextID atomic.Int64
	// idTag is this process's random tag in the proxy's own ids
	// ("repilot/<idTag>/<n>", see newID): a peer cannot pick such an id
	// without having been sent it.
	idTag string

	// Set once by handleInitialize, before JDT LS starts; read-only after.
	initRaw  json.RawMessage
	caps     ClientCapabilities
	dynExec  bool // client: dynamic registration of workspace/executeCommand
	dynCode  bool // client: dynamic registration of textDocument/codeAction
	root     string
	stateDir string

	// edState is the editor JDT LS's folder (lockEditorState), set by
	// handleInitialize and released when Run ends. Guarded by mu.
	edState *editorState

	mu          sync.Mutex
	state       serverState
	srv         *backendProc
	gen         int
	deadReason  string
	queue       []queued
	inflight    map[string]*inflight // client -> JDT LS requests, by id
	serverReqs  map[string]int       // JDT LS -> client requests, by id: generation
	own         map[string]*ownCall  // the proxy's requests, by id
	active      map[string]func()    // client requests the proxy answers itself: cancel
	progress    map[string]func()    // our progress tokens (jsonrpc.CanonicalID, so "a\/b" is "a/b"): cancel
	initialized json.RawMessage      // the client's initialized params
	gotInit     bool                 // initialized has arrived (a second one is dropped)
	regs        map[string]*regInfo  // registration ids the editor knows
	regAlias    map[string]string    // id from a restarted JDT LS -> id the editor knows
	jdtCommands map[string]bool      // commands JDT LS advertised
	cmdDynamic  bool                 // our commands ride on JDT LS's dynamic registration
	cmdRegID    string               // ... the one they were injected into
	crashes     []time.Time          // recent unexpected exits
	// pendingInit is the editor's initialize, held when the JDT LS it went
	// to exited before answering it and a restart is under way: the
	// restarted JDT LS gets it and answers it (restart), so that a crash
	// during the first start does not fail the editor's start.
	pendingInit *lostRequest
	shutdown    bool          // the client sent shutdown
	exiting     bool          // the proxy is stopping
	wroteClient atomic.Bool   // set after the first write error to the editor
	clientGone  chan struct{} // closed after the first write error to the editor
	clientErr   error         // that error, set before clientGone closes
}

func newProxy(ctx context.Context, out io.Writer, opts Options) *proxy {
	ctx, cancel := context.WithCancel(ctx)
	p := &proxy{
		opts: opts, log: log.New(opts.Log, "repilot-lsp: ", log.LstdFlags|log.Lmicroseconds),
		ctx: ctx, cancel: cancel, cout: jsonrpc.NewWriter(out), mirror: newMirror(), clientGone: make(chan struct{}),
		cmds: map[string]Extension{}, inflight: map[string]*inflight{}, serverReqs: map[string]int{},
		own: map[string]*ownCall{}, active: map[string]func(){}, progress: map[string]func(){},
		regs: map[string]*regInfo{}, regAlias: map[string]string{}, jdtCommands: map[string]bool{},
		idTag: newIDTag(),
	}
	p.exts = append(p.exts, opts.Extensions...)
	for _, e := range p.exts {
		for _, c := range e.Commands() {
			if prev, dup := p.cmds[c]; dup {
				p.log.Printf("bug: command %s claimed by extensions %s and %s; %s keeps it", c, prev.Name(), e.Name(), prev.Name())
				continue
			}
			p.cmds[c] = e
		}
	}
	p.buildRoutes()
	return p
}

// ourCommands returns the extension command ids, sorted.
func (p *proxy) ourCommands() []string {
	out := make([]string, 0, len(p.cmds))
	for c := range p.cmds {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

// clientLoop reads the editor's messages until exit or the end of the stream.
func (p *proxy) clientLoop(in io.Reader) error {
	lim, err := jsonrpc.LimitsFromEnv(os.Getenv)
	if err != nil {
		p.log.Printf("%v; using the default limits", err)
	}
	r := jsonrpc.NewReaderLimits(in, lim)
	p.mirror.setMax(lim.MaxBody)
	for {
		body, err := r.ReadBody()
		if err != nil {
			var tl *jsonrpc.TooLargeError
			if errors.As(err, &tl) {
				p.skippedFromClient(tl)
				continue
			}
			if err == io.EOF {
				p.log.Printf("the editor closed its stream first (no exit notification)")
				return nil
			}
			p.log.Printf("cannot read the editor's stream (%v): the framing is lost, stopping", err)
			return fmt.Errorf("reading from the editor: %w", err)
		}
		m, err := jsonrpc.Decode(body)
		if err != nil {
			p.log.Printf("editor sent a body that is not JSON (%d bytes): answering ParseError", len(body))
			p.writeClient(errorBody(nil, Errorf(jsonrpc.CodeParseError, "parse error: the message body is not valid JSON")))
			continue
		}
		if m.Method == "" && len(m.ID) == 0 {
			p.log.Printf("editor sent a message with neither method nor id: answering InvalidRequest")
			p.writeClient(errorBody(nil, Errorf(jsonrpc.CodeInvalidRequest, "invalid request: a message needs a method or an id")))
			continue
		}
		if !jsonrpc.ValidID(m.ID) {
			// JSON-RPC 2.0 "Error object": when the id cannot be read, the
			// error's id is null. Neither JDT LS nor a feature sees it.
			if m.IsResponse() {
				p.log.Printf("editor sent a response whose id is neither a number nor a string (%.40s); dropped", m.ID)
				continue
			}
			p.log.Printf("editor sent %.60q with an id that is neither a number nor a string (%.40s): answering InvalidRequest", m.Method, m.ID)
			p.writeClient(errorBody(nil, Errorf(jsonrpc.CodeInvalidRequest,
				"invalid request: %.60q has an id that is neither an integer nor a string (LSP base protocol)", m.Method)))
			continue
		}
		if p.opts.Trace {
			p.log.Printf("editor -> %s %s", describe(m), m.IDKey())
		}
		if exit := p.safeFromClient(m); exit {
			p.mu.Lock()
			shut := p.shutdown
			p.mu.Unlock()
			p.log.Printf("the editor sent exit (after shutdown: %v)", shut)
			if !shut {
				return ErrExitWithoutShutdown
			}
			return nil
		}
	}
}

// skippedFromClient handles an editor message over the body limit, which
// the reader skipped after reading its envelope (jsonrpc.TooLargeError):
// nothing of it may be lost without a word. A request is answered with
// InvalidRequest naming the limit; a response is answered, to whoever asked
// (JDT LS or the proxy), with an error in the editor's place, so that no one
// waits for it; a didOpen or didChange leaves the document unfollowed by
// the mirror, and a didChange also closes it in JDT LS, whose text would
// otherwise stay wrong and take every later change at the wrong place (it
// reads the file from disk then); the user is told which document, and to
// reopen it.
func (p *proxy) skippedFromClient(tl *jsonrpc.TooLargeError) {
	what := tl.Method
	if what == "" {
		what = "a response"
	}
	p.log.Printf("the editor sent a message too large to read (%s, id %s, document %q): %v", what, orNone(tl.ID), tl.URI, tl)
	limit := fmt.Sprintf("%s, over the limit of %s ($%s)", byteSize(tl.Length), byteSize(tl.Limit), jsonrpc.EnvMaxBody)
	switch {
	case tl.Method != "" && len(tl.ID) > 0:
		p.replyError(tl.ID, Errorf(jsonrpc.CodeInvalidRequest, "%.60s: the message is %s; it was not read", tl.Method, limit))
	case tl.Method == "" && len(tl.ID) > 0:
		m := &jsonrpc.Message{ID: tl.ID, Error: Errorf(jsonrpc.CodeInternalError, "the editor's answer was %s; it was not read", limit)}
		m.Raw = errorBody(tl.ID, m.Error)
		p.clientResponse(m)
	case (tl.Method == "textDocument/didOpen" || tl.Method == "textDocument/didChange") && tl.URI != "":
		uri := protocol.DocumentURI(tl.URI)
		p.mu.Lock()
		p.mirror.lose(uri, fmt.Sprintf("a %s of %s", path.Base(tl.Method), limit))
		send := func() {}
		if tl.Method == "textDocument/didChange" {
			if b, err := notificationBody("textDocument/didClose", protocol.DidCloseTextDocumentParams{
				TextDocument: protocol.TextDocumentIdentifier{URI: uri}}); err == nil {
				m, err := jsonrpc.Decode(b)
				if err == nil {
					send = p.routeLocked(m, nil)
				}
			}
		}
		p.mu.Unlock()
		send()
		msg := fmt.Sprintf("Repilot: an edit of %s was %s and could not be passed on: Java features now see the saved file, not your text. Save it, then close and reopen it.",
			path.Base(tl.URI), limit)
		if tl.Method == "textDocument/didOpen" {
			msg = fmt.Sprintf("Repilot: %s was opened with a text of %s and could not be passed on: Java features see the saved file, not your text.",
				path.Base(tl.URI), limit)
		}
		p.notifyClient("window/showMessage", protocol.ShowMessageParams{Type: protocol.MessageTypeWarning, Message: msg})
	}
}

// skippedFromServer handles a JDT LS message over the body limit, skipped
// after its envelope was read: an answer becomes an error answer for
// whoever waits for it (the editor's request, or the proxy's own), and a
// request is answered with an error, so that no one waits for what was not
// read; notifications are only logged.
func (p *proxy) skippedFromServer(s *backendProc, tl *jsonrpc.TooLargeError) {
	p.log.Printf("JDT LS #%d sent a message too large to read (%s, id %s): %v", s.gen, orElse(tl.Method, "a response"), orNone(tl.ID), tl)
	if len(tl.ID) == 0 {
		return
	}
	limit := fmt.Sprintf("%s, over the limit of %s ($%s)", byteSize(tl.Length), byteSize(tl.Limit), jsonrpc.EnvMaxBody)
	if tl.Method != "" {
		s.write(errorBody(tl.ID, Errorf(jsonrpc.CodeRequestFailed, "%.60s: the message is %s; it was not read", tl.Method, limit)))
		return
	}
	e := Errorf(jsonrpc.CodeRequestFailed, "JDT LS's answer was %s; it was not read", limit)
	p.safeFromServer(s, &jsonrpc.Message{ID: tl.ID, Error: e, Raw: errorBody(tl.ID, e)})
}

// orElse is s, or def when s is empty.
func orElse(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// orNone is id, or "none" when it is empty.
func orNone(id json.RawMessage) string {
	if len(id) == 0 {
		return "none"
	}
	return string(id)
}

func describe(m *jsonrpc.Message) string {
	if m.Method != "" {
		return m.Method
	}
	return "response"
}

// fromClient routes one editor message; it reports true for exit.
func (p *proxy) fromClient(m *jsonrpc.Message) bool {
	if m.IsResponse() {
		p.clientResponse(m)
		return false
	}
	if r := p.routes[m.Method]; r != nil && r.core != nil && r.core.beforeInit {
		r.core.handle(p, m)
		return m.Method == "exit"
	}
	p.mu.Lock()
	st, shut := p.state, p.shutdown
	p.mu.Unlock()
	if shut {
		// LSP 3.17 "shutdown": requests after it error with InvalidRequest,
		// and only exit is still expected. Neither our features (a repair,
		// a warm-up that would start a JDT LS) nor JDT LS see them.
		if m.IsRequest() {
			p.replyError(m.ID, Errorf(jsonrpc.CodeInvalidRequest, "%s after shutdown: the server is shutting down", m.Method))
		} else {
			p.log.Printf("dropping %s sent after shutdown", m.Method)
		}
		return false
	}
	if st == stateNew {
		if m.IsRequest() {
			p.replyError(m.ID, Errorf(jsonrpc.CodeServerNotReady, "%s before initialize: the server is not initialized yet", m.Method))
		} else {
			p.log.Printf("dropping %s sent before initialize", m.Method)
		}
		return false
	}
	p.dispatch(m)
	return false
}

// forward sends a client message to JDT LS (or queues it, or answers it with
// an error when JDT LS is down). hook, for requests, rewrites the response.
func (p *proxy) forward(m *jsonrpc.Message, hook respHook) {
	p.mu.Lock()
	send := p.routeLocked(m, hook)
	p.mu.Unlock()
	send()
}

// handleDocSync updates the document mirror and forwards the notification,
// both under p.mu so that a restart's re-open sees each change exactly once
// (see restart).
func (p *proxy) handleDocSync(m *jsonrpc.Message) {
	p.mu.Lock()
	err := p.mirror.apply(m.Method, m.Params)
	send := p.routeLocked(m, nil)
	p.mu.Unlock()
	if err != nil {
		p.log.Printf("%s: %v", m.Method, err)
	}
	send()
	var big *tooLargeDocError
	if errors.As(err, &big) {
		msg := fmt.Sprintf("Repilot: %s grew past %s; Repilot's features are off for it until it is opened again (Java features are not affected).",
			path.Base(string(big.URI)), byteSize(big.Limit))
		if big.All {
			msg = fmt.Sprintf("Repilot: the open documents passed %s in all with %s; Repilot's features are off for it until it is opened again with fewer documents open (Java features are not affected).",
				byteSize(maxTotalFactor*big.Limit), path.Base(string(big.URI)))
		}
		p.notifyClient("window/showMessage", protocol.ShowMessageParams{Type: protocol.MessageTypeWarning, Message: msg})
	}
}

// routeLocked decides, under p.mu, what happens to a client message and
// returns the IO to do after unlocking. Registering a request in p.inflight
// under the same lock that reads the state means a crash handler that
// changes the state later sees the request and answers it.
func (p *proxy) routeLocked(m *jsonrpc.Message, hook respHook) func() {
	switch p.state {
	case stateReady:
		s := p.srv
		if m.IsRequest() {
			if c, ok := p.own[m.IDKey()]; ok && c.srv == s {
				// The id of a request of the proxy's own to this JDT LS,
				// still waiting (newIDLocked): the answers would cross.
				return func() { p.answerWithError(m.ID, idInUse(m), hook) }
			}
			p.inflight[m.IDKey()] = &inflight{method: m.Method, gen: s.gen, hook: hook}
		}
		return func() { s.write(m.Raw) }
	case stateStarting:
		p.queue = append(p.queue, queued{m: m, hook: hook})
		return func() {}
	default:
		if !m.IsRequest() {
			return func() {}
		}
		e := Errorf(jsonrpc.CodeRequestFailed, "JDT LS is not running (%s)", p.deadReason)
		if p.state == stateStopped {
			e = Errorf(jsonrpc.CodeInvalidRequest, "%s after shutdown: the server is shutting down", m.Method)
		}
		return func() { p.answerWithError(m.ID, e, hook) }
	}
}

// answerWithError answers a client request with e, through hook if any.
func (p *proxy) answerWithError(id json.RawMessage, e *jsonrpc.Error, hook respHook) {
	if hook == nil {
		p.writeClient(errorBody(id, e))
		return
	}
	resp := &jsonrpc.Message{ID: id, Error: e}
	resp.Raw = errorBody(id, e)
	p.writeClient(hook(resp))
}

// clientResponse routes the editor's response: to a waiting proxy request, or
// to the JDT LS that asked.
func (p *proxy) clientResponse(m *jsonrpc.Message) {
	key := m.IDKey()
	p.mu.Lock()
	if c, ok := p.own[key]; ok && c.srv == nil {
		delete(p.own, key)
		p.mu.Unlock()
		c.ch <- m
		return
	}
	gen, known := p.serverReqs[key]
	delete(p.serverReqs, key)
	s := p.srv
	alive := s != nil && (p.state == stateReady || p.state == stateStarting)
	p.mu.Unlock()
	switch {
	case known && (!alive || gen != s.gen):
		p.log.Printf("dropping the editor's response %s: the JDT LS that asked has exited", key)
	case !alive:
		p.log.Printf("dropping the editor's response %s: JDT LS is not running", key)
	default:
		// Responses bypass the restart queue: a restarting JDT LS may wait for
		// one (workspace/configuration) before it answers initialize.
		s.write(m.Raw)
	}
}

// serverLoop reads one JDT LS's messages until its stdout ends, then reports
// the exit.
func (p *proxy) serverLoop(s *backendProc) {
	r := jsonrpc.NewReader(s.b.Stdout)
	for {
		body, err := r.ReadBody()
		if err != nil {
			var tl *jsonrpc.TooLargeError
			if errors.As(err, &tl) {
				p.skippedFromServer(s, tl)
				continue
			}
			if err != io.EOF {
				p.log.Printf("JDT LS #%d: unreadable output (%v)", s.gen, err)
			}
			break
		}
		m, err := jsonrpc.Decode(body)
		if err != nil {
			p.log.Printf("JDT LS #%d sent a body that is not JSON (%d bytes); skipped", s.gen, len(body))
			continue
		}
		if p.opts.Trace {
			p.log.Printf("JDT LS #%d -> %s %s", s.gen, describe(m), m.IDKey())
		}
		if !p.serverMessageOK(s, m) {
			continue
		}
		p.safeFromServer(s, m)
	}
	p.serverExited(s)
}

// errorNote is ": <code> <message>" for an error response, else "".
func errorNote(m *jsonrpc.Message) string {
	if m.Error == nil {
		return ""
	}
	return fmt.Sprintf(" (error %d: %.200s)", m.Error.Code, m.Error.Message)
}

// serverMessageOK checks the envelope of a JDT LS message before it is
// routed, as clientLoop checks the editor's: a message with neither method
// nor id, or whose id is an object, an array or a boolean (LSP base
// protocol: integer | string), is logged and never reaches the editor as a
// malformed message; such a request is answered with InvalidRequest and id
// null (JSON-RPC 2.0 "Error object"), so JDT LS does not wait for it.
func (p *proxy) serverMessageOK(s *backendProc, m *jsonrpc.Message) bool {
	switch {
	case m.Method == "" && len(m.ID) == 0:
		p.log.Printf("JDT LS #%d sent a message with neither method nor id (%.80s); dropped", s.gen, m.Raw)
		return false
	case jsonrpc.ValidID(m.ID):
		return true
	case m.IsResponse():
		p.log.Printf("JDT LS #%d sent a response whose id is neither a number nor a string (%.40s); dropped", s.gen, m.ID)
		return false
	}
	p.log.Printf("JDT LS #%d sent %.60q with an id that is neither a number nor a string (%.40s): answering InvalidRequest", s.gen, m.Method, m.ID)
	s.write(errorBody(nil, Errorf(jsonrpc.CodeInvalidRequest,
		"invalid request: %.60q has an id that is neither an integer nor a string (LSP base protocol)", m.Method)))
	return false
}

// safeFromClient is fromClient with a panic reported as a bug (and, for a
// request, answered with InternalError) instead of ending the proxy.
func (p *proxy) safeFromClient(m *jsonrpc.Message) (exit bool) {
	defer func() {
		if r := recover(); r != nil {
			p.log.Printf("bug: handling %s from the editor panicked: %v\n%s", describe(m), r, debug.Stack())
			if m.IsRequest() {
				p.replyError(m.ID, Errorf(jsonrpc.CodeInternalError, "internal error in repilot-lsp while handling %s: %v", m.Method, r))
			}
			exit = false
		}
	}()
	return p.fromClient(m)
}

// safeFromServer is fromServer with a panic reported as a bug; a response
// whose rewriting panicked is forwarded unchanged.
func (p *proxy) safeFromServer(s *backendProc, m *jsonrpc.Message) {
	defer func() {
		if r := recover(); r != nil {
			p.log.Printf("bug: handling %s from JDT LS panicked: %v\n%s", describe(m), r, debug.Stack())
			if m.IsResponse() {
				p.writeClient(m.Raw)
			}
		}
	}()
	p.fromServer(s, m)
}

// fromServer routes one JDT LS message.
func (p *proxy) fromServer(s *backendProc, m *jsonrpc.Message) {
	if m.IsResponse() {
		key := m.IDKey()
		p.mu.Lock()
		if c, ok := p.own[key]; ok && c.srv == s {
			delete(p.own, key)
			p.mu.Unlock()
			c.ch <- m
			return
		}
		f, ok := p.inflight[key]
		if ok && f.gen == s.gen {
			delete(p.inflight, key)
		} else {
			f = nil
		}
		p.mu.Unlock()
		if f == nil {
			// No editor request of this JDT LS waits for it (an id JDT LS
			// made up or answered twice, or an error about a message it
			// could not read, id null): the editor never sent it, and an
			// answer to an id it never used is a protocol error there.
			p.log.Printf("JDT LS #%d answered %.40s, which no request in flight has; dropped%s", s.gen, m.ID, errorNote(m))
			return
		}
		if f.hook != nil {
			p.writeClient(f.hook(m))
			return
		}
		p.writeClient(m.Raw)
		return
	}
	if m.IsRequest() {
		switch m.Method {
		case "client/registerCapability":
			p.handleRegister(s, m)
		case "client/unregisterCapability":
			p.handleUnregister(s, m)
		default:
			p.forwardServerRequest(s, m, m.Raw)
		}
		return
	}
	p.writeClient(m.Raw)
}

// forwardServerRequest sends a JDT LS request to the editor, remembering
// which JDT LS asked.
//
// A request whose id is one of the proxy's own requests to the editor that
// is still waiting (newIDLocked) is not forwarded: the editor would get two
// requests with one id and the answers would cross. JDT LS gets an error.
func (p *proxy) forwardServerRequest(s *backendProc, m *jsonrpc.Message, body []byte) {
	key := m.IDKey()
	p.mu.Lock()
	if c, ok := p.own[key]; ok && c.srv == nil {
		p.mu.Unlock()
		p.log.Printf("JDT LS #%d sent %.60q with id %.60s, which a request of the proxy's own to the editor has; answering InvalidRequest", s.gen, m.Method, m.ID)
		s.write(errorBody(m.ID, idInUse(m)))
		return
	}
	p.serverReqs[key] = s.gen
	p.mu.Unlock()
	p.writeClient(body)
}

// writeClient writes one body to the editor. The first failed write (the
// editor's end of the pipe has gone) makes Run stop the proxy.
func (p *proxy) writeClient(body []byte) {
	if err := p.cout.WriteBody(body); err != nil && !p.wroteClient.Swap(true) {
		p.log.Printf("cannot write to the editor: %v", err)
		p.clientErr = fmt.Errorf("writing to the editor: %w", err)
		close(p.clientGone)
	}
}

// reply answers a client request with result.
func (p *proxy) reply(id json.RawMessage, result any) {
	body, err := responseBody(id, result)
	if err != nil {
		p.log.Printf("bug: cannot encode a result: %v", err)
		body = errorBody(id, Errorf(jsonrpc.CodeInternalError, "internal error: cannot encode the result: %v", err))
	}
	p.writeClient(body)
}

// replyError answers a client request with an error.
func (p *proxy) replyError(id json.RawMessage, e *jsonrpc.Error) {
	p.writeClient(errorBody(id, e))
}

// rawResponse builds a response body around an exact result, so that
// merged results keep JDT LS's bytes.
func rawResponse(id json.RawMessage, result []byte) []byte {
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0","id":`)
	b.Write(id)
	b.WriteString(`,"result":`)
	b.Write(result)
	b.WriteString(`}`)
	return b.Bytes()
}

// newIDTag returns 8 random bytes in hex (the time, should the system's
// random source fail).
func newIDTag() string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return strconv.FormatInt(time.Now().UnixNano(), 16)
	}
	return hex.EncodeToString(b[:])
}

// newIDLocked returns a fresh id in the proxy's id space, as raw JSON:
// "repilot/<idTag>/<n>", and never an id a peer's request in flight has
// (p.inflight, p.serverReqs). The editor and JDT LS choose their ids freely
// (LSP 3.17, "Base Protocol"), so a plain "repilot/<n>" could be one of
// theirs, and two requests with one id to one peer would get their answers
// crossed; the random tag keeps a peer from using one of ours by chance,
// and routeLocked and forwardServerRequest refuse a request that copies one.
// Called with p.mu held.
func (p *proxy) newIDLocked() json.RawMessage {
	for {
		id := json.RawMessage(strconv.Quote("repilot/" + p.idTag + "/" + strconv.FormatInt(p.nextID.Add(1), 10)))
		key := jsonrpc.CanonicalID(id)
		_, a := p.inflight[key]
		_, b := p.serverReqs[key]
		if !a && !b {
			return id
		}
	}
}

// idInUse is the error for a peer's request m whose id is one of the proxy's
// requests in flight to the same side.
func idInUse(m *jsonrpc.Message) *jsonrpc.Error {
	return Errorf(jsonrpc.CodeInvalidRequest, "invalid request: the id %.60s of %.60q is in use by a request of repilot-lsp's own; use another id", m.ID, m.Method)
}

// errClosed is returned by calls whose peer went away.
var errClosed = errors.New("the peer went away before answering")

// call sends a request in the proxy's id space to the editor (srv nil) or to
// srv, and waits for the answer or ctx. When ctx ends first it sends
// $/cancelRequest.
func (p *proxy) call(ctx context.Context, srv *backendProc, method string, params any) (json.RawMessage, error) {
	pj, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	c := &ownCall{ch: make(chan *jsonrpc.Message, 1), srv: srv}
	p.mu.Lock()
	id := p.newIDLocked()
	key := jsonrpc.CanonicalID(id) // replies may spell it differently ("repilot\/4")
	p.own[key] = c
	p.mu.Unlock()
	body, err := requestBody(id, method, pj)
	if err != nil {
		return nil, err
	}
	write := p.writeClient
	if srv != nil { // queued: never blocks on a JDT LS that is not reading
		write = srv.write
	}
	write(body)
	select {
	case m, ok := <-c.ch:
		if !ok {
			return nil, errClosed
		}
		if m.Error != nil {
			return nil, m.Error
		}
		return m.Result, nil
	case <-ctx.Done():
		p.mu.Lock()
		delete(p.own, key)
		p.mu.Unlock()
		if b, err := notificationBody("$/cancelRequest", cancelParams{ID: id}); err == nil {
			write(b)
		}
		return nil, ctx.Err()
	}
}

// notifyClient sends a notification to the editor.
func (p *proxy) notifyClient(method string, params any) {
	b, err := notificationBody(method, params)
	if err != nil {
		p.log.Printf("bug: cannot encode %s: %v", method, err)
		return
	}
	p.writeClient(b)
}

// recoverBug turns a panic in extension code into a logged bug report.
func (p *proxy) recoverBug(e Extension, where string) {
	if r := recover(); r != nil {
		p.log.Printf("bug: extension %s panicked in %s: %v", e.Name(), where, r)
	}
}
