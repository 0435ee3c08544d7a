package repair

// trace.go writes one JSON line per finished sample to the file named by
// $REPILOT_TRACE_SAMPLES (a diagnostic for issue 14: why samples run to the
// token limit). It changes nothing the loop does.

import (
	"encoding/json"
	"os"
	"sync"
)

// EnvTraceSamples names the environment variable holding the file that
// sample traces are appended to (one JSON object per line: SampleTrace).
// Unset or empty: no trace.
const EnvTraceSamples = "REPILOT_TRACE_SAMPLES"

// SampleTrace is one finished sample in the $REPILOT_TRACE_SAMPLES file.
type SampleTrace struct {
	Hunk    string `json:"hunk"`    // the hunk's file URI and first line ("uri:line")
	Variant string `json:"variant"` // Options.Variant
	Sample  int    `json:"sample"`  // sample index
	End     string `json:"end"`     // "complete", "dead", "truncated" or "nothing"
	// Why, for a truncated sample: "end_pruned", "end_not_drawn" or
	// "no_end" (Stats.TruncEndPruned, TruncEndNotDrawn, TruncNoEnd).
	Why    string `json:"why,omitempty"`
	Tokens int    `json:"tokens"` // tokens drawn, redrawn lines included
	Budget int    `json:"budget"` // the sample's token budget (Options.MaxTokens after TokenBudget)
	Text   string `json:"text"`   // the generated text at the end
	// Redrawn are the texts, in order, after which the end was drawn and
	// pruned, so that the sample dropped their last line and drew it
	// again (loop.go, redrawLine).
	Redrawn []string `json:"redrawn,omitempty"`
}

var traceMu sync.Mutex

// writeTrace appends t to $REPILOT_TRACE_SAMPLES when it is set; errors
// are ignored (a diagnostic must not fail a repair).
func writeTrace(t SampleTrace) {
	path := os.Getenv(EnvTraceSamples)
	if path == "" {
		return
	}
	b, err := json.Marshal(t)
	if err != nil {
		return
	}
	traceMu.Lock()
	defer traceMu.Unlock()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.Write(append(b, '\n'))
}

// traceSample writes the committed sample r of the hunk name (trace.go).
func traceSample(name string, opts Options, r sampleRun) {
	if os.Getenv(EnvTraceSamples) == "" {
		return
	}
	t := SampleTrace{Hunk: name, Variant: opts.Variant(), Sample: r.c.sample, Tokens: r.c.tokens,
		Budget: opts.MaxTokens, Text: r.c.text, Redrawn: r.trace.redrawn}
	switch r.end {
	case endComplete:
		t.End = "complete"
	case endDead:
		t.End = "dead"
	case endTruncated:
		t.End = "truncated"
		switch {
		case r.work.TruncEndPruned > 0:
			t.Why = "end_pruned"
		case r.work.TruncEndNotDrawn > 0:
			t.Why = "end_not_drawn"
		default:
			t.Why = "no_end"
		}
	default:
		t.End = "nothing"
	}
	writeTrace(t)
}
