package inline

// enginecmp.go measures the engine on the reduced file against the engine on
// the whole file (Options.CompareEngine, bench inline --compare-engine):
// every decision of a sample is made on both, and the answers compared.

import (
	"context"
	"fmt"
	"os"
	"slices"

	"github.com/repilot-lsp/repilot-lsp/engine"
)

// comparedSession answers from Session (the reduced file's) and asks whole
// (the whole file's) the same question, counting into st: decisions
// compared, answers that differ, and pruning the whole file's engine does
// not do (Stats.EngineUnsound). Errors of either are returned.
type comparedSession struct {
	engine.Session
	whole engine.Session
	st    *Stats
}

func (c *comparedSession) Check(ctx context.Context, generated, token string) (engine.Outcome, error) {
	r, err := c.Session.Check(ctx, generated, token)
	if err != nil {
		return r, err
	}
	w, err := c.whole.Check(ctx, generated, token)
	if err != nil {
		return r, err
	}
	c.note(r != w, r == engine.Infeasible && w != engine.Infeasible, "check", generated, token, r, w)
	return r, nil
}

func (c *comparedSession) CheckEnd(ctx context.Context, generated string) (engine.Outcome, error) {
	r, err := c.Session.CheckEnd(ctx, generated)
	if err != nil {
		return r, err
	}
	w, err := c.whole.CheckEnd(ctx, generated)
	if err != nil {
		return r, err
	}
	c.note(r != w, r == engine.Infeasible && w != engine.Infeasible, "end", generated, "", r, w)
	return r, nil
}

// Complete's answers are the same when both are unknown, or both known
// with the same names; the reduced one may complete unsoundly when it is
// known with names and lacks a name the whole one, known, has, or the
// whole one is unknown (Algorithm 3 appends the names' common prefix,
// which a name left out can lengthen).
func (c *comparedSession) Complete(ctx context.Context, generated string) (engine.Completions, error) {
	r, err := c.Session.Complete(ctx, generated)
	if err != nil {
		return r, err
	}
	w, err := c.whole.Complete(ctx, generated)
	if err != nil {
		return r, err
	}
	rn, wn := slices.Sorted(slices.Values(r.Names)), slices.Sorted(slices.Values(w.Names))
	same := r.Known == w.Known && (!r.Known || slices.Equal(rn, wn))
	wider := r.Known && len(r.Names) > 0 && (!w.Known || !containsAll(rn, wn))
	c.note(!same, wider, "complete", generated, "", r, w)
	return r, nil
}

// containsAll reports whether have (sorted) holds every element of want.
func containsAll(have, want []string) bool {
	for _, n := range want {
		if _, ok := slices.BinarySearch(have, n); !ok {
			return false
		}
	}
	return true
}

func (c *comparedSession) note(differ, unsound bool, what, generated, token string, r, w any) {
	c.st.EngineCompared++
	if differ {
		c.st.EngineDiffer++
		if traceSamples {
			fmt.Fprintf(os.Stderr, "inline trace: engine %s differs after %q token %q: reduced %v, whole %v\n", what, tail(generated, 60), token, r, w)
		}
	}
	if unsound {
		c.st.EngineUnsound++
	}
}

func (c *comparedSession) Close() error {
	c.whole.Close()
	return c.Session.Close()
}

// tail returns the last n bytes of s at most.
func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
