// documents.go keeps the documents the client opens in full-text sync
// (didOpen, didChange, didClose) with versions unique per client, and converts
// between file paths and file:// URIs.

package jdtls

import (
	"fmt"
	"net/url"
	"path/filepath"

	"go.lsp.dev/protocol"
)

type docState struct {
	version int
	text    string // the caller's text (without the sync marker)
	seqAt   int64  // diagState.seq when this version was sent
}

// Open sends textDocument/didOpen for uri with text (languageId "java") and
// returns the version sent. Opening an open document is an error. Versions
// are unique across all documents of the client and increase.
//
// The server receives text plus a last comment line "// TODO repilot-sync
// <version>" (see syncMarker); offsets and lines of text are unchanged by it.
func (c *Client) Open(uri, text string) (int, error) {
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
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
	c.mu.Unlock()
	err := c.conn.Notify("textDocument/didOpen", protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
		URI: protocol.DocumentURI(uri), LanguageID: protocol.JavaLanguage, Version: int32(v), Text: withMarker(text, v),
	}})
	return v, c.wrapErr(err)
}

// Change replaces the whole text of an open document (full-text
// textDocument/didChange, LSP 3.17 "TextDocumentContentChangeEvent" without a
// range) and returns its new version. When text equals the current text
// nothing is sent and the current version is returned. As with Open, the
// server receives text plus the sync-marker line for the new version.
func (c *Client) Change(uri, text string) (int, error) {
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
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
	c.mu.Unlock()
	err := c.conn.Notify("textDocument/didChange", didChangeFull{
		TextDocument: protocol.VersionedTextDocumentIdentifier{
			TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: protocol.DocumentURI(uri)},
			Version:                int32(v),
		},
		ContentChanges: []fullText{{Text: withMarker(text, v)}},
	})
	return v, c.wrapErr(err)
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
// no-op.
func (c *Client) Close(uri string) error {
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
	c.mu.Lock()
	_, ok := c.docs[uri]
	delete(c.docs, uri)
	delete(c.diags, diagKey(uri))
	c.mu.Unlock()
	if !ok || c.Err() != nil {
		return nil
	}
	return c.wrapErr(c.conn.Notify("textDocument/didClose", protocol.DidCloseTextDocumentParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: protocol.DocumentURI(uri)},
	}))
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

// URIPath returns the file path of a file:// URI.
func URIPath(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return "", err
	}
	if u.Scheme != "file" {
		return "", fmt.Errorf("jdtls: not a file URI: %s", uri)
	}
	return filepath.FromSlash(u.Path), nil
}
