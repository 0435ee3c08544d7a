// Package backend owns the lifetime of what a repair or a ghost-text request
// runs on: per project root, a shadow JDT LS (the completion engine and
// compiler, engine.JDT) and a language model (the embedded n-gram model
// trained or loaded for that root, or one OpenAI-compatible model shared by
// every root).
//
// A Pool keeps them: started on first use (or ahead of it, by Warm), reused,
// closed least recently used first when too many roots are live, and all
// closed by Close, which also stops a JDT LS still starting. Requests of one
// root run one at a time, because the engine edits a shadow copy of the file
// in that root's JDT LS. The Pool is the repair.Repairer of serve, repair
// and bench repair: it acquires the root's backends and runs the request on
// a repair.Service over them; ghost text acquires them through
// Pool.InlineAcquire.
//
// This package chooses no flags and speaks no LSP: package cli turns flags
// into a Config, and the proxy reaches a Pool only as a repair.Repairer (and
// through serve's warm-up extension, cli/warm.go).
package backend

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/repilot-lsp/repilot-lsp/inline"
	"github.com/repilot-lsp/repilot-lsp/repair"
)

// StartFunc starts the backends for a project root, reporting slow start-up
// work (JDT LS, model training) to progress (never nil). close releases
// them. ctx ends when the Pool closes.
type StartFunc func(ctx context.Context, root string, progress repair.Progress) (b repair.Backends, close func() error, err error)

type entry struct {
	root     string
	progress repair.Progress // the start's progress: that of whoever created the entry
	ready    chan struct{}   // closed when start has returned
	b        repair.Backends
	svc      *repair.Service // over b, once ready
	close    func() error
	err      error
	busy     chan struct{} // capacity 1: full while a request uses this root
	users    int           // requests holding or waiting for the entry (guarded by Pool.mu)
	tick     uint64        // last use, for LRU eviction (guarded by Pool.mu)
}

// Pool implements repair.Repairer and io.Closer over per-root backends.
type Pool struct {
	start    StartFunc
	maxRoots int
	// alive, if set, reports why started backends can no longer serve (a
	// JDT LS that died); such a root is closed and started again.
	alive func(repair.Backends) error
	// onClose, if set, runs at the end of Close (a JDT LS shared by every
	// root).
	onClose func() error

	// ctx is the context of every start; Close cancels it, so that a JDT LS
	// still starting is stopped at once instead of being waited for.
	ctx    context.Context
	cancel context.CancelFunc

	mu      sync.Mutex
	entries map[string]*entry
	tick    uint64
	closed  bool
}

// DefaultMaxRoots is how many project roots keep live backends at once when
// Config.MaxRoots is 0.
const DefaultMaxRoots = 4

// NewPool returns a Pool that starts a root's backends with start and keeps
// those of at most maxRoots roots (0: DefaultMaxRoots). New and NewShared
// build the real ones; tests pass a fake start.
func NewPool(start StartFunc, maxRoots int) *Pool {
	if maxRoots <= 0 {
		maxRoots = DefaultMaxRoots
	}
	p := &Pool{start: start, maxRoots: maxRoots, entries: map[string]*entry{}}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	return p
}

// ErrNoRoom is returned by Warm when the pool's maxRoots roots are all
// starting or in use: a warm-up never starts more backends than the pool
// keeps (the root's first request starts them instead).
var ErrNoRoom = errors.New("every project slot is starting or in use")

// ErrClosed is returned by requests after Close.
var ErrClosed = errors.New("repair service is shut down")

// Repair checks req (repair.Request.Check), then runs one repair on a
// repair.Service over the backends of req.Root, starting them if needed (or
// joining a start in progress, such as a warm-up), one request per root at a
// time. Errors: the request's, the start's, ctx's, ErrClosed, and the
// Service's.
func (p *Pool) Repair(ctx context.Context, req repair.Request, progress repair.Progress) (*repair.Result, error) {
	// Fail fast: a bad request must not wait for (or cause) an engine start.
	if err := req.Check(); err != nil {
		return nil, err
	}
	e, err := p.acquire(ctx, req.Root)
	if err != nil {
		return nil, err
	}
	defer p.release(e)
	return e.svc.Repair(ctx, req, progress)
}

// Use runs fn with the backends of root (an absolute project directory),
// starting them if needed, while no other request of root runs. It returns
// fn's error, or the start's, ctx's or ErrClosed before fn runs.
func (p *Pool) Use(ctx context.Context, root string, fn func(repair.Backends) error) error {
	e, err := p.acquire(ctx, root)
	if err != nil {
		return err
	}
	defer p.release(e)
	return fn(e.b)
}

// fileWarmer is an engine that can warm its server up on one file
// (engine.JDT.WarmFile).
type fileWarmer interface {
	WarmFile(ctx context.Context, path, text string) error
}

// WarmFile warms the engine of root up on the file at path, whose content
// is text (the editor's buffer), ahead of a repair of it: serve calls it
// when the editor opens a Java document (cli/warm.go), after Warm. It
// starts nothing: a root with no backends started or starting is left
// alone (nil). It waits for a start in progress, then runs while no other
// request of root runs (a repair asked meanwhile waits for it, 0.1-2 s).
// An engine without WarmFile is left alone. Errors: ctx's, ErrClosed, and
// the start's.
func (p *Pool) WarmFile(ctx context.Context, root, path, text string) error {
	e, err := p.acquireEntry(ctx, root, false)
	if errors.Is(err, errNotStarted) {
		return nil
	}
	if err != nil {
		return err
	}
	defer p.release(e)
	if w, ok := e.b.Engine.(fileWarmer); ok {
		return w.WarmFile(ctx, path, text)
	}
	return nil
}

// InlineAcquire returns the ghost-text service's Acquire over the Pool: the
// backends of the request's root, one request per root at a time, shared
// with repairs.
func (p *Pool) InlineAcquire() inline.Acquire {
	return func(ctx context.Context, root string, fn func(inline.Backends) error) error {
		if root == "" {
			return errors.New("ghost text needs a project folder: open a folder, not a single file")
		}
		return p.Use(ctx, root, func(b repair.Backends) error {
			return fn(inline.Backends{Model: b.Model, Engine: b.Engine, Compiler: b.Compiler})
		})
	}
}

// Warm starts the backends of root ahead of the first request, reporting
// the start's progress to progress (nil: none), and waits until they are
// ready. A request that comes meanwhile joins this start instead of making
// its own; when root's backends are already started or starting, Warm
// starts nothing and waits for them. A new root is started only while
// fewer than maxRoots roots are starting or in use; idle roots beyond
// maxRoots are then closed, least recently used first, before it starts.
// Warm holds no lock on the root. The start goes on when ctx ends (a request
// may be waiting for it); Close stops it. Errors: the start's, ctx's,
// ErrNoRoom, ErrClosed.
func (p *Pool) Warm(ctx context.Context, root string, progress repair.Progress) error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return ErrClosed
	}
	e := p.entries[root]
	started := false
	if e == nil {
		if n := p.pinnedLocked(); n >= p.maxRoots {
			p.mu.Unlock()
			return fmt.Errorf("%w: %d projects' backends are starting or in use (at most %d live at once); %s starts on its first request", ErrNoRoom, n, p.maxRoots, root)
		}
		e = p.newEntryLocked(root, progress)
		started = true
	}
	p.tick++
	e.tick = p.tick
	p.mu.Unlock()
	if started {
		p.evict()
	}
	select {
	case <-e.ready:
		return e.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// pinnedLocked counts the roots evict cannot close: those starting or in
// use. p.mu is held.
func (p *Pool) pinnedLocked() int {
	n := 0
	for _, e := range p.entries {
		select {
		case <-e.ready:
			if e.users > 0 {
				n++
			}
		default:
			n++
		}
	}
	return n
}

// newEntryLocked adds root's entry and starts its backends; p.mu is held.
func (p *Pool) newEntryLocked(root string, progress repair.Progress) *entry {
	if progress == nil {
		progress = func(string, int) {}
	}
	e := &entry{root: root, progress: progress, ready: make(chan struct{}), busy: make(chan struct{}, 1)}
	p.entries[root] = e
	go p.run(e)
	return e
}

// acquire returns the started entry for root, locked for the caller. A root
// whose backends died is restarted (once per call).
func (p *Pool) acquire(ctx context.Context, root string) (*entry, error) {
	e, err := p.acquireOnce(ctx, root)
	if err != nil || p.alive == nil {
		return e, err
	}
	if p.alive(e.b) == nil {
		return e, nil
	}
	p.mu.Lock()
	if p.entries[root] == e {
		delete(p.entries, root)
	}
	p.mu.Unlock()
	p.release(e)
	if e.close != nil {
		e.close()
	}
	return p.acquireOnce(ctx, root)
}

func (p *Pool) acquireOnce(ctx context.Context, root string) (*entry, error) {
	return p.acquireEntry(ctx, root, true)
}

// errNotStarted: acquireEntry found no entry for the root and was not to
// start one.
var errNotStarted = errors.New("backend: not started")

// acquireEntry is acquireOnce; without start, a root that has no entry
// (neither started nor starting) is not started: errNotStarted.
func (p *Pool) acquireEntry(ctx context.Context, root string, start bool) (*entry, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, ErrClosed
	}
	e := p.entries[root]
	if e == nil && !start {
		p.mu.Unlock()
		return nil, errNotStarted
	}
	if e == nil {
		e = p.newEntryLocked(root, nil)
	}
	e.users++
	p.tick++
	e.tick = p.tick
	p.mu.Unlock()

	select {
	case <-e.ready:
	case <-ctx.Done():
		p.drop(e)
		return nil, ctx.Err()
	}
	if e.err != nil {
		p.drop(e) // run has taken it out of the pool: the next request retries
		return nil, e.err
	}
	// A channel, not a mutex: a request cancelled while it waits leaves
	// nothing behind (with a mutex it left two goroutines blocked until the
	// request in progress ended; seen in bench soak).
	select {
	case e.busy <- struct{}{}:
		return e, nil
	case <-ctx.Done():
		p.drop(e)
		return nil, ctx.Err()
	}
}

// run starts the backends of e (detached from any one request's context: a
// cancelled request must not kill a JDT LS that others wait for; Close ends
// it), takes a failed start out of the pool so that the next request tries
// again, then evicts least recently used idle roots beyond maxRoots.
func (p *Pool) run(e *entry) {
	e.b, e.close, e.err = p.start(p.ctx, e.root, e.progress)
	if e.err == nil {
		e.svc = repair.NewService(e.b)
	} else {
		p.mu.Lock()
		if p.entries[e.root] == e {
			delete(p.entries, e.root)
		}
		p.mu.Unlock()
	}
	close(e.ready)
	p.evict()
}

func (p *Pool) drop(e *entry) {
	p.mu.Lock()
	e.users--
	p.mu.Unlock()
}

func (p *Pool) release(e *entry) {
	<-e.busy
	p.drop(e)
	p.evict()
}

// evict closes idle, started roots beyond maxRoots, least recently used first.
func (p *Pool) evict() {
	p.mu.Lock()
	var victims []*entry
	for len(p.entries) > p.maxRoots {
		var lru *entry
		for _, e := range p.entries {
			select {
			case <-e.ready:
			default:
				continue // still starting
			}
			if e.users == 0 && (lru == nil || e.tick < lru.tick) {
				lru = e
			}
		}
		if lru == nil {
			break
		}
		delete(p.entries, lru.root)
		victims = append(victims, lru)
	}
	p.mu.Unlock()
	for _, e := range victims {
		if e.close != nil {
			e.close()
		}
	}
}

// Close shuts every root's backends down, cancelling starts in progress
// (warm-ups included) and waiting for them to end. Requests after Close fail
// with ErrClosed.
func (p *Pool) Close() error {
	p.cancel()
	p.mu.Lock()
	p.closed = true
	entries := p.entries
	p.entries = map[string]*entry{}
	p.mu.Unlock()
	var errs []error
	for _, e := range entries {
		<-e.ready
		if e.close != nil {
			errs = append(errs, e.close())
		}
	}
	if p.onClose != nil {
		errs = append(errs, p.onClose())
	}
	return errors.Join(errs...)
}
