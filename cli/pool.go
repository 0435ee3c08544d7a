package cli

// pool.go keeps the per-project backends of the repair service (a JDT LS
// completion engine and a language model per project root): started on first
// use, reused, closed least-recently-used first when too many are live, and
// all closed on shutdown. Repairs of one root run one at a time, because the
// engine edits a shadow copy of the file in that root's JDT LS.

import (
	"context"
	"errors"
	"sync"

	"github.com/repilot-lsp/repilot-lsp/repair"
)

// startFunc starts the backends for a project root; close releases them.
type startFunc func(ctx context.Context, root string) (b repair.Backends, close func() error, err error)

type poolEntry struct {
	root  string
	ready chan struct{} // closed when start has returned
	b     repair.Backends
	close func() error
	err   error
	busy  sync.Mutex // held by the repair using this root
	users int        // repairs holding or waiting for the entry (guarded by pool.mu)
	tick  uint64     // last use, for LRU eviction (guarded by pool.mu)
}

// pool implements repair.Repairer and io.Closer over per-root backends.
type pool struct {
	start    startFunc
	maxRoots int
	svc      *repair.Service
	// alive, if set, reports why started backends can no longer serve (a
	// JDT LS that died); such a root is closed and started again.
	alive func(repair.Backends) error

	// ctx is the context of every start; Close cancels it, so that a JDT LS
	// still starting is stopped at once instead of being waited for.
	ctx    context.Context
	cancel context.CancelFunc

	mu      sync.Mutex
	entries map[string]*poolEntry
	tick    uint64
	closed  bool
}

func newPool(start startFunc, maxRoots int) *pool {
	if maxRoots <= 0 {
		maxRoots = 4
	}
	p := &pool{start: start, maxRoots: maxRoots, entries: map[string]*poolEntry{}}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	p.svc = &repair.Service{Backends: p.backends}
	return p
}

// errPoolClosed is returned by repairs after Close.
var errPoolClosed = errors.New("repair service is shut down")

// Repair checks req (repair.Request.Check), then runs one repair with the
// backends of req.Root, starting them if needed, one repair per root at a
// time.
func (p *pool) Repair(ctx context.Context, req repair.Request, progress repair.Progress) (*repair.Result, error) {
	// Fail fast: a bad request must not wait for (or cause) an engine start.
	if err := req.Check(); err != nil {
		return nil, err
	}
	e, err := p.acquire(ctx, req.Root)
	if err != nil {
		return nil, err
	}
	defer p.release(e)
	return p.svc.Repair(withEntry(ctx, e), req, progress)
}

type entryKey struct{}

func withEntry(ctx context.Context, e *poolEntry) context.Context {
	return context.WithValue(ctx, entryKey{}, e)
}

// backends is the Service's Backends hook: the entry acquired by Repair.
func (p *pool) backends(ctx context.Context, root string) (repair.Backends, error) {
	e, _ := ctx.Value(entryKey{}).(*poolEntry)
	if e == nil || e.root != root {
		return repair.Backends{}, errors.New("repair backends requested outside the pool")
	}
	return e.b, nil
}

// acquire returns the started entry for root, locked for the caller. A root
// whose backends died is restarted (once per call).
func (p *pool) acquire(ctx context.Context, root string) (*poolEntry, error) {
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

func (p *pool) acquireOnce(ctx context.Context, root string) (*poolEntry, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, errPoolClosed
	}
	e := p.entries[root]
	if e == nil {
		e = &poolEntry{root: root, ready: make(chan struct{})}
		p.entries[root] = e
		go p.run(e)
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
		p.mu.Lock()
		if p.entries[e.root] == e {
			delete(p.entries, e.root) // retry on the next repair
		}
		e.users--
		p.mu.Unlock()
		return nil, e.err
	}
	locked := make(chan struct{})
	go func() { e.busy.Lock(); close(locked) }()
	select {
	case <-locked:
		return e, nil
	case <-ctx.Done():
		go func() { <-locked; e.busy.Unlock() }()
		p.drop(e)
		return nil, ctx.Err()
	}
}

// run starts the backends of e (detached from any one repair's context: a
// cancelled repair must not kill a JDT LS that others wait for; Close ends
// it), then evicts least recently used idle roots beyond maxRoots.
func (p *pool) run(e *poolEntry) {
	e.b, e.close, e.err = p.start(p.ctx, e.root)
	close(e.ready)
	p.evict()
}

func (p *pool) drop(e *poolEntry) {
	p.mu.Lock()
	e.users--
	p.mu.Unlock()
}

func (p *pool) release(e *poolEntry) {
	e.busy.Unlock()
	p.drop(e)
	p.evict()
}

// evict closes idle, started roots beyond maxRoots, least recently used first.
func (p *pool) evict() {
	p.mu.Lock()
	var victims []*poolEntry
	for len(p.entries) > p.maxRoots {
		var lru *poolEntry
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

// Close shuts every root's backends down, cancelling starts in progress and
// waiting for them to end. Repairs after Close fail.
func (p *pool) Close() error {
	p.cancel()
	p.mu.Lock()
	p.closed = true
	entries := p.entries
	p.entries = map[string]*poolEntry{}
	p.mu.Unlock()
	var errs []error
	for _, e := range entries {
		<-e.ready
		if e.close != nil {
			errs = append(errs, e.close())
		}
	}
	return errors.Join(errs...)
}
