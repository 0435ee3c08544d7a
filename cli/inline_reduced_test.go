package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/internal/jdksrc"
	"github.com/repilot-lsp/repilot-lsp/internal/realpart"
	"github.com/repilot-lsp/repilot-lsp/jdtls"
	"github.com/repilot-lsp/repilot-lsp/lm/ngram"
)

// TestReducedCheckAgreesWithFull: the guarantee's check on the reduced unit
// (inline/reduce.go: the other method and constructor bodies stubbed) gives
// the whole file's verdict on real suggestions. bench inline
// --compare-reduced runs on JDK java.logging/ (the ghost-text tuning set:
// every file there has compile errors of its own, so the comparison meets
// excused errors in other bodies) and checks every shown suggestion of both
// rows, the unguided row's non-compiling ones included, both ways. A
// suggestion the reduced check passes and the whole one fails would be
// shown without compiling: there must be none. The guided row must have
// used the reduced unit, and some suggestions must fail both checks (else
// the comparison proves nothing).
func TestReducedCheckAgreesWithFull(t *testing.T) {
	if testing.Short() {
		t.Skip("starts JDT LS and trains the n-gram model")
	}
	home, err := jdtls.ResolveHome("")
	realpart.JDTLS.Require(t, err)
	zip := jdksrc.Require(t, ngram.FindJDKSrcZip())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	f := benchInlineFlags{corpus: zip, include: "java.logging/", jdtls: home, requests: 40, perFile: 4, seed: 7,
		budget: inlineAutomaticBudget, invokedB: inlineInvokedBudget, samples: inlineAutomaticSamples,
		compareReduced: true, verbose: true}
	if err := runBenchInline(ctx, f, &stdout, &stderr); err != nil {
		t.Fatalf("bench inline: %v\nstderr:\n%s", err, stderr.String())
	}
	out := stdout.String()
	if dir := os.Getenv("REPILOT_TEST_KEEP"); dir != "" {
		os.WriteFile(filepath.Join(dir, "reduced-agreement.txt"), append(stdout.Bytes(), stderr.Bytes()...), 0o644)
	}
	m := regexp.MustCompile(`(\d+) shown suggestions compared \((\d+) more not reducible\): both pass (\d+), both fail (\d+), reduced passes and whole fails (\d+) \(unsound\), reduced fails and whole passes (\d+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no comparison in the report:\n%s", out)
	}
	n := make([]int, len(m))
	for i := 1; i < len(m); i++ {
		n[i], _ = strconv.Atoi(m[i])
	}
	t.Log(m[0])
	if n[5] != 0 {
		t.Errorf("%d suggestions pass the reduced check and fail the whole file's (each is an UNSOUND line below)\n%s\nstderr:\n%s", n[5], out, stderr.String())
	}
	if n[6] != 0 {
		t.Logf("%d suggestions fail the reduced check and pass the whole one (shown less, not unsound)", n[6])
	}
	if compared := n[1]; compared < 20 || n[3] == 0 || n[4] == 0 {
		t.Errorf("too little compared to judge the reduction: %d reduced (both pass %d, both fail %d)\n%s", compared, n[3], n[4], out)
	}
	if !regexp.MustCompile(`; [1-9]\d* guarantees on the reduced unit\)`).MatchString(out) {
		t.Errorf("the guided row made no guarantee on the reduced unit:\n%s", out)
	}
}
