package soak

// run_test.go runs a short soak for real: the built repilot-lsp serve in
// front of a real JDT LS, 20 s of editing with a kill of JDT LS, no
// repairs and no ghost text (they start a second JDT LS); every invariant
// must hold. The 10-minute run is `repilot-lsp bench soak` (README,
// "Reliability").

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/internal/realpart"
	"github.com/repilot-lsp/repilot-lsp/jdtls"
)

func TestShortSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: needs JDT LS")
	}
	_, err := jdtls.ResolveHome("")
	realpart.JDTLS.Require(t, err)
	bin := filepath.Join(t.TempDir(), "repilot-lsp")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/repilot-lsp").CombinedOutput(); err != nil {
		t.Fatalf("building repilot-lsp: %v\n%s", err, out)
	}
	var log bytes.Buffer
	rep, err := Run(context.Background(), Config{Binary: bin, Project: "../../example/shop-cart-discount/project",
		Files:    []string{"src/com/example/shop/Cart.java", "src/com/example/shop/Receipt.java"},
		Duration: 20 * time.Second, KillEvery: 12 * time.Second, SampleEvery: 10 * time.Second,
		NoGhostText: true, Seed: 3, Log: &log})
	var out bytes.Buffer
	if rep != nil {
		rep.Print(&out)
	}
	t.Logf("progress:\n%s\nreport:\n%s", log.String(), out.String())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failed() {
		t.Fatalf("invariants failed: %v", rep.Failures)
	}
	if len(rep.Kills) == 0 || rep.Edits.DidChange == 0 || len(rep.Samples) < 2 {
		t.Fatalf("the run did too little to test anything: %d kills, %d didChange, %d samples", len(rep.Kills), rep.Edits.DidChange, len(rep.Samples))
	}
	if rep.Samples[0].Goroutines < 0 {
		t.Errorf("no goroutine count from the proxy's %s file", EnvDebugStats)
	}
}
