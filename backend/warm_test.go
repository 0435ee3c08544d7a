package backend

// warm_test.go tests Pool.Warm with a fake start: a request joins the
// warm-up's start, and Close stops a warm-up still starting.

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/engine"
	"github.com/repilot-lsp/repilot-lsp/repair"
)

func TestWarmThenUseStartsOnce(t *testing.T) {
	f := newFakeStarts()
	f.delay = 200 * time.Millisecond
	p := NewPool(f.start, 2)
	defer p.Close()
	var heard []string
	warmed := make(chan error, 1)
	go func() {
		warmed <- p.Warm(context.Background(), "/a", func(msg string, _ int) { heard = append(heard, msg) })
	}()
	time.Sleep(20 * time.Millisecond) // the warm-up's start is under way
	// A request during the warm-up joins its start.
	if err := p.Use(context.Background(), "/a", func(repair.Backends) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if err := <-warmed; err != nil {
		t.Fatal(err)
	}
	if s, _ := f.counts("/a"); s != 1 {
		t.Fatalf("started %d times, want once (the request joins the warm-up)", s)
	}
	if len(heard) != 1 || heard[0] != "fake start of /a" {
		t.Errorf("the warm-up's progress heard %q, want the start's one message", heard)
	}
	// Warm on a ready root starts nothing.
	if err := p.Warm(context.Background(), "/a", nil); err != nil {
		t.Fatal(err)
	}
	if s, _ := f.counts("/a"); s != 1 {
		t.Fatalf("started %d times after a second Warm", s)
	}
}

func TestWarmFailureIsRetriedByTheNextRequest(t *testing.T) {
	f := newFakeStarts()
	boom := errors.New("no JDT LS")
	f.fail["/a"] = boom
	p := NewPool(f.start, 2)
	defer p.Close()
	if err := p.Warm(context.Background(), "/a", nil); !errors.Is(err, boom) {
		t.Fatalf("Warm: %v, want the start's error", err)
	}
	use(t, p, "/a")
	if s, _ := f.counts("/a"); s != 1 {
		t.Fatalf("started %d times after the failed warm-up", s)
	}
}

func TestCloseStopsWarmStart(t *testing.T) {
	stopped := make(chan struct{})
	start := func(ctx context.Context, root string, progress repair.Progress) (repair.Backends, func() error, error) {
		<-ctx.Done() // a JDT LS that takes its time
		close(stopped)
		return repair.Backends{}, nil, ctx.Err()
	}
	p := NewPool(start, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := p.Warm(ctx, "/a", nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Warm: %v, want its own context's end", err)
	}
	select {
	case <-stopped:
		t.Fatal("the warm-up's context ending stopped the start (a request may be waiting for it)")
	case <-time.After(50 * time.Millisecond):
	}
	closed := make(chan error, 1)
	go func() { closed <- p.Close() }()
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not stop the warm-up's start")
	}
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	if err := p.Warm(context.Background(), "/a", nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("Warm after Close: %v", err)
	}
}

// TestWarmIsBoundedByMaxRoots: opening documents of many projects at once
// must not start more backends (a JDT LS each) than the pool keeps: Warm
// starts a root only while fewer than maxRoots roots are starting or in
// use, making room by closing idle ones, and refuses the rest with
// ErrNoRoom.
func TestWarmIsBoundedByMaxRoots(t *testing.T) {
	var mu sync.Mutex
	running, most := 0, 0
	release := make(chan struct{})
	start := func(ctx context.Context, root string, progress repair.Progress) (repair.Backends, func() error, error) {
		mu.Lock()
		running++
		most = max(most, running)
		mu.Unlock()
		select {
		case <-release:
		case <-ctx.Done():
		}
		return repair.Backends{}, func() error {
			mu.Lock()
			running--
			mu.Unlock()
			return nil
		}, nil
	}
	p := NewPool(start, 2)
	defer p.Close()
	errs := make(chan error, 6)
	for i := range 6 {
		go func() { errs <- p.Warm(context.Background(), fmt.Sprintf("/p%d", i), nil) }()
	}
	time.Sleep(100 * time.Millisecond) // every Warm has asked
	close(release)
	refused := 0
	for range 6 {
		if err := <-errs; errors.Is(err, ErrNoRoom) {
			refused++
		} else if err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if most > 2 || refused != 4 || running != 2 {
		t.Fatalf("%d backends running at once (at most 2), %d warm-ups refused (want 4), %d left running (want 2)", most, refused, running)
	}
	mu.Unlock()
	// Once they are ready and idle, a warm-up of another root makes room.
	if err := p.Warm(context.Background(), "/q", nil); err != nil {
		t.Fatalf("Warm with idle roots to close: %v", err)
	}
	mu.Lock()
	if running != 2 {
		t.Errorf("%d running after warming a third root, want 2", running)
	}
}

// TestWarmAndUseLeakNothing: warm-ups and requests of many roots at once,
// with eviction under way, then Close: every backend started is closed
// exactly once, and never more than maxRoots are starting or in use
// because of a warm-up.
func TestWarmAndUseLeakNothing(t *testing.T) {
	f := newFakeStarts()
	f.delay = 5 * time.Millisecond
	p := NewPool(f.start, 2)
	var wg sync.WaitGroup
	for i := range 40 {
		root := fmt.Sprintf("/p%d", i%5)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%2 == 0 {
				if err := p.Warm(context.Background(), root, nil); err != nil && !errors.Is(err, ErrNoRoom) {
					t.Error(err)
				}
				return
			}
			if err := p.Use(context.Background(), root, func(repair.Backends) error { time.Sleep(time.Millisecond); return nil }); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for root, n := range f.started {
		if f.closed[root] != n {
			t.Errorf("%s: started %d times, closed %d", root, n, f.closed[root])
		}
	}
}

// TestRequestDuringFailingWarmUp: a request that joins a warm-up whose
// start fails gets the start's error (no hang, no second start), and the
// next request starts again.
func TestRequestDuringFailingWarmUp(t *testing.T) {
	f := newFakeStarts()
	f.delay = 100 * time.Millisecond
	boom := errors.New("JDT LS did not start")
	f.fail["/a"] = boom
	p := NewPool(f.start, 2)
	defer p.Close()
	warmed := make(chan error, 1)
	go func() { warmed <- p.Warm(context.Background(), "/a", nil) }()
	time.Sleep(20 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := p.Use(ctx, "/a", func(repair.Backends) error { return nil }); !errors.Is(err, boom) {
		t.Fatalf("request during the failing warm-up: %v", err)
	}
	if err := <-warmed; !errors.Is(err, boom) {
		t.Fatalf("warm-up: %v", err)
	}
	if err := p.Use(ctx, "/a", func(repair.Backends) error { return nil }); err != nil {
		t.Fatalf("next request: %v", err)
	}
	if s, _ := f.counts("/a"); s != 1 {
		t.Errorf("%d successful starts, want 1 (the retry)", s)
	}
}

// fileWarmEngine is an engine that records WarmFile's calls.
type fileWarmEngine struct {
	engine.Engine
	mu    sync.Mutex
	files []string
}

func (e *fileWarmEngine) WarmFile(_ context.Context, path, text string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.files = append(e.files, path+"="+text)
	return nil
}

// TestWarmFileStartsNothing: WarmFile on a root with no backends starts
// none; on a started root it runs the engine's WarmFile with the text.
func TestWarmFileStartsNothing(t *testing.T) {
	eng := &fileWarmEngine{}
	starts := 0
	start := func(ctx context.Context, root string, progress repair.Progress) (repair.Backends, func() error, error) {
		starts++
		return repair.Backends{Engine: eng}, func() error { return nil }, nil
	}
	p := NewPool(start, 2)
	defer p.Close()
	if err := p.WarmFile(context.Background(), "/a", "/a/A.java", "class A {}"); err != nil || starts != 0 {
		t.Fatalf("WarmFile on a root not started: %v, %d starts; want nil and none", err, starts)
	}
	if err := p.Warm(context.Background(), "/a", nil); err != nil {
		t.Fatal(err)
	}
	if err := p.WarmFile(context.Background(), "/a", "/a/A.java", "class A {}"); err != nil {
		t.Fatal(err)
	}
	eng.mu.Lock()
	defer eng.mu.Unlock()
	if starts != 1 || len(eng.files) != 1 || eng.files[0] != "/a/A.java=class A {}" {
		t.Errorf("%d starts, files %q; want one start and the file warmed once", starts, eng.files)
	}
}
