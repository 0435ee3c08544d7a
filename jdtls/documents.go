// documents.go keeps the documents the client opens in full-text sync
// (didOpen, didChange, didClose) with versions unique per client, writes
// those notifications in order from a queue that a cancelled caller can
// leave (enqueueLocked), and converts between file paths and file:// URIs.

package jdtls

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"

	"github.com/repilot-lsp/repilot-lsp/jsonrpc"
	"go.lsp.dev/protocol"
)

type docState struct {
	version int
	text    string // the caller's text (without the sync marker)
	seqAt   int64  // diagState.seq when this version was sent
}

// ErrInFlight says that a document notification was committed (the
// client's record of the document, Document, already holds it, and it will
// be written in order before any later request) but that the call returned
// before it was written, because its context ended. The error also wraps
// the context's error.
var ErrInFlight = errors.New("jdtls: document notification queued, not yet written")

// Open sends textDocument/didOpen for uri with text (languageId "java") and
// returns the version sent. Opening an open document is an error. Versions
// are unique across all documents of the client and increase.
//
// The server receives text plus a last comment line "// TODO repilot-sync
// <version>" (see syncMarker); offsets and lines of text are unchanged by it.
//
// A ctx that has ended before the call commits nothing and returns its
// error. Otherwise the notification is committed and queued (sendQueue);
// when ctx ends before it has been written, Open returns the version and an
// error wrapping ErrInFlight and ctx's error: the document is open
// (Document says so) and the server gets the notification before any later
// request. A server that does not read its input (JDT LS stops reading
// while a notification handler waits for a workspace lock) cannot hold the
// caller past ctx.
func (c *Client) Open(ctx context.Context, uri, text string) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if err := c.Err(); err != nil {
		return 0, err
	}
	c.mu.Lock()
	if _, ok := c.docs[uri]; ok {
		c.mu.Unlock()
		return 0, fmt.Errorf("jdtls: %s is already open", uri)
	}
	c.lastVersion++
	v := c.lastVersion
	d := &docState{version: v, text: text, seqAt: c.diagSeqLocked(uri)}
	c.docs[uri] = d
	m := c.enqueueLocked(&outMsg{method: "textDocument/didOpen", uri: uri, params: didOpen(uri, text, v)})
	c.mu.Unlock()
	return v, c.awaitWritten(ctx, m)
}

// Change replaces the whole text of an open document (full-text
// textDocument/didChange, LSP 3.17 "TextDocumentContentChangeEvent" without a
// range) and returns its new version. When text equals the current text
// nothing is sent and the current version is returned. As with Open, the
// server receives text plus the sync-marker line for the new version, and
// ctx bounds the wait in the same way (ErrInFlight: the change is
// committed).
func (c *Client) Change(ctx context.Context, uri, text string) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if err := c.Err(); err != nil {
		return 0, err
	}
	c.mu.Lock()
	d, ok := c.docs[uri]
	if !ok {
		c.mu.Unlock()
		return 0, fmt.Errorf("jdtls: %s is not open", uri)
	}
	if d.text == text {
		v := d.version
		c.mu.Unlock()
		return v, nil
	}
	c.lastVersion++
	d.version = c.lastVersion
	d.text = text
	d.seqAt = c.diagSeqLocked(uri)
	v := d.version
	if ds := c.diags[diagKey(uri)]; ds != nil {
		for m := range ds.byMarker {
			if m < v {
				delete(ds.byMarker, m)
			}
		}
	}
	change := didChangeFull{
		TextDocument: protocol.VersionedTextDocumentIdentifier{
			TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: protocol.DocumentURI(uri)},
			Version:                int32(v),
		},
		ContentChanges: []fullText{{Text: withMarker(text, v)}},
	}
	var m *outMsg
	if i := c.coalesceLocked(uri); i >= 0 && c.outQ[i].method != "textDocument/didClose" {
		// Not written yet: the server gets this text in its place (a
		// didOpen stays one, with this text and version).
		m = c.outQ[i]
		if m.method == "textDocument/didOpen" {
			m.params = didOpen(uri, text, v)
		} else {
			m.params = change
		}
	} else {
		m = c.enqueueLocked(&outMsg{method: "textDocument/didChange", uri: uri, params: change})
	}
	c.mu.Unlock()
	return v, c.awaitWritten(ctx, m)
}

// didOpen is the didOpen of uri's version v with text (and the sync marker).
func didOpen(uri, text string, v int) protocol.DidOpenTextDocumentParams {
	return protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
		URI: protocol.DocumentURI(uri), LanguageID: protocol.JavaLanguage, Version: int32(v), Text: withMarker(text, v),
	}}
}

// outMsg is a message in the send queue: a document notification, a
// request (call) or a $/cancelRequest.
type outMsg struct {
	method string
	params any
	uri    string           // a document notification's document, for coalescing ("" otherwise)
	call   *jsonrpc.Pending // a request: written with call.Send
	err    error            // the write's error; read after done
	done   chan struct{}    // closed once written, once the write failed, or when dropped
	// taken: the writer has taken it off the queue; sent: its write has
	// returned; left: a request whose caller left while it was being
	// written (the writer then sends its $/cancelRequest). Guarded by c.mu.
	taken, sent, left bool
}

// enqueueLocked appends m to the send queue and makes sure a writer drains
// it. Called with c.mu held, in the critical section that changed the
// document's record, so that notifications are written in the order of the
// records (and their versions).
//
// The send queue: document notifications and requests are written by one
// goroutine at a time, in order, so that a caller whose context ends can
// return while a write waits for the server to read, without leaving the
// server's view of a document different from the client's record; no
// request overtakes a notification committed before it. A request still
// queued when its caller leaves is dropped (leave). The queue stays
// bounded while the server reads nothing: a document's later full text
// replaces its queued didOpen or didChange, and its didClose drops them
// (coalesceLocked).
func (c *Client) enqueueLocked(m *outMsg) *outMsg {
	if m.done == nil {
		m.done = make(chan struct{})
	}
	c.outQ = append(c.outQ, m)
	if !c.writing {
		c.writing = true
		go c.writeQueue()
	}
	return m
}

// coalesceLocked returns the index in the queue of uri's last queued
// notification when no request is queued after it (a request must see the
// text committed before it), or -1. Called with c.mu held.
func (c *Client) coalesceLocked(uri string) int {
	for i := len(c.outQ) - 1; i >= 0; i-- {
		switch m := c.outQ[i]; {
		case m.call != nil:
			return -1
		case m.uri == uri:
			return i
		}
	}
	return -1
}

// dropLocked removes the queued message at index i and releases its
// waiters. Called with c.mu held.
func (c *Client) dropLocked(i int) {
	m := c.outQ[i]
	copy(c.outQ[i:], c.outQ[i+1:])
	c.outQ[len(c.outQ)-1] = nil
	c.outQ = c.outQ[:len(c.outQ)-1]
	close(m.done)
}

// writeQueue writes the queued messages in order until the queue is empty.
func (c *Client) writeQueue() {
	for {
		c.mu.Lock()
		if len(c.outQ) == 0 {
			c.writing = false
			c.mu.Unlock()
			return
		}
		m := c.outQ[0]
		c.outQ[0] = nil
		c.outQ = c.outQ[1:]
		m.taken = true
		c.mu.Unlock()
		if m.call != nil {
			m.err = m.call.Send()
		} else {
			m.err = c.conn.Notify(m.method, m.params)
		}
		c.mu.Lock()
		m.sent = true
		if m.left && m.err == nil {
			c.cancelLocked(m.call)
		}
		c.mu.Unlock()
		close(m.done)
	}
}

// leave withdraws the request m whose caller's context ended before m was
// written: still queued, it is dropped; being written, the writer tells
// the server ($/cancelRequest) once the write is done; written, the cancel
// is queued now.
func (c *Client) leave(m *outMsg) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case !m.taken:
		for i, q := range c.outQ {
			if q == m {
				c.dropLocked(i)
				break
			}
		}
		m.call.Forget()
	case !m.sent:
		m.left = true
	case m.err == nil:
		c.cancelLocked(m.call)
	}
}

// cancelLocked withdraws the written request p and queues its
// $/cancelRequest (LSP 3.17 "Cancellation Support"). Called with c.mu held.
func (c *Client) cancelLocked(p *jsonrpc.Pending) {
	p.Forget()
	c.enqueueLocked(&outMsg{method: "$/cancelRequest", params: p.CancelParams()})
}

// awaitWritten waits until m is written or ctx ends (ErrInFlight).
func (c *Client) awaitWritten(ctx context.Context, m *outMsg) error {
	select {
	case <-m.done:
		return c.wrapErr(m.err)
	case <-ctx.Done():
		return fmt.Errorf("%w: %w", ErrInFlight, ctx.Err())
	}
}

// didChangeFull is DidChangeTextDocumentParams with full-text changes only.
// protocol.TextDocumentContentChangeEvent cannot be used: its range has no
// omitempty, so a full-text change would go out with a zero range, which the
// server reads as an insertion at 0:0.
type didChangeFull struct {
	TextDocument   protocol.VersionedTextDocumentIdentifier `json:"textDocument"`
	ContentChanges []fullText                               `json:"contentChanges"`
}

// fullText is a TextDocumentContentChangeEvent without a range: the whole
// new text of the document (LSP 3.17).
type fullText struct {
	Text string `json:"text"`
}

// Close sends textDocument/didClose. Closing a document that is not open is a
// no-op. The close is committed even when ctx has already ended (a caller
// that stops must still be able to give its document back): the record is
// dropped at once and the notification queued; ctx bounds only the wait for
// the write (ErrInFlight, as with Open).
func (c *Client) Close(ctx context.Context, uri string) error {
	c.mu.Lock()
	_, ok := c.docs[uri]
	delete(c.docs, uri)
	delete(c.diags, diagKey(uri))
	if !ok || c.Err() != nil {
		c.mu.Unlock()
		return nil
	}
	params := protocol.DidCloseTextDocumentParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: protocol.DocumentURI(uri)},
	}
	var m *outMsg
	if i := c.coalesceLocked(uri); i >= 0 {
		switch q := c.outQ[i]; q.method {
		case "textDocument/didOpen":
			// The server never saw it open: nothing to send.
			c.dropLocked(i)
			c.mu.Unlock()
			return nil
		case "textDocument/didChange":
			q.method, q.params = "textDocument/didClose", params
			m = q
		}
	}
	if m == nil {
		m = c.enqueueLocked(&outMsg{method: "textDocument/didClose", uri: uri, params: params})
	}
	c.mu.Unlock()
	return c.awaitWritten(ctx, m)
}

// Document returns the text and version of an open document.
func (c *Client) Document(uri string) (text string, version int, open bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.docs[uri]
	if !ok {
		return "", 0, false
	}
	return d.text, d.version, true
}

func (c *Client) diagSeqLocked(uri string) int64 {
	if d := c.diags[diagKey(uri)]; d != nil {
		return d.seq
	}
	return 0
}

// FileURI returns the file:// URI of an absolute path, as JDT LS spells it
// (file:///dir/F.java; path segments percent-encoded).
func FileURI(path string) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path)}
	return u.String()
}

// URIPath returns the file path of a file:// URI; an error for another
// scheme or a URI that names no absolute path ("file:A.java").
func URIPath(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return "", err
	}
	if u.Scheme != "file" {
		return "", fmt.Errorf("jdtls: not a file URI: %s", uri)
	}
	path := filepath.FromSlash(u.Path)
	if !filepath.IsAbs(path) {
		// "file:A.java" (opaque): a file URI names an absolute path (RFC 8089).
		return "", fmt.Errorf("jdtls: file URI %s names no absolute path", uri)
	}
	return path, nil
}
