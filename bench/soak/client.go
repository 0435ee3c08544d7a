package soak

// client.go is the editor's end of the LSP connection to the proxy. Unlike
// jsonrpc.Conn it keeps waiting for a request's response after cancelling
// it (LSP 3.17 "$/cancelRequest": the server still answers, with the result
// or RequestCancelled), so that the soak can check that every request gets
// exactly one answer.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/repilot-lsp/repilot-lsp/jsonrpc"
)

// call is one request the editor sent.
type call struct {
	id     string // canonical id
	method string
	sent   time.Time
	done   chan struct{} // closed when the response arrives
	resp   *jsonrpc.Message
	at     time.Time // when it arrived
}

// client speaks LSP to the proxy over its stdio.
type client struct {
	w *jsonrpc.Writer
	// onNote sees every notification; onRequest answers every request from
	// the server. Both run on the read goroutine.
	onNote    func(m *jsonrpc.Message)
	onRequest func(m *jsonrpc.Message) (any, *jsonrpc.Error)

	mu       sync.Mutex
	next     int
	pending  map[string]*call
	answered map[string]bool
	// Responses that matched no request sent, or a request already
	// answered: each is a routing bug in the proxy.
	unknown, duplicate []string
	readErr            error
	closed             chan struct{}
}

func newClient(w io.Writer, onNote func(*jsonrpc.Message), onRequest func(*jsonrpc.Message) (any, *jsonrpc.Error)) *client {
	return &client{w: jsonrpc.NewWriter(w), onNote: onNote, onRequest: onRequest,
		pending: map[string]*call{}, answered: map[string]bool{}, closed: make(chan struct{})}
}

// run reads the proxy's output until it ends.
func (c *client) run(r io.Reader) {
	rd := jsonrpc.NewReader(r)
	defer close(c.closed)
	for {
		m, err := rd.Read()
		if err != nil {
			var bad *jsonrpc.Error
			if errors.As(err, &bad) {
				continue
			}
			c.mu.Lock()
			if err != io.EOF {
				c.readErr = err
			}
			c.mu.Unlock()
			return
		}
		switch {
		case m.IsResponse():
			key := m.IDKey()
			c.mu.Lock()
			cl, ok := c.pending[key]
			delete(c.pending, key)
			switch {
			case ok:
				c.answered[key] = true
			case c.answered[key]:
				c.duplicate = append(c.duplicate, key)
			default:
				c.unknown = append(c.unknown, key)
			}
			c.mu.Unlock()
			if ok {
				cl.resp, cl.at = m, time.Now()
				close(cl.done)
			}
		case m.IsRequest():
			res, e := c.onRequest(m)
			resp := &jsonrpc.Message{ID: m.ID, Error: e}
			if e == nil {
				b, _ := json.Marshal(res)
				resp.Result = b
			}
			_ = c.w.Write(resp)
		default:
			c.onNote(m)
		}
	}
}

// request sends a request and returns its call.
func (c *client) request(method string, params any) (*call, error) {
	p, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.next++
	raw := json.RawMessage(strconv.Itoa(c.next))
	cl := &call{id: jsonrpc.CanonicalID(raw), method: method, sent: time.Now(), done: make(chan struct{})}
	c.pending[cl.id] = cl
	c.mu.Unlock()
	if err := c.w.Write(&jsonrpc.Message{ID: raw, Method: method, Params: p}); err != nil {
		c.mu.Lock()
		delete(c.pending, cl.id)
		c.mu.Unlock()
		return nil, fmt.Errorf("sending %s: %w", method, err)
	}
	return cl, nil
}

// cancel sends $/cancelRequest for cl; cl still waits for its response.
func (c *client) cancel(cl *call) {
	_ = c.notify("$/cancelRequest", map[string]json.RawMessage{"id": json.RawMessage(cl.id)})
}

// notify sends a notification.
func (c *client) notify(method string, params any) error {
	p, err := json.Marshal(params)
	if err != nil {
		return err
	}
	return c.w.Write(&jsonrpc.Message{Method: method, Params: p})
}

// wait waits up to d for cl's response; false when none came.
func (c *client) wait(cl *call, d time.Duration) bool {
	select {
	case <-cl.done:
		return true
	case <-time.After(d):
		return false
	}
}

// callSync sends a request and waits up to d for its result; an error
// response is returned as *jsonrpc.Error.
func (c *client) callSync(method string, params any, d time.Duration) (json.RawMessage, error) {
	cl, err := c.request(method, params)
	if err != nil {
		return nil, err
	}
	if !c.wait(cl, d) {
		c.cancel(cl)
		return nil, fmt.Errorf("%s: no answer within %v", method, d)
	}
	if cl.resp.Error != nil {
		return nil, cl.resp.Error
	}
	return cl.resp.Result, nil
}
