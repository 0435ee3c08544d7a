package backend

// pool_test.go tests the per-root backend pool with a fake start function.

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/repair"
)

type fakeStarts struct {
	mu      sync.Mutex
	started map[string]int
	closed  map[string]int
	fail    map[string]error
	delay   time.Duration
}

func (f *fakeStarts) start(ctx context.Context, root string, progress repair.Progress) (repair.Backends, func() error, error) {
	progress("fake start of "+root, 0)
	time.Sleep(f.delay)
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.fail[root]; err != nil {
		delete(f.fail, root)
		return repair.Backends{}, nil, err
	}
	f.started[root]++
	return repair.Backends{}, func() error {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.closed[root]++
		return nil
	}, nil
}

func (f *fakeStarts) counts(root string) (int, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.started[root], f.closed[root]
}

func newFakeStarts() *fakeStarts {
	return &fakeStarts{started: map[string]int{}, closed: map[string]int{}, fail: map[string]error{}}
}

func use(t *testing.T, p *Pool, root string) {
	t.Helper()
	e, err := p.acquire(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	p.release(e)
}

func TestPoolStartsOncePerRootAndSerialises(t *testing.T) {
	f := newFakeStarts()
	f.delay = 50 * time.Millisecond
	p := NewPool(f.start, 2)
	var active, maxActive atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e, err := p.acquire(context.Background(), "/a")
			if err != nil {
				t.Error(err)
				return
			}
			n := active.Add(1)
			if n > maxActive.Load() {
				maxActive.Store(n)
			}
			time.Sleep(5 * time.Millisecond)
			active.Add(-1)
			p.release(e)
		}()
	}
	wg.Wait()
	if s, _ := f.counts("/a"); s != 1 {
		t.Fatalf("started %d times", s)
	}
	if maxActive.Load() != 1 {
		t.Fatalf("%d repairs of one root ran at once", maxActive.Load())
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if _, c := f.counts("/a"); c != 1 {
		t.Fatalf("closed %d times", c)
	}
	if _, err := p.acquire(context.Background(), "/a"); !errors.Is(err, ErrClosed) {
		t.Fatalf("acquire after Close: %v", err)
	}
}

func TestPoolEvictsLeastRecentlyUsed(t *testing.T) {
	f := newFakeStarts()
	p := NewPool(f.start, 2)
	use(t, p, "/a")
	use(t, p, "/b")
	use(t, p, "/a")
	use(t, p, "/c") // evicts /b, the least recently used
	if _, c := f.counts("/b"); c != 1 {
		t.Fatalf("/b closed %d times", c)
	}
	if _, c := f.counts("/a"); c != 0 {
		t.Fatal("/a evicted")
	}
	use(t, p, "/b") // restarts /b, evicts /a
	if s, _ := f.counts("/b"); s != 2 {
		t.Fatalf("/b started %d times", s)
	}
	p.Close()
	for _, r := range []string{"/a", "/b", "/c"} {
		if s, c := f.counts(r); s != c {
			t.Errorf("%s started %d closed %d", r, s, c)
		}
	}
}

func TestPoolRetriesFailedStart(t *testing.T) {
	f := newFakeStarts()
	boom := errors.New("no JDT LS")
	f.fail["/a"] = boom
	p := NewPool(f.start, 2)
	if _, err := p.acquire(context.Background(), "/a"); !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	use(t, p, "/a")
	if s, _ := f.counts("/a"); s != 1 {
		t.Fatalf("started %d", s)
	}
	p.Close()
}

func TestPoolAcquireCancelled(t *testing.T) {
	f := newFakeStarts()
	f.delay = 300 * time.Millisecond
	p := NewPool(f.start, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := p.acquire(ctx, "/a"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
	use(t, p, "/a") // the start went on; it is reused
	if s, _ := f.counts("/a"); s != 1 {
		t.Fatalf("started %d", s)
	}
	p.Close()
}

func TestPoolRestartsDeadBackends(t *testing.T) {
	f := newFakeStarts()
	p := NewPool(f.start, 2)
	dead := errors.New("JDT LS exited")
	var died atomic.Bool
	p.alive = func(repair.Backends) error {
		if died.Load() {
			died.Store(false) // the restarted one lives
			return dead
		}
		return nil
	}
	use(t, p, "/a")
	died.Store(true)
	use(t, p, "/a")
	if s, c := f.counts("/a"); s != 2 || c != 1 {
		t.Fatalf("started %d closed %d, want 2 and 1", s, c)
	}
	p.Close()
}

// TestCancelledWaitersLeaveNothing: requests cancelled while another holds
// the root leave no goroutine behind (bench soak saw two per cancelled
// request, blocked until the request in progress ended).
func TestCancelledWaitersLeaveNothing(t *testing.T) {
	f := newFakeStarts()
	p := NewPool(f.start, 2)
	defer p.Close()
	held, err := p.acquire(context.Background(), "/a")
	if err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	for i := 0; i < 50; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
		if _, err := p.acquire(ctx, "/a"); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("waiter %d: err = %v", i, err)
		}
		cancel()
	}
	if after := runtime.NumGoroutine(); after > before+5 {
		t.Errorf("%d goroutines after 50 cancelled waiters, %d before", after, before)
	}
	p.release(held)
	use(t, p, "/a") // the root is free again
}
