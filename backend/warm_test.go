package backend

// warm_test.go tests Pool.Warm with a fake start: a request joins the
// warm-up's start, and Close stops a warm-up still starting.

import (
	"context"
	"errors"
	"testing"
	"time"

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
