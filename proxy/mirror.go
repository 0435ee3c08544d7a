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

	"github.com/repilot-lsp/repilot-lsp/textpos"
)

// mirror is the set of open documents. Its methods are safe for concurrent
// use; updates come from the client read loop only, in arrival order.
type mirror struct {
	mu   sync.RWMutex
	docs map[protocol.DocumentURI]Document
}

func newMirror() *mirror { return &mirror{docs: map[protocol.DocumentURI]Document{}} }

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
		m.mu.Lock()
		m.docs[p.TextDocument.URI] = Document{URI: p.TextDocument.URI, LanguageID: string(p.TextDocument.LanguageID),
			Version: p.TextDocument.Version, Text: p.TextDocument.Text}
		m.mu.Unlock()
	case "textDocument/didChange":
		var p didChangeParams
		if err := json.Unmarshal(params, &p); err != nil {
			var id struct {
				TextDocument struct {
					URI protocol.DocumentURI `json:"uri"`
				} `json:"textDocument"`
			}
			if json.Unmarshal(params, &id) == nil {
				m.drop(id.TextDocument.URI)
			}
			return fmt.Errorf("bad didChange params: %v", err)
		}
		uri := p.TextDocument.URI
		m.mu.Lock()
		defer m.mu.Unlock()
		d, ok := m.docs[uri]
		if !ok {
			return fmt.Errorf("didChange for %s, which is not open", uri)
		}
		text, err := applyChanges(d.Text, p.ContentChanges)
		if err != nil {
			delete(m.docs, uri)
			return fmt.Errorf("didChange for %s version %d: %v (document dropped from the mirror)", uri, p.TextDocument.Version, err)
		}
		d.Text = text
		d.Version = p.TextDocument.Version
		m.docs[uri] = d
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
	delete(m.docs, uri)
	m.mu.Unlock()
}

// applyChanges applies content changes in order, each to the result of the
// previous one (LSP 3.17 "DidChangeTextDocumentParams"). A change without a
// range replaces the whole text; ranges are UTF-16 positions.
func applyChanges(text string, changes []contentChange) (string, error) {
	for i, c := range changes {
		if c.Range == nil {
			text = c.Text
			continue
		}
		mp := textpos.New(text)
		start, err := mp.Offset(ToTextpos(c.Range.Start))
		if err != nil {
			return "", fmt.Errorf("change %d: start: %v", i, err)
		}
		end, err := mp.Offset(ToTextpos(c.Range.End))
		if err != nil {
			return "", fmt.Errorf("change %d: end: %v", i, err)
		}
		if end < start {
			return "", fmt.Errorf("change %d: range end %d:%d before start %d:%d", i,
				c.Range.End.Line, c.Range.End.Character, c.Range.Start.Line, c.Range.Start.Character)
		}
		text = text[:start] + c.Text + text[end:]
	}
	return text, nil
}
