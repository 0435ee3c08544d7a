package repairbench

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/corpus"
	"github.com/repilot-lsp/repilot-lsp/repair"
)

// optsRepairer records the Options of each repair it is asked for.
type optsRepairer struct{ got []repair.Options }

func (r *optsRepairer) Repair(_ context.Context, req repair.Request, _ repair.Progress) (*repair.Result, error) {
	r.got = append(r.got, req.Options)
	return &repair.Result{}, nil
}

// TestConcurrencyReachesRepair: Options.Concurrency (bench repair's
// --model-concurrency) is the repair's Options.Concurrency, and 0 means
// one sample at a time.
func TestConcurrencyReachesRepair(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "project"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "project", "A.java"), []byte("class A {\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b := corpus.Bug{ID: "a", Dir: dir, File: "A.java", StartLine: 1, EndLine: 1}
	for _, c := range []struct{ in, want int }{{0, 1}, {1, 1}, {4, 4}} {
		var r optsRepairer
		run := one(context.Background(), &r, b, "full", Options{Concurrency: c.in, Sampling: repair.Options{Samples: 3}})
		if run.Error != "" {
			t.Fatal(run.Error)
		}
		if len(r.got) != 1 || r.got[0].Concurrency != c.want {
			t.Errorf("Concurrency %d: the repair got %+v, want Concurrency %d", c.in, r.got, c.want)
		}
	}
}
