package cli

// warm.go is serve's warm-up (issue 14, "be warm before asked"): when the
// editor opens a Java document of a project, that project's backends (the
// shadow JDT LS and the model, backend.Pool.Warm) start in the background, so
// that the first repair or ghost-text request finds them ready, or joins
// their start instead of beginning its own. Progress goes to the editor as
// $/progress (created with window/workDoneProgress/create when the editor
// supports it). The didOpen itself is forwarded to JDT LS before the proxy
// calls the Notify of Methods, which returns at once. The Pool's Close (serve's Stopping,
// on exit or when the editor goes) cancels a start in progress, so no JDT LS
// outlives serve. --warm=false or REPILOT_WARM=false turns it off.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"

	"github.com/repilot-lsp/repilot-lsp/backend"
	"github.com/repilot-lsp/repilot-lsp/proxy"
	"github.com/repilot-lsp/repilot-lsp/proxy/feature/inlinefeat"
	"github.com/repilot-lsp/repilot-lsp/repair"
)

// EnvWarm, when "false", "0", "off" or "no", turns serve's warm-up off unless
// --warm is given (what an editor plugin sets from its settings).
const EnvWarm = "REPILOT_WARM"

// warmEnabled decides the warm-up from --warm (when given on the command
// line) or else $REPILOT_WARM (default on). A variable that says neither on
// ("true", "1", "on", "yes", empty) nor off leaves the warm-up on, and the
// warning (for the log; "" otherwise) names it.
func warmEnabled(flag, flagGiven bool, getenv func(string) string) (on bool, warning string) {
	if flagGiven {
		return flag, ""
	}
	switch v := strings.ToLower(strings.TrimSpace(getenv(EnvWarm))); v {
	case "false", "0", "off", "no":
		return false, ""
	case "", "true", "1", "on", "yes":
		return true, ""
	}
	return true, fmt.Sprintf("$%s=%q is neither true nor false (off: false, 0, off or no); the warm-up stays on", EnvWarm, getenv(EnvWarm))
}

// warmer is what the warm-up needs of the repair service (backend.Pool).
type warmer interface {
	Warm(ctx context.Context, root string, progress repair.Progress) error
	// WarmFile warms a started (or starting) root's engine up on one
	// file and its text; a root with no backends is left alone.
	WarmFile(ctx context.Context, root, path, text string) error
}

// warmExt is the warm-up as a proxy extension with no commands and no code
// actions: an Initializer (to learn the editor's handle) and a MethodHandler (to
// observe didOpen and didClose).
type warmExt struct {
	w warmer

	mu      sync.Mutex
	ctx     context.Context // from Initialized: ends when the proxy stops
	c       proxy.Client    // nil until Initialized
	pending []string        // URIs opened before Initialized ran
	roots   map[string]bool // project roots warmed or warming (at most maxRoots; see recordLocked)
	files   map[string]bool // open documents (URIs) whose file warm-up ran, runs or waits
	// openDocs maps each open document (URI) the warm-up saw to its
	// project root; didClose removes it from openDocs and files, so that
	// neither grows over a long editor session.
	openDocs map[string]string
	maxRoots int // bound of roots (maxWarmRoots; tests lower it)
	// fileBusy is set while a file warm-up runs; fileNext is the one file
	// warm-up waiting for it (the latest asked; see queueFile).
	fileBusy bool
	fileNext *fileWarm
	done     chan struct{} // tests: a token sent per finished warm-up, if set
	// fileDone, tests: each opened document's URI once its warm-up ended
	// (or was not needed), if set.
	fileDone chan string
}

func newWarmExt(w warmer) *warmExt {
	return &warmExt{w: w, roots: map[string]bool{}, files: map[string]bool{}, openDocs: map[string]string{}, maxRoots: maxWarmRoots}
}

func (x *warmExt) Name() string       { return "repilot.warm" }
func (x *warmExt) Commands() []string { return nil }
func (x *warmExt) CodeActions(*proxy.Document, *protocol.CodeActionParams) []protocol.CodeAction {
	return nil
}
func (x *warmExt) Execute(context.Context, proxy.Client, string, []json.RawMessage) (any, error) {
	return nil, errors.New("the warm-up has no commands")
}

// Initialized keeps the editor's handle and warms the documents opened
// before it.
func (x *warmExt) Initialized(ctx context.Context, c proxy.Client) {
	x.mu.Lock()
	x.ctx, x.c = ctx, c
	pending := x.pending
	x.pending = nil
	x.mu.Unlock()
	for _, uri := range pending {
		x.open(uri)
	}
}

// Methods registers the warm-up's methods: it observes textDocument/didOpen
// and didClose (after the proxy has forwarded them).
func (x *warmExt) Methods() []proxy.Method {
	return []proxy.Method{
		{Name: "textDocument/didOpen", Notify: func(_ proxy.Client, params json.RawMessage) { x.observeOpen(params) }},
		{Name: "textDocument/didClose", Notify: func(_ proxy.Client, params json.RawMessage) { x.observeClose(params) }},
	}
}

// observeOpen sees textDocument/didOpen on the proxy's read loop: it decodes
// the URI only and returns at once; the rest happens on a goroutine.
func (x *warmExt) observeOpen(params json.RawMessage) {
	var p struct {
		TextDocument struct {
			URI string `json:"uri"`
		} `json:"textDocument"`
	}
	if json.Unmarshal(params, &p) != nil || !isJavaFileURI(p.TextDocument.URI) {
		return
	}
	x.mu.Lock()
	if x.c == nil {
		if len(x.pending) < 64 { // bounded: the first ones name the projects
			x.pending = append(x.pending, p.TextDocument.URI)
		}
		x.mu.Unlock()
		return
	}
	x.mu.Unlock()
	x.open(p.TextDocument.URI)
}

// observeClose sees textDocument/didClose on the read loop: the document is
// forgotten, so a later didOpen warms it again with the text it then has.
// Its project stays recorded (warming it again would show the editor a
// progress for nothing while its backends live) until recordLocked needs
// the room.
func (x *warmExt) observeClose(params json.RawMessage) {
	var p struct {
		TextDocument struct {
			URI string `json:"uri"`
		} `json:"textDocument"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.forgetLocked(p.TextDocument.URI)
	if i := slices.Index(x.pending, p.TextDocument.URI); i >= 0 {
		x.pending = slices.Delete(x.pending, i, i+1)
	}
}

// forgetLocked removes the closed document uri.
func (x *warmExt) forgetLocked(uri string) {
	delete(x.openDocs, uri)
	delete(x.files, uri)
}

// maxWarmRoots bounds the projects the warm-up remembers: a workspace of
// many modules (each a project root) opened one file at a time over a long
// session would otherwise grow roots by each.
const maxWarmRoots = 64

// recordLocked records the open document uri of root and reports whether
// root and the document still need their warm-ups. A new root beyond
// x.maxRoots first drops the roots with no open document (a later didOpen
// of theirs warms them again: at no cost while the pool keeps their
// backends, and it starts them again when the pool has closed them), and
// when every recorded root has one, all of them.
func (x *warmExt) recordLocked(uri, root string) (warmRoot, warmFile bool) {
	warmRoot = !x.roots[root]
	if warmRoot && len(x.roots) >= x.maxRoots {
		inUse := map[string]bool{}
		for _, r := range x.openDocs {
			inUse[r] = true
		}
		for r := range x.roots {
			if !inUse[r] {
				delete(x.roots, r)
			}
		}
		if len(x.roots) >= x.maxRoots {
			clear(x.roots)
		}
	}
	x.roots[root] = true
	warmFile = !x.files[uri]
	x.files[uri] = true
	x.openDocs[uri] = root
	return warmRoot, warmFile
}

// isJavaFileURI reports whether u is a file: URI of a .java file.
func isJavaFileURI(u string) bool {
	parsed, err := url.Parse(u)
	return err == nil && parsed.Scheme == "file" && strings.HasSuffix(parsed.Path, ".java")
}

// open warms the project of the opened document uri, once per project root,
// when it lies inside the editor's workspace folder, and then the engine on
// the document itself, once per URI (backend.Pool.WarmFile, with the text
// the editor opened): JDT LS's first completion in a file costs several
// times its later ones, and without this the repair's first request paid
// it (bench/README.md, ninth pass).
func (x *warmExt) open(uri string) {
	go func() {
		x.mu.Lock()
		ctx, c := x.ctx, x.c
		x.mu.Unlock()
		ws := c.Root()
		if ws == "" {
			return // no folder open: repair and ghost text need one
		}
		parsed, err := url.Parse(uri)
		if err != nil {
			return
		}
		file := filepath.FromSlash(parsed.Path)
		if rel, err := filepath.Rel(ws, file); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return // outside the workspace (a JDK class, another folder)
		}
		doc, ok := c.Document(protocol.DocumentURI(uri))
		if !ok {
			return // closed again already
		}
		// The root a repair of this file would use (proxy/feature/repairfeat).
		root := repair.ProjectRoot(file, doc.Text, ws)
		x.mu.Lock()
		warmRoot, warmFile := x.recordLocked(uri, root)
		x.mu.Unlock()
		// A didClose that came since Document above found nothing to
		// forget: the mirror drops the document before the features see
		// didClose, so look again now that it is recorded.
		if _, still := c.Document(protocol.DocumentURI(uri)); !still {
			x.mu.Lock()
			x.forgetLocked(uri)
			x.mu.Unlock()
		}
		if warmRoot && !x.warm(ctx, c, root) {
			x.mu.Lock()
			delete(x.files, uri) // a later didOpen tries again
			x.mu.Unlock()
			if x.fileDone != nil {
				x.fileDone <- uri
			}
			return
		}
		if warmFile {
			x.queueFile(ctx, c, fileWarm{root: root, file: file, uri: uri})
			return
		}
		if x.fileDone != nil {
			x.fileDone <- uri
		}
	}()
}

// maxWarmFileBytes is the largest document a file warm-up sends to the
// shadow JDT LS: the bound of ghost text (inlinefeat.MaxDocumentBytes) and
// of the editor's repair (repairfeat's default MaxBytes), which refuse
// larger documents, so warming one would only hold the project's engine.
const maxWarmFileBytes = inlinefeat.MaxDocumentBytes

// fileWarm is one document's file warm-up: its project root, path and URI.
type fileWarm struct{ root, file, uri string }

// queueFile runs file warm-ups one at a time, and of those asked while one
// runs only the latest waits: one that waited is dropped when a newer one
// comes (its URI may warm at its next didOpen). A file warm-up holds the
// project's engine for a few hundred milliseconds, so an editor restoring
// twenty tabs would otherwise keep a repair or a ghost-text request waiting
// behind twenty of them; this way it waits behind at most two, and the file
// warmed is the one the user opened last. Each warm-up reads the document's
// text when it starts (none when it was closed meanwhile).
func (x *warmExt) queueFile(ctx context.Context, c proxy.Client, job fileWarm) {
	x.mu.Lock()
	if x.fileBusy {
		dropped := x.fileNext
		x.fileNext = &job
		if dropped != nil {
			delete(x.files, dropped.uri)
		}
		x.mu.Unlock()
		if dropped != nil && x.fileDone != nil {
			x.fileDone <- dropped.uri
		}
		return
	}
	x.fileBusy = true
	x.mu.Unlock()
	for next := &job; next != nil; {
		if doc, ok := c.Document(protocol.DocumentURI(next.uri)); ok && ctx.Err() == nil {
			if len(doc.Text) > maxWarmFileBytes {
				c.Logf("warm-up of %s skipped: %d KiB, over the %d KiB repair and ghost text work on", next.file, len(doc.Text)>>10, maxWarmFileBytes>>10)
			} else if err := x.w.WarmFile(ctx, next.root, next.file, doc.Text); err != nil && ctx.Err() == nil {
				c.Logf("warm-up of %s: %v", next.file, err)
			}
		}
		if x.fileDone != nil {
			x.fileDone <- next.uri
		}
		x.mu.Lock()
		next, x.fileNext = x.fileNext, nil
		if next == nil {
			x.fileBusy = false
		}
		x.mu.Unlock()
	}
}

// warm starts root's backends, reporting to the editor; it reports whether
// they are ready.
func (x *warmExt) warm(ctx context.Context, c proxy.Client, root string) bool {
	defer func() {
		if x.done != nil {
			x.done <- struct{}{}
		}
	}()
	began := time.Now()
	pr := c.BeginProgress(ctx, "Repilot: preparing repair")
	c.Logf("warm-up: starting the repair backends of %s", root)
	err := x.w.Warm(ctx, root, func(msg string, _ int) { pr.Report(msg, -1) })
	if errors.Is(err, backend.ErrNoRoom) {
		// Not a failure: the pool is full of projects in use. Forget the
		// root, so that a later didOpen warms it when there is room.
		x.mu.Lock()
		delete(x.roots, root)
		x.mu.Unlock()
		c.Logf("warm-up of %s skipped: %v", root, err)
		pr.End("postponed to the first repair (every project slot is in use)")
		return false
	}
	if err != nil {
		c.Logf("warm-up of %s: %v", root, err)
		pr.End("failed: " + err.Error())
		return false
	}
	c.Logf("warm-up: the repair backends of %s are ready", root)
	// Read after the title: "Repilot: preparing repair: ready (52s)".
	pr.End(fmt.Sprintf("ready (%s)", time.Since(began).Round(time.Second)))
	return true
}
