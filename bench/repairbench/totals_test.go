package repairbench

import (
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/repair"
)

// TestTotalsTimeToResultsColumns: the issue-14 columns of bench repair (Totals) are
// medians and worsts over the bugs that got a result, and per-token ratios.
func TestTotalsTimeToResultsColumns(t *testing.T) {
	runs := []Run{
		{Backend: "ngram", Variant: "full", Unique: 4, Compilable: 2, Plausible: 1, Stats: repair.Stats{
			Samples: 10, Truncated: 2, Tokens: 100, EngineTime: 100 * time.Millisecond, EngineRequests: 5,
			FirstCompilable: 2 * time.Second, FirstPlausible: 3 * time.Second}},
		{Backend: "ngram", Variant: "full", Unique: 3, Compilable: 1, Stats: repair.Stats{
			Samples: 10, Truncated: 0, Tokens: 300, EngineTime: 900 * time.Millisecond, EngineRequests: 15,
			FirstCompilable: 6 * time.Second}},
		{Backend: "ngram", Variant: "full", Unique: 2, Stats: repair.Stats{
			Samples: 10, Truncated: 8, Tokens: 100, EngineTime: 500 * time.Millisecond}},
		{Backend: "ngram", Variant: "full", Error: "boom"},
	}
	r := Totals("ngram", "full", runs)
	if r.Compilable != 3 || r.BugsCompilable != 2 || r.PlausibleFixes != 1 || r.Errors != 1 {
		t.Fatalf("counts: %+v", r)
	}
	if r.FirstCompilableMedian != 4 || r.FirstCompilableWorst != 6 || r.FirstPlausibleMedian != 3 || r.FirstPlausibleWorst != 3 {
		t.Fatalf("first results: %+v", r)
	}
	// per bug: 1, 3, 5 ms/token; over all tokens 1500 ms / 500
	if r.EngineMsPerTokenMedian != 3 || r.EngineMsPerToken != 3 || r.JDTPerToken != 0.04 || r.TruncatedPct != 100.0*10/30 {
		t.Fatalf("engine cost: %+v", r)
	}
	if Failed([]Row{r}) == nil {
		t.Fatal("a failed bug must fail the command")
	}
}
