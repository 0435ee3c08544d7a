package proxy

// command.go runs the requests the proxy answers itself (extension commands
// and claimed workspace/symbol queries) off the read loop, with
// cancellation, and implements the Client handle and work done progress they
// use.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/repilot-lsp/repilot-lsp/jsonrpc"
)

// handleExecuteCommand runs our commands, rejects commands nobody offers, and
// forwards JDT LS's.
func (p *proxy) handleExecuteCommand(m *jsonrpc.Message) {
	if !m.IsRequest() {
		p.forward(m, nil)
		return
	}
	var params executeCommandParams
	if err := json.Unmarshal(m.Params, &params); err != nil || params.Command == "" {
		msg := "the command is missing"
		if err != nil {
			msg = err.Error()
		}
		p.replyError(m.ID, Errorf(jsonrpc.CodeInvalidParams, "workspace/executeCommand: bad params: %s", msg))
		return
	}
	if e, ok := p.cmds[params.Command]; ok {
		p.runOwn(m, params.WorkDoneToken, "executeCommand "+params.Command, func(ctx context.Context, c Client) (any, error) {
			return e.Execute(ctx, c, params.Command, params.Arguments)
		})
		return
	}
	p.mu.Lock()
	known, has := len(p.jdtCommands) > 0, p.jdtCommands[params.Command]
	var jdt []string
	for c := range p.jdtCommands {
		jdt = append(jdt, c)
	}
	p.mu.Unlock()
	if known && !has {
		sort.Strings(jdt)
		p.replyError(m.ID, Errorf(jsonrpc.CodeInvalidParams, "unknown command %q. repilot-lsp offers: %s. JDT LS offers: %s",
			params.Command, strings.Join(p.ourCommands(), ", "), strings.Join(jdt, ", ")))
		return
	}
	p.forward(m, nil)
}

// handleCancelRequest cancels a request the proxy is answering itself, and
// forwards every other cancellation to JDT LS.
func (p *proxy) handleCancelRequest(m *jsonrpc.Message) {
	var cp cancelParams
	if err := json.Unmarshal(m.Params, &cp); err == nil {
		key := jsonrpc.CanonicalID(cp.ID)
		p.mu.Lock()
		cancel := p.active[key]
		p.mu.Unlock()
		if cancel != nil {
			p.log.Printf("the editor cancelled request %s", key)
			cancel()
			return
		}
	}
	p.forward(m, nil)
}

// handleProgressCancel cancels the request behind one of our progress
// tokens, and forwards cancellations of JDT LS's progress.
func (p *proxy) handleProgressCancel(m *jsonrpc.Message) {
	var tp tokenParams
	if err := json.Unmarshal(m.Params, &tp); err == nil {
		p.mu.Lock()
		cancel := p.progress[jsonrpc.CanonicalID(tp.Token)]
		p.mu.Unlock()
		if cancel != nil {
			p.log.Printf("the editor cancelled progress %s", tp.Token)
			cancel()
			return
		}
	}
	p.forward(m, nil)
}

// maxOwnInFlight bounds the requests the proxy answers itself that may run
// at once (commands, ghost text): each holds a goroutine and a snapshot of
// the mirror's map, and an editor that sends them faster than they end
// (one that never cancels, or a hostile one) must not grow the proxy
// without bound. Editors keep a few in flight.
var maxOwnInFlight = 256

// runOwn answers client request m with fn's result, on a goroutine, with a
// ctx that $/cancelRequest for m cancels. token is the request's
// workDoneToken, if any.
func (p *proxy) runOwn(m *jsonrpc.Message, token json.RawMessage, what string, fn func(ctx context.Context, c Client) (any, error)) {
	ctx, cancel := context.WithCancel(p.ctx)
	key := m.IDKey()
	p.mu.Lock()
	n := len(p.active)
	_, dup := p.active[key]
	if n < maxOwnInFlight && !dup {
		p.active[key] = cancel
	}
	p.mu.Unlock()
	switch {
	case dup:
		cancel()
		p.log.Printf("%s: the editor sent request id %s again while the first is unanswered: answering InvalidRequest", what, key)
		p.replyError(m.ID, Errorf(jsonrpc.CodeInvalidRequest, "request id %.40s is already in use by a request not yet answered", key))
		return
	case n >= maxOwnInFlight:
		cancel()
		p.log.Printf("%s: %d of the proxy's own requests are unanswered already: refused", what, n)
		p.replyError(m.ID, Errorf(jsonrpc.CodeRequestFailed, "%d Repilot requests are still running; cancel some or wait", n))
		return
	}
	// The documents as they stand now, on the read loop: the handler runs on
	// a goroutine, by when a didChange sent after this request may already
	// have been applied (a repair at the current version then failed with
	// ContentModified).
	c := &reqClient{p: p, cancel: cancel, docs: p.mirror.snapshot()}
	if len(token) > 0 && string(token) != "null" {
		c.token = token
	}
	go func() {
		defer cancel()
		var res any
		var err error
		func() {
			defer func() {
				if r := recover(); r != nil {
					p.log.Printf("bug: %s panicked: %v", what, r)
					err = Errorf(jsonrpc.CodeInternalError, "internal error in %s: %v", what, r)
				}
			}()
			res, err = fn(ctx, c)
		}()
		c.endAll(err)
		p.mu.Lock()
		delete(p.active, key)
		p.mu.Unlock()
		if err != nil {
			e := toLSPError(ctx, err)
			p.log.Printf("%s (request %s) failed: %s", what, key, e.Message)
			p.replyError(m.ID, e)
			return
		}
		p.reply(m.ID, res)
	}()
}

// toLSPError turns an extension error into a response error: *jsonrpc.Error
// as is, cancellation as RequestCancelled, anything else as RequestFailed.
func toLSPError(ctx context.Context, err error) *jsonrpc.Error {
	var e *jsonrpc.Error
	if errors.As(err, &e) {
		return e
	}
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return Errorf(jsonrpc.CodeRequestCancelled, "cancelled")
	}
	return Errorf(jsonrpc.CodeRequestFailed, "%s", err.Error())
}

// reqClient is the Client handle for one request.
type reqClient struct {
	p      *proxy
	cancel func()                            // the request's; nil outside a request (Initialized, Notify)
	token  json.RawMessage                   // the request's workDoneToken, until used
	docs   map[protocol.DocumentURI]Document // the mirror when the request arrived; nil: the live mirror (Initialized's and Notify's handle)

	mu    sync.Mutex
	begun []*progress
}

func (c *reqClient) Root() string                     { return c.p.root }
func (c *reqClient) Capabilities() ClientCapabilities { return c.p.caps }
func (c *reqClient) Logf(format string, args ...any)  { c.p.log.Printf(format, args...) }

func (c *reqClient) Document(uri protocol.DocumentURI) (Document, bool) {
	if c.docs == nil {
		return c.p.mirror.get(uri)
	}
	d, ok := c.docs[uri]
	return d, ok
}

func (c *reqClient) Notify(method string, params any) { c.p.notifyClient(method, params) }

func (c *reqClient) ShowMessage(typ protocol.MessageType, message string) {
	c.p.notifyClient("window/showMessage", protocol.ShowMessageParams{Type: typ, Message: message})
}

func (c *reqClient) ApplyEdit(ctx context.Context, label string, edit protocol.WorkspaceEdit) (bool, error) {
	if !c.p.caps.ApplyEdit {
		return false, errors.New("the editor does not support workspace/applyEdit")
	}
	raw, err := c.p.call(ctx, nil, "workspace/applyEdit", protocol.ApplyWorkspaceEditParams{Label: label, Edit: edit})
	if err != nil {
		return false, err
	}
	var r protocol.ApplyWorkspaceEditResponse
	if err := json.Unmarshal(raw, &r); err != nil {
		return false, fmt.Errorf("bad workspace/applyEdit response: %v", err)
	}
	if !r.Applied && r.FailureReason != "" {
		return false, fmt.Errorf("the editor did not apply the edit: %s", r.FailureReason)
	}
	return r.Applied, nil
}

func (c *reqClient) BeginProgress(ctx context.Context, title string) Progress {
	c.mu.Lock()
	token := c.token
	c.token = nil
	c.mu.Unlock()
	if token == nil {
		if !c.p.caps.WorkDoneProgress {
			return noProgress{}
		}
		token = json.RawMessage(fmt.Sprintf("%q", "repilot/progress/"+c.p.idTag+"/"+fmt.Sprint(c.p.nextID.Add(1))))
		// An editor that does not answer must not hold up the work.
		cctx, cancel := context.WithTimeout(ctx, c.p.opts.ProgressCreateTimeout)
		_, err := c.p.call(cctx, nil, "window/workDoneProgress/create", tokenParams{Token: token})
		cancel()
		if err != nil {
			c.p.log.Printf("window/workDoneProgress/create failed (%v); no progress for %q", err, title)
			return noProgress{}
		}
	}
	pr := &progress{p: c.p, token: token, percent: -1}
	// Work outside a request (a feature's Initialized or Notify, such as
	// the warm-up) has nothing to cancel: its progress says so, and a
	// cancel for it stays with the proxy.
	cancel, cancellable := c.cancel, c.cancel != nil
	if !cancellable {
		cancel = func() {}
	}
	c.p.mu.Lock()
	c.p.progress[jsonrpc.CanonicalID(token)] = cancel
	c.p.mu.Unlock()
	c.mu.Lock()
	c.begun = append(c.begun, pr)
	c.mu.Unlock()
	c.p.notifyClient("$/progress", progressParams{Token: token, Value: workDoneProgressValue{Kind: "begin", Title: title, Cancellable: cancellable}})
	return pr
}

// endAll ends the progress an extension left open when its request ends.
func (c *reqClient) endAll(err error) {
	c.mu.Lock()
	begun := c.begun
	c.begun = nil
	c.mu.Unlock()
	msg := "done"
	if err != nil {
		msg = "failed"
	}
	for _, pr := range begun {
		pr.End(msg)
	}
}

// progress is work done progress on one token.
type progress struct {
	p     *proxy
	token json.RawMessage

	mu      sync.Mutex
	percent int
	ended   bool
	lastMsg string
}

func (pr *progress) Report(message string, percent int) {
	pr.mu.Lock()
	if pr.ended || (percent <= pr.percent && message == pr.lastMsg) {
		pr.mu.Unlock()
		return
	}
	v := workDoneProgressValue{Kind: "report", Message: message}
	if percent >= 0 {
		if percent > 100 {
			percent = 100
		}
		if percent < pr.percent {
			percent = pr.percent
		}
		pr.percent = percent
		pct := percent
		v.Percentage = &pct
	}
	pr.lastMsg = message
	pr.mu.Unlock()
	pr.p.notifyClient("$/progress", progressParams{Token: pr.token, Value: v})
}

func (pr *progress) End(message string) {
	pr.mu.Lock()
	if pr.ended {
		pr.mu.Unlock()
		return
	}
	pr.ended = true
	pr.mu.Unlock()
	pr.p.mu.Lock()
	delete(pr.p.progress, jsonrpc.CanonicalID(pr.token))
	pr.p.mu.Unlock()
	pr.p.notifyClient("$/progress", progressParams{Token: pr.token, Value: workDoneProgressValue{Kind: "end", Message: message}})
}

// noProgress is the Progress of an editor without work done progress.
type noProgress struct{}

func (noProgress) Report(string, int) {}
func (noProgress) End(string)         {}
