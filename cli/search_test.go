package cli

// search_test.go runs "search" and "bench search" end to end on a small
// project (offline: the lexical stream).

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/internal/testtree"
	"github.com/repilot-lsp/repilot-lsp/search/bench"
)

func searchProject(t *testing.T) string {
	t.Helper()
	files := map[string]string{
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
		"tools/retry.py": `def retry_with_backoff(call, attempts=5):
    """Call a function again after failures, waiting longer each time."""
    delay = 0.1
    for _ in range(attempts):
        try:
            return call()
        except OSError:
            time.sleep(delay)
            delay *= 2
`,
	}
	return testtree.New(t, files)
}

func defaultSearchFlags(root string) SearchFlags {
	return SearchFlags{Project: root, CacheDir: filepath.Join(root, ".cache-test"), Lexical: "bm25", Streams: "all",
		Depth: 100, RerankTopN: 20, K1: 1.2, B: 0.75, Expand: 1, NameBoost: 0.5,
		Analyzer: "stem,stop,compounds,abbrev", EmbedChars: 2000, RRFK: 60}
}

func TestSearchCommand(t *testing.T) {
	root := searchProject(t)
	var out, errOut bytes.Buffer
	f := searchCmdFlags{SearchFlags: defaultSearchFlags(root), k: 3, jsonOut: true}
	if err := runSearch(context.Background(), f, "parse a date from a string", &out, &errOut); err != nil {
		t.Fatal(err)
	}
	var res struct {
		Hits []SearchHitJSON `json:"hits"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if len(res.Hits) == 0 || res.Hits[0].Name != "Dates.parseIsoDate" || res.Hits[0].Path != "src/app/Dates.java" ||
		res.Hits[0].Range.Start.Line != 3 || res.Hits[0].Score <= 0 {
		t.Errorf("hits %+v", res.Hits)
	}
	if !strings.Contains(errOut.String(), "indexed 2 files, 4 units") {
		t.Errorf("progress: %q", errOut.String())
	}
	// Text output, second run from the cache.
	out.Reset()
	errOut.Reset()
	f.jsonOut = false
	if err := runSearch(context.Background(), f, "retry with exponential backoff", &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), " 1. tools/retry.py:1:1") || !strings.Contains(errOut.String(), "(2 files from cache)") {
		t.Errorf("text output %q, progress %q", out.String(), errOut.String())
	}
}

func TestSearchFlagErrors(t *testing.T) {
	root := searchProject(t)
	for _, c := range []struct {
		mutate func(*SearchFlags)
		want   string
	}{
		{func(f *SearchFlags) { f.Project = "" }, "--project is required"},
		{func(f *SearchFlags) { f.Project = filepath.Join(root, "nope") }, "is not a directory"},
		{func(f *SearchFlags) { f.Streams = "lexical,magic" }, "unknown stream"},
		{func(f *SearchFlags) { f.Weights = "name=x" }, "--weights"},
		{func(f *SearchFlags) { f.Analyzer = "stem,bogus" }, "--analyzer"},
		{func(f *SearchFlags) { f.EmbedURL = "http://127.0.0.1:1/v1" }, "--embed-url needs --embed-model"},
		{func(f *SearchFlags) { f.Lexical = "lucene" }, "unknown lexical backend"},
	} {
		f := searchCmdFlags{SearchFlags: defaultSearchFlags(root), k: 3}
		c.mutate(&f.SearchFlags)
		err := runSearch(context.Background(), f, "x", &bytes.Buffer{}, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("want error containing %q, got %v", c.want, err)
		}
	}
}

func TestBenchSearchCommand(t *testing.T) {
	root := searchProject(t)
	var out bytes.Buffer
	f := benchSearchFlags{SearchFlags: defaultSearchFlags(root), jsonOut: true, perQuery: true, quiet: true}
	if err := runBenchSearch(context.Background(), f, &out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	var rep bench.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	// The three documented functions have 3+ code lines and 3+ query words;
	// each query finds its target first in so small a project.
	if rep.Queries != 3 || len(rep.Streams) != 2 || rep.Streams[0].Stream != "lexical" || rep.Streams[0].Success1 != 1 {
		t.Errorf("report %+v", rep)
	}
	for _, r := range rep.Results {
		if strings.Contains(r.Query, "@") || r.Ranks["lexical"] != 1 {
			t.Errorf("result %+v", r)
		}
	}
}
