package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/internal/realpart"
	"github.com/repilot-lsp/repilot-lsp/jdtls"
)

// cancelOnWriter cancels when what was written so far contains mark.
type cancelOnWriter struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	mark   string
	cancel context.CancelFunc
}

func (w *cancelOnWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Contains(w.buf.String(), w.mark) {
		w.cancel()
	}
	return len(p), nil
}

// TestBenchInlineInterruptedReportsWhatFinished: bench inline stopped
// part-way (Ctrl-C cancels its context) prints its table for the positions
// finished, says so, and returns the interruption. Before, it returned
// ctx's error and printed nothing: minutes of measurement lost.
func TestBenchInlineInterruptedReportsWhatFinished(t *testing.T) {
	home, err := jdtls.ResolveHome("")
	realpart.JDTLS.Require(t, err)
	root := filepath.Join(t.TempDir(), "project")
	if err := os.CopyFS(root, os.DirFS("../example/shop-cart-discount/project")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	stderr := &cancelOnWriter{mark: "[1] ", cancel: cancel}
	var stdout bytes.Buffer
	f := benchInlineFlags{project: root, jdtls: home, requests: 8, perFile: 8, seed: 1,
		budget: time.Second, invokedB: time.Second, samples: 1, verbose: true}
	err = runBenchInline(ctx, f, &stdout, stderr)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want the interruption (context.Canceled)\nstderr:\n%s", err, stderr.buf.String())
	}
	out := stdout.String()
	if !regexp.MustCompile(`, [1-9][0-9]* requests \(interrupted: [1-9][0-9]* of 8 positions\)`).MatchString(out) ||
		!strings.Contains(out, "backend") || !strings.Contains(out, "wall time") {
		t.Errorf("no report of the positions finished:\n%s\nstderr:\n%s", out, stderr.buf.String())
	}
}
