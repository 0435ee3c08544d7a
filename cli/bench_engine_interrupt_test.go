package cli

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/internal/realpart"
	"github.com/repilot-lsp/repilot-lsp/jdtls"
)

// TestBenchEngineInterruptedReportsWhatFinished: bench engine stopped
// part-way (Ctrl-C cancels its context) prints its report for the fixtures
// finished, says so, and returns the interruption; the fixture it cut short
// counts nowhere. Before, it returned ctx's error and printed nothing, as
// bench repair, inline and search once did.
func TestBenchEngineInterruptedReportsWhatFinished(t *testing.T) {
	home, err := jdtls.ResolveHome("")
	realpart.JDTLS.Require(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	// The second fixture's first log line (a mutant tried) cancels: the
	// first fixture has finished, the second is part-way.
	const first, second = "binary-search-off-by-one", "coupon-code-receiver"
	stderr := &cancelOnWriter{mark: second + ": ", cancel: cancel}
	var stdout bytes.Buffer
	f := benchEngineFlags{corpus: corpusFlags{dir: "../" + defaultCorpus, only: []string{first, second}},
		seed: 1, tries: 4, newLines: 2, verbose: true, jdtls: home}
	err = runBenchEngine(ctx, f, &stdout, stderr)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want the interruption (context.Canceled)\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.buf.String())
	}
	out := stdout.String()
	t.Logf("stdout:\n%s", out)
	if !strings.Contains(out, "engine benchmark: 2 fixtures, seed 1") || !strings.Contains(out, "(interrupted: 1 of 2 fixtures, no speed measurement)") ||
		!strings.Contains(out, "pruning power") || !strings.Contains(out, "soundness (unmutated): 1 hunks") {
		t.Errorf("the report of the finished fixture is missing or not marked interrupted:\n%s", out)
	}
	if !strings.Contains(out, "  "+first) || strings.Contains(out, "  "+second) {
		t.Errorf("the mutants listed are not the finished fixture's only:\n%s", out)
	}
	if strings.Contains(out, "speed (") {
		t.Errorf("a speed measurement was reported for an interrupted run:\n%s", out)
	}
}
