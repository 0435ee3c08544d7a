package backend

// shared_restart_test.go: the JDT LS shared by every root (NewShared, bench
// repair --shared-engine) dies between two requests; the next request gets
// a new, live one instead of the dead one for the rest of the run.

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/engine"
	"github.com/repilot-lsp/repilot-lsp/internal/realpart"
	"github.com/repilot-lsp/repilot-lsp/internal/testtree"
	"github.com/repilot-lsp/repilot-lsp/jdtls"
	"github.com/repilot-lsp/repilot-lsp/repair"
)

func TestSharedEngineRestartsAfterItDies(t *testing.T) {
	home, err := jdtls.ResolveHome("")
	realpart.JDTLS.Require(t, err)
	a := testtree.New(t, map[string]string{"src/A.java": "class A {\n  int f(int x) {\n    return x + 1;\n  }\n}\n"})
	b := testtree.New(t, map[string]string{"src/B.java": "class B {\n  int g() {\n    return 2;\n  }\n}\n"})
	var mu sync.Mutex
	starts := 0 // JDT LS starts, counted from the progress messages
	p, err := NewShared(Config{JDTLSHome: home, StateDir: t.TempDir(), MaxRoots: 2, Progress: func(msg string, _ int) {
		t.Log(msg)
		if strings.HasPrefix(msg, "starting JDT LS") {
			mu.Lock()
			starts++
			mu.Unlock()
		}
	}}, []string{a, b})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	get := func(root string) *engine.JDT {
		t.Helper()
		var j *engine.JDT
		if err := p.Use(ctx, root, func(bk repair.Backends) error {
			j = bk.Engine.(*engine.JDT)
			return nil
		}); err != nil {
			t.Fatalf("Use(%s): %v", root, err)
		}
		return j
	}
	first := get(a)
	first.Client().Kill()
	second := get(b) // a root not started yet: the shared start runs again
	if second == first || second.Client().Err() != nil {
		t.Fatalf("after the shared JDT LS died, the next root got the dead one (same: %v, its error: %v)", second == first, second.Client().Err())
	}
	// A root whose entry still holds the dead engine gets the live one.
	if again := get(a); again != second {
		t.Fatalf("root %s kept the dead engine (or started a third: %v)", a, again != first)
	}
	mu.Lock()
	defer mu.Unlock()
	if starts != 2 {
		t.Errorf("%d JDT LS starts; want 2 (the first, and one after the crash)", starts)
	}
}
