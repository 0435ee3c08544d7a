// Package inlinefeat is the ghost-text feature of the proxy: the LSP glue of
// package inline behind proxy.Extension. It registers the
// textDocument/inlineCompletion request of LSP 3.18 (advertised as
// inlineCompletionProvider when the editor declares
// textDocument.inlineCompletion), observes didClose to forget a document's
// cached suggestions, and offers the command repilot.inlineSuggest for
// editors without the 3.18 method. The proxy answers inlineCompletion itself
// (JDT LS 1.20 has no such method), off the read loop, with $/cancelRequest
// cancelling it.
package inlinefeat

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"

	"github.com/repilot-lsp/repilot-lsp/inline"
	"github.com/repilot-lsp/repilot-lsp/jsonrpc"
	"github.com/repilot-lsp/repilot-lsp/proxy"
	"github.com/repilot-lsp/repilot-lsp/repair"
	"github.com/repilot-lsp/repilot-lsp/textpos"
)

// InlineSuggestCommand is the command for editors without
// textDocument/inlineCompletion. Argument: InlineSuggestArgs; result: an
// InlineCompletionList.
const InlineSuggestCommand = "repilot.inlineSuggest"

// Suggester is what the ghost-text extension needs of inline.Service.
type Suggester interface {
	Suggest(ctx context.Context, req inline.Request) (*inline.Suggestion, error)
	Forget(uri string)
}

// InlineCompletionParams are the params of textDocument/inlineCompletion (LSP
// 3.18 "InlineCompletionParams"; selectedCompletionInfo is ignored).
type InlineCompletionParams struct {
	TextDocument protocol.TextDocumentIdentifier `json:"textDocument"`
	Position     protocol.Position               `json:"position"`
	Context      struct {
		// TriggerKind: 1 Invoked, 2 Automatic (LSP 3.18
		// InlineCompletionTriggerKind).
		TriggerKind int `json:"triggerKind"`
	} `json:"context"`
}

// InlineCompletionItem is LSP 3.18 "InlineCompletionItem": insertText
// replaces range (here an empty range at the caret: the text is inserted).
type InlineCompletionItem struct {
	InsertText string         `json:"insertText"`
	Range      protocol.Range `json:"range"`
}

// InlineCompletionList is LSP 3.18 "InlineCompletionList".
type InlineCompletionList struct {
	Items []InlineCompletionItem `json:"items"`
}

// InlineSuggestArgs is the argument of repilot.inlineSuggest. Version, when
// given, must be the document's current version. Invoked selects the
// harder-trying invoked trigger (default true: a command is an explicit ask).
type InlineSuggestArgs struct {
	URI      protocol.DocumentURI `json:"uri"`
	Position protocol.Position    `json:"position"`
	Version  *int32               `json:"version,omitempty"`
	Invoked  *bool                `json:"invoked,omitempty"`
}

// MaxDocumentBytes is the largest document ghost text works on, as for a
// repair (repairfeat.Options.MaxBytes' default): every request hands the
// whole text to the model, the parser and the shadow JDT LS, and on a
// 3.3 MB file an automatic request took 5-7 s instead of its 1 s budget
// while the proxy's RSS grew by about 100 MB a request. Beyond it an
// automatic request gets no suggestion and an invoked one an error.
const MaxDocumentBytes = 1 << 20

// inlineExtension serves ghost text from a Suggester.
type inlineExtension struct {
	s Suggester

	mu          sync.Mutex
	lastFailure string       // the automatic requests' last error shown, "" after a success
	shownAt     time.Time    // when it was shown
	live        proxy.Client // the mirror as it is now (Initialized's handle); nil before
}

// Initialized keeps c, whose Document reads the mirror as it is now (a
// request's handle reads it as it was when the request came), to tell
// whether a document changed while a suggestion was made for it.
func (x *inlineExtension) Initialized(_ context.Context, c proxy.Client) {
	x.mu.Lock()
	x.live = c
	x.mu.Unlock()
}

// changedSince returns why doc (a request's snapshot) is no longer the
// editor's text, "" while it is: closed, or changed (another version or
// text; a didOpen again counts).
func (x *inlineExtension) changedSince(doc proxy.Document) string {
	x.mu.Lock()
	live := x.live
	x.mu.Unlock()
	if live == nil {
		return ""
	}
	now, open := live.Document(doc.URI)
	switch {
	case !open:
		return "was closed"
	case now.Version != doc.Version || now.Text != doc.Text:
		return fmt.Sprintf("changed (version %d, now %d)", doc.Version, now.Version)
	}
	return ""
}

// automaticErrorRepeat is how long the same automatic-request error stays
// silent after the editor was told of it.
const automaticErrorRepeat = 5 * time.Minute

// New returns the ghost-text feature over s.
func New(s Suggester) proxy.Extension { return &inlineExtension{s: s} }

// firstAutomaticFailure reports whether an automatic request's error msg
// should be shown to the user at now: it differs from the last one shown,
// or that one was shown automaticErrorRepeat ago or more.
func (x *inlineExtension) firstAutomaticFailure(msg string, now time.Time) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	if msg == x.lastFailure && now.Sub(x.shownAt) < automaticErrorRepeat {
		return false
	}
	x.lastFailure, x.shownAt = msg, now
	return true
}

func (*inlineExtension) Name() string       { return "inline" }
func (*inlineExtension) Commands() []string { return []string{InlineSuggestCommand} }
func (*inlineExtension) CodeActions(*proxy.Document, *protocol.CodeActionParams) []protocol.CodeAction {
	return nil
}

// Methods answers textDocument/inlineCompletion (advertised as
// inlineCompletionProvider when the editor declared
// textDocument.inlineCompletion) and forgets a closed document's
// suggestions.
func (x *inlineExtension) Methods() []proxy.Method {
	return []proxy.Method{
		{Name: "textDocument/inlineCompletion", Request: x.inlineCompletion,
			Capability: "inlineCompletionProvider", Advertise: inlineDeclared},
		{Name: "textDocument/didClose", Notify: func(_ proxy.Client, params json.RawMessage) {
			var p struct {
				TextDocument protocol.TextDocumentIdentifier `json:"textDocument"`
			}
			if json.Unmarshal(params, &p) == nil {
				x.s.Forget(string(p.TextDocument.URI))
			}
		}},
	}
}

// inlineDeclared returns true when the editor declared
// textDocument.inlineCompletion in its initialize capabilities (LSP 3.18),
// else nil.
func inlineDeclared(initParams json.RawMessage) json.RawMessage {
	var ip struct {
		Capabilities struct {
			TextDocument struct {
				InlineCompletion json.RawMessage `json:"inlineCompletion"`
			} `json:"textDocument"`
		} `json:"capabilities"`
	}
	if json.Unmarshal(initParams, &ip) != nil {
		return nil
	}
	if raw := ip.Capabilities.TextDocument.InlineCompletion; len(raw) > 0 && string(raw) != "null" && string(raw) != "false" {
		return json.RawMessage("true")
	}
	return nil
}

// Execute runs repilot.inlineSuggest.
func (x *inlineExtension) Execute(ctx context.Context, c proxy.Client, command string, args []json.RawMessage) (any, error) {
	if len(args) != 1 {
		return nil, proxy.Errorf(jsonrpc.CodeInvalidParams, "%s takes one argument {uri, position, version}, got %d", command, len(args))
	}
	var a InlineSuggestArgs
	if err := json.Unmarshal(args[0], &a); err != nil || a.URI == "" {
		msg := "uri is missing"
		if err != nil {
			msg = err.Error()
		}
		return nil, proxy.Errorf(jsonrpc.CodeInvalidParams, "%s: bad argument (want {uri, position, version}): %s", command, msg)
	}
	if positionMissing(args[0]) {
		return nil, proxy.Errorf(jsonrpc.CodeInvalidParams, "%s: bad argument (want {uri, position, version}): position is missing", command)
	}
	doc, ok := c.Document(a.URI)
	if ok && a.Version != nil && *a.Version != doc.Version {
		return nil, proxy.Errorf(jsonrpc.CodeContentModified, "the document changed (version %d, now %d)", *a.Version, doc.Version)
	}
	trig := inline.Invoked
	if a.Invoked != nil && !*a.Invoked {
		trig = inline.Automatic
	}
	return x.complete(ctx, c, a.URI, a.Position, trig)
}

// positionMissing reports whether the JSON object raw has no "position"
// member, or a null one: LSP 3.17 "TextDocumentPositionParams" requires it,
// and decoding would read it as 0:0.
func positionMissing(raw json.RawMessage) bool {
	var p struct {
		Position json.RawMessage `json:"position"`
	}
	return json.Unmarshal(raw, &p) != nil || len(p.Position) == 0 || string(p.Position) == "null"
}

// inlineCompletion answers textDocument/inlineCompletion.
func (x *inlineExtension) inlineCompletion(ctx context.Context, c proxy.Client, raw json.RawMessage) (any, error) {
	var p InlineCompletionParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, proxy.Errorf(jsonrpc.CodeInvalidParams, "textDocument/inlineCompletion: bad params: %v", err)
	}
	if p.TextDocument.URI == "" {
		return nil, proxy.Errorf(jsonrpc.CodeInvalidParams, "textDocument/inlineCompletion: bad params: textDocument.uri is missing")
	}
	if positionMissing(raw) {
		return nil, proxy.Errorf(jsonrpc.CodeInvalidParams, "textDocument/inlineCompletion: bad params: position is missing")
	}
	trig := inline.Automatic
	if p.Context.TriggerKind == 1 {
		trig = inline.Invoked
	}
	return x.complete(ctx, c, p.TextDocument.URI, p.Position, trig)
}

func (x *inlineExtension) complete(ctx context.Context, c proxy.Client, uri protocol.DocumentURI, pos protocol.Position, trig inline.Trigger) (*InlineCompletionList, error) {
	empty := &InlineCompletionList{Items: []InlineCompletionItem{}}
	if !proxy.IsJavaURI(string(uri)) {
		return empty, nil
	}
	doc, ok := c.Document(uri)
	if !ok {
		// Not followed (never opened, or dropped from the mirror, say for
		// growing past its bound): an automatic request, sent per
		// keystroke, gets nothing rather than an error each time.
		if trig == inline.Automatic {
			return empty, nil
		}
		return nil, proxy.Errorf(jsonrpc.CodeInvalidParams, "%s is not open in the editor (or not followed by Repilot)", uri)
	}
	if len(doc.Text) > MaxDocumentBytes {
		if trig == inline.Automatic {
			return empty, nil
		}
		return nil, proxy.Errorf(jsonrpc.CodeRequestFailed, "%s is %d KiB; Repilot's ghost text works on files up to %d KiB",
			path.Base(string(uri)), len(doc.Text)>>10, MaxDocumentBytes>>10)
	}
	mp := textpos.New(doc.Text)
	off, err := mp.Offset(proxy.ToTextpos(pos))
	if err != nil {
		return nil, proxy.Errorf(jsonrpc.CodeInvalidParams, "position %d:%d: %v", pos.Line, pos.Character, err)
	}
	// The file's own project, as a repair and the warm-up find it: the
	// workspace folder may hold several projects, or be missing.
	root := c.Root()
	if file, err := proxy.URIPath(string(uri)); err == nil {
		root = repair.ProjectRoot(file, doc.Text, root)
	}
	sug, err := x.s.Suggest(ctx, inline.Request{URI: string(uri), Root: root, Text: doc.Text, Offset: off, Trigger: trig})
	if why := x.changedSince(doc); why != "" && ctx.Err() == nil {
		// The answer, a suggestion or a failure (didClose cancels the
		// request: inline.Service.Forget), is about a text the editor no
		// longer has: its position would be wrong. ContentModified (LSP
		// 3.17 "ErrorCodes"), which clients drop without a word.
		return nil, proxy.Errorf(jsonrpc.CodeContentModified, "%s %s during the inline completion request", path.Base(string(uri)), why)
	}
	if err != nil {
		if ctx.Err() != nil || strings.Contains(err.Error(), inline.ErrSuperseded.Error()) {
			return nil, proxy.Errorf(jsonrpc.CodeRequestCancelled, "inline completion cancelled: %v", err)
		}
		if trig == inline.Automatic {
			// Sent per keystroke: an error each time would make VS Code's
			// client open its output panel on every key while, say, the
			// model server is down. The editor is told once per distinct
			// failure (again after automaticErrorRepeat), the log has each.
			c.Logf("ghost text (automatic) on %s failed: %v", path.Base(string(uri)), err)
			if x.firstAutomaticFailure(err.Error(), time.Now()) {
				c.ShowMessage(protocol.MessageTypeWarning, fmt.Sprintf("Repilot ghost text failed: %v (automatic suggestions stay silent while this lasts; Trigger Inline Suggestion shows the error)", err))
			}
			return empty, nil
		}
		return nil, fmt.Errorf("Repilot ghost text failed: %w", err)
	}
	x.mu.Lock()
	x.lastFailure = ""
	x.mu.Unlock()
	if sug == nil {
		return empty, nil
	}
	at := proxy.FromTextpos(mp.Position(sug.Offset))
	empty.Items = append(empty.Items, InlineCompletionItem{InsertText: sug.Text, Range: protocol.Range{Start: at, End: at}})
	return empty, nil
}
