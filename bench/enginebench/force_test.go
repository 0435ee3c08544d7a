package enginebench

// force_test.go checks that force, the soundness pass of bench engine,
// counts a pruned end of hunk as a pruned decision (a fake engine; no JDT
// LS).

import (
	"context"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/engine"
)

// endPruner is an engine whose sessions keep every token and prune every
// end.
type endPruner struct{ ends int }

func (e *endPruner) Open(context.Context, engine.Hunk) (engine.Session, error) { return e, nil }
func (e *endPruner) Check(context.Context, string, string) (engine.Outcome, error) {
	return engine.Unknown, nil
}
func (e *endPruner) CheckEnd(context.Context, string) (engine.Outcome, error) {
	e.ends++
	return engine.Infeasible, nil
}
func (e *endPruner) Complete(context.Context, string) (engine.Completions, error) {
	return engine.Completions{}, nil
}
func (e *endPruner) Stats() engine.Stats { return engine.Stats{} }
func (e *endPruner) Close() error        { return nil }

func TestForceCountsPrunedEnd(t *testing.T) {
	toks := []string{"case", " Circle", " _", ",", " Square", " _", " ->", " 4", ";"}
	e := &endPruner{}
	p, _, _, _, _, err := force(context.Background(), e, engine.Hunk{}, toks, false, true)
	if err != nil {
		t.Fatal(err)
	}
	if e.ends != 1 || p != len(toks) {
		t.Errorf("force with checkEnd: %d end checks, pruned at %d; want 1 and %d (the end)", e.ends, p, len(toks))
	}
	e = &endPruner{}
	if p, _, _, _, _, _ = force(context.Background(), e, engine.Hunk{}, toks, false, false); e.ends != 0 || p != -1 {
		t.Errorf("force without checkEnd: %d end checks, pruned at %d; want 0 and -1", e.ends, p)
	}
}
