// Package repairfeat is the "Repair with Repilot" feature of the proxy: the
// LSP glue of package repair behind proxy.Extension. It offers a code action
// on any non-empty selection of a Java document, the command
// repilot.repairHunk that runs the Repairer on the selected lines of the
// editor's buffer (streaming repilot/patchFound notifications, returning the
// ranked patches), and, once patches exist, code actions and the command
// repilot.applyPatch that apply them. It never writes to disk: patches reach
// the file only as WorkspaceEdits the editor applies (workspace/applyEdit,
// or the edit in a code action or in the result).
package repairfeat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"

	"github.com/repilot-lsp/repilot-lsp/jsonrpc"
	"github.com/repilot-lsp/repilot-lsp/proxy"
	"github.com/repilot-lsp/repilot-lsp/repair"
	"github.com/repilot-lsp/repilot-lsp/textpos"
)

// CommandRepairHunk is the workspace/executeCommand id of "Repair with
// Repilot". Its one argument is RepairArgs; its result is RepairResult.
const CommandRepairHunk = "repilot.repairHunk"

// RepairActionTitle is the title of the code action that starts a repair.
const RepairActionTitle = "Repair with Repilot"

// MaxTestArgs bounds RepairArgs.TestCommand: at most this many words of at
// most MaxTestArgBytes bytes each.
const (
	MaxTestArgs     = 64
	MaxTestArgBytes = 4096
)

// RepairActionKind is the kind of the repair code actions: "quickfix". A
// repair is a fix for a bug on the selected lines, so it belongs with JDT
// LS's quick fixes (editors list those first, VS Code's "Quick Fix..." menu
// and Neovim's code_action filter both show it), not among refactorings,
// which promise to keep behaviour unchanged.
const RepairActionKind = protocol.QuickFix

// RepairArgs is the argument of CommandRepairHunk: the hunk as the editor
// selected it. Version is the document version the action was offered for;
// when set and the buffer has moved on, the command fails with
// ContentModified instead of repairing other lines than the user saw.
// TestCommand, when set, is the editor's test-command setting (argv, no
// shell; at most 64 words of 4 KiB): it runs in a copy of the project with
// each compilable patch applied, and exit status 0 makes the patch
// plausible ("tests pass"), as the CLI's --test does.
type RepairArgs struct {
	URI         protocol.DocumentURI `json:"uri"`
	Range       protocol.Range       `json:"range"`
	Version     *int32               `json:"version,omitempty"`
	TestCommand []string             `json:"testCommand,omitempty"`
}

// RepairResult is CommandRepairHunk's result: the ranked patches (compilable
// first) and the repair's counters (repair.Stats, with its own JSON names).
type RepairResult struct {
	Patches []RepairPatch `json:"patches"`
	Stats   repair.Stats  `json:"stats"`
	// TestsPassOnBuggy: the test command passed on the unchanged code too
	// (repair.Result.TestsPassOnBuggy), so a patch's Plausible says only
	// that the tests pass; the summary and the message say so.
	TestsPassOnBuggy bool `json:"testsPassOnBuggy,omitempty"`
}

// MsgTestsPassOnBuggy ends the repair's summary when the test command passed
// on the unchanged code too; the message adds repair.TestsPassOnBuggyMsg.
const MsgTestsPassOnBuggy = "the tests pass on the unchanged code too: no patch is plausible"

// RepairPatch is one candidate patch, ready to apply: Edit replaces the
// hunk's whole lines in the document version the repair read. Command, set
// when the editor declares workspace.applyEdit, applies it in one step
// (CommandApplyPatch, which refuses when the document has changed since);
// without it, the editor applies Edit itself.
type RepairPatch struct {
	Title      string                 `json:"title"`
	Edit       protocol.WorkspaceEdit `json:"edit"`
	Command    *protocol.Command      `json:"command,omitempty"`
	Hunk       string                 `json:"hunk"`
	Compilable bool                   `json:"compilable"`
	Plausible  bool                   `json:"plausible"`
	LogProb    float64                `json:"logProb"`
	Diff       string                 `json:"diff"`
}

// NotifyPatchFound is the notification that streams a repair's patches:
// one per candidate as soon as it is validated (compile-checked, and tested
// when a test command is set), before the ranked result (issue 14;
// EXTENSIONS.md). LSP 3.17 gives workspace/executeCommand no partial
// results, hence a notification of our own.
const NotifyPatchFound = "repilot/patchFound"

// PatchFoundParams are NotifyPatchFound's params: the document and version
// the repair read, and the patch (Title "Repilot patch found: <first line>").
type PatchFoundParams struct {
	URI     protocol.DocumentURI `json:"uri"`
	Version int32                `json:"version"`
	Patch   RepairPatch          `json:"patch"`
}

// MsgNoCandidate is the message of the error CommandRepairHunk returns when
// the model produced no candidate patch.
const MsgNoCandidate = "the language model produced no candidate patch"

// UnavailableRepairer returns a Repairer whose every Repair fails with err,
// for when the repair service could not be built: the proxy keeps serving
// and the repair command tells the user why it cannot run.
func UnavailableRepairer(err error) repair.Repairer { return unavailable{err} }

type unavailable struct{ err error }

func (u unavailable) Repair(context.Context, repair.Request, repair.Progress) (*repair.Result, error) {
	return nil, fmt.Errorf("the repair service is not available: %w", u.err)
}

// repairExt is the extension.
type repairExt struct {
	r            repair.Repairer
	maxBytes     int
	timeout      time.Duration
	applyTimeout time.Duration
	concurrency  int // repair.Options.Concurrency when above 1
	waitFirst    time.Duration
	waitEvery    time.Duration

	mu      sync.Mutex
	last    map[protocol.DocumentURI]*remembered    // the latest result per document
	patched map[protocol.DocumentURI]*patchVersions // per open document, see apply.go
	caps    proxy.ClientCapabilities                // from Initialized
}

// remembered is a repair result for a document version and hunk, offered as
// "Apply Repilot patch k" actions while the document stays at that version.
type remembered struct {
	version          int32
	startLine, endLn int // 1-based, inclusive
	patches          []RepairPatch
}

// Options configure New. The zero value of each field has a usable default.
type Options struct {
	// MaxBytes is the largest file a repair accepts (default 1 MiB).
	MaxBytes int
	// Timeout bounds one repair (default 10 minutes).
	Timeout time.Duration
	// ApplyTimeout bounds the editor's answer to the workspace/applyEdit
	// of repilot.applyPatch (default 1 minute).
	ApplyTimeout time.Duration
	// Concurrency is how many samples a repair draws at once
	// (repair.Options.Concurrency; default 1): serve sets it from
	// --model-concurrency when the model is a server.
	Concurrency int
	// WaitFirst and WaitEvery: a repair whose Repairer has reported
	// nothing after WaitFirst (default 2 s) reports "waiting for JDT LS
	// (N s)", and again every WaitEvery (default 5 s), until it does
	// (waiting.go).
	WaitFirst, WaitEvery time.Duration
}

// New returns the "Repair with Repilot" feature over r (see
// UnavailableRepairer for a service that could not be built).
func New(r repair.Repairer, o Options) proxy.Extension {
	if o.MaxBytes == 0 {
		o.MaxBytes = 1 << 20
	}
	if o.Timeout == 0 {
		o.Timeout = 10 * time.Minute
	}
	if o.ApplyTimeout == 0 {
		o.ApplyTimeout = time.Minute
	}
	if o.WaitFirst == 0 {
		o.WaitFirst = defaultWaitFirst
	}
	if o.WaitEvery == 0 {
		o.WaitEvery = defaultWaitEvery
	}
	return &repairExt{r: r, maxBytes: o.MaxBytes, timeout: o.Timeout, applyTimeout: o.ApplyTimeout, concurrency: o.Concurrency,
		waitFirst: o.WaitFirst, waitEvery: o.WaitEvery,
		last: map[protocol.DocumentURI]*remembered{}, patched: map[protocol.DocumentURI]*patchVersions{}}
}

func (x *repairExt) Name() string       { return "repair" }
func (x *repairExt) Commands() []string { return []string{CommandRepairHunk, CommandApplyPatch} }

// CodeActions offers "Repair with Repilot" on a non-empty range of an
// open .java document, and the remembered patches for the same lines and
// document version. No model work happens here.
func (x *repairExt) CodeActions(doc *proxy.Document, params *protocol.CodeActionParams) []protocol.CodeAction {
	if doc == nil || !proxy.IsJavaURI(string(doc.URI)) || params.Range.Start == params.Range.End {
		return nil
	}
	version := doc.Version
	args := RepairArgs{URI: doc.URI, Range: params.Range, Version: &version}
	acts := []protocol.CodeAction{{
		Title:   RepairActionTitle,
		Kind:    RepairActionKind,
		Command: &protocol.Command{Title: RepairActionTitle, Command: CommandRepairHunk, Arguments: []any{args}},
	}}
	start, end := hunkLines(params.Range)
	x.mu.Lock()
	rem := x.last[doc.URI]
	x.mu.Unlock()
	if rem != nil && rem.version == doc.Version && rem.startLine == start && rem.endLn == end {
		x.mu.Lock()
		caps := x.caps
		x.mu.Unlock()
		for _, pt := range rem.patches {
			edit := pt.Edit
			act := protocol.CodeAction{Title: pt.Title, Kind: RepairActionKind, Edit: &edit}
			if !caps.CodeActionLiterals {
				// The editor takes Commands only: the patch's own command
				// (nil without workspace.applyEdit, and then nothing to offer).
				act = protocol.CodeAction{Title: pt.Title, Kind: RepairActionKind, Command: pt.Command}
			}
			acts = append(acts, act)
		}
	}
	return acts
}

// checkTestCommand bounds a test command from the editor (MaxTestArgs words
// of MaxTestArgBytes bytes, a non-empty program name).
func checkTestCommand(argv []string) error {
	if len(argv) == 0 {
		return nil
	}
	if len(argv) > MaxTestArgs {
		return fmt.Errorf("%d words; at most %d", len(argv), MaxTestArgs)
	}
	if strings.TrimSpace(argv[0]) == "" {
		return errors.New("the program name (the first word) is empty")
	}
	for i, w := range argv {
		if len(w) > MaxTestArgBytes {
			return fmt.Errorf("word %d is %d bytes; at most %d", i+1, len(w), MaxTestArgBytes)
		}
	}
	return nil
}

// hunkLines converts a range to whole 1-based lines: a range that ends at
// character 0 of a later line does not include that line.
func hunkLines(r protocol.Range) (start, end int) {
	start = int(r.Start.Line) + 1
	end = int(r.End.Line) + 1
	if r.End.Character == 0 && r.End.Line > r.Start.Line {
		end--
	}
	return start, end
}

// Execute runs CommandRepairHunk or CommandApplyPatch.
func (x *repairExt) Execute(ctx context.Context, c proxy.Client, command string, args []json.RawMessage) (any, error) {
	if command == CommandApplyPatch {
		return x.applyPatch(ctx, c, command, args)
	}
	if command != CommandRepairHunk {
		return nil, proxy.Errorf(jsonrpc.CodeInvalidParams, "the repair extension has no command %q", command)
	}
	var a RepairArgs
	if len(args) != 1 {
		return nil, proxy.Errorf(jsonrpc.CodeInvalidParams, "%s takes one argument {uri, range, version}, got %d", command, len(args))
	}
	if err := json.Unmarshal(args[0], &a); err != nil || a.URI == "" {
		msg := "uri is missing"
		if err != nil {
			msg = err.Error()
		}
		return nil, proxy.Errorf(jsonrpc.CodeInvalidParams, "%s: bad argument (want {uri, range, version}): %s", command, msg)
	}
	if err := checkTestCommand(a.TestCommand); err != nil {
		return nil, proxy.Errorf(jsonrpc.CodeInvalidParams, "%s: testCommand: %v", command, err)
	}
	if !proxy.IsJavaURI(string(a.URI)) {
		return nil, proxy.Errorf(jsonrpc.CodeInvalidParams, "Repilot repairs Java source files; %s is not a .java file", a.URI)
	}
	doc, ok := c.Document(a.URI)
	if !ok {
		return nil, proxy.Errorf(jsonrpc.CodeInvalidParams, "%s is not open in the editor: open it and select the lines to repair", a.URI)
	}
	if a.Range.Start == a.Range.End {
		return nil, proxy.Errorf(jsonrpc.CodeInvalidParams, "the selection is empty: select the lines of the hunk to repair")
	}
	if a.Version != nil && *a.Version != doc.Version {
		return nil, proxy.Errorf(jsonrpc.CodeContentModified, "the document changed since the action was offered (version %d, now %d): select the hunk again", *a.Version, doc.Version)
	}
	if len(doc.Text) > x.maxBytes {
		return nil, proxy.Errorf(jsonrpc.CodeRequestFailed, "%s is %d KiB; Repilot repairs files up to %d KiB",
			path.Base(string(a.URI)), len(doc.Text)>>10, x.maxBytes>>10)
	}
	file, err := proxy.URIPath(string(a.URI))
	if err != nil {
		return nil, proxy.Errorf(jsonrpc.CodeInvalidParams, "Repilot needs a file on disk: %v", err)
	}
	mp := textpos.New(doc.Text)
	startLine, endLine := hunkLines(a.Range)
	if a.Range.End.Line < a.Range.Start.Line || (a.Range.End.Line == a.Range.Start.Line && a.Range.End.Character < a.Range.Start.Character) {
		return nil, proxy.Errorf(jsonrpc.CodeInvalidParams, "the range ends before it starts")
	}
	// Count lines as the repair service does (repair.LineCount: the empty
	// "line" after a final newline is not one). "Select all" ends at the
	// end of the text, or at (lineCount, 0) one line further (lineCount
	// counting the empty line after a final newline, as textpos does);
	// both mean "through the end of the file".
	lines := repair.LineCount(doc.Text)
	if endLine > lines && startLine <= lines && a.Range.End.Character == 0 && int(a.Range.End.Line) <= mp.LineCount() {
		endLine = lines
	}
	if startLine > lines || endLine > lines {
		return nil, proxy.Errorf(jsonrpc.CodeInvalidParams, "the range ends at line %d but %s has %d lines", max(startLine, endLine), path.Base(string(a.URI)), lines)
	}
	session := x.noteRepaired(doc.URI, doc.Version)
	// The workspace folder may hold several projects (or be a parent of
	// the file's project): give the engine the file's own project, so its
	// JDT LS compiles the file with the right classpath.
	root := repair.ProjectRoot(file, doc.Text, c.Root())
	// TestBuggy: a person reads the result, so the tests also run once on
	// the unchanged code (after the first plausible patch), to say when
	// they pass there too.
	req := repair.Request{Root: root, File: file, Text: doc.Text, StartLine: startLine, EndLine: endLine, TestCmd: a.TestCommand,
		TestBuggy: len(a.TestCommand) > 0}
	if x.concurrency > 1 {
		req.Options = repair.DefaultOptions()
		req.Options.Concurrency = x.concurrency
	}
	// lspPatch is a patch as the editor gets it: titled, with its edit.
	lspPatch := func(title string, pt repair.Patch) RepairPatch {
		out := RepairPatch{
			Title:      title + firstLine(pt.Hunk, startLine, endLine),
			Edit:       hunkEdit(doc, mp, startLine, endLine, pt.Hunk, c.Capabilities().DocumentChanges),
			Hunk:       pt.Hunk,
			Compilable: pt.Compilable,
			Plausible:  pt.Plausible,
			LogProb:    pt.LogProb,
			Diff:       pt.Diff,
		}
		if c.Capabilities().ApplyEdit {
			out.Command = applyCommand(doc.URI, doc.Version, out)
		}
		return out
	}
	req.OnPatch = func(pt repair.Patch) {
		c.Notify(NotifyPatchFound, PatchFoundParams{URI: doc.URI, Version: doc.Version, Patch: lspPatch("Repilot patch found: ", pt)})
	}

	base := filepath.Base(file)
	began := time.Now()
	pr := c.BeginProgress(ctx, fmt.Sprintf("Repilot: repairing %s %s", base, lineSpan(startLine, endLine)))
	ctx, cancel := context.WithTimeout(ctx, x.timeout)
	defer cancel()
	res, err := x.run(ctx, req, pr, began)
	if err != nil {
		// The request's own end, not an error that wraps one from inside
		// the repair (a compile check's time limit, a model request's).
		if errors.Is(ctx.Err(), context.Canceled) {
			pr.End("cancelled")
			return nil, proxy.Errorf(jsonrpc.CodeRequestCancelled, "the repair of %s %s was cancelled", base, lineSpan(startLine, endLine))
		}
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			pr.End("timed out")
			return nil, proxy.Errorf(jsonrpc.CodeRequestFailed, "the repair of %s %s did not finish within %v", base, lineSpan(startLine, endLine), x.timeout)
		}
		pr.End("failed")
		return nil, proxy.Errorf(jsonrpc.CodeRequestFailed, "Repilot repair failed: %v", err)
	}
	if res == nil || len(res.Patches) == 0 {
		pr.End("no candidate patch")
		c.ShowMessage(protocol.MessageTypeWarning, fmt.Sprintf("Repilot: %s for %s %s.", MsgNoCandidate, base, lineSpan(startLine, endLine)))
		return nil, proxy.Errorf(jsonrpc.CodeRequestFailed, "%s", MsgNoCandidate)
	}

	x.mu.Lock()
	closed := x.patched[doc.URI] != session
	x.mu.Unlock()
	if closed {
		// Reopened, possibly at the same version with other text: the
		// patches' edits are for the text the repair read.
		pr.End("the document was closed")
		return nil, proxy.Errorf(jsonrpc.CodeContentModified, "%s was closed during the repair: its patches were made for the text before; repair the lines again",
			path.Base(string(a.URI)))
	}

	out := RepairResult{Stats: res.Stats, TestsPassOnBuggy: res.TestsPassOnBuggy()}
	compilable := 0
	for i, pt := range res.Patches {
		out.Patches = append(out.Patches, lspPatch(fmt.Sprintf("Apply Repilot patch %d: ", i+1), pt))
		if pt.Compilable {
			compilable++
		}
	}
	x.mu.Lock()
	x.last[doc.URI] = &remembered{version: doc.Version, startLine: startLine, endLn: endLine, patches: out.Patches}
	x.mu.Unlock()
	counts := fmt.Sprintf("%d patches, %d compilable", len(out.Patches), compilable)
	summary := counts
	kind, warning := protocol.MessageTypeInfo, ""
	if out.TestsPassOnBuggy {
		summary += "; " + MsgTestsPassOnBuggy
		kind, warning = protocol.MessageTypeWarning, " Warning: "+repair.TestsPassOnBuggyMsg+"."
	}
	// The progress's end also says how long the whole repair took, the
	// wait for the backends included: "5 patches, 3 compilable in 38s".
	pr.End(counts + " in " + time.Since(began).Round(time.Second).String() + strings.TrimPrefix(summary, counts))
	c.ShowMessage(kind, fmt.Sprintf("Repilot: %s for %s %s; each is offered as \"Apply Repilot patch k\" among the code actions there.%s",
		summary, base, lineSpan(startLine, endLine), warning))
	return out, nil
}

// run calls the Repairer and returns when it does or when ctx ends, whichever
// is first: a Repairer that ignores ctx cannot hang the request.
func (x *repairExt) run(ctx context.Context, req repair.Request, pr proxy.Progress, began time.Time) (*repair.Result, error) {
	type outcome struct {
		res *repair.Result
		err error
	}
	done := make(chan outcome, 1)
	// Until the Repairer's first report, "waiting for JDT LS (N s)"; the
	// notices end with run, even when the Repairer goes on.
	report, stop := waitNotices(pr, began, x.waitFirst, x.waitEvery)
	defer stop()
	go func() {
		var o outcome
		defer func() {
			if r := recover(); r != nil {
				o.err = fmt.Errorf("internal error in the repair service: %v", r)
			}
			done <- o
		}()
		o.res, o.err = x.r.Repair(ctx, req, report)
	}()
	select {
	case o := <-done:
		if o.err != nil && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return o.res, o.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// hunkEdit builds the WorkspaceEdit replacing lines startLine..endLine
// (1-based, inclusive) with hunk, against the document version it was
// computed on. A hunk that ends the file keeps the file's missing final
// newline missing.
func hunkEdit(doc proxy.Document, mp *textpos.Mapper, startLine, endLine int, hunk string, versioned bool) protocol.WorkspaceEdit {
	startOff := mp.LineStart(startLine - 1)
	endOff := mp.LineStart(endLine) // the start of the line after the hunk, or the end of the text
	if endOff == len(doc.Text) && !textpos.EndsLine(doc.Text) {
		hunk = strings.TrimSuffix(hunk, textpos.Terminator(hunk)) // "\r\n" or a lone "\r" too
	}
	te := protocol.TextEdit{
		Range:   protocol.Range{Start: proxy.FromTextpos(mp.Position(startOff)), End: proxy.FromTextpos(mp.Position(endOff))},
		NewText: hunk,
	}
	if !versioned {
		return protocol.WorkspaceEdit{Changes: map[protocol.DocumentURI][]protocol.TextEdit{doc.URI: {te}}}
	}
	v := doc.Version
	return protocol.WorkspaceEdit{DocumentChanges: []protocol.TextDocumentEdit{{
		TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{
			TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: doc.URI}, Version: &v},
		Edits: []protocol.TextEdit{te},
	}}}
}

// firstLine is the first non-blank line of a hunk, trimmed and shortened,
// for titles.
func firstLine(hunk string, start, end int) string {
	for _, l := range textpos.Lines(hunk) {
		if l = strings.TrimSpace(l); l != "" {
			if r := []rune(l); len(r) > 60 {
				l = string(r[:57]) + "..."
			}
			return l
		}
	}
	return "delete " + lineSpan(start, end)
}

// lineSpan names 1-based inclusive lines for messages: "line 30" or
// "lines 30-32".
func lineSpan(start, end int) string {
	if start == end {
		return fmt.Sprintf("line %d", start)
	}
	return fmt.Sprintf("lines %d-%d", start, end)
}
