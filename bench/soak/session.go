// Package soak is "repilot-lsp bench soak": a long, seeded editing session
// against `repilot-lsp serve` that kills the editor's JDT LS now and then and
// checks the invariants an editor relies on (every request answered once,
// JDT LS's symbols agreeing with the editor's text, bounded memory, no
// process left behind). Run starts it; the Report says what failed.
package soak

// session.go plays the editor: it starts `repilot-lsp serve`, initializes
// it like an editor, opens documents, and until the duration is up types,
// asks for hovers, completions, code actions, symbols, searches, ghost text
// and repairs, while another goroutine kills the editor's JDT LS every
// KillEvery and another samples memory and goroutines. Between editing
// actions, after every JDT LS restart and at the end, it checks that JDT
// LS's symbols agree with the editor's text (check.go).

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/repilot-lsp/repilot-lsp/internal/proc"
	"github.com/repilot-lsp/repilot-lsp/javalex"
	"github.com/repilot-lsp/repilot-lsp/jdtls"
	"github.com/repilot-lsp/repilot-lsp/jsonrpc"
	"github.com/repilot-lsp/repilot-lsp/textpos"
)

// Config is one soak run.
type Config struct {
	// Binary is the repilot-lsp executable run as "serve" (the command
	// passes its own, os.Executable).
	Binary string
	// Project is the Java project; the soak works on a copy in a temporary
	// folder and never writes the original.
	Project string
	// Files are the documents to open, relative to Project; empty: the
	// first six .java files in path order. The soak types into those whose
	// last top-level type is a class (Doc.SetBaseline); the rest are read.
	Files []string
	// Duration is how long the editing goes on (the setup before and the
	// checks after are extra).
	Duration time.Duration
	// KillEvery is the time between SIGKILLs of the editor's JDT LS (0:
	// none). The proxy restarts JDT LS at most 3 times in 5 minutes, so
	// values under 100 s make it give up, which the soak reports as a
	// failure.
	KillEvery time.Duration
	// SampleEvery is the time between samples of memory and goroutines.
	SampleEvery time.Duration
	// CheckEvery is the time between agreement checks besides the ones
	// after restarts and at the end (0: none).
	CheckEvery time.Duration
	// RepairEvery is the pause between the end of one repair and the start
	// of the next (0: no repairs). The first and every second one after it
	// are cancelled after 5-40 s (the first while the repair engine may
	// still be starting), and one still running when the editing ends is
	// cancelled then.
	RepairEvery time.Duration
	// RepairFile (relative) and RepairLine (1-based) are the hunk repairs
	// ask for; "" repairs a random line of the first edited document's
	// own text.
	RepairFile string
	RepairLine int
	// NoGhostText leaves out ghost-text requests (which start the repair
	// engine's JDT LS and model on first use, like a repair).
	NoGhostText bool
	// TestCommand is the repair's test command (argv), if any.
	TestCommand []string
	// Seed makes the session's choices repeatable (not its timing).
	Seed uint64
	// JDTLSHome is passed to serve as --jdtls when set.
	JDTLSHome string
	// Log receives progress lines; nil discards them.
	Log io.Writer
	// Keep leaves the temporary folder (project copy, state, the proxy's
	// log) in place and names it in the report.
	Keep bool
}

// Sample is one reading, T seconds after the proxy started.
type Sample struct {
	T            float64 `json:"t_s"`
	ProxyRSSMiB  float64 `json:"proxy_rss_mib"`
	ProxyThreads int     `json:"proxy_threads"`
	// Goroutines and GoHeapMiB come from the proxy's REPILOT_DEBUG_STATS
	// file; -1 when it had none at most 5 s old.
	Goroutines int64   `json:"goroutines"`
	GoHeapMiB  float64 `json:"go_heap_mib"`
	TreeRSSMiB float64 `json:"tree_rss_mib"` // the proxy and every process below it
	JDTLS      int     `json:"jdtls"`        // JDT LS processes below the proxy
	Children   int     `json:"children"`     // processes below the proxy
	Load1      float64 `json:"load1"`        // the machine's 1-minute load average
	Answered   int     `json:"answered"`     // responses received so far
	Changes    int     `json:"changes"`      // didChange notifications sent so far
}

// MethodStats counts one method's requests. Latencies are of successful,
// uncancelled answers only. The agreement checks' own documentSymbol
// requests are not counted here.
type MethodStats struct {
	Method     string         `json:"method"`
	Sent       int            `json:"sent"`
	OK         int            `json:"ok"`
	Errors     map[string]int `json:"errors,omitempty"` // by JSON-RPC error code
	Cancelled  int            `json:"cancelled"`        // $/cancelRequest sent by the soak
	Unanswered int            `json:"unanswered"`
	Skipped    int            `json:"skipped"` // not sent: too many requests in flight
	P50ms      float64        `json:"p50_ms"`
	P95ms      float64        `json:"p95_ms"`
	Maxms      float64        `json:"max_ms"`
	lat        []float64
}

// Kill is one SIGKILL of the editor's JDT LS.
type Kill struct {
	T   float64 `json:"t_s"`
	PID int     `json:"pid"`
	// RestartedAfter is the seconds until the proxy said it restarted JDT
	// LS; -1 when it never did.
	RestartedAfter float64 `json:"restarted_after_s"`
}

// Check is one comparison of JDT LS's symbols with the editor's text.
type Check struct {
	T      float64 `json:"t_s"`
	Reason string  `json:"reason"`
	OK     bool    `json:"ok"`
	// Tries is the number of documentSymbol rounds until agreement (the
	// first round right after an edit may still see older text).
	Tries   int      `json:"tries"`
	Took    float64  `json:"took_s"`  // seconds, all tries
	Symbols int      `json:"symbols"` // symbols compared, all documents
	Detail  []string `json:"detail,omitempty"`
}

// Edits counts the editing.
type Edits struct {
	Actions     int `json:"actions"`
	Typed       int `json:"methods_typed"`
	Deleted     int `json:"methods_deleted"`
	Retyped     int `json:"values_retyped"`
	Typos       int `json:"typos"`
	DidChange   int `json:"did_change"`
	MultiChange int `json:"multi_change"` // didChange with more than one change
	Members     int `json:"members_at_end"`
}

// Report is the outcome of a run.
type Report struct {
	Seed     uint64         `json:"seed"`
	Project  string         `json:"project"`
	Files    []string       `json:"files"`
	Edited   []string       `json:"edited"`
	Duration float64        `json:"duration_s"` // the editing phase, measured
	Samples  []Sample       `json:"samples"`
	Methods  []MethodStats  `json:"methods"`
	Kills    []Kill         `json:"kills"`
	Restarts int            `json:"restarts"` // JDT LS restarts the proxy announced
	Checks   []Check        `json:"checks"`
	Edits    Edits          `json:"edits"`
	Notes    map[string]int `json:"notifications"`
	// Routing: responses that matched no request, or answered one twice.
	UnknownResponses   []string `json:"unknown_responses,omitempty"`
	DuplicateResponses []string `json:"duplicate_responses,omitempty"`
	MaxJDTLS           int      `json:"max_jdtls"`
	ProxyExitSeconds   float64  `json:"proxy_exit_s"` // from exit to the process's end
	ProxyExitErr       string   `json:"proxy_exit_err,omitempty"`
	Orphans            []string `json:"orphans,omitempty"`
	ProcessesSeen      int      `json:"processes_seen"` // distinct processes below the proxy
	LoadMin            float64  `json:"load_min"`
	LoadMax            float64  `json:"load_max"`
	// Pending lists the requests still unanswered when shutdown was
	// answered (method and id): the proxy must answer everything first.
	Pending      []string `json:"pending_at_shutdown,omitempty"`
	Failures     []string `json:"failures,omitempty"`
	ProxyLogTail []string `json:"proxy_log_tail,omitempty"`
	KeptDir      string   `json:"kept_dir,omitempty"`
}

// Failed reports whether an invariant failed.
func (r *Report) Failed() bool { return len(r.Failures) > 0 }

// session is the state of a run.
type session struct {
	cfg      Config
	log      func(format string, args ...any)
	rng      *rand.Rand
	tmp      string
	project  string
	stateDir string
	cmd      *exec.Cmd
	cl       *client
	docs     []*Doc
	edited   []*Doc
	start    time.Time
	typist   *Typist

	sem chan struct{} // bounds the requests in flight
	wg  sync.WaitGroup

	mu          sync.Mutex
	methods     map[string]*MethodStats
	notes       map[string]int
	restarts    []time.Time
	gaveUp      string
	checkDue    string
	kills       []Kill
	checks      []Check
	samples     []Sample
	seen        map[procID]string
	maxJDTLS    int
	loadMin     float64
	loadMax     float64
	answered    int
	changes     int
	actions     int // editing actions done
	repairBusy  atomic.Bool
	repair      *pending // the repair in flight, if any
	repairs     int      // repairs started
	lastRepair  time.Time
	caretCancel func() // cancels the request made at the last caret
}

// Run runs the soak. It returns an error when the session could not be set
// up or the proxy went away early; invariant failures are in
// Report.Failures.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if cfg.SampleEvery <= 0 {
		cfg.SampleEvery = 30 * time.Second
	}
	s := &session{cfg: cfg, rng: rand.New(rand.NewPCG(cfg.Seed, 0x50a4)), methods: map[string]*MethodStats{},
		notes: map[string]int{}, seen: map[procID]string{}, sem: make(chan struct{}, 12), loadMin: 1e9}
	s.log = func(format string, args ...any) {
		if cfg.Log != nil {
			fmt.Fprintf(cfg.Log, "soak %6.1fs: %s\n", time.Since(s.start).Seconds(), fmt.Sprintf(format, args...))
		}
	}
	s.start = time.Now()
	var err error
	if s.tmp, err = os.MkdirTemp("", "repilot-soak-*"); err != nil {
		return nil, err
	}
	rep := &Report{Seed: cfg.Seed, Project: cfg.Project}
	defer func() {
		if cfg.Keep {
			rep.KeptDir = s.tmp
		} else {
			os.RemoveAll(s.tmp)
		}
	}()
	if err := s.setup(ctx, rep); err != nil {
		s.kill()
		rep.ProxyLogTail = s.logTail(30)
		return rep, err
	}
	s.play(ctx, rep)
	s.finish(rep)
	return rep, nil
}

// setup copies the project, starts the proxy, initializes it and opens
// the documents, and takes the baseline symbols.
func (s *session) setup(ctx context.Context, rep *Report) error {
	s.project = filepath.Join(s.tmp, "project")
	if err := os.CopyFS(s.project, os.DirFS(s.cfg.Project)); err != nil {
		return fmt.Errorf("copying the project: %w", err)
	}
	files := s.cfg.Files
	if len(files) == 0 {
		_ = filepath.WalkDir(s.project, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".java") && len(files) < 6 {
				rel, _ := filepath.Rel(s.project, p)
				files = append(files, rel)
			}
			return nil
		})
	}
	if len(files) == 0 {
		return fmt.Errorf("%s has no .java file", s.cfg.Project)
	}
	rep.Files = files
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(s.project, f))
		if err != nil {
			return err
		}
		s.docs = append(s.docs, NewDoc(jdtls.FileURI(filepath.Join(s.project, f)), f, string(b)))
	}

	s.stateDir = filepath.Join(s.tmp, "state")
	args := []string{"serve", "--state-dir", s.stateDir, "--log-file", filepath.Join(s.tmp, "proxy.log")}
	if s.cfg.JDTLSHome != "" {
		args = append(args, "--jdtls", s.cfg.JDTLSHome)
	}
	s.cmd = exec.Command(s.cfg.Binary, args...)
	s.cmd.Env = append(os.Environ(), EnvDebugStats+"="+filepath.Join(s.tmp, "stats.json"))
	s.cmd.Stderr = os.Stderr
	proc.Tie(s.cmd) // the proxy dies with the soak
	in, err := s.cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := s.cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", s.cfg.Binary, err)
	}
	s.log("started %s serve (pid %d)", s.cfg.Binary, s.cmd.Process.Pid)
	s.cl = newClient(in, s.onNote, s.onRequest)
	go s.cl.run(out)

	rootURI := jdtls.FileURI(s.project)
	if _, err := s.cl.callSync("initialize", map[string]any{
		"processId": os.Getpid(), "rootUri": rootURI, "capabilities": editorCapabilities(),
		"clientInfo":       map[string]any{"name": "repilot-lsp bench soak"},
		"workspaceFolders": []any{map[string]any{"uri": rootURI, "name": filepath.Base(s.cfg.Project)}},
	}, 3*time.Minute); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	if err := s.cl.notify("initialized", map[string]any{}); err != nil {
		return err
	}
	for _, d := range s.docs {
		if err := s.cl.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": d.URI, "languageId": "java", "version": d.Version, "text": d.Text}}); err != nil {
			return err
		}
	}
	// The baseline: JDT LS's symbols of the unedited text.
	for _, d := range s.docs {
		deadline := time.Now().Add(5 * time.Minute)
		for {
			if err := ctx.Err(); err != nil {
				return err
			}
			syms, err := s.symbols(d)
			if err == nil && len(syms) > 0 {
				if err := d.SetBaseline(syms); err != nil {
					return fmt.Errorf("%s: %w", d.Rel, err)
				}
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("JDT LS gave no symbols for %s within 5 minutes (last error: %v)", d.Rel, err)
			}
			time.Sleep(2 * time.Second)
		}
		if d.Class != "" {
			s.edited = append(s.edited, d)
			rep.Edited = append(rep.Edited, d.Rel)
		}
	}
	if len(s.edited) == 0 {
		return fmt.Errorf("none of %v ends with a class the soak can type into", files)
	}
	s.log("JDT LS is up; editing %v, reading %d documents in all", rep.Edited, len(s.docs))
	return nil
}

// editorCapabilities are what VS Code declares, in the parts the proxy and
// JDT LS look at: incremental sync with dynamic registration, snippets,
// hierarchical symbols, code action literals with resolve, work done
// progress, workspace edits, configuration.
func editorCapabilities() map[string]any {
	return map[string]any{
		"workspace": map[string]any{"applyEdit": true, "configuration": true, "workspaceFolders": true,
			"workspaceEdit":          map[string]any{"documentChanges": true, "resourceOperations": []string{"create", "rename", "delete"}},
			"didChangeConfiguration": map[string]any{"dynamicRegistration": true},
			"didChangeWatchedFiles":  map[string]any{"dynamicRegistration": true},
			"symbol":                 map[string]any{"dynamicRegistration": true},
			"executeCommand":         map[string]any{"dynamicRegistration": true}},
		"textDocument": map[string]any{
			"synchronization": map[string]any{"dynamicRegistration": true, "willSave": true, "didSave": true},
			"completion": map[string]any{"dynamicRegistration": true, "contextSupport": true,
				"completionItem": map[string]any{"snippetSupport": true, "resolveSupport": map[string]any{"properties": []string{"documentation", "detail", "additionalTextEdits"}}}},
			"hover":              map[string]any{"dynamicRegistration": true, "contentFormat": []string{"markdown", "plaintext"}},
			"documentSymbol":     map[string]any{"dynamicRegistration": true, "hierarchicalDocumentSymbolSupport": true},
			"publishDiagnostics": map[string]any{"relatedInformation": true, "versionSupport": true},
			"codeAction": map[string]any{"dynamicRegistration": true, "isPreferredSupport": true,
				"resolveSupport": map[string]any{"properties": []string{"edit"}}, "dataSupport": true,
				"codeActionLiteralSupport": map[string]any{"codeActionKind": map[string]any{
					"valueSet": []string{"", "quickfix", "refactor", "refactor.extract", "refactor.inline", "refactor.rewrite", "source", "source.organizeImports"}}}},
			"inlineCompletion": map[string]any{"dynamicRegistration": true}},
		"window": map[string]any{"workDoneProgress": true, "showMessage": map[string]any{}},
	}
}

// onNote handles the proxy's notifications.
func (s *session) onNote(m *jsonrpc.Message) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.notes[m.Method]++
	if m.Method != "window/logMessage" && m.Method != "window/showMessage" {
		return
	}
	var p struct{ Message string }
	_ = json.Unmarshal(m.Params, &p)
	switch {
	case strings.Contains(p.Message, "JDT LS restarted (#"):
		s.restarts = append(s.restarts, time.Now())
		s.checkDue = "after restart " + fmt.Sprint(len(s.restarts))
		s.log("proxy: %s", p.Message)
	case strings.Contains(p.Message, "not restarting"), strings.Contains(p.Message, "JDT LS is not running"):
		s.gaveUp = p.Message
		s.log("proxy: %s", p.Message)
	}
}

// onRequest answers the requests JDT LS (through the proxy) sends the
// editor, as an editor would.
func (s *session) onRequest(m *jsonrpc.Message) (any, *jsonrpc.Error) {
	s.mu.Lock()
	s.notes["request "+m.Method]++
	s.mu.Unlock()
	switch m.Method {
	case "workspace/configuration":
		var p struct{ Items []json.RawMessage }
		_ = json.Unmarshal(m.Params, &p)
		return make([]any, len(p.Items)), nil
	case "workspace/applyEdit":
		return map[string]any{"applied": false, "failureReason": "the soak applies no edits"}, nil
	case "client/registerCapability", "client/unregisterCapability", "window/workDoneProgress/create",
		"window/showMessageRequest", "workspace/workspaceFolders", "workspace/semanticTokens/refresh",
		"workspace/codeLens/refresh", "workspace/inlayHint/refresh", "workspace/diagnostic/refresh":
		return nil, nil
	}
	return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "the soak does not handle " + m.Method}
}

// symbols asks for d's symbols (synchronously).
func (s *session) symbols(d *Doc) ([]DocSymbol, error) {
	raw, err := s.cl.callSync("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": d.URI}}, 2*time.Minute)
	if err != nil {
		return nil, err
	}
	var syms []DocSymbol
	if err := json.Unmarshal(raw, &syms); err != nil {
		return nil, fmt.Errorf("documentSymbol result: %w", err)
	}
	return syms, nil
}

// pending is one request in flight.
type pending struct {
	cl        *call
	cancelled atomic.Bool
}

// send sends a request without waiting; a goroutine records its outcome,
// waiting up to timeout for the answer. It returns nil (and counts a skip)
// when too many requests are in flight.
func (s *session) send(method string, params any, timeout time.Duration) *pending {
	s.mu.Lock()
	ms := s.methodLocked(method)
	s.mu.Unlock()
	select {
	case s.sem <- struct{}{}:
	default:
		s.mu.Lock()
		ms.Skipped++
		s.mu.Unlock()
		return nil
	}
	cl, err := s.cl.request(method, params)
	if err != nil {
		<-s.sem
		s.log("%v", err)
		return nil
	}
	p := &pending{cl: cl}
	s.mu.Lock()
	ms.Sent++
	s.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer func() { <-s.sem }()
		answered := s.cl.wait(cl, timeout)
		s.mu.Lock()
		defer s.mu.Unlock()
		if !answered {
			ms.Unanswered++
			s.log("%s (id %s) unanswered after %v", method, cl.id, timeout)
			return
		}
		s.answered++
		if p.cancelled.Load() {
			ms.Cancelled++
		}
		if e := cl.resp.Error; e != nil {
			if ms.Errors == nil {
				ms.Errors = map[string]int{}
			}
			ms.Errors[fmt.Sprint(e.Code)]++
			return
		}
		ms.OK++
		if !p.cancelled.Load() {
			ms.lat = append(ms.lat, float64(cl.at.Sub(cl.sent).Microseconds())/1000)
		}
	}()
	return p
}

// cancel sends $/cancelRequest for p unless it has been answered.
func (s *session) cancel(p *pending) {
	if p == nil {
		return
	}
	select {
	case <-p.cl.done:
		return
	default:
	}
	if !p.cancelled.Swap(true) {
		s.cl.cancel(p.cl)
	}
}

func (s *session) methodLocked(method string) *MethodStats {
	ms := s.methods[method]
	if ms == nil {
		ms = &MethodStats{Method: method}
		s.methods[method] = ms
	}
	return ms
}

// play runs the editing phase.
func (s *session) play(ctx context.Context, rep *Report) {
	s.typist = &Typist{Rng: s.rng,
		Send: func(d *Doc, cs []Change) {
			// A new keystroke makes the request at the old caret stale.
			s.cancelCaret()
			_ = s.cl.notify("textDocument/didChange", map[string]any{
				"textDocument": map[string]any{"uri": d.URI, "version": d.Version}, "contentChanges": cs})
			s.mu.Lock()
			s.changes++
			s.mu.Unlock()
		},
		Pause:   func() { time.Sleep(time.Duration(20+s.rng.IntN(100)) * time.Millisecond) },
		AtCaret: s.atCaret,
	}
	editCtx, stop := context.WithTimeout(ctx, s.cfg.Duration)
	defer stop()
	var bg sync.WaitGroup
	bg.Add(2)
	go func() { defer bg.Done(); s.sampler(editCtx) }()
	go func() { defer bg.Done(); s.killer(editCtx) }()
	nextCheck := time.Now().Add(s.cfg.CheckEvery)
	began := time.Now()
	for editCtx.Err() == nil {
		select {
		case <-s.cl.closed:
			s.mu.Lock()
			s.gaveUp = "the proxy's output ended during the session"
			s.mu.Unlock()
		default:
		}
		s.mu.Lock()
		due := s.checkDue
		s.checkDue = ""
		gaveUp := s.gaveUp
		s.mu.Unlock()
		if gaveUp != "" {
			break
		}
		if due == "" && s.cfg.CheckEvery > 0 && time.Now().After(nextCheck) {
			due = "periodic"
		}
		if due != "" {
			s.check(due)
			nextCheck = time.Now().Add(s.cfg.CheckEvery)
			continue
		}
		s.maybeRepair()
		s.step()
		time.Sleep(time.Duration(250+s.rng.IntN(750)) * time.Millisecond) // the user reads
	}
	rep.Duration = time.Since(began).Seconds()
	stop()
	bg.Wait()
}

// step does one thing an editor does.
func (s *session) step() {
	d := s.docs[s.rng.IntN(len(s.docs))]
	uri := map[string]any{"uri": d.URI}
	const t = 3 * time.Minute
	switch r := s.rng.IntN(100); {
	case r < 35:
		e := s.edited[s.rng.IntN(len(s.edited))]
		s.typist.Act(e)
		s.mu.Lock()
		s.actions++
		s.mu.Unlock()
	case r < 55:
		if p, ok := s.randomIdent(d, false); ok {
			s.send("textDocument/hover", map[string]any{"textDocument": uri, "position": p}, t)
		}
	case r < 65:
		if p, ok := s.randomIdent(d, true); ok {
			s.send("textDocument/completion", map[string]any{"textDocument": uri, "position": p,
				"context": map[string]any{"triggerKind": 1}}, t)
		}
	case r < 77:
		m := textpos.New(d.Text)
		l := s.rng.IntN(m.LineCount())
		end := min(l+1+s.rng.IntN(3), m.LineCount()-1)
		s.send("textDocument/codeAction", map[string]any{"textDocument": uri,
			"range":   Range{Start: textpos.Position{Line: l}, End: textpos.Position{Line: end}},
			"context": map[string]any{"diagnostics": []any{}, "triggerKind": 2}}, t)
	case r < 85:
		s.send("textDocument/documentSymbol", map[string]any{"textDocument": uri}, t)
	case r < 89:
		s.send("workspace/symbol", map[string]any{"query": s.randomWord(d, 3)}, t)
	case r < 92:
		s.send("workspace/symbol", map[string]any{"query": "?" + s.randomWord(d, 0) + " " + s.randomWord(d, 0)}, t)
	case r < 95:
		s.send("workspace/executeCommand", map[string]any{"command": "repilot.semanticSearch",
			"arguments": []any{map[string]any{"query": s.randomWord(d, 0) + " " + s.randomWord(d, 0), "k": 10}}}, t)
	default:
		time.Sleep(time.Duration(500+s.rng.IntN(1500)) * time.Millisecond)
	}
}

// atCaret is called after each piece typed: sometimes a completion
// (invoked) or ghost text (automatic) at the caret, cancelled by the next
// keystroke when still unanswered, as editors do.
func (s *session) atCaret(d *Doc, caret int) {
	var p *pending
	pos := textpos.New(d.Text).Position(caret)
	uri := map[string]any{"uri": d.URI}
	switch r := s.rng.IntN(20); {
	case r < 2:
		p = s.send("textDocument/completion", map[string]any{"textDocument": uri, "position": pos,
			"context": map[string]any{"triggerKind": 1}}, 3*time.Minute)
	case r < 4 && !s.cfg.NoGhostText:
		p = s.send("textDocument/inlineCompletion", map[string]any{"textDocument": uri, "position": pos,
			"context": map[string]any{"triggerKind": 2}}, 3*time.Minute)
	}
	if p != nil {
		s.mu.Lock()
		s.caretCancel = func() { s.cancel(p) }
		s.mu.Unlock()
	}
}

func (s *session) cancelCaret() {
	s.mu.Lock()
	f := s.caretCancel
	s.caretCancel = nil
	s.mu.Unlock()
	if f != nil {
		f()
	}
}

// randomIdent returns the position inside (or, atEnd, at the end of) a
// random identifier of d.
func (s *session) randomIdent(d *Doc, atEnd bool) (textpos.Position, bool) {
	toks := idents(d.Text)
	if len(toks) == 0 {
		return textpos.Position{}, false
	}
	tk := toks[s.rng.IntN(len(toks))]
	off := tk.Start + (tk.End-tk.Start)/2
	if atEnd {
		off = tk.End
	}
	return textpos.New(d.Text).Position(off), true
}

// randomWord returns a random identifier of d, cut to n bytes when n > 0.
func (s *session) randomWord(d *Doc, n int) string {
	toks := idents(d.Text)
	if len(toks) == 0 {
		return "cart"
	}
	w := toks[s.rng.IntN(len(toks))].Text
	if n > 0 && len(w) > n {
		w = w[:n]
	}
	return w
}

func idents(text string) []javalex.Token {
	var out []javalex.Token
	lx := javalex.NewLexer(text)
	for {
		tk, ok := lx.Next()
		if !ok {
			return out
		}
		if tk.Kind == javalex.Ident {
			out = append(out, tk)
		}
	}
}

// maybeRepair starts a repair when none runs and RepairEvery has passed
// since the last one ended; the first, third, ... are cancelled after
// 5-40 s.
func (s *session) maybeRepair() {
	if s.cfg.RepairEvery <= 0 || s.repairBusy.Load() {
		return
	}
	s.mu.Lock()
	last := s.lastRepair
	s.mu.Unlock()
	if !last.IsZero() && time.Since(last) < s.cfg.RepairEvery {
		return
	}
	d, line := s.repairTarget()
	if d == nil {
		return
	}
	args := map[string]any{"uri": d.URI, "version": d.Version,
		"range": Range{Start: textpos.Position{Line: line - 1}, End: textpos.Position{Line: line}}}
	if len(s.cfg.TestCommand) > 0 {
		args["testCommand"] = s.cfg.TestCommand
	}
	p := s.send("workspace/executeCommand", map[string]any{"command": "repilot.repairHunk", "arguments": []any{args}}, 12*time.Minute)
	if p == nil {
		return
	}
	s.repairBusy.Store(true)
	s.mu.Lock()
	s.repair = p
	s.mu.Unlock()
	s.repairs++
	var cancelAt <-chan time.Time
	if s.repairs%2 == 1 { // the first repair and every second one after it: the user gives up on it
		cancelAt = time.After(time.Duration(5+s.rng.IntN(36)) * time.Second)
	}
	s.log("repair of %s:%d started (cancel: %v)", d.Rel, line, cancelAt != nil)
	go func() {
		select {
		case <-p.cl.done:
		case <-cancelAt:
			s.cancel(p)
			<-p.cl.done
		case <-time.After(12 * time.Minute):
		}
		s.mu.Lock()
		s.lastRepair = time.Now()
		s.repair = nil
		s.mu.Unlock()
		s.repairBusy.Store(false)
		s.log("repair ended")
	}()
}

// repairTarget returns the document and 1-based line of the next repair:
// Config's, or a line inside one of the first edited document's own
// methods (never a line the soak typed).
func (s *session) repairTarget() (*Doc, int) {
	if s.cfg.RepairFile != "" {
		for _, d := range s.docs {
			if d.Rel == s.cfg.RepairFile {
				if d.repairMark == nil {
					off := textpos.New(d.Text).LineStart(s.cfg.RepairLine - 1)
					d.repairMark = &off
				}
				return d, textpos.New(d.Text).Position(*d.repairMark).Line + 1
			}
		}
		return nil, 0
	}
	d := s.edited[0]
	var methods []*expSym
	for _, sy := range d.syms {
		if sy.Kind == 6 || sy.Kind == 9 {
			methods = append(methods, sy)
		}
	}
	if len(methods) == 0 {
		return nil, 0
	}
	sy := methods[s.rng.IntN(len(methods))]
	return d, textpos.New(d.Text).Position(sy.RStart).Line + 1
}

// killer SIGKILLs the editor's JDT LS every KillEvery.
func (s *session) killer(ctx context.Context) {
	if s.cfg.KillEvery <= 0 {
		return
	}
	tick := time.NewTicker(s.cfg.KillEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		var victim *procInfo
		for _, p := range descendants(allProcs(), s.cmd.Process.Pid) {
			if isJDTLS(p) && strings.Contains(p.Cmdline, filepath.Join(s.stateDir, "jdtls")) {
				victim = &p
				break
			}
		}
		if victim == nil {
			s.log("no editor JDT LS to kill (restarting?)")
			continue
		}
		err := syscall.Kill(victim.ID.PID, syscall.SIGKILL)
		s.mu.Lock()
		s.kills = append(s.kills, Kill{T: time.Since(s.start).Seconds(), PID: victim.ID.PID, RestartedAfter: -1})
		n := len(s.kills)
		s.mu.Unlock()
		s.log("kill #%d: SIGKILL to the editor's JDT LS (pid %d): %v", n, victim.ID.PID, err)
	}
}

// isJDTLS tells a JDT LS process from other java ones (test commands) and
// from its supervisor (jdtls.Command runs JDT LS under proc.Supervise: this
// binary again, with the same arguments, as /proc/self/exe, so its comm is
// "exe"): the java process itself, whose comm is "java".
func isJDTLS(p procInfo) bool {
	return p.Comm == "java" && strings.Contains(p.Cmdline, "org.eclipse.jdt.ls.core")
}

// sampler records the process tree every 2 s (for the orphan check) and a
// Sample every SampleEvery.
func (s *session) sampler(ctx context.Context) {
	s.sample(true)
	tick := time.NewTicker(2 * time.Second)
	defer tick.Stop()
	next := time.Now().Add(s.cfg.SampleEvery)
	for {
		select {
		case <-ctx.Done():
			s.sample(true)
			return
		case <-tick.C:
		}
		full := time.Now().After(next)
		if full {
			next = next.Add(s.cfg.SampleEvery)
		}
		s.sample(full)
	}
}

// sample reads the tree below the proxy; record adds a Sample.
func (s *session) sample(record bool) {
	pid := s.cmd.Process.Pid
	self, ok := readProc(pid)
	if !ok {
		return
	}
	kids := descendants(allProcs(), pid)
	tree := self.RSSKiB
	jdt := 0
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range kids {
		tree += k.RSSKiB
		if isJDTLS(k) {
			jdt++
		}
		if _, ok := s.seen[k.ID]; !ok {
			s.seen[k.ID] = k.Cmdline
		}
	}
	s.maxJDTLS = max(s.maxJDTLS, jdt)
	load := loadAvg1()
	s.loadMin, s.loadMax = min(s.loadMin, load), max(s.loadMax, load)
	if !record {
		return
	}
	smp := Sample{T: time.Since(s.start).Seconds(), ProxyRSSMiB: float64(self.RSSKiB) / 1024, ProxyThreads: self.Threads,
		Goroutines: -1, GoHeapMiB: -1, TreeRSSMiB: float64(tree) / 1024, JDTLS: jdt, Children: len(kids), Load1: load,
		Answered: s.answered, Changes: s.changes}
	if st, ok := readStatsFile(filepath.Join(s.tmp, "stats.json"), 5*time.Second); ok {
		smp.Goroutines, smp.GoHeapMiB = st.Goroutines, float64(st.HeapBytes)/(1<<20)
	}
	s.samples = append(s.samples, smp)
	s.log("sample: proxy RSS %.1f MiB, goroutines %d, tree RSS %.0f MiB, JDT LS %d, load %.1f", smp.ProxyRSSMiB, smp.Goroutines, smp.TreeRSSMiB, jdt, load)
}

// kill ends the proxy and everything below it at once (setup failures).
func (s *session) kill() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	for _, k := range descendants(allProcs(), s.cmd.Process.Pid) {
		_ = syscall.Kill(k.ID.PID, syscall.SIGKILL)
	}
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
}

// logTail returns the last n lines of the proxy's log.
func (s *session) logTail(n int) []string {
	b, err := os.ReadFile(filepath.Join(s.tmp, "proxy.log"))
	if err != nil {
		return nil
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines
}

// sortedMethods returns the method stats with percentiles, by method.
func (s *session) sortedMethods() []MethodStats {
	var out []MethodStats
	for _, ms := range s.methods {
		m := *ms
		sort.Float64s(m.lat)
		m.P50ms, m.P95ms = percentile(m.lat, 50), percentile(m.lat, 95)
		if len(m.lat) > 0 {
			m.Maxms = m.lat[len(m.lat)-1]
		}
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Method < out[j].Method })
	return out
}

// percentile returns the p-th percentile of sorted xs (nearest rank); 0 for
// none.
func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	k := int(float64(len(xs))*p/100+0.999999) - 1
	return xs[max(0, min(k, len(xs)-1))]
}
