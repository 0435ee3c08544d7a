// Package searchfeat is the "Semantic search in repo" feature of the proxy:
// the LSP glue of package search behind proxy.Extension. It offers a code
// action on any non-empty selection (the selection is the query), the
// command repilot.semanticSearch (a query in, ranked Locations with scores
// and snippets out), and answers the workspace/symbol queries that start with
// "?" (advertised as workspaceSymbolProvider). It builds the workspace index
// in the background once the editor has said "initialized" (with
// $/progress), and keeps it in step with didOpen, didChange, didSave,
// didClose and didChangeWatchedFiles, which it observes through the proxy's
// method table.
package searchfeat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/repilot-lsp/repilot-lsp/jsonrpc"
	"github.com/repilot-lsp/repilot-lsp/proxy"
	"github.com/repilot-lsp/repilot-lsp/search"
	"github.com/repilot-lsp/repilot-lsp/search/units"
	"github.com/repilot-lsp/repilot-lsp/textpos"
)

// CommandSemanticSearch is the workspace/executeCommand id of semantic
// search. Its one argument is SearchArgs; its result is SearchResult.
const CommandSemanticSearch = "repilot.semanticSearch"

// SearchActionTitle is the title of the code action.
const SearchActionTitle = "Semantic search in repo"

// SymbolQueryPrefix marks the workspace/symbol queries semantic search
// answers ("?parse a date"); other queries go to JDT LS.
const SymbolQueryPrefix = "?"

// SearchArgs is the argument of CommandSemanticSearch: a query, or a
// document and range whose text is the query (the code action sends both).
// Show asks the proxy to also list the top results in a window/showMessage
// (the code action sets it: editors drop the result of a command run from a
// code action).
type SearchArgs struct {
	Query string               `json:"query,omitempty"`
	URI   protocol.DocumentURI `json:"uri,omitempty"`
	Range *protocol.Range      `json:"range,omitempty"`
	K     int                  `json:"k,omitempty"`
	Show  bool                 `json:"show,omitempty"`
	// Tests overrides the server's test policy for this query: "below",
	// "include" or "exclude" (search.TestPolicy).
	Tests string `json:"tests,omitempty"`
}

// SearchResult is CommandSemanticSearch's result.
type SearchResult struct {
	Query   string      `json:"query"`
	Results []SearchHit `json:"results"`
	// Indexing is true while the workspace index is still being built: the
	// results come from the part indexed so far.
	Indexing  bool              `json:"indexing"`
	Augmented string            `json:"augmented,omitempty"`
	Generated string            `json:"generated,omitempty"`
	Errors    map[string]string `json:"errors,omitempty"` // streams that failed, and why
	// Strong is false when no result matches the query strongly
	// (search.Result.Strong): the results are guesses.
	Strong bool `json:"strong"`
}

// SearchHit is one ranked code unit: where it is, how well it matched
// (Score in (0, 1], the fused reciprocal-rank score divided by its maximum,
// which follows the rank; Match in [0, 1], how much of the query the unit
// contains, comparable across queries: search.Hit.Match; Ranks per stream)
// and what it looks like.
type SearchHit struct {
	Location protocol.Location `json:"location"`
	// The rest is what "search --json" shows too; Overloads: one result
	// per overload set.
	search.HitView
}

// EngineFactory builds the search engine for a workspace root. The CLI
// chooses models and caches; the proxy only calls it.
type EngineFactory func(root string) (*search.Engine, error)

// searchExt is the extension.
type searchExt struct {
	newEngine EngineFactory

	mu     sync.Mutex
	engine *search.Engine
	err    error        // why there is no engine
	client proxy.Client // from Initialized: documents of observed changes

	// Editor events waiting for the index, coalesced per document.
	pendMu  sync.Mutex
	pending map[string]docEvent
	wake    chan struct{}
}

// docEvent is what to do with one file: take the editor's buffer, re-read
// the disk, or remove it.
type docEvent int

const (
	evBuffer docEvent = iota
	evDisk
	evRemove
)

// New returns the "Semantic search in repo" feature; the engine is built with
// newEngine when the editor names its root.
func New(newEngine EngineFactory) proxy.Extension {
	return &searchExt{newEngine: newEngine, pending: map[string]docEvent{}, wake: make(chan struct{}, 1)}
}

func (x *searchExt) Name() string       { return "search" }
func (x *searchExt) Commands() []string { return []string{CommandSemanticSearch} }

// CodeActions offers "Semantic search in repo" on a non-empty selection of an
// open document. Only the range goes into the command: the text is read when
// it runs.
func (x *searchExt) CodeActions(doc *proxy.Document, params *protocol.CodeActionParams) []protocol.CodeAction {
	if doc == nil || params.Range.Start == params.Range.End {
		return nil
	}
	r := params.Range
	args := SearchArgs{URI: doc.URI, Range: &r, Show: true}
	return []protocol.CodeAction{{
		Title:   SearchActionTitle,
		Command: &protocol.Command{Title: SearchActionTitle, Command: CommandSemanticSearch, Arguments: []any{args}},
	}}
}

// Initialized builds the engine for the editor's root and starts indexing in
// the background, reporting progress.
func (x *searchExt) Initialized(ctx context.Context, c proxy.Client) {
	root := c.Root()
	x.mu.Lock()
	x.client = c
	x.mu.Unlock()
	if root == "" {
		x.setErr(errors.New("the editor opened no folder"))
		return
	}
	e, err := x.newEngine(root)
	if err != nil {
		c.Logf("semantic search unavailable: %v", err)
		x.setErr(err)
		return
	}
	x.mu.Lock()
	x.engine = e
	x.mu.Unlock()
	pr := c.BeginProgress(ctx, "Semantic search: indexing")
	ended := false
	var endMu sync.Mutex
	e.Start(ctx, func(st search.Status) {
		endMu.Lock()
		defer endMu.Unlock()
		if ended {
			return
		}
		switch {
		case st.Indexing || st.TotalFiles > st.Files:
			pct := -1
			if st.TotalFiles > 0 {
				pct = 100 * st.Files / st.TotalFiles
			}
			pr.Report(fmt.Sprintf("%d/%d files, %d units", st.Files, st.TotalFiles, st.Units), pct)
		case st.Pending > 0:
			pr.Report(fmt.Sprintf("embedding %d units", st.Pending), -1)
		default:
			msg := fmt.Sprintf("%d units indexed", st.Units)
			if st.TooLarge > 0 {
				files := map[bool]string{true: "file", false: "files"}[st.TooLarge == 1]
				msg += fmt.Sprintf("; %d %s over %d MiB skipped", st.TooLarge, files, units.MaxFileBytes>>20)
				c.Logf("semantic search: %d %s over %d MiB not read, not indexed (units.MaxFileBytes)", st.TooLarge, files, units.MaxFileBytes>>20)
			}
			if st.Err != "" {
				msg += " (" + st.Err + ")"
			}
			pr.End(msg)
			ended = true
		}
	})
	go x.applyEvents(ctx, e)
	go func() {
		<-ctx.Done()
		e.Close()
	}()
}

func (x *searchExt) setErr(err error) {
	x.mu.Lock()
	x.err = err
	x.mu.Unlock()
}

// current returns the engine, or an error for the user.
func (x *searchExt) current() (*search.Engine, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.engine != nil {
		return x.engine, nil
	}
	if x.err != nil {
		return nil, proxy.Errorf(jsonrpc.CodeRequestFailed, "semantic search is not available: %v", x.err)
	}
	return nil, proxy.Errorf(jsonrpc.CodeRequestFailed, "semantic search is starting: try again in a moment")
}

// Methods answers the workspace/symbol queries that start with "?"
// (advertised as workspaceSymbolProvider where JDT LS declares none) and
// observes the document notifications that keep the index in step.
func (x *searchExt) Methods() []proxy.Method {
	ms := []proxy.Method{{Name: "workspace/symbol", Request: x.workspaceSymbol, Claims: x.claimsSymbolQuery,
		Capability: "workspaceSymbolProvider"}}
	for _, n := range []string{"textDocument/didOpen", "textDocument/didChange", "textDocument/didSave",
		"textDocument/didClose", "workspace/didChangeWatchedFiles"} {
		ms = append(ms, proxy.Method{Name: n, Notify: func(_ proxy.Client, params json.RawMessage) { x.observe(n, params) }})
	}
	return ms
}

// observe queues a document change for the index (it never blocks).
func (x *searchExt) observe(method string, params json.RawMessage) {
	var p struct {
		TextDocument struct {
			URI string `json:"uri"`
		} `json:"textDocument"`
		Changes []struct {
			URI  string `json:"uri"`
			Type int    `json:"type"`
		} `json:"changes"`
	}
	switch method {
	case "textDocument/didOpen", "textDocument/didChange", "textDocument/didSave", "textDocument/didClose",
		"workspace/didChangeWatchedFiles":
	default:
		return
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return
	}
	x.pendMu.Lock()
	switch method {
	case "textDocument/didOpen", "textDocument/didChange":
		x.pending[p.TextDocument.URI] = evBuffer
	case "textDocument/didSave", "textDocument/didClose":
		// Saved: the disk has the text. Closed: the disk is the truth again.
		x.pending[p.TextDocument.URI] = evDisk
	default:
		for _, ch := range p.Changes {
			if ch.Type == int(protocol.FileChangeTypeDeleted) {
				x.pending[ch.URI] = evRemove
			} else if ev, ok := x.pending[ch.URI]; !ok || ev != evBuffer {
				x.pending[ch.URI] = evDisk // a pending buffer change stays newer
			}
		}
	}
	x.pendMu.Unlock()
	select {
	case x.wake <- struct{}{}:
	default:
	}
}

// applyEvents feeds queued document events to the index until ctx ends.
func (x *searchExt) applyEvents(ctx context.Context, e *search.Engine) {
	for {
		x.pendMu.Lock()
		batch := x.pending
		x.pending = map[string]docEvent{}
		x.pendMu.Unlock()
		x.mu.Lock()
		c := x.client
		x.mu.Unlock()
		for uri, ev := range batch {
			path, err := proxy.URIPath(uri)
			if err != nil {
				continue // untitled:, jdt: ... are not workspace files
			}
			switch ev {
			case evBuffer:
				if doc, ok := c.Document(protocol.DocumentURI(uri)); ok {
					_, err = e.Index().Update(ctx, path, []byte(doc.Text))
				} else {
					_, err = e.Index().UpdateFromDisk(ctx, path)
				}
			case evDisk:
				_, err = e.Index().UpdateFromDisk(ctx, path)
			case evRemove:
				e.Index().Remove(path)
			}
			if err != nil && ctx.Err() == nil {
				c.Logf("semantic search: updating %s: %v", path, err)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-x.wake:
		}
	}
}

// Execute runs CommandSemanticSearch.
func (x *searchExt) Execute(ctx context.Context, c proxy.Client, command string, args []json.RawMessage) (any, error) {
	if command != CommandSemanticSearch {
		return nil, proxy.Errorf(jsonrpc.CodeInvalidParams, "the search extension has no command %q", command)
	}
	var a SearchArgs
	if len(args) != 1 {
		return nil, proxy.Errorf(jsonrpc.CodeInvalidParams, "%s takes one argument {query} or {uri, range}, got %d", command, len(args))
	}
	if err := json.Unmarshal(args[0], &a); err != nil {
		// A bare string is a query too.
		var q string
		if json.Unmarshal(args[0], &q) != nil {
			return nil, proxy.Errorf(jsonrpc.CodeInvalidParams, "%s: bad argument (want {query} or {uri, range}): %v", command, err)
		}
		a.Query = q
	}
	if a.Query == "" && a.URI != "" && a.Range != nil {
		doc, ok := c.Document(a.URI)
		if !ok {
			return nil, proxy.Errorf(jsonrpc.CodeInvalidParams, "%s is not open in the editor", a.URI)
		}
		q, err := rangeText(doc.Text, *a.Range)
		if err != nil {
			return nil, proxy.Errorf(jsonrpc.CodeInvalidParams, "%v", err)
		}
		a.Query = q
	}
	a.Query = strings.TrimSpace(a.Query)
	if a.Query == "" {
		return nil, proxy.Errorf(jsonrpc.CodeInvalidParams, "the query is empty: select some text or pass {query}")
	}
	a.Query = search.ClipQuery(a.Query)
	e, err := x.current()
	if err != nil {
		return nil, err
	}
	if a.K <= 0 {
		a.K = 10
	}
	pr := c.BeginProgress(ctx, "Semantic search")
	if a.Tests != "" {
		if _, err := search.ParseTestPolicy(a.Tests); err != nil {
			return nil, proxy.Errorf(jsonrpc.CodeInvalidParams, "%v", err)
		}
	}
	res, err := e.Search(ctx, search.Query{Text: a.Query, K: a.K, Tests: search.TestPolicy(a.Tests)})
	if err != nil {
		pr.End("failed")
		if errors.Is(err, context.Canceled) {
			return nil, proxy.Errorf(jsonrpc.CodeRequestCancelled, "the search was cancelled")
		}
		return nil, proxy.Errorf(jsonrpc.CodeRequestFailed, "semantic search failed: %v", err)
	}
	out := SearchResult{Query: a.Query, Results: []SearchHit{}, Indexing: e.Status().Indexing,
		Augmented: res.Augmented, Generated: res.Generated, Strong: res.Strong()}
	if len(res.Errors) > 0 {
		out.Errors = res.Errors
	}
	root := e.Index().Root()
	for _, h := range res.Hits {
		out.Results = append(out.Results, SearchHit{Location: unitLocation(root, &h.Unit), HitView: h.View()})
	}
	pr.End(fmt.Sprintf("%d results", len(out.Results)))
	if a.Show {
		c.ShowMessage(protocol.MessageTypeInfo, summarize(out))
	}
	return out, nil
}

// summarize lists the top results for window/showMessage.
func summarize(r SearchResult) string {
	if len(r.Results) == 0 {
		return fmt.Sprintf("Semantic search: nothing found for %q.", clipQuery(r.Query))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Semantic search for %q:", clipQuery(r.Query))
	if !r.Strong {
		b.WriteString(" no strong match; the closest:")
	}
	for i, h := range r.Results {
		if i == 5 {
			break
		}
		p, _ := proxy.URIPath(string(h.Location.URI))
		fmt.Fprintf(&b, "\n%d. %s (%s:%d, match %.0f%%)", i+1, h.Name, filepath.Base(p), h.Location.Range.Start.Line+1, 100*h.Match)
		if n := len(h.Overloads); n > 0 {
			fmt.Fprintf(&b, " and %d overload%s", n, map[bool]string{true: "", false: "s"}[n == 1])
		}
	}
	if r.Indexing {
		b.WriteString("\n(the index is still being built)")
	}
	return b.String()
}

func clipQuery(q string) string {
	q = strings.Join(strings.Fields(q), " ")
	if r := []rune(q); len(r) > 60 {
		return string(r[:57]) + "..."
	}
	return q
}

// claimsSymbolQuery claims the workspace/symbol queries starting with "?".
func (x *searchExt) claimsSymbolQuery(raw json.RawMessage) bool {
	var p protocol.WorkspaceSymbolParams
	if json.Unmarshal(raw, &p) != nil {
		return false
	}
	return strings.HasPrefix(strings.TrimSpace(p.Query), SymbolQueryPrefix)
}

// workspaceSymbol answers a claimed workspace/symbol request.
func (x *searchExt) workspaceSymbol(ctx context.Context, c proxy.Client, raw json.RawMessage) (any, error) {
	var p protocol.WorkspaceSymbolParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, proxy.Errorf(jsonrpc.CodeInvalidParams, "workspace/symbol: bad params: %v", err)
	}
	syms, err := x.WorkspaceSymbols(ctx, c, &p)
	if syms == nil {
		syms = []protocol.SymbolInformation{}
	}
	return syms, err
}

// WorkspaceSymbols answers "?query" with the lexical and dense streams only:
// editors send workspace/symbol on every keystroke, too often for model
// calls.
func (x *searchExt) WorkspaceSymbols(ctx context.Context, c proxy.Client, params *protocol.WorkspaceSymbolParams) ([]protocol.SymbolInformation, error) {
	q := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(params.Query), SymbolQueryPrefix))
	q = search.ClipQuery(q)
	if q == "" {
		return []protocol.SymbolInformation{}, nil
	}
	e, err := x.current()
	if err != nil {
		return nil, err
	}
	res, err := e.Search(ctx, search.Query{Text: q, K: 20, Only: &search.Streams{Lexical: true, Dense: true}})
	if err != nil {
		return nil, proxy.Errorf(jsonrpc.CodeRequestFailed, "semantic search failed: %v", err)
	}
	root := e.Index().Root()
	out := make([]protocol.SymbolInformation, 0, len(res.Hits))
	for _, h := range res.Hits {
		out = append(out, protocol.SymbolInformation{
			Name: h.Unit.Name, Kind: symbolKind(h.Unit.Kind), Location: unitLocation(root, &h.Unit),
			ContainerName: containerName(&h.Unit, h.Score),
		})
	}
	return out, nil
}

func containerName(u *units.Unit, score float64) string {
	c := u.Container
	if c == "" {
		c = u.Path
	}
	return fmt.Sprintf("%s (%.2f)", c, score)
}

func symbolKind(k units.Kind) protocol.SymbolKind {
	switch k {
	case units.Method:
		return protocol.SymbolKindMethod
	case units.Constructor:
		return protocol.SymbolKindConstructor
	case units.Class:
		return protocol.SymbolKindClass
	}
	return protocol.SymbolKindFunction
}

// unitLocation is the LSP Location of a unit (positions are already UTF-16).
func unitLocation(root string, u *units.Unit) protocol.Location {
	p := filepath.Join(root, filepath.FromSlash(u.Path))
	uri := (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String()
	return protocol.Location{URI: protocol.DocumentURI(uri),
		Range: protocol.Range{Start: proxy.FromTextpos(u.Start), End: proxy.FromTextpos(u.End)}}
}

// rangeText returns the text of r in text.
func rangeText(text string, r protocol.Range) (string, error) {
	m := textpos.New(text)
	s, err := m.Offset(proxy.ToTextpos(r.Start))
	if err != nil {
		return "", err
	}
	e, err := m.Offset(proxy.ToTextpos(r.End))
	if err != nil {
		return "", err
	}
	if e < s {
		return "", errors.New("the range ends before it starts")
	}
	return text[s:e], nil
}
