package repair

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/engine"
)

// TestStatsTimeToResultsAndEngineCost: Tokens counts every sampled token,
// EngineTime the time spent inside engine calls, and FirstCompilable /
// FirstPlausible when the first such candidate was found (issue 14's bench
// columns).
func TestStatsTimeToResultsAndEngineCost(t *testing.T) {
	root := project(t)
	next := table(map[string][]tok{
		"":                        {{"    likely();", 0.7, false}, {"    int x = 2; // FIXED", 0.3, false}},
		"    likely();":           {{"\n", 1, true}},
		"    int x = 2; // FIXED": {{"\n", 1, true}},
	})
	const delay = 2 * time.Millisecond
	eng := &fakeEngine{check: func(string, string) (engine.Outcome, error) {
		time.Sleep(delay)
		return engine.Unknown, nil
	}}
	r := request(variant(t, "prune", func(o *Options) { o.Samples = 6 }))
	r.Root, r.File = root, filepath.Join(root, "src", "A.java")
	r.TestCmd = []string{"grep", "-q", "FIXED", "src/A.java"}
	var streamed []Patch
	r.OnPatch = func(p Patch) { streamed = append(streamed, p) }
	res := run(t, service(&fakeModel{next: next}, eng, nil), r)
	st := res.Stats
	if len(streamed) != len(res.Candidates) || len(streamed) != 2 {
		t.Fatalf("streamed %d patches, result has %d", len(streamed), len(res.Candidates))
	}
	for _, p := range streamed {
		if !p.Tested {
			t.Errorf("streamed before its test ran: %+v", p)
		}
	}
	if st.Tokens != 2*int64(st.Samples) {
		t.Fatalf("Tokens = %d for %d samples of 2 tokens", st.Tokens, st.Samples)
	}
	if checks := eng.totalChecks(); st.EngineTime < time.Duration(checks)*delay {
		t.Fatalf("EngineTime %v < %d checks x %v", st.EngineTime, checks, delay)
	}
	if st.FirstCompilable <= 0 || st.FirstPlausible < st.FirstCompilable || st.FirstPlausible > st.Duration {
		t.Fatalf("FirstCompilable %v, FirstPlausible %v, Duration %v", st.FirstCompilable, st.FirstPlausible, st.Duration)
	}
}

// TestRunTestsTimedOutFlag: a test command killed at its timeout says so.
func TestRunTestsTimedOutFlag(t *testing.T) {
	res, err := runTests(context.Background(), project(t), "src/A.java", "x", []string{"sleep", "60"}, 300*time.Millisecond, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Passed || !res.TimedOut {
		t.Fatalf("%+v", res)
	}
	res, err = runTests(context.Background(), project(t), "src/A.java", "x", []string{"false"}, time.Minute, nil)
	if err != nil || res.TimedOut {
		t.Fatalf("a failing command is not a timeout: %+v, %v", res, err)
	}
}
