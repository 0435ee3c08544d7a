// client.go defines Client, an LSP client for one JDT LS child process, and
// its life: Start spawns the server and runs the handshake (initialize.go),
// requests go out through call, server requests are answered by handle
// (server.go), and Shutdown or Kill end the process. The other files hold the
// client's concerns: settings.go the settings it sends, documents.go the
// documents it keeps in full-text sync, completion.go completions and their
// normalized items, diagnostics.go the diagnostics of a given document
// version.
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
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/repilot-lsp/repilot-lsp/internal/proc"
	"github.com/repilot-lsp/repilot-lsp/jsonrpc"
)

// IDPrefix is the id space of requests the engine's client sends (see
// jsonrpc.Conn): "repilot-engine/1", "repilot-engine/2", ...
const IDPrefix = "repilot-engine/"

// ErrExited is wrapped by every error that a Client returns because its JDT LS
// process has ended (crashed, killed, or shut down).
var ErrExited = errors.New("jdtls: server process has exited")

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
	// ShortLived says the server serves one short job and then ends (the
	// repair command's engine): its JVM runs with the C1 compiler only
	// (-XX:TieredStopAtLevel=1), which starts and warms up sooner. A server
	// that lives on (the editor's, serve's engine) keeps the tiered
	// compilers, whose optimised code pays over a longer life. On the
	// example repair, 3 runs each, alternating, load 2.6-4.0: JDT LS ready
	// after a median 6.8 s against 7.6 s, the first plausible patch 11.5 s
	// against 14.7 s, the whole repair 18.7 s against 22.5 s, the same
	// requests and candidates.
	ShortLived bool
	// Stderr receives the process's standard error; nil discards it.
	Stderr io.Writer
	// Settings are the client settings, nested ({"java":{"completion":{...}}})
	// or with dotted keys ({"java.completion.maxResults": 0}). They are sent
	// as initializationOptions.settings and answer workspace/configuration.
	// DefaultSettings are merged underneath: a value given here wins. When
	// they do not set java.project.sourcePaths, the source folders
	// InferSourcePaths finds under Root and Folders are sent as it.
	Settings map[string]any
}

// jvmArgs are the JVM options o asks for beyond Command's own.
func jvmArgs(o Options) []string {
	if o.ShortLived {
		return []string{"-XX:TieredStopAtLevel=1"}
	}
	return nil
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
	// outQ holds the document notifications and requests not yet
	// written, in order; writing is set while a goroutine drains it
	// (enqueueLocked). Guarded by mu.
	outQ    []*outMsg
	writing bool
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
	cmd, err := Command(o.Home, o.StateDir, o.HeapMB, jvmArgs(o)...)
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
		settings: withSourcePaths(mergeSettings(DefaultSettings(), normalizeSettings(o.Settings)), o.Root, o.Folders),
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

// PID is the id of the process started for JDT LS: its supervisor
// (Command), whose only child is the java process. Killed with SIGKILL, it
// takes JDT LS with it (JDT LS's parent-death signal).
func (c *Client) PID() int { return c.cmd.Process.Pid }

// Root is the project directory the server was started on.
func (c *Client) Root() string { return c.opts.Root }

// Folders are the further project directories the server was started on
// (Options.Folders).
func (c *Client) Folders() []string { return c.opts.Folders }

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
	// A connection that ended, or a write to a pipe the process's exit
	// closed (exec closes our end of its stdin once it has been waited
	// for: "file already closed"; EPIPE before that), means the process is
	// gone or going.
	if errors.Is(err, jsonrpc.ErrClosed) || errors.Is(err, os.ErrClosed) || errors.Is(err, syscall.EPIPE) {
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

// call sends a request through the send queue (enqueueLocked: it never
// overtakes a document notification queued before it) and waits for its
// response. ctx bounds the whole call, the write too: a caller whose
// context ends returns its error at once, and the request is dropped while
// still queued or cancelled ($/cancelRequest) once written (leave). Errors
// are wrapped with ErrExited when the process is gone.
func (c *Client) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	if err := c.Err(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p, err := c.conn.Prepare(method, params)
	if err != nil {
		return nil, c.wrapErr(err)
	}
	c.mu.Lock()
	m := c.enqueueLocked(&outMsg{method: method, call: p})
	c.mu.Unlock()
	select {
	case <-m.done:
		if m.err != nil {
			return nil, c.wrapErr(m.err)
		}
	case <-ctx.Done():
		c.leave(m)
		return nil, ctx.Err()
	}
	raw, err := p.Wait(ctx)
	if err != nil && errors.Is(err, ctx.Err()) {
		c.mu.Lock()
		c.cancelLocked(p)
		c.mu.Unlock()
	}
	return raw, c.wrapErr(err)
}

// Call sends any request to JDT LS and returns the raw result. Errors from the
// server are *jsonrpc.Error; a dead process gives an error wrapping ErrExited.
func (c *Client) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	return c.call(ctx, method, params)
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

// kill ends the process, and all it started, without asking (proc.Stop).
func (c *Client) kill() {
	_ = proc.Stop(c.cmd)
	_ = c.stdin.Close()
}

// Kill ends the process immediately (SIGKILL) and waits until Done.
func (c *Client) Kill() {
	c.kill()
	<-c.done
}
