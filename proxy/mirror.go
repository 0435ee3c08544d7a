package proxy

// mirror.go keeps the editor's open documents as the editor sees them, from
// textDocument/didOpen, didChange (full and incremental) and didClose, so that
// extensions work on the buffer text and version rather than the file on disk.

import (
	"encoding/json"
	"fmt"
	"sort"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/repilot-lsp/repilot-lsp/jsonrpc"
	"github.com/repilot-lsp/repilot-lsp/textpos"
)

// mirror is the set of open documents. Its methods are safe for concurrent
// use; updates come from the client read loop only, in arrival order.
type mirror struct {
	mu   sync.RWMutex
	docs map[protocol.DocumentURI]Document
	// max bounds one document's text in bytes: the editor's message body
	// limit (jsonrpc.Limits.MaxBody), which already bounds a didOpen's text,
	// so that didChange edits cannot grow a document past what a didOpen
	// could carry.
	max int
	// lost holds the documents the editor has open that the mirror dropped
	// (grown past max, or a didChange it could not apply), with why, until
	// the editor opens or closes them again: their later didChanges are not
	// followed and not reported again, and a restarted JDT LS cannot get
	// them re-opened (restart tells the user which).
	lost map[protocol.DocumentURI]string
	// total is the bytes of text of docs; it is kept at most maxTotalFactor
	// times max: a document that would pass it is not followed (lost), so
	// that many open documents cannot grow the proxy without bound, nor a
	// restart's re-opening of them pass the bound of what may wait for
	// JDT LS (maxServerQueue, four times max), which would take the new
	// JDT LS for hung.
	total int
}

// maxTotalFactor bounds the mirror's text in all, in bodies of the largest
// size: 128 MiB at the default body limit.
const maxTotalFactor = 2

func newMirror() *mirror {
	return &mirror{docs: map[protocol.DocumentURI]Document{}, max: jsonrpc.MaxBodyBytes, lost: map[protocol.DocumentURI]string{}}
}

// setLocked replaces uri's document by d, or drops it (ok false), keeping
// total.
func (m *mirror) setLocked(uri protocol.DocumentURI, d Document, ok bool) {
	if old, had := m.docs[uri]; had {
		m.total -= len(old.Text)
		delete(m.docs, uri)
	}
	if ok {
		m.docs[uri] = d
		m.total += len(d.Text)
	}
}

// fitsLocked says whether uri's text may become n bytes within the bound
// on all documents' text.
func (m *mirror) fitsLocked(uri protocol.DocumentURI, n int) bool {
	return m.total-len(m.docs[uri].Text)+n <= maxTotalFactor*m.max
}

// lostDocument is a document the editor has open but the mirror does not
// follow (mirror.lost): its URI and why.
type lostDocument struct {
	URI protocol.DocumentURI
	Why string
}

// lostDocs returns the documents the mirror dropped while the editor has
// them open, sorted by URI.
func (m *mirror) lostDocs() []lostDocument {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := make([]lostDocument, 0, len(m.lost))
	for u, why := range m.lost {
		out = append(out, lostDocument{URI: u, Why: why})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].URI < out[j].URI })
	return out
}

// tooLargeDocError reports a document that grew past the mirror's bound
// through didChange edits: the mirror dropped it, so the features do not
// see it until the editor opens it again; the notification itself still
// goes to JDT LS unchanged.
type tooLargeDocError struct {
	URI   protocol.DocumentURI
	Limit int // bytes
	// All is set when the bound passed is the one on all documents' text
	// (maxTotalFactor times Limit), not on this one's.
	All bool
}

func (e *tooLargeDocError) Error() string {
	if e.All {
		return fmt.Sprintf("%s would take the open documents' text past %s in all (twice the editor's message body limit, $%s): not followed by the document mirror, so Repilot's features are off for it until it is opened again, with fewer or smaller documents open; JDT LS still gets it (a restarted JDT LS cannot get it re-opened: the user is told to reopen it)",
			e.URI, byteSize(maxTotalFactor*e.Limit), jsonrpc.EnvMaxBody)
	}
	return fmt.Sprintf("%s grew past %s (the editor's message body limit, $%s) through didChange edits: dropped from the document mirror, so Repilot's features are off for it until it is opened again; JDT LS still gets every change (a JDT LS restarted before then cannot get it re-opened: the user is told to reopen it)",
		e.URI, byteSize(e.Limit), jsonrpc.EnvMaxBody)
}

// get returns the snapshot of uri.
func (m *mirror) get(uri protocol.DocumentURI) (Document, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	d, ok := m.docs[uri]
	return d, ok
}

// snapshot returns a copy of the open documents (the snapshots are shared,
// the map is not): O(open documents), taken on the read loop for each request
// run off it.
func (m *mirror) snapshot() map[protocol.DocumentURI]Document {
	m.mu.RLock()
	defer m.mu.RUnlock()
	docs := make(map[protocol.DocumentURI]Document, len(m.docs))
	for u, d := range m.docs {
		docs[u] = d
	}
	return docs
}

// all returns every open document, sorted by URI.
func (m *mirror) all() []Document {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := make([]Document, 0, len(m.docs))
	for _, d := range m.docs {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].URI < out[j].URI })
	return out
}

// apply updates the mirror from a document synchronization notification
// (LSP 3.17 "Text Document Synchronization"). Methods other than didOpen,
// didChange and didClose are ignored. An error means the params could not be
// read or did not fit the text; the document is then dropped from the mirror
// (its state is unknown) and the error names what went wrong.
func (m *mirror) apply(method string, params json.RawMessage) error {
	switch method {
	case "textDocument/didOpen":
		var p protocol.DidOpenTextDocumentParams
		if err := json.Unmarshal(params, &p); err != nil {
			return fmt.Errorf("bad didOpen params: %v", err)
		}
		uri := p.TextDocument.URI
		m.mu.Lock()
		defer m.mu.Unlock()
		delete(m.lost, uri)
		if !m.fitsLocked(uri, len(p.TextDocument.Text)) {
			m.setLocked(uri, Document{}, false)
			m.lost[uri] = "the open documents passed " + byteSize(maxTotalFactor*m.max) + " in all"
			return &tooLargeDocError{URI: uri, Limit: m.max, All: true}
		}
		m.setLocked(uri, Document{URI: uri, LanguageID: string(p.TextDocument.LanguageID),
			Version: p.TextDocument.Version, Text: p.TextDocument.Text}, true)
	case "textDocument/didChange":
		var p didChangeParams
		if err := json.Unmarshal(params, &p); err != nil {
			var id struct {
				TextDocument struct {
					URI protocol.DocumentURI `json:"uri"`
				} `json:"textDocument"`
			}
			if json.Unmarshal(params, &id) == nil {
				m.mu.Lock()
				if _, ok := m.docs[id.TextDocument.URI]; ok { // only a followed one: the map stays bounded by didOpens
					m.setLocked(id.TextDocument.URI, Document{}, false)
					m.lost[id.TextDocument.URI] = "a didChange the proxy could not read"
				}
				m.mu.Unlock()
			}
			return fmt.Errorf("bad didChange params: %v", err)
		}
		uri := p.TextDocument.URI
		m.mu.Lock()
		defer m.mu.Unlock()
		d, ok := m.docs[uri]
		if !ok {
			if _, ok := m.lost[uri]; ok {
				return nil // reported once, when it was dropped
			}
			return fmt.Errorf("didChange for %s, which is not open", uri)
		}
		text, err := applyChanges(d.Text, p.ContentChanges, m.max)
		if err == errTooLarge {
			m.setLocked(uri, Document{}, false)
			m.lost[uri] = "it grew past " + byteSize(m.max)
			return &tooLargeDocError{URI: uri, Limit: m.max}
		}
		if err != nil {
			m.setLocked(uri, Document{}, false)
			m.lost[uri] = "a change the proxy could not apply"
			return fmt.Errorf("didChange for %s version %d: %v (document dropped from the mirror)", uri, p.TextDocument.Version, err)
		}
		if !m.fitsLocked(uri, len(text)) {
			m.setLocked(uri, Document{}, false)
			m.lost[uri] = "the open documents passed " + byteSize(maxTotalFactor*m.max) + " in all"
			return &tooLargeDocError{URI: uri, Limit: m.max, All: true}
		}
		d.Text = text
		d.Version = p.TextDocument.Version
		m.setLocked(uri, d, true)
	case "textDocument/didClose":
		var p protocol.DidCloseTextDocumentParams
		if err := json.Unmarshal(params, &p); err != nil {
			return fmt.Errorf("bad didClose params: %v", err)
		}
		m.drop(p.TextDocument.URI)
	}
	return nil
}

func (m *mirror) drop(uri protocol.DocumentURI) {
	m.mu.Lock()
	m.setLocked(uri, Document{}, false)
	delete(m.lost, uri)
	m.mu.Unlock()
}

// lose drops uri, which the editor still has open, and records why.
func (m *mirror) lose(uri protocol.DocumentURI, why string) {
	m.mu.Lock()
	m.setLocked(uri, Document{}, false)
	m.lost[uri] = why
	m.mu.Unlock()
}

// setMax sets the bound on one document's text in bytes (n <= 0 keeps
// the current bound).
func (m *mirror) setMax(n int) {
	if n <= 0 {
		return
	}
	m.mu.Lock()
	m.max = n
	m.mu.Unlock()
}

// errTooLarge is applyChanges' error for a text that grew past its bound.
var errTooLarge = fmt.Errorf("the text grew past its bound")

// applyChanges applies content changes in order, each to the result of the
// previous one (LSP 3.17 "DidChangeTextDocumentParams"). A change without a
// range replaces the whole text; ranges are UTF-16 positions. A text longer
// than limit bytes after any change is errTooLarge (limit <= 0: no bound); the
// check comes before the text is built.
func applyChanges(text string, changes []contentChange, limit int) (string, error) {
	// One buffer for a run of ranged changes, its line index updated by
	// each splice: building the index of the whole text again for each
	// change (and copying the text) cost a scan of all of it per change.
	var buf *textpos.Buffer
	for i, c := range changes {
		if c.Range == nil {
			if limit > 0 && len(c.Text) > limit {
				return "", errTooLarge
			}
			text, buf = c.Text, nil
			continue
		}
		if buf == nil {
			buf = textpos.NewBuffer(text)
		}
		start, err := buf.Offset(ToTextpos(c.Range.Start))
		if err != nil {
			return "", fmt.Errorf("change %d: start: %v", i, err)
		}
		end, err := buf.Offset(ToTextpos(c.Range.End))
		if err != nil {
			return "", fmt.Errorf("change %d: end: %v", i, err)
		}
		if end < start {
			return "", fmt.Errorf("change %d: range end %d:%d before start %d:%d", i,
				c.Range.End.Line, c.Range.End.Character, c.Range.Start.Line, c.Range.Start.Character)
		}
		if limit > 0 && buf.Len()-(end-start)+len(c.Text) > limit {
			return "", errTooLarge
		}
		buf.Splice(start, end, c.Text)
	}
	if buf != nil {
		text = buf.String()
	}
	return text, nil
}

// byteSize spells n bytes for a message: "64 MiB", "8 KiB", "1000 bytes".
func byteSize(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
