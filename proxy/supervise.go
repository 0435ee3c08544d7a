package proxy

// supervise.go starts JDT LS, notices when it exits, answers what it left
// unanswered, restarts it (re-sending initialize and re-opening the editor's
// documents), and shuts it down when the editor goes.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"

	"github.com/repilot-lsp/repilot-lsp/internal/cachedir"
	"github.com/repilot-lsp/repilot-lsp/internal/proc"
	"github.com/repilot-lsp/repilot-lsp/jdtls"
	"github.com/repilot-lsp/repilot-lsp/jsonrpc"
)

// Backend is one started JDT LS process as the proxy drives it: its stdio and
// two controls. Tests supply fakes through Options.Launch.
type Backend struct {
	Stdin  io.WriteCloser
	Stdout io.Reader
	// Wait blocks until the process has exited and returns why (nil for
	// exit status 0). It is called once, after Stdout has ended.
	Wait func() error
	// Kill ends the process, and what it started, at once.
	Kill func() error
}

// Launcher starts one JDT LS whose configuration and workspace data live in
// stateDir.
type Launcher func(ctx context.Context, stateDir string) (*Backend, error)

// JDTLSLauncher returns the Launcher for a real JDT LS: the install is found
// with jdtls.ResolveHome(home), the process built by jdtls.Command, and its
// stderr copied to logw line by line.
func JDTLSLauncher(home string, heapMB int, logw io.Writer) Launcher {
	return func(ctx context.Context, stateDir string) (*Backend, error) {
		h, err := jdtls.ResolveHome(home)
		if err != nil {
			return nil, err
		}
		cmd, err := jdtls.Command(h, stateDir, heapMB)
		if err != nil {
			return nil, err
		}
		stdin, err := cmd.StdinPipe()
		if err != nil {
			return nil, err
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			return nil, err
		}
		cmd.Stderr = &lineWriter{w: logw, prefix: "jdtls stderr: "}
		cmd.WaitDelay = 5 * time.Second
		if err := cmd.Start(); err != nil {
			return nil, fmt.Errorf("starting %s: %w", cmd.Path, err)
		}
		return &Backend{Stdin: stdin, Stdout: stdout, Wait: cmd.Wait, Kill: func() error { return proc.Stop(cmd) }}, nil
	}
}

// lineWriter prefixes each line written to w. A line longer than
// maxLogLine is cut there (the rest of it is dropped, and the cut said), so
// that a process writing without newlines cannot grow the buffer without
// bound.
type lineWriter struct {
	mu     sync.Mutex
	w      io.Writer
	prefix string
	buf    []byte
	skip   bool // dropping the rest of a line that was cut
}

// maxLogLine bounds one line of JDT LS's stderr in the log: 16 KiB.
const maxLogLine = 16 << 10

func (l *lineWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(b)
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		chunk := b
		if i >= 0 {
			chunk = b[:i]
		}
		if !l.skip {
			room := maxLogLine - len(l.buf)
			if len(chunk) > room {
				l.buf = append(l.buf, chunk[:room]...)
				fmt.Fprintf(l.w, "%s%s [line cut at %d bytes]\n", l.prefix, l.buf, maxLogLine)
				l.buf, l.skip = l.buf[:0], true
			} else {
				l.buf = append(l.buf, chunk...)
			}
		}
		if i < 0 {
			break
		}
		if !l.skip {
			fmt.Fprintf(l.w, "%s%s\n", l.prefix, l.buf)
		}
		l.buf, l.skip = l.buf[:0], false
		b = b[i+1:]
	}
	return n, nil
}

// CacheDir is the cache root, jdtls.CacheDir: $REPILOT_CACHE, else
// ~/.cache/repilot-lsp.
func CacheDir() string { return jdtls.CacheDir() }

// StateDirFor is the default state directory for a project root:
// CacheDir()/state/<first 16 hex digits of the SHA-256 of root>.
func StateDirFor(root string) string {
	return cachedir.ProjectState(root)
}

// backendProc is one JDT LS generation (1 for the first start, +1 per restart).
type backendProc struct {
	gen     int
	b       *Backend
	w       *jsonrpc.Writer
	logf    func(string, ...any)
	exitErr error         // set before exited closes
	exited  chan struct{} // the process has exited
	done    chan struct{} // serverLoop has finished (after exited)

	// Bodies for JDT LS wait in a FIFO drained by writer: JDT LS stops
	// reading its input while a notification handler blocks (on a
	// workspace lock during its first build, say), and the editor's read
	// loop must not stop with it. qBytes counts the bodies queued or being
	// written; past maxServerQueue JDT LS is taken for hung and killed (the
	// exit handler restarts it from the document mirror), so the FIFO stays
	// bounded.
	qmu    sync.Mutex
	q      [][]byte
	qBytes int
	broken bool
	kick   chan struct{}
}

// maxServerQueue bounds the bytes waiting for one JDT LS to read them:
// four of the largest body an editor may send (jsonrpc.MaxBodyBytes).
var maxServerQueue = 4 * jsonrpc.MaxBodyBytes

// write queues one body for this JDT LS, in order; it never blocks. After
// a write error, or once more than maxServerQueue bytes wait (JDT LS is
// killed then), the rest is dropped (the exit handler answers what is left
// unanswered and restarts JDT LS).
func (s *backendProc) write(body []byte) {
	s.qmu.Lock()
	hung := false
	if !s.broken {
		s.q = append(s.q, body)
		s.qBytes += len(body)
		if s.qBytes > maxServerQueue {
			hung, s.broken, s.q = true, true, nil
		}
	}
	s.qmu.Unlock()
	if hung {
		s.logf("JDT LS #%d has not read %d MiB of messages: killing it", s.gen, maxServerQueue>>20)
		go func() { _ = s.b.Kill() }()
		return
	}
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// writer drains the queue into JDT LS's stdin until the process exits.
func (s *backendProc) writer() {
	for {
		s.qmu.Lock()
		batch := s.q
		s.q = nil
		s.qmu.Unlock()
		for _, b := range batch {
			if err := s.w.WriteBody(b); err != nil {
				s.logf("cannot write to JDT LS #%d: %v", s.gen, err)
				s.qmu.Lock()
				s.broken, s.q = true, nil
				s.qmu.Unlock()
				return
			}
			s.qmu.Lock()
			s.qBytes -= len(b)
			s.qmu.Unlock()
		}
		select {
		case <-s.kick:
		case <-s.exited:
			return
		}
	}
}

// launch starts JDT LS generation gen and its read loop.
func (p *proxy) launch(gen int) (*backendProc, error) {
	p.mu.Lock()
	st := p.edState
	p.mu.Unlock()
	if st == nil {
		return nil, errors.New("the proxy is stopping")
	}
	dir := st.dir
	b, err := p.opts.Launch(p.ctx, dir)
	if err != nil {
		return nil, err
	}
	s := &backendProc{gen: gen, b: b, w: jsonrpc.NewWriter(b.Stdin), logf: p.log.Printf,
		exited: make(chan struct{}), done: make(chan struct{}), kick: make(chan struct{}, 1)}
	go s.writer()
	p.log.Printf("JDT LS #%d started (state in %s)", gen, dir)
	return s, nil
}

// startLoop runs s's read loop; serverExited runs when it ends.
func (p *proxy) startLoop(s *backendProc) {
	go func() {
		defer close(s.done)
		p.serverLoop(s)
	}()
}

// serverExited is called by s's read loop when JDT LS's output has ended: it
// waits for the process, then either records a clean stop or handles a
// crash: every forwarded request still in flight gets an error, the user is
// told, and JDT LS is restarted (within the restart limit).
func (p *proxy) serverExited(s *backendProc) {
	waitErr := make(chan error, 1)
	go func() { waitErr <- s.b.Wait() }()
	select {
	case s.exitErr = <-waitErr:
	case <-time.After(p.opts.ExitTimeout):
		p.log.Printf("JDT LS #%d closed its output but did not exit within %v; killing it", s.gen, p.opts.ExitTimeout)
		_ = s.b.Kill()
		s.exitErr = <-waitErr
	}
	close(s.exited)
	status := "exit status 0"
	if s.exitErr != nil {
		status = s.exitErr.Error()
	}

	p.mu.Lock()
	if p.srv != s {
		p.mu.Unlock()
		p.log.Printf("JDT LS #%d exited (%s); it was no longer in use", s.gen, status)
		return
	}
	lost := p.takeInflightLocked(s.gen)
	for key, c := range p.own {
		if c.srv == s {
			delete(p.own, key)
			close(c.ch)
		}
	}
	if p.exiting || p.shutdown {
		p.state = stateStopped
		p.deadReason = "it was shut down"
		p.mu.Unlock()
		p.log.Printf("JDT LS #%d exited while the proxy was stopping (%s)", s.gen, status)
		for _, f := range lost {
			if f.method == "shutdown" {
				p.reply(f.id, nil)
				continue
			}
			p.answerWithError(f.id, Errorf(jsonrpc.CodeRequestFailed, "JDT LS exited (%s) before answering %s", status, f.method), f.hook)
		}
		return
	}
	now := time.Now()
	recent := p.crashes[:0]
	for _, t := range p.crashes {
		if now.Sub(t) < p.opts.RestartWindow {
			recent = append(recent, t)
		}
	}
	p.crashes = append(recent, now)
	restart := len(p.crashes) <= p.opts.MaxRestarts
	var dropped []queued
	if restart {
		p.state = stateStarting
		for i, f := range lost {
			if f.method == "initialize" { // the editor's, unanswered: the restart answers it
				p.pendingInit = &lost[i]
				lost = append(lost[:i:i], lost[i+1:]...)
				break
			}
		}
	} else {
		p.state = stateDead
		p.deadReason = fmt.Sprintf("it exited unexpectedly %d times within %v and was not restarted; restart the language server", len(p.crashes), p.opts.RestartWindow)
		dropped, p.queue = p.queue, nil
	}
	p.mu.Unlock()

	p.log.Printf("JDT LS #%d exited unexpectedly (%s); %d requests in flight", s.gen, status, len(lost))
	for _, f := range lost {
		p.answerWithError(f.id, Errorf(jsonrpc.CodeRequestFailed,
			"JDT LS exited unexpectedly (%s) before answering %s", status, f.method), f.hook)
	}
	if !restart {
		msg := fmt.Sprintf("JDT LS exited unexpectedly (%s) %d times within %v; not restarting it again. Restart the Java language server to recover.",
			status, len(p.crashes), p.opts.RestartWindow)
		p.log.Print(msg)
		p.notifyClient("window/showMessage", protocol.ShowMessageParams{Type: protocol.MessageTypeError, Message: msg})
		p.failQueued(dropped)
		return
	}
	p.notifyClient("window/showMessage", protocol.ShowMessageParams{Type: protocol.MessageTypeError,
		Message: fmt.Sprintf("JDT LS exited unexpectedly (%s); restarting", status)})
	go p.restart(s.gen + 1)
}

// lostRequest is an in-flight request taken from the table.
type lostRequest struct {
	id     json.RawMessage
	method string
	hook   respHook
}

// takeInflightLocked removes and returns the requests forwarded to gen.
func (p *proxy) takeInflightLocked(gen int) []lostRequest {
	var out []lostRequest
	for key, f := range p.inflight {
		if f.gen == gen {
			out = append(out, lostRequest{id: json.RawMessage(key), method: f.method, hook: f.hook})
			delete(p.inflight, key)
		}
	}
	return out
}

// failQueued answers queued requests when JDT LS will not come back.
func (p *proxy) failQueued(q []queued) {
	p.mu.Lock()
	reason := p.deadReason
	p.mu.Unlock()
	for _, x := range q {
		if x.m.IsRequest() {
			p.answerWithError(x.m.ID, Errorf(jsonrpc.CodeRequestFailed, "JDT LS is not running (%s)", reason), x.hook)
		}
	}
}

// restart starts JDT LS generation gen after a crash: it re-sends the saved
// initialize (in the proxy's id space) and initialized, re-opens the
// mirror's documents, then flushes the messages queued meanwhile.
func (p *proxy) restart(gen int) {
	s, err := p.launch(gen)
	if err != nil {
		p.giveUp(fmt.Sprintf("it could not be restarted: %v", err))
		return
	}
	p.mu.Lock()
	if p.exiting || p.shutdown {
		pend := p.pendingInit
		p.pendingInit = nil
		p.mu.Unlock()
		p.log.Printf("JDT LS #%d started while the proxy was stopping; killing it", gen)
		_ = s.b.Kill()
		go func() { _, _ = io.Copy(io.Discard, s.b.Stdout); _ = s.b.Wait() }()
		if pend != nil {
			p.answerWithError(pend.id, Errorf(jsonrpc.CodeRequestFailed, "JDT LS exited before answering initialize, and the proxy is stopping"), pend.hook)
		}
		return
	}
	p.srv, p.gen = s, gen
	initRaw, initialized := p.initRaw, p.initialized
	pend := p.pendingInit
	p.pendingInit = nil
	if pend != nil {
		// The editor's own initialize, which the JDT LS that exited never
		// answered: this one answers it, through the same merge.
		p.inflight[string(pend.id)] = &inflight{method: "initialize", gen: gen, hook: pend.hook}
	}
	p.mu.Unlock()
	p.startLoop(s)

	if pend != nil {
		p.log.Printf("JDT LS #%d gets the editor's initialize, which JDT LS #%d did not answer", gen, gen-1)
		if b, err := requestBody(pend.id, "initialize", initRaw); err == nil {
			s.write(b)
		}
	} else if initRaw != nil {
		ctx, cancel := context.WithTimeout(p.ctx, p.opts.InitTimeout)
		_, err := p.call(ctx, s, "initialize", initRaw)
		cancel()
		if err != nil {
			// Its exit (now or after the kill) goes through serverExited and
			// counts as another crash.
			p.log.Printf("JDT LS #%d did not answer initialize (%v); killing it", gen, err)
			_ = s.b.Kill()
			return
		}
		if initialized != nil { // the editor had sent it to the JDT LS that crashed
			if b, err := jsonrpc.Encode(&jsonrpc.Message{Method: "initialized", Params: initialized}); err == nil {
				s.write(b)
			}
		}
	}

	// Re-open the documents and flush the queue. The mirror snapshot and the
	// dropping of queued document notifications happen under p.mu, as do
	// the mirror updates of the client loop, so each change is either in
	// the snapshot or flushed after it.
	p.mu.Lock()
	if p.srv != s {
		p.mu.Unlock()
		return
	}
	docs := p.mirror.all()
	lost := p.mirror.lostDocs()
	kept := p.queue[:0]
	for _, q := range p.queue {
		switch q.m.Method {
		case "textDocument/didOpen", "textDocument/didChange", "textDocument/didClose":
		default:
			kept = append(kept, q)
		}
	}
	p.queue = kept
	p.mu.Unlock()
	for _, d := range docs {
		b, err := notificationBody("textDocument/didOpen", protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
			URI: d.URI, LanguageID: protocol.LanguageIdentifier(d.LanguageID), Version: d.Version, Text: d.Text}})
		if err == nil {
			s.write(b)
		}
	}
	flushed := 0
	for {
		p.mu.Lock()
		if p.srv != s {
			p.mu.Unlock()
			return
		}
		if len(p.queue) == 0 {
			p.state = stateReady
			p.mu.Unlock()
			break
		}
		batch := p.queue
		p.queue = nil
		for _, q := range batch {
			if q.m.IsRequest() {
				p.inflight[q.m.IDKey()] = &inflight{method: q.m.Method, gen: s.gen, hook: q.hook}
			}
		}
		p.mu.Unlock()
		for _, q := range batch {
			s.write(q.m.Raw)
		}
		flushed += len(batch)
	}
	msg := fmt.Sprintf("JDT LS restarted (#%d); re-opened %d documents, forwarded %d queued messages", gen, len(docs), flushed)
	p.log.Print(msg)
	p.notifyClient("window/logMessage", protocol.LogMessageParams{Type: protocol.MessageTypeInfo, Message: msg})
	if len(lost) > 0 {
		p.reportLost(gen, lost)
	}
}

// reportLost tells the user which open documents a restarted JDT LS did
// not get re-opened: the mirror had dropped them (lost), so their text is
// the editor's alone, and JDT LS works on the file on disk until the
// editor opens them again (LSP has no request to make it send didOpen).
func (p *proxy) reportLost(gen int, lost []lostDocument) {
	var names, whys []string
	for _, d := range lost {
		names = append(names, path.Base(string(d.URI)))
		whys = append(whys, fmt.Sprintf("%s (%s)", d.URI, d.Why))
	}
	p.log.Printf("JDT LS #%d did not get %d open documents re-opened, the proxy no longer has their text: %s",
		gen, len(lost), strings.Join(whys, ", "))
	p.notifyClient("window/showMessage", protocol.ShowMessageParams{Type: protocol.MessageTypeWarning,
		Message: fmt.Sprintf("Repilot: the restarted JDT LS sees the saved file, not your unsaved text, of %s (the proxy had stopped following it); close and reopen it to fix this.",
			strings.Join(names, ", "))})
}

// giveUp leaves JDT LS down for good and tells the user why.
func (p *proxy) giveUp(reason string) {
	p.mu.Lock()
	p.state = stateDead
	p.deadReason = reason
	q := p.queue
	p.queue = nil
	pend := p.pendingInit
	p.pendingInit = nil
	p.mu.Unlock()
	if pend != nil {
		p.answerWithError(pend.id, Errorf(jsonrpc.CodeRequestFailed, "JDT LS exited before answering initialize and is not running: %s", reason), pend.hook)
	}
	msg := "JDT LS is not running: " + reason
	p.log.Print(msg)
	p.notifyClient("window/showMessage", protocol.ShowMessageParams{Type: protocol.MessageTypeError, Message: msg})
	p.failQueued(q)
}

// handleShutdown forwards shutdown, or answers it when JDT LS is down.
func (p *proxy) handleShutdown(m *jsonrpc.Message) {
	p.mu.Lock()
	p.shutdown = true
	ready := p.state == stateReady
	p.mu.Unlock()
	p.log.Printf("the editor sent shutdown")
	if ready {
		p.forward(m, nil)
		return
	}
	if m.IsRequest() {
		p.reply(m.ID, nil)
	}
}

// handleExit forwards exit to a running JDT LS.
func (p *proxy) handleExit(m *jsonrpc.Message) {
	p.mu.Lock()
	p.exiting = true
	s := p.srv
	running := s != nil && (p.state == stateReady || p.state == stateStarting)
	p.mu.Unlock()
	if running {
		s.write(m.Raw)
	}
}

// stop ends JDT LS after the client loop has ended (why: its error, nil for
// exit or end of stream): when the editor went without exit, JDT LS gets
// shutdown and exit first; then the proxy waits up to ExitTimeout and kills.
func (p *proxy) stop(why error) {
	p.mu.Lock()
	sentExit := p.exiting
	p.exiting = true
	s := p.srv
	shut := p.shutdown
	p.mu.Unlock()
	if s != nil {
		select {
		case <-s.exited:
		default:
			if !sentExit {
				p.log.Printf("stopping JDT LS #%d because the editor went away (%v)", s.gen, why)
				go func() {
					if !shut {
						ctx, cancel := context.WithTimeout(context.Background(), p.opts.ExitTimeout/2)
						if _, err := p.call(ctx, s, "shutdown", nil); err != nil {
							p.log.Printf("JDT LS #%d did not answer shutdown: %v", s.gen, err)
						}
						cancel()
					}
					if b, err := jsonrpc.Encode(&jsonrpc.Message{Method: "exit"}); err == nil {
						s.write(b)
					}
				}()
			}
			select {
			case <-s.exited:
				p.log.Printf("JDT LS #%d exited after the editor did (%v)", s.gen, s.exitErr)
			case <-time.After(p.opts.ExitTimeout):
				p.log.Printf("JDT LS #%d did not exit within %v; killing it", s.gen, p.opts.ExitTimeout)
				_ = s.b.Kill()
			}
		}
		_ = s.b.Stdin.Close()
		select {
		case <-s.done:
		case <-time.After(p.opts.ExitTimeout):
			p.log.Printf("bug: JDT LS #%d's read loop did not end", s.gen)
		}
	}
	p.cancel()
}
