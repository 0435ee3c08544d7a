package bench

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/internal/testtree"
	"github.com/repilot-lsp/repilot-lsp/search"
)

// countdownCtx reports Canceled from its Err once Err has been asked n
// times (a Ctrl-C at a reproducible point); n < 0: never.
type countdownCtx struct {
	context.Context
	n, calls *atomic.Int64
}

func (c countdownCtx) Err() error {
	k := c.calls.Add(1)
	if n := c.n.Load(); n >= 0 && k > n {
		return context.Canceled
	}
	return nil
}

// TestRunQueriesInterruptedScoresWhatItAnswered: a run whose ctx ends
// part-way returns the report of the queries answered before, marked
// interrupted, with ctx's error. Before, it returned nothing: a long
// benchmark stopped with Ctrl-C lost every result.
func TestRunQueriesInterruptedScoresWhatItAnswered(t *testing.T) {
	root := testtree.New(t, map[string]string{
		"src/Dates.java": "class Dates {\n    static Date parseIsoDate(String text) { return null; }\n    static String formatDuration(long seconds) { return seconds / 3600 + \"h\"; }\n}\n",
		"tools/retry.py": "def retry_with_backoff(call):\n    delay = 0.1\n    return call()\n",
	})
	qs, err := ReadQueries(strings.NewReader(`{"query": "parse an ISO date string", "targets": ["src/Dates.java#Dates.parseIsoDate"]}
{"query": "call again after a failure with growing delay", "targets": ["tools/retry.py"]}
{"query": "render a duration in hours", "targets": ["src/Dates.java#Dates.formatDuration"]}
`))
	if err != nil {
		t.Fatal(err)
	}
	run := func(n int64) (*QueriesReport, error, int64) {
		c := countdownCtx{Context: context.Background(), n: new(atomic.Int64), calls: new(atomic.Int64)}
		c.n.Store(n)
		rep, err := RunQueries(c, QueriesOptions{Engine: search.Config{Root: root, CacheDir: t.TempDir()}, Queries: qs})
		return rep, err, c.calls.Load()
	}
	full, err, calls := run(-1)
	if err != nil || full.Interrupted || full.Queries != 3 {
		t.Fatalf("uninterrupted: %v, %+v", err, full)
	}
	// The first point of interruption after which some queries are answered.
	for n := int64(0); n < calls; n++ {
		rep, err, _ := run(n)
		if rep == nil {
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("interrupted after %d checks: %v", n, err)
			}
			continue // before the queries began
		}
		if len(rep.Results) == 0 {
			continue
		}
		if !errors.Is(err, context.Canceled) || !rep.Interrupted || rep.Queries != len(rep.Results) || rep.Queries >= 3 || len(rep.Rows) == 0 {
			t.Fatalf("interrupted after %d checks: err %v, interrupted %v, %d queries, %d results, %d rows",
				n, err, rep.Interrupted, rep.Queries, len(rep.Results), len(rep.Rows))
		}
		var b strings.Builder
		rep.WriteText(&b)
		if !strings.Contains(b.String(), "interrupted") {
			t.Errorf("the text does not say it was interrupted:\n%s", b.String())
		}
		return
	}
	t.Fatalf("no interruption point with 1 or 2 queries answered among %d checks", calls)
}

// TestRunInterruptedScoresWhatItAnswered: Run (the CodeSearchNet-style
// queries) likewise returns the report of the queries answered before its
// ctx ended, marked interrupted, with ctx's error.
func TestRunInterruptedScoresWhatItAnswered(t *testing.T) {
	root := testtree.New(t, map[string]string{
		"src/app/Dates.java": `package app;
public class Dates {
    /** Parses an ISO date string into a calendar date. */
    public static Date parseIsoDate(String text) {
        String[] parts = text.split("-");
        return new Date(parts[0], parts[1], parts[2]);
    }
    /** Formats a duration in seconds as hours and minutes. */
    public static String formatDuration(long seconds) {
        long h = seconds / 3600;
        return h + "h" + (seconds % 3600) / 60 + "m";
    }
}`,
		"tools/retry.py": "def retry_with_backoff(call, attempts=5):\n    \"\"\"Call a function again after failures, waiting longer each time.\"\"\"\n    delay = 0.1\n    for _ in range(attempts):\n        try:\n            return call()\n        except OSError:\n            time.sleep(delay)\n            delay *= 2\n",
	})
	run := func(n int64) (*Report, error, int64) {
		c := countdownCtx{Context: context.Background(), n: new(atomic.Int64), calls: new(atomic.Int64)}
		c.n.Store(n)
		rep, err := Run(c, Options{Engine: search.Config{Root: root, CacheDir: t.TempDir()}})
		return rep, err, c.calls.Load()
	}
	full, err, calls := run(-1)
	if err != nil || full.Interrupted || full.Queries < 2 {
		t.Fatalf("uninterrupted: %v, %+v", err, full)
	}
	for n := int64(0); n < calls; n++ {
		rep, err, _ := run(n)
		if rep == nil || len(rep.Results) == 0 {
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("interrupted after %d checks: %v", n, err)
			}
			continue
		}
		if !errors.Is(err, context.Canceled) || !rep.Interrupted || rep.Queries != len(rep.Results) || rep.Queries >= full.Queries || len(rep.Streams) == 0 {
			t.Fatalf("interrupted after %d checks: err %v, interrupted %v, %d queries, %d results",
				n, err, rep.Interrupted, rep.Queries, len(rep.Results))
		}
		var b strings.Builder
		rep.WriteText(&b)
		if !strings.Contains(b.String(), "interrupted") {
			t.Errorf("the text does not say it was interrupted:\n%s", b.String())
		}
		return
	}
	t.Fatalf("no interruption point with some but not all of %d queries answered among %d checks", full.Queries, calls)
}
