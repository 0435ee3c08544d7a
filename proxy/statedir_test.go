package proxy_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/proxy"
)

// TestServesShareNoJDTLSState: two proxies on one state directory (two
// `serve` on one project) give their JDT LS different folders: the first
// the shared <state>/jdtls, the second one of its own, removed when it
// stops; once the first has stopped, the next proxy gets <state>/jdtls
// again.
func TestServesShareNoJDTLSState(t *testing.T) {
	state := t.TempDir()
	dirs := make(chan string, 8)
	record := func(o *proxy.Options) {
		o.StateDir = state
		launch := o.Launch
		o.Launch = func(ctx context.Context, dir string) (*proxy.Backend, error) {
			dirs <- dir
			return launch(ctx, dir)
		}
	}
	started := func() (*testEditor, string) {
		e := startEditor(t, harness{mutate: record})
		e.initialize(false)
		select {
		case d := <-dirs:
			return e, d
		case <-time.After(waitTimeout):
			t.Fatal("no JDT LS launched")
			return nil, ""
		}
	}
	stop := func(e *testEditor) {
		e.cancel()
		e.in.Close()
		select {
		case err := <-e.runErr:
			e.runErr <- err // for the cleanup
		case <-time.After(10 * time.Second):
			t.Fatal("Run did not return")
		}
	}
	shared := filepath.Join(state, "jdtls")
	a, dirA := started()
	b, dirB := started()
	if dirA != shared {
		t.Errorf("first proxy's JDT LS state in %s, want %s", dirA, shared)
	}
	if dirB == dirA || filepath.Dir(dirB) != state || !strings.HasPrefix(filepath.Base(dirB), "jdtls-run-") {
		t.Fatalf("second proxy's JDT LS state in %s, want a folder of its own in %s (the first has %s)", dirB, state, dirA)
	}
	if _, err := os.Stat(dirB); err != nil {
		t.Errorf("the second proxy's folder: %v", err)
	}
	stop(b)
	if _, err := os.Stat(dirB); !os.IsNotExist(err) {
		t.Errorf("the second proxy's folder %s is left after it stopped (%v)", dirB, err)
	}
	stop(a)
	_, dirC := started()
	if dirC != shared {
		t.Errorf("after the first stopped, a new proxy's JDT LS state is in %s, want %s", dirC, shared)
	}
}
