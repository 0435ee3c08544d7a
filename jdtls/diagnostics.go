// diagnostics.go ties publishDiagnostics to document versions with the sync
// marker, and returns the diagnostics of one version (Client.Diagnostics).

package jdtls

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/repilot-lsp/repilot-lsp/javalex"
	"github.com/repilot-lsp/repilot-lsp/textpos"
)

// DiagnosticsQuiet is how long Diagnostics waits, after a publishDiagnostics
// that carries neither a version nor a sync marker, for a later one that would
// replace it (the fallback of Diagnostics).
const DiagnosticsQuiet = 1500 * time.Millisecond

// syncMarker starts the comment line the Client appends to every document text
// it sends: "// TODO repilot-sync <version>". JDT LS reports it back as a task
// diagnostic (IProblem.Task, code taskProblemCode, severity 3) in every
// publishDiagnostics computed from that text, which identifies the text's
// version (see Diagnostics).
const syncMarker = "// TODO repilot-sync "

// taskProblemCode is JDT's IProblem.Task (536871362), the code of task-tag
// diagnostics.
const taskProblemCode = "536871362"

// Diagnostic is one entry of publishDiagnostics (LSP 3.17 "Diagnostic").
// Severity: 1 Error, 2 Warning, 3 Information, 4 Hint.
type Diagnostic struct {
	Range    Range           `json:"range"`
	Severity int             `json:"severity"`
	Code     json.RawMessage `json:"code,omitempty"`
	Source   string          `json:"source,omitempty"`
	Message  string          `json:"message"`
}

// Range is an LSP range (zero-based lines, UTF-16 characters).
type Range struct {
	Start textpos.Position `json:"start"`
	End   textpos.Position `json:"end"`
}

// diagState holds what arrived for one URI: the latest publish, and the
// latest publish per sync-marker version (for versions still current).
type diagState struct {
	seq      int64 // publishes received for this URI
	version  int   // "version" of the latest publish; -1 when absent
	marker   int   // sync-marker version of the latest publish; -1 when absent
	at       time.Time
	items    []Diagnostic // of the latest publish, marker removed
	byMarker map[int][]Diagnostic
}

// Diagnostics returns the diagnostics JDT LS published for version of the
// open document uri, waiting for them if needed. The sync-marker diagnostic
// is not among them.
//
// Which publish belongs to which text: JDT LS 1.20 sends no version in
// publishDiagnostics (measured; the field is absent although the client
// declares versionSupport). It reconciles and publishes on a debounced job
// (about 0.8-1.5 s after a change here), and a job that was already running
// when a change arrived publishes the older text afterwards — measured up to
// 5 s late while the project was still building. So timing cannot tell
// versions apart. Instead every text sent ends with a marker comment
// "// TODO repilot-sync <version>", which JDT LS reports back as a task
// diagnostic in each publish computed from that text; Diagnostics waits for
// the publish whose marker names version. The rules, in order:
//   - a publish whose marker is version counts;
//   - a publish with a "version" field counts when it equals version (LSP
//     3.17 servers with versionSupport);
//   - only when the marker cannot be reported — the text ends inside a text
//     block or block comment, which swallows it, or no publish so far has
//     carried a marker (task tags disabled) — a publish that arrived after
//     the change and has neither counts once DiagnosticsQuiet has passed
//     without a newer one. (JDT LS also publishes unmarked diagnostics of
//     the file on disk when a document is closed; that is why an unmarked
//     publish is not trusted otherwise.)
//
// A later change to the document while waiting is an error (the diagnostics
// of version will not be published any more), and so is a text JDT Core
// could not convert to a syntax tree (ErrNoAST, from JDT LS's log message
// naming the version's marker).
func (c *Client) Diagnostics(ctx context.Context, uri string, version int) ([]Diagnostic, error) {
	for {
		c.mu.Lock()
		doc, open := c.docs[uri]
		if !open {
			c.mu.Unlock()
			return nil, fmt.Errorf("jdtls: %s is not open", uri)
		}
		if doc.version != version {
			v := doc.version
			c.mu.Unlock()
			return nil, fmt.Errorf("jdtls: %s is at version %d, not %d", uri, v, version)
		}
		wake := c.diagWake
		if c.noAST[version] {
			c.mu.Unlock()
			return nil, fmt.Errorf("jdtls: diagnostics of %s version %d: %w", uri, version, ErrNoAST)
		}
		d := c.diags[diagKey(uri)]
		var (
			ready bool
			wait  time.Duration
			items []Diagnostic
		)
		if d != nil {
			if got, ok := d.byMarker[version]; ok {
				ready, items = true, got
			} else if d.seq > doc.seqAt {
				switch {
				case d.version == version:
					ready, items = true, d.items
				case d.version < 0 && d.marker < 0 && (!c.markersSeen || !markable(doc.text, version)):
					if q := time.Since(d.at); q >= DiagnosticsQuiet {
						ready, items = true, d.items
					} else {
						wait = DiagnosticsQuiet - q
					}
				}
			}
		}
		c.mu.Unlock()
		if ready {
			return append([]Diagnostic(nil), items...), nil
		}
		var timer <-chan time.Time
		if wait > 0 {
			timer = time.After(wait)
		}
		select {
		case <-wake:
		case <-timer:
		case <-c.done:
			return nil, c.exitErr
		case <-ctx.Done():
			return nil, fmt.Errorf("jdtls: waiting for diagnostics of %s version %d: %w", uri, version, ctx.Err())
		}
	}
}

// notePublish records a textDocument/publishDiagnostics (LSP 3.17
// "PublishDiagnosticsParams"): the latest publish of its URI, and the publish
// of its sync-marker version while that version is current. It wakes
// Diagnostics waiters. The params are decoded into a local struct, not
// protocol.PublishDiagnosticsParams, whose version (uint32) cannot tell an
// absent version from 0.
func (c *Client) notePublish(params json.RawMessage) {
	var p struct {
		URI         string       `json:"uri"`
		Version     *int         `json:"version"`
		Diagnostics []Diagnostic `json:"diagnostics"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	key := diagKey(p.URI)
	d := c.diags[key]
	if d == nil {
		d = &diagState{}
		c.diags[key] = d
	}
	d.seq++
	d.version = -1
	if p.Version != nil {
		d.version = *p.Version
	}
	d.at = time.Now()
	d.marker, d.items = splitMarker(p.Diagnostics)
	if d.marker >= 0 {
		c.markersSeen = true
	}
	if doc := c.docLocked(p.URI, key); doc != nil && d.marker >= doc.version {
		if d.byMarker == nil {
			d.byMarker = map[int][]Diagnostic{}
		}
		d.byMarker[d.marker] = d.items
	}
	c.wakeDiagnosticsLocked()
}

// ErrNoAST is the error of Diagnostics when JDT LS failed to build the syntax
// tree of the text (JDT Core's ASTConverter throws on some recovered parses,
// e.g. a method declaration written inside a method body with an operator
// in its parameter list, eclipse.jdt.core's "Exception occurred during
// compilation unit conversion"). JDT LS then publishes no diagnostics for
// that text at all, so without this error Diagnostics would wait until its
// context ends. Such texts are malformed: callers treat them as not
// compiling.
var ErrNoAST = errors.New("JDT LS could not build a syntax tree of the text (JDT Core error during compilation unit conversion); it publishes no diagnostics for it")

// astFailure starts the window/logMessage JDT LS sends when JDT Core fails to
// convert a compilation unit; the message goes on with the unit's source,
// which ends with the sync marker of its version.
const astFailure = "Exception occurred during compilation unit conversion"

// noteLogMessage records, from a window/logMessage, a version whose text JDT
// Core failed to convert (see ErrNoAST), and wakes Diagnostics waiters.
func (c *Client) noteLogMessage(params json.RawMessage) {
	var p struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(params, &p) != nil || !strings.Contains(p.Message, astFailure) {
		return
	}
	i := strings.LastIndex(p.Message, syncMarker)
	if i < 0 {
		return
	}
	digits := p.Message[i+len(syncMarker):]
	n := 0
	for n < len(digits) && digits[n] >= '0' && digits[n] <= '9' {
		n++
	}
	v, err := strconv.Atoi(digits[:n])
	if err != nil {
		return
	}
	c.mu.Lock()
	if c.noAST == nil {
		c.noAST = map[int]bool{}
	}
	c.noAST[v] = true
	c.wakeDiagnosticsLocked()
	c.mu.Unlock()
}

// wakeDiagnosticsLocked wakes every Diagnostics call waiting for news (new
// diagnostics published, or a version JDT Core could not convert): it closes
// diagWake and puts a fresh channel for the next wait. c.mu must be held.
func (c *Client) wakeDiagnosticsLocked() {
	close(c.diagWake)
	c.diagWake = make(chan struct{})
}

// withMarker returns text with the sync-marker line for version appended.
func withMarker(text string, version int) string {
	sep := ""
	if text != "" && !strings.HasSuffix(text, "\n") {
		sep = "\n"
	}
	return text + sep + syncMarker + strconv.Itoa(version) + "\n"
}

// markable reports whether the marker line appended to text is a line
// comment of its own (not swallowed by an unterminated text block or block
// comment), so that the server can report it.
func markable(text string, version int) bool {
	full := withMarker(text, version)
	end := len(full) - 1 // before the final newline
	return javalex.ContextAt(full, end) == javalex.InLineComment &&
		strings.HasPrefix(full[strings.LastIndexByte(full[:end], '\n')+1:], syncMarker)
}

// splitMarker finds the sync-marker task diagnostic in ds: it returns the
// marker's version (-1 when absent) and ds without it.
func splitMarker(ds []Diagnostic) (int, []Diagnostic) {
	marker := -1
	out := ds[:0:0]
	tag := strings.TrimPrefix(syncMarker, "// ")
	for _, d := range ds {
		if strings.HasPrefix(d.Message, tag) && strings.Trim(string(d.Code), `"`) == taskProblemCode {
			if v, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(d.Message, tag))); err == nil {
				marker = v
				continue
			}
		}
		out = append(out, d)
	}
	return marker, out
}

// docLocked returns the open document published as uri (diagKey key):
// spelled as we opened it, or otherwise (diagKey). c.mu is held.
func (c *Client) docLocked(uri, key string) *docState {
	if doc := c.docs[uri]; doc != nil {
		return doc
	}
	for u, doc := range c.docs {
		if diagKey(u) == key {
			return doc
		}
	}
	return nil
}

// diagKey is the key of a document's diagnostics: its file URI in one
// spelling. JDT LS spells URIs as java.net.URI does, leaving non-ASCII
// characters unescaped (file:///home/jos%C3%A9 comes back as
// file:///home/josé), and editors escape ':' after a drive letter or not;
// without this a publish for a path with such a character never met its
// document, and every compile check there waited for its time limit.
// Other URIs are their own key.
func diagKey(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return uri
	}
	return (&url.URL{Scheme: "file", Host: u.Host, Path: u.Path}).String()
}
