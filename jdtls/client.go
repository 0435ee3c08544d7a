// client.go defines Client, an LSP client for one JDT LS child process: it
// starts the server, initializes it for use as a completion engine, keeps the
// documents it opens in full-text sync, asks for completions, and collects the
// diagnostics that belong to a given document version.
//
// LSP references are to the 3.17 specification; JDT LS specifics (language/status,
// dynamic registration, the item shapes of 1.20 versus 1.45+) are described in
// docs/recipes.md, "Eclipse JDT LS".

package jdtls

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/repilot-lsp/repilot-lsp/internal/proc"
	"github.com/repilot-lsp/repilot-lsp/javalex"
	"github.com/repilot-lsp/repilot-lsp/jsonrpc"
	"github.com/repilot-lsp/repilot-lsp/textpos"
)

// IDPrefix is the id space of requests the engine's client sends (see
// jsonrpc.Conn): "repilot-engine/1", "repilot-engine/2", ...
const IDPrefix = "repilot-engine/"

// ErrExited is wrapped by every error that a Client returns because its JDT LS
// process has ended (crashed, killed, or shut down).
var ErrExited = errors.New("jdtls: server process has exited")

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

// Options say how to start JDT LS.
type Options struct {
	// Home is the JDT LS install directory (see ResolveHome).
	Home string
	// Root is the project directory (absolute) sent as rootUri and the one
	// workspace folder. JDT LS imports it (Maven, Gradle, or a plain folder
	// as an "invisible project").
	Root string
	// Folders are further project directories (absolute) sent as workspace
	// folders with Root, so that one server serves several projects (JDT LS
	// imports each).
	Folders []string
	// StateDir holds the server's configuration and workspace data (created).
	// Two live servers must not share one.
	StateDir string
	// HeapMB bounds the Java heap; 0 means 1024.
	HeapMB int
	// Stderr receives the process's standard error; nil discards it.
	Stderr io.Writer
	// Settings are the client settings, nested ({"java":{"completion":{...}}})
	// or with dotted keys ({"java.completion.maxResults": 0}). They are sent
	// as initializationOptions.settings and answer workspace/configuration.
	// DefaultSettings are merged underneath: a value given here wins.
	Settings map[string]any
}

// DefaultSettings are the settings a completion engine needs from JDT LS:
//   - java.completion.maxResults 0: no cap (the default 50 truncates member
//     lists and marks them isIncomplete);
//   - java.completion.filteredTypes []: no types hidden (the default hides
//     java.awt.List, sun.*, com.sun.*, ... which are still valid Java);
//   - java.completion.guessMethodArguments false: insert text stays short.
func DefaultSettings() map[string]any {
	return map[string]any{"java": map[string]any{
		"completion": map[string]any{
			"maxResults":           0,
			"filteredTypes":        []any{},
			"guessMethodArguments": false,
			"postfix":              map[string]any{"enabled": false},
		},
		"import":    map[string]any{"generatesMetadataFilesAtProjectRoot": false},
		"autobuild": map[string]any{"enabled": true},
	}}
}

// CompletionItem is one completion, normalized across JDT LS versions.
type CompletionItem struct {
	// Name is the identifier the item inserts: "greet" for a method item
	// labelled "greet() : String" (1.20) or "greet" with labelDetails (1.45+).
	// It is empty when the inserted text does not start with an identifier.
	Name string
	// Kind is the LSP CompletionItemKind (2 Method, 5 Field, 7 Class, 14
	// Keyword, 15 Snippet, ...; LSP 3.17 "CompletionItemKind").
	Kind int
	// Label is the label as the server sent it, with labelDetails appended.
	Label string
	// Detail is the item's detail (a signature or a type), possibly empty.
	Detail string
	// Edit is the edit the item applies (see normalizeItem), or nil.
	Edit *TextEdit
}

// TextEdit is an LSP TextEdit: replace Range with NewText (snippet syntax
// removed).
type TextEdit struct {
	Range   Range
	NewText string
}

// Completion item kinds used by callers (LSP 3.17 "CompletionItemKind").
const (
	KindMethod  = 2
	KindField   = 5
	KindKeyword = 14
	KindSnippet = 15
)

// CompletionList is the normalized answer to textDocument/completion.
// IsIncomplete is the server's flag: the list may lack items that further
// typing would bring.
type CompletionList struct {
	Items        []CompletionItem
	IsIncomplete bool
}

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

// Timings are measured durations of one Client, for reports.
type Timings struct {
	// Ready is the time from spawning the process to language/status
	// ServiceReady (zero until then).
	Ready time.Duration
	// Completions counts completion requests answered; CompletionTotal is
	// their summed latency (send to response) and CompletionMax the largest.
	Completions     int64
	CompletionTotal time.Duration
	CompletionMax   time.Duration
}

// Client is an LSP client for one JDT LS process. Its methods are safe for
// concurrent use; document changes are sent in call order.
type Client struct {
	opts     Options
	settings map[string]any
	cmd      *exec.Cmd
	conn     *jsonrpc.Conn
	stdin    io.WriteCloser
	spawned  time.Time

	ready     chan struct{}
	readyOnce sync.Once

	done    chan struct{} // closed when the process has exited and the connection ended
	exitErr error         // set before done is closed

	// mu guards docs, diags, timings, capabilities and diagWake.
	mu       sync.Mutex
	docs     map[string]*docState
	diags    map[string]*diagState
	diagWake chan struct{} // closed and replaced on every publishDiagnostics
	timings  Timings
	regs     map[string]string // registration id -> method (client/registerCapability)
	// lastVersion is the last document version sent, for any document:
	// versions are unique per client, so that a late publish for a closed
	// and reopened document cannot be taken for the new one's.
	lastVersion int
	// markersSeen is set once a publish carried a sync marker: the server
	// reports task tags, so a publish without one is never taken for a
	// markable text's diagnostics.
	markersSeen bool
	// noAST holds the versions whose text JDT LS failed to convert to an
	// AST (see ErrNoAST); they are never published.
	noAST map[int]bool
	// sendMu orders didOpen/didChange/didClose with the version numbers.
	sendMu sync.Mutex
}

type docState struct {
	version int
	text    string // the caller's text (without the sync marker)
	seqAt   int64  // diagState.seq when this version was sent
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

// Start spawns JDT LS, connects to it, and runs the LSP initialize handshake
// (initialize, then initialized). It does not wait for the project to load:
// see WaitReady. On error the process is killed.
func Start(ctx context.Context, o Options) (*Client, error) {
	if o.Root == "" || !filepath.IsAbs(o.Root) {
		return nil, fmt.Errorf("jdtls: project root %q is not an absolute path", o.Root)
	}
	for _, f := range o.Folders {
		if !filepath.IsAbs(f) {
			return nil, fmt.Errorf("jdtls: workspace folder %q is not an absolute path", f)
		}
	}
	if o.StateDir == "" {
		return nil, errors.New("jdtls: no state directory")
	}
	cmd, err := Command(o.Home, o.StateDir, o.HeapMB)
	if err != nil {
		return nil, err
	}
	cmd.Dir = o.StateDir
	if o.Stderr != nil {
		cmd.Stderr = o.Stderr
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	// Our own pipe for stdout: the read end sees EOF exactly when the process
	// (and anything it passed the descriptor to) has gone, so the connection
	// ends by itself and pending calls fail instead of hanging.
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = pw
	c := &Client{
		opts:     o,
		settings: mergeSettings(DefaultSettings(), normalizeSettings(o.Settings)),
		cmd:      cmd,
		stdin:    stdin,
		ready:    make(chan struct{}),
		done:     make(chan struct{}),
		docs:     map[string]*docState{},
		diags:    map[string]*diagState{},
		diagWake: make(chan struct{}),
		regs:     map[string]string{},
	}
	c.spawned = time.Now()
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		return nil, fmt.Errorf("jdtls: starting %s: %w", cmd.Path, err)
	}
	pw.Close()
	c.conn = jsonrpc.NewConn(pr, stdin, IDPrefix, c.handle)

	connDone := make(chan error, 1)
	go func() { connDone <- c.conn.Run(context.Background()) }()
	go func() {
		werr := cmd.Wait()
		// The process is gone; give the reader a moment to drain what it
		// wrote, then force the connection closed.
		select {
		case <-connDone:
		case <-time.After(2 * time.Second):
			pr.Close()
			<-connDone
		}
		pr.Close()
		if werr == nil {
			werr = errors.New("exit status 0")
		}
		c.exitErr = fmt.Errorf("%w (%v)", ErrExited, werr)
		close(c.done)
	}()

	if err := c.initialize(ctx); err != nil {
		c.kill()
		return nil, err
	}
	return c, nil
}

// initialize sends initialize and initialized (LSP 3.17 "Initialize Request").
func (c *Client) initialize(ctx context.Context) error {
	rootURI := FileURI(c.opts.Root)
	folders := []any{map[string]any{"uri": rootURI, "name": filepath.Base(c.opts.Root)}}
	folderURIs := []string{rootURI}
	for _, f := range c.opts.Folders {
		folders = append(folders, map[string]any{"uri": FileURI(f), "name": filepath.Base(f)})
		folderURIs = append(folderURIs, FileURI(f))
	}
	params := map[string]any{
		"processId":        os.Getpid(),
		"clientInfo":       map[string]any{"name": "repilot-lsp engine"},
		"rootUri":          rootURI,
		"rootPath":         c.opts.Root,
		"workspaceFolders": folders,
		"capabilities":     clientCapabilities(),
		"initializationOptions": map[string]any{
			"settings":                   c.settings,
			"workspaceFolders":           folderURIs,
			"extendedClientCapabilities": map[string]any{"classFileContentsSupport": false},
		},
		"trace": "off",
	}
	if _, err := c.call(ctx, "initialize", params); err != nil {
		return fmt.Errorf("jdtls: initialize: %w", err)
	}
	if err := c.conn.Notify("initialized", map[string]any{}); err != nil {
		return fmt.Errorf("jdtls: initialized: %w", c.wrapErr(err))
	}
	return nil
}

// clientCapabilities declares what a completion engine uses (LSP 3.17
// "ClientCapabilities"): plain-text completion (no snippets) with label details
// and list item defaults, versioned diagnostics, workspace/configuration, and
// dynamic registration (JDT LS registers completion only dynamically).
func clientCapabilities() map[string]any {
	kinds := make([]int, 25)
	for i := range kinds {
		kinds[i] = i + 1
	}
	return map[string]any{
		"workspace": map[string]any{
			"configuration":          true,
			"workspaceFolders":       true,
			"applyEdit":              false,
			"didChangeConfiguration": map[string]any{"dynamicRegistration": true},
			"executeCommand":         map[string]any{"dynamicRegistration": true},
			"didChangeWatchedFiles":  map[string]any{"dynamicRegistration": false},
		},
		"textDocument": map[string]any{
			"synchronization": map[string]any{"dynamicRegistration": true, "didSave": false,
				"willSave": false, "willSaveWaitUntil": false},
			"completion": map[string]any{
				"dynamicRegistration": true,
				"contextSupport":      true,
				"completionItem": map[string]any{
					"snippetSupport":          false,
					"commitCharactersSupport": false,
					"documentationFormat":     []string{"plaintext"},
					"deprecatedSupport":       true,
					"labelDetailsSupport":     true,
					"insertReplaceSupport":    false,
				},
				"completionItemKind": map[string]any{"valueSet": kinds},
				"completionList": map[string]any{
					"itemDefaults": []string{"commitCharacters", "editRange", "insertTextFormat", "insertTextMode", "data"},
				},
			},
			"publishDiagnostics": map[string]any{
				"relatedInformation": false,
				"versionSupport":     true,
				"tagSupport":         map[string]any{"valueSet": []int{1, 2}},
			},
		},
		"window": map[string]any{"workDoneProgress": false},
	}
}

// handle answers server->client requests and consumes notifications. It runs
// on the connection's read goroutine and never blocks on the server.
func (c *Client) handle(_ context.Context, m *jsonrpc.Message) (any, error) {
	switch m.Method {
	case "language/status":
		var p struct{ Type, Message string }
		if json.Unmarshal(m.Params, &p) == nil && p.Type == "ServiceReady" {
			c.readyOnce.Do(func() {
				c.mu.Lock()
				c.timings.Ready = time.Since(c.spawned)
				c.mu.Unlock()
				close(c.ready)
			})
		}
		return nil, nil
	case "textDocument/publishDiagnostics":
		var p struct {
			URI         string       `json:"uri"`
			Version     *int         `json:"version"`
			Diagnostics []Diagnostic `json:"diagnostics"`
		}
		if json.Unmarshal(m.Params, &p) != nil {
			return nil, nil
		}
		c.mu.Lock()
		d := c.diags[p.URI]
		if d == nil {
			d = &diagState{}
			c.diags[p.URI] = d
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
		if doc := c.docs[p.URI]; doc != nil && d.marker >= doc.version {
			if d.byMarker == nil {
				d.byMarker = map[int][]Diagnostic{}
			}
			d.byMarker[d.marker] = d.items
		}
		c.wakeDiagnosticsLocked()
		c.mu.Unlock()
		return nil, nil
	case "workspace/configuration":
		var p struct {
			Items []struct {
				ScopeURI string `json:"scopeUri"`
				Section  string `json:"section"`
			} `json:"items"`
		}
		if err := json.Unmarshal(m.Params, &p); err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
		}
		out := make([]any, len(p.Items))
		for i, it := range p.Items {
			out[i] = lookupSetting(c.settings, it.Section)
		}
		return out, nil
	case "client/registerCapability":
		var p struct {
			Registrations []struct{ ID, Method string } `json:"registrations"`
		}
		if json.Unmarshal(m.Params, &p) == nil {
			c.mu.Lock()
			for _, r := range p.Registrations {
				c.regs[r.ID] = r.Method
			}
			c.mu.Unlock()
		}
		return nil, nil
	case "client/unregisterCapability":
		var p struct {
			Unregisterations []struct{ ID string } `json:"unregisterations"` // sic, LSP 3.17
		}
		if json.Unmarshal(m.Params, &p) == nil {
			c.mu.Lock()
			for _, r := range p.Unregisterations {
				delete(c.regs, r.ID)
			}
			c.mu.Unlock()
		}
		return nil, nil
	case "workspace/applyEdit":
		return map[string]any{"applied": false, "failureReason": "the completion engine applies no edits"}, nil
	}
	if m.Method == "window/logMessage" {
		c.noteLogMessage(m.Params)
		return nil, nil
	}
	// window/workDoneProgress/create, workspace/executeClientCommand
	// (_java.reloadBundles.command and others), window/showMessageRequest,
	// and anything else: a null result. Notifications not listed above
	// (window/logMessage, $/progress, ...) are dropped.
	return nil, nil
}

// Registered reports whether the server has dynamically registered method
// (e.g. "textDocument/completion") and not unregistered it.
func (c *Client) Registered(method string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range c.regs {
		if m == method {
			return true
		}
	}
	return false
}

// Ready is closed when JDT LS has reported language/status ServiceReady.
func (c *Client) Ready() <-chan struct{} { return c.ready }

// WaitReady waits for ServiceReady. It fails when ctx ends first or the
// process exits (an error wrapping ErrExited).
func (c *Client) WaitReady(ctx context.Context) error {
	select {
	case <-c.ready:
		return nil
	case <-c.done:
		return c.exitErr
	case <-ctx.Done():
		return fmt.Errorf("jdtls: waiting for ServiceReady: %w", ctx.Err())
	}
}

// Done is closed when the JDT LS process has exited and its connection has
// ended; Err then says why.
func (c *Client) Done() <-chan struct{} { return c.done }

// Err returns nil while the process runs, then an error wrapping ErrExited
// with the exit status.
func (c *Client) Err() error {
	select {
	case <-c.done:
		return c.exitErr
	default:
		return nil
	}
}

// PID is the JDT LS process id.
func (c *Client) PID() int { return c.cmd.Process.Pid }

// Root is the project directory the server was started on.
func (c *Client) Root() string { return c.opts.Root }

// Timings returns the measurements so far.
func (c *Client) Timings() Timings {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.timings
}

// wrapErr turns a connection error into one wrapping ErrExited when the
// process is gone (or going).
func (c *Client) wrapErr(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, jsonrpc.ErrClosed) {
		select {
		case <-c.done:
			return fmt.Errorf("%w: %v", c.exitErr, err)
		case <-time.After(3 * time.Second):
			return fmt.Errorf("%w: connection closed: %v", ErrExited, err)
		}
	}
	if c.Err() != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%w: %v", c.exitErr, err)
	}
	return err
}

// call sends a request; errors are wrapped with ErrExited when the process is gone.
func (c *Client) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	if err := c.Err(); err != nil {
		return nil, err
	}
	raw, err := c.conn.CallRaw(ctx, method, params)
	return raw, c.wrapErr(err)
}

// Call sends any request to JDT LS and returns the raw result. Errors from the
// server are *jsonrpc.Error; a dead process gives an error wrapping ErrExited.
func (c *Client) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	return c.call(ctx, method, params)
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
	err := c.conn.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "java", "version": v, "text": withMarker(text, v),
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
	if ds := c.diags[uri]; ds != nil {
		for m := range ds.byMarker {
			if m < v {
				delete(ds.byMarker, m)
			}
		}
	}
	c.mu.Unlock()
	err := c.conn.Notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": v},
		"contentChanges": []any{map[string]any{"text": withMarker(text, v)}},
	})
	return v, c.wrapErr(err)
}

// Close sends textDocument/didClose. Closing a document that is not open is a
// no-op.
func (c *Client) Close(uri string) error {
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
	c.mu.Lock()
	_, ok := c.docs[uri]
	delete(c.docs, uri)
	delete(c.diags, uri)
	c.mu.Unlock()
	if !ok || c.Err() != nil {
		return nil
	}
	return c.wrapErr(c.conn.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}}))
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
	if d := c.diags[uri]; d != nil {
		return d.seq
	}
	return 0
}

// Completion asks textDocument/completion at pos in the open document uri
// and normalizes the answer (either shape: a CompletionList or an item
// array; see normalizeItem for the item shapes). A null result is an empty
// list.
func (c *Client) Completion(ctx context.Context, uri string, pos textpos.Position) (*CompletionList, error) {
	start := time.Now()
	raw, err := c.call(ctx, "textDocument/completion", map[string]any{
		"textDocument": map[string]any{"uri": uri},
		"position":     pos,
		"context":      map[string]any{"triggerKind": 1},
	})
	if err != nil {
		return nil, err
	}
	el := time.Since(start)
	c.mu.Lock()
	c.timings.Completions++
	c.timings.CompletionTotal += el
	if el > c.timings.CompletionMax {
		c.timings.CompletionMax = el
	}
	c.mu.Unlock()
	return ParseCompletion(raw)
}

// wireItem is a CompletionItem as JDT LS sends it (LSP 3.17 "CompletionItem").
type wireItem struct {
	Label        string `json:"label"`
	LabelDetails *struct {
		Detail      string `json:"detail"`
		Description string `json:"description"`
	} `json:"labelDetails"`
	Kind             int    `json:"kind"`
	Detail           string `json:"detail"`
	FilterText       string `json:"filterText"`
	InsertText       string `json:"insertText"`
	InsertTextFormat int    `json:"insertTextFormat"`
	TextEditText     string `json:"textEditText"`
	TextEdit         *struct {
		Range   *Range `json:"range"`
		NewText string `json:"newText"`
	} `json:"textEdit"`
}

// itemDefaults are a CompletionList's defaults (LSP 3.17
// "CompletionList.itemDefaults"; editRange as a plain Range, since the
// client declares no insertReplaceSupport).
type itemDefaults struct {
	InsertTextFormat int    `json:"insertTextFormat"`
	EditRange        *Range `json:"editRange"`
}

// ParseCompletion decodes a textDocument/completion result (null, an item
// array, or a CompletionList with optional itemDefaults) into a normalized
// CompletionList.
func ParseCompletion(raw json.RawMessage) (*CompletionList, error) {
	out := &CompletionList{}
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return out, nil
	}
	var items []wireItem
	defaults := &itemDefaults{}
	if strings.HasPrefix(s, "[") {
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, fmt.Errorf("jdtls: completion result: %w", err)
		}
	} else {
		var l struct {
			IsIncomplete bool          `json:"isIncomplete"`
			Items        []wireItem    `json:"items"`
			ItemDefaults *itemDefaults `json:"itemDefaults"`
		}
		if err := json.Unmarshal(raw, &l); err != nil {
			return nil, fmt.Errorf("jdtls: completion result: %w", err)
		}
		out.IsIncomplete = l.IsIncomplete
		items = l.Items
		if l.ItemDefaults != nil {
			defaults = l.ItemDefaults
		}
	}
	out.Items = make([]CompletionItem, 0, len(items))
	for _, it := range items {
		out.Items = append(out.Items, normalizeItem(it, defaults))
	}
	return out, nil
}

// normalizeItem derives the inserted identifier of an item. The sources, in
// order: textEditText (1.45+, with itemDefaults.editRange), textEdit.newText
// (1.20), insertText, filterText, label; the first that yields an identifier
// wins. Snippet syntax is removed, then the leading (possibly qualified) Java
// name is taken and its last segment kept: "greet() : String" -> "greet",
// "java.util.AbstractCollection" (a type completed after "java.util.", whose
// edit replaces the qualifier too) -> "AbstractCollection".
//
// Edit is the item's own textEdit (1.20), or the list's editRange with
// textEditText, insertText or label as new text (LSP 3.17 itemDefaults), with
// snippet syntax removed; nil when the item has neither.
func normalizeItem(it wireItem, defaults *itemDefaults) CompletionItem {
	label := it.Label
	if it.LabelDetails != nil {
		label += it.LabelDetails.Detail
		if it.LabelDetails.Description != "" {
			label += " : " + it.LabelDetails.Description
		}
	}
	format := it.InsertTextFormat
	if format == 0 {
		format = defaults.InsertTextFormat
	}
	name := ""
	for _, src := range []string{it.TextEditText, textEditNew(it), it.InsertText, it.FilterText, it.Label} {
		if src == "" {
			continue
		}
		if format == 2 {
			src = stripSnippet(src)
		}
		if name = lastSegment(strings.TrimLeft(src, " \t")); name != "" {
			break
		}
	}
	var edit *TextEdit
	switch {
	case it.TextEdit != nil && it.TextEdit.Range != nil:
		edit = &TextEdit{Range: *it.TextEdit.Range, NewText: it.TextEdit.NewText}
	case defaults.EditRange != nil:
		text := it.TextEditText
		if text == "" {
			text = it.InsertText
		}
		if text == "" {
			text = it.Label
		}
		edit = &TextEdit{Range: *defaults.EditRange, NewText: text}
	}
	if edit != nil && format == 2 {
		edit.NewText = stripSnippet(edit.NewText)
	}
	return CompletionItem{Name: name, Kind: it.Kind, Label: label, Detail: it.Detail, Edit: edit}
}

// lastSegment returns the last identifier of the dotted name s starts with
// ("java.util.List<T>" -> "List", "greet()" -> "greet", "(x)" -> "").
func lastSegment(s string) string {
	last := ""
	for {
		id := leadingIdent(s)
		if id == "" {
			return last
		}
		last = id
		s = s[len(id):]
		if !strings.HasPrefix(s, ".") {
			return last
		}
		s = s[1:]
	}
}

func textEditNew(it wireItem) string {
	if it.TextEdit == nil {
		return ""
	}
	return it.TextEdit.NewText
}

// stripSnippet removes LSP snippet syntax ("greet(${1:name})$0" ->
// "greet(name)"): tab stops, placeholders (keeping their text) and escapes.
func stripSnippet(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
		case ch == '$' && i+1 < len(s) && s[i+1] == '{':
			// ${n:text} or ${n|a,b|}: keep text / first choice.
			j := i + 2
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			if j < len(s) && s[j] == ':' {
				i = j // the text follows; the closing brace is dropped below
			} else {
				k := strings.IndexByte(s[j:], '}')
				if k < 0 {
					return b.String()
				}
				i = j + k
			}
		case ch == '$' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			for i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' {
				i++
			}
		case ch == '}':
			// closing a placeholder (unescaped braces in Java text are rare in
			// completion inserts; they cannot be part of an identifier anyway)
		default:
			b.WriteByte(ch)
		}
	}
	return b.String()
}

// leadingIdent returns the longest prefix of s that is a Java identifier
// (JLS 3.8, as javalex decides identifier characters).
func leadingIdent(s string) string {
	for i, r := range s {
		if !javalex.IsIdentPart(r) || (i == 0 && !javalex.IsIdentStart(r)) {
			return s[:i]
		}
	}
	return s
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
		d := c.diags[uri]
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

// Shutdown asks the server to stop (shutdown request, then exit
// notification; LSP 3.17 "Shutdown Request", "Exit Notification") and waits
// for the process to end; when it has not ended by ctx's deadline (at most
// ShutdownGrace from the call) it is killed. JDT LS 1.20 took 2-21 s to exit
// after "exit" here, and a completion engine has nothing to save, so the
// grace is short. Shutting down a dead server returns nil.
func (c *Client) Shutdown(ctx context.Context) error {
	if c.Err() != nil {
		return nil
	}
	grace := ShutdownGrace
	if d, ok := ctx.Deadline(); ok && time.Until(d) < grace {
		grace = time.Until(d)
	}
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if _, err := c.call(sctx, "shutdown", nil); err == nil {
		_ = c.conn.Notify("exit", nil)
	}
	select {
	case <-c.done:
	case <-sctx.Done():
		c.kill()
		<-c.done
	}
	_ = c.stdin.Close()
	return nil
}

// ShutdownGrace bounds how long Shutdown waits before killing the process:
// short enough that a proxy stopping its engines is gone within 5 s.
const ShutdownGrace = 3 * time.Second

// kill ends the process without asking.
func (c *Client) kill() {
	_ = proc.KillGroup(c.cmd)
	_ = c.stdin.Close()
}

// Kill ends the process immediately (SIGKILL) and waits until Done.
func (c *Client) Kill() {
	c.kill()
	<-c.done
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

// normalizeSettings expands dotted keys ("java.completion.maxResults") into
// nested maps.
func normalizeSettings(in map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range in {
		if m, ok := v.(map[string]any); ok {
			v = normalizeSettings(m)
		}
		parts := strings.Split(k, ".")
		cur := out
		for _, p := range parts[:len(parts)-1] {
			next, ok := cur[p].(map[string]any)
			if !ok {
				next = map[string]any{}
				cur[p] = next
			}
			cur = next
		}
		last := parts[len(parts)-1]
		if old, ok := cur[last].(map[string]any); ok {
			if nv, ok := v.(map[string]any); ok {
				v = mergeSettings(old, nv)
			}
		}
		cur[last] = v
	}
	return out
}

// mergeSettings returns base with over merged into it (over wins; maps merge
// recursively).
func mergeSettings(base, over map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		if bm, ok := out[k].(map[string]any); ok {
			if om, ok := v.(map[string]any); ok {
				out[k] = mergeSettings(bm, om)
				continue
			}
		}
		out[k] = v
	}
	return out
}

// lookupSetting answers one workspace/configuration item: the value at the
// dotted section path, the whole settings object for an empty section, or nil.
func lookupSetting(settings map[string]any, section string) any {
	if section == "" {
		return settings
	}
	var cur any = settings
	for _, p := range strings.Split(section, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur, ok = m[p]
		if !ok {
			return nil
		}
	}
	return cur
}
