package repairfeat

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/proxy"
	"github.com/repilot-lsp/repilot-lsp/repair"
)

// warmer is a Repairer that records Warm calls.
type warmer struct {
	mu    sync.Mutex
	roots []string
	done  chan struct{}
}

func (w *warmer) Repair(context.Context, repair.Request, repair.Progress) (*repair.Result, error) {
	return nil, nil
}

func (w *warmer) Warm(ctx context.Context, root string, _ repair.Progress) error {
	w.mu.Lock()
	w.roots = append(w.roots, root)
	w.mu.Unlock()
	w.done <- struct{}{}
	return nil
}

// client is the proxy.Client the notifications get; only Root and Logf are
// used.
type client struct {
	proxy.Client
	t    *testing.T
	root string
}

func (c client) Root() string                    { return c.root }
func (c client) Logf(format string, args ...any) { c.t.Logf(format, args...) }

func didOpen(t *testing.T, uri, text string) json.RawMessage {
	b, err := json.Marshal(map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "java", "version": 1, "text": text}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestWarmOnFirstJavaDocument: the first didOpen of a Java document of a
// project warms that project's backends, once; other documents do not.
func TestWarmOnFirstJavaDocument(t *testing.T) {
	w := &warmer{done: make(chan struct{}, 10)}
	x := New(w, Options{}).(proxy.MethodHandler)
	ms := x.Methods()
	if len(ms) != 1 || ms[0].Name != "textDocument/didOpen" || ms[0].Notify == nil {
		t.Fatalf("methods %+v, want a didOpen observer", ms)
	}
	c := client{t: t, root: "/work"}
	const pkg = "package demo;\nclass A {}\n"
	for _, uri := range []string{
		"file:///work/a/src/demo/A.java", "file:///work/a/src/demo/B.java", // project a, twice
		"file:///work/a/README.md", "untitled:Untitled-1", // not Java files on disk
		"file:///work/b/src/demo/C.java", // project b
	} {
		ms[0].Notify(c, didOpen(t, uri, pkg))
	}
	for i := 0; i < 2; i++ {
		select {
		case <-w.done:
		case <-time.After(5 * time.Second):
			t.Fatal("Warm was not called")
		}
	}
	time.Sleep(50 * time.Millisecond)
	w.mu.Lock()
	defer w.mu.Unlock()
	slices.Sort(w.roots)
	if !slices.Equal(w.roots, []string{"/work/a", "/work/b"}) {
		t.Errorf("warmed %q, want /work/a and /work/b once each", w.roots)
	}
}

// TestNoWarmWithoutWarmer: a Repairer without Warm registers no method.
func TestNoWarmWithoutWarmer(t *testing.T) {
	if ms := New(UnavailableRepairer(context.Canceled), Options{}).(proxy.MethodHandler).Methods(); len(ms) != 0 {
		t.Errorf("methods %+v", ms)
	}
}
