package inline

import (
	"context"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/engine"
)

// mapSession answers Check from a table of tokens (Unknown when absent),
// CheckEnd with end, Complete with names.
type mapSession struct {
	okSession
	checks map[string]engine.Outcome
	end    engine.Outcome
	names  engine.Completions
}

func (s mapSession) Check(_ context.Context, _, token string) (engine.Outcome, error) {
	if o, ok := s.checks[token]; ok {
		return o, nil
	}
	return engine.Unknown, nil
}
func (s mapSession) CheckEnd(context.Context, string) (engine.Outcome, error) { return s.end, nil }
func (s mapSession) Complete(context.Context, string) (engine.Completions, error) {
	return s.names, nil
}

// The comparison answers with the reduced file's session and counts every
// decision, the differing ones, and those where only the reduced file's
// engine prunes (an infeasible token the whole file's finds feasible or
// unknown; a completion that leaves out a name the whole file's lists).
func TestComparedSessionCounts(t *testing.T) {
	reduced := mapSession{checks: map[string]engine.Outcome{"a": engine.Feasible, "b": engine.Infeasible, "c": engine.Infeasible},
		end: engine.Feasible, names: engine.Completions{Known: true, Names: []string{"size"}}}
	whole := mapSession{checks: map[string]engine.Outcome{"a": engine.Feasible, "b": engine.Infeasible, "c": engine.Unknown},
		end: engine.Unknown, names: engine.Completions{Known: true, Names: []string{"size", "sizeOf"}}}
	var st Stats
	c := &comparedSession{Session: reduced, whole: whole, st: &st}
	ctx := context.Background()
	for _, tok := range []string{"a", "b", "c"} {
		got, _ := c.Check(ctx, "x.", tok)
		if want, _ := reduced.Check(ctx, "x.", tok); got != want {
			t.Errorf("Check %q = %v, want the reduced session's %v", tok, got, want)
		}
	}
	if got, _ := c.CheckEnd(ctx, "x"); got != engine.Feasible {
		t.Errorf("CheckEnd = %v, want the reduced session's", got)
	}
	if got, _ := c.Complete(ctx, "x.si"); len(got.Names) != 1 {
		t.Errorf("Complete = %v, want the reduced session's", got)
	}
	// Compared 5; differ: c, the end, the completion; unsound: c (pruned
	// on the reduced file only) and the completion (sizeOf left out).
	if st.EngineCompared != 5 || st.EngineDiffer != 3 || st.EngineUnsound != 2 {
		t.Errorf("compared %d, differ %d, unsound %d; want 5, 3, 2", st.EngineCompared, st.EngineDiffer, st.EngineUnsound)
	}
}
