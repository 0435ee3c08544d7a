package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
)

// Handler answers a request or consumes a notification from the peer. For a
// request it returns the result (marshalled to JSON) or an error; an *Error is
// sent as is, any other error as CodeInternalError. For a notification the
// return values are ignored. Handlers run on the Conn's read goroutine, in
// arrival order: they must not block on the peer.
type Handler func(ctx context.Context, m *Message) (any, error)

// ErrClosed is returned by Call for a connection whose peer has gone.
var ErrClosed = errors.New("jsonrpc: connection closed")

// Conn is one side of a JSON-RPC connection that originates requests. Its
// request ids are strings "<prefix><n>", so they cannot collide with a peer
// that uses numbers or other prefixes.
type Conn struct {
	w       *Writer
	r       *Reader
	prefix  string
	next    atomic.Int64
	handler Handler

	mu      sync.Mutex
	pending map[string]chan *Message
	closed  bool
	err     error
	done    chan struct{}
}

// NewConn returns a connection reading from r and writing to w. idPrefix names
// its id space (e.g. "repilot-engine/"). h may be nil: requests are then
// answered with CodeMethodNotFound and notifications dropped. Call Run to
// start reading.
func NewConn(r io.Reader, w io.Writer, idPrefix string, h Handler) *Conn {
	return &Conn{w: NewWriter(w), r: NewReader(r), prefix: idPrefix, handler: h,
		pending: map[string]chan *Message{}, done: make(chan struct{})}
}

// Run reads messages until the stream ends, dispatching responses to waiting
// Calls and everything else to the handler. It returns the read error (nil at
// a clean EOF); all pending and later Calls then fail with ErrClosed.
func (c *Conn) Run(ctx context.Context) error {
	var err error
	for {
		var m *Message
		m, err = c.r.Read()
		if err != nil {
			var perr *Error
			var tl *TooLargeError
			if errors.As(err, &tl) {
				c.skipped(tl)
				continue
			}
			if errors.As(err, &perr) { // bad JSON: keep reading
				continue
			}
			break
		}
		if m.IsResponse() {
			c.mu.Lock()
			ch, ok := c.pending[m.IDKey()]
			delete(c.pending, m.IDKey())
			c.mu.Unlock()
			if ok {
				ch <- m
			}
			continue
		}
		c.dispatch(ctx, m)
	}
	if err == io.EOF {
		err = nil
	}
	c.mu.Lock()
	c.closed = true
	c.err = err
	for k, ch := range c.pending {
		close(ch)
		delete(c.pending, k)
	}
	c.mu.Unlock()
	close(c.done)
	return err
}

// skipped answers for a message over the body limit that the reader
// skipped (its envelope read on the way): a response ends the Call waiting
// for it with an error naming the limit, a request is answered with one,
// so that neither side waits for what was not read.
func (c *Conn) skipped(tl *TooLargeError) {
	if len(tl.ID) == 0 {
		return
	}
	e := &Error{Code: CodeRequestFailed, Message: tl.Error()}
	if tl.Method != "" {
		_ = c.w.Write(&Message{ID: tl.ID, Error: e})
		return
	}
	key := CanonicalID(tl.ID)
	c.mu.Lock()
	ch, ok := c.pending[key]
	delete(c.pending, key)
	c.mu.Unlock()
	if ok {
		ch <- &Message{ID: tl.ID, Error: e}
	}
}

// Done is closed when Run has returned.
func (c *Conn) Done() <-chan struct{} { return c.done }

func (c *Conn) dispatch(ctx context.Context, m *Message) {
	if c.handler == nil {
		if m.IsRequest() {
			_ = c.w.Write(&Message{ID: m.ID, Error: &Error{Code: CodeMethodNotFound, Message: "method not found: " + m.Method}})
		}
		return
	}
	res, err := c.handler(ctx, m)
	if !m.IsRequest() {
		return
	}
	_ = c.Reply(m.ID, res, err)
}

// Reply sends the response for request id: result (JSON-marshalled) or err.
func (c *Conn) Reply(id json.RawMessage, result any, err error) error {
	resp := &Message{ID: id}
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			e = &Error{Code: CodeInternalError, Message: err.Error()}
		}
		resp.Error = e
	} else {
		b, merr := json.Marshal(result)
		if merr != nil {
			resp.Error = &Error{Code: CodeInternalError, Message: merr.Error()}
		} else {
			resp.Result = b
		}
	}
	return c.w.Write(resp)
}

// Notify sends a notification (LSP 3.17 "Notification Message"): method and
// params marshalled to JSON, no id. It returns the marshalling error (nothing
// is sent) or the write's.
func (c *Conn) Notify(method string, params any) error {
	p, err := json.Marshal(params)
	if err != nil {
		return err
	}
	return c.w.Write(&Message{Method: method, Params: p})
}

// Call sends a request and waits for its response, decoding the result into
// result (which may be nil). A ctx that has already ended sends nothing; if
// ctx ends while waiting it sends $/cancelRequest and returns ctx.Err(). A response error is returned as *Error.
func (c *Conn) Call(ctx context.Context, method string, params any, result any) error {
	raw, err := c.CallRaw(ctx, method, params)
	if err != nil {
		return err
	}
	if result == nil || len(raw) == 0 {
		return nil
	}
	return json.Unmarshal(raw, result)
}

// CallRaw is Call returning the result's raw JSON as the response carried
// it instead of decoding it; its errors are Call's.
func (c *Conn) CallRaw(ctx context.Context, method string, params any) (json.RawMessage, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p, err := c.Prepare(method, params)
	if err != nil {
		return nil, err
	}
	if err := p.Send(); err != nil {
		return nil, err
	}
	raw, err := p.Wait(ctx)
	if err != nil && errors.Is(err, ctx.Err()) {
		_ = c.Notify("$/cancelRequest", p.CancelParams())
	}
	return raw, err
}

// Pending is a request made in steps, for a caller that writes requests on
// its own schedule (jdtls's send queue, which a cancelled caller can leave
// while a write waits for a peer that reads nothing): Prepare gives it an
// id and registers it, Send writes it, Wait waits for the response, and
// Forget withdraws it (a response that still comes is dropped). CallRaw is
// the three in a row.
type Pending struct {
	c      *Conn
	id     string
	method string
	msg    *Message
	ch     chan *Message
}

// Prepare gives a request for method its id and registers it for the
// response; nothing is written yet (Send). It fails with ErrClosed on a
// closed connection, or when params do not marshal.
func (c *Conn) Prepare(method string, params any) (*Pending, error) {
	b, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	id := CanonicalID(json.RawMessage(strconv.Quote(c.prefix + strconv.FormatInt(c.next.Add(1), 10))))
	p := &Pending{c: c, id: id, method: method, msg: &Message{ID: json.RawMessage(id), Method: method, Params: b}, ch: make(chan *Message, 1)}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, ErrClosed
	}
	c.pending[id] = p.ch
	return p, nil
}

// Send writes the request, once; on an error it is withdrawn (Forget).
func (p *Pending) Send() error {
	if err := p.c.w.Write(p.msg); err != nil {
		p.Forget()
		return fmt.Errorf("jsonrpc: sending %s: %w", p.method, err)
	}
	return nil
}

// Wait waits for the response: its result, its error as *Error, ErrClosed
// when the connection ends first, or ctx's error when ctx ends first (the
// request is then withdrawn; telling the peer, $/cancelRequest with
// CancelParams, is the caller's to do).
func (p *Pending) Wait(ctx context.Context) (json.RawMessage, error) {
	select {
	case m, ok := <-p.ch:
		if !ok {
			return nil, ErrClosed
		}
		if m.Error != nil {
			return nil, m.Error
		}
		return m.Result, nil
	case <-ctx.Done():
		p.Forget()
		return nil, ctx.Err()
	}
}

// Forget withdraws the request: a response that comes later is dropped.
func (p *Pending) Forget() {
	p.c.mu.Lock()
	delete(p.c.pending, p.id)
	p.c.mu.Unlock()
}

// CancelParams are the params of the $/cancelRequest notification for the
// request (LSP 3.17 "Cancellation Support").
func (p *Pending) CancelParams() any {
	return map[string]json.RawMessage{"id": json.RawMessage(p.id)}
}
