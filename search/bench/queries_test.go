package bench

import (
	"context"
	"strings"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/internal/testtree"
	"github.com/repilot-lsp/repilot-lsp/search"
)

func TestRunQueries(t *testing.T) {
	root := testtree.New(t, map[string]string{
		"src/Dates.java": `class Dates {
    static Date parseIsoDate(String text) { String[] p = text.split("-"); return new Date(p[0], p[1], p[2]); }
    static String formatDuration(long seconds) { return seconds / 3600 + "h"; }
}`,
		"src/Notes.java": `class Notes {
    // mentions a date, a duration and seconds in a comment only
    void note() {}
}`,
		"tools/retry.py": "def retry_with_backoff(call):\n    delay = 0.1\n    return call()\n",
	})
	qs, err := ReadQueries(strings.NewReader(`// comment
{"query": "parse an ISO date string", "targets": ["src/Dates.java#Dates.parseIsoDate"]}

{"query": "call again after a failure with growing delay", "targets": ["tools/retry.py"]}
{"query": "render a duration in hours", "targets": ["src/Dates.java#Dates.formatDuration"]}
`))
	if err != nil || len(qs) != 3 {
		t.Fatalf("ReadQueries: %v, %d queries", err, len(qs))
	}
	ctx := context.Background()
	rep, err := RunQueries(ctx, QueriesOptions{Engine: search.Config{Root: root}, Queries: qs})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 3 || rep.Rows[0].Stream != RowSearch || rep.Rows[2].Stream != RowGrepFile {
		t.Fatalf("rows %+v", rep.Rows)
	}
	r := rep.Results
	if r[0].Ranks[RowSearch] != 1 || r[0].Ranks[RowSearchFile] != 1 || r[0].Ranks[RowGrepFile] != 1 {
		t.Errorf("query 1 ranks %v", r[0].Ranks)
	}
	// "delay" is the one word grep finds; the file target counts any unit.
	if r[1].Ranks[RowSearch] != 1 || r[1].Ranks[RowGrepFile] != 1 {
		t.Errorf("query 2 ranks %v", r[1].Ranks)
	}
	if r[2].Ranks[RowSearch] == 0 {
		t.Errorf("query 3 ranks %v", r[2].Ranks)
	}
	// What ranked first, and the target's rank in each stream (a file
	// target counts any of its units).
	if len(r[0].Top) == 0 || r[0].Top[0] != "src/Dates.java#Dates.parseIsoDate" ||
		r[0].StreamRanks[search.StreamLexical] != 1 || r[0].StreamRanks[search.StreamFused] != 1 {
		t.Errorf("query 1: top %v, stream ranks %v", r[0].Top, r[0].StreamRanks)
	}
	if top := r[0].StreamTop; top[search.StreamLexical] != "src/Dates.java#Dates.parseIsoDate" ||
		top[search.StreamFused] != "src/Dates.java#Dates.parseIsoDate" {
		t.Errorf("query 1: stream tops %v", top)
	}
	if top := r[1].StreamTop[search.StreamLexical]; top != "tools/retry.py#retry_with_backoff" {
		t.Errorf("query 2: lexical top %q", top)
	}
	if r[1].StreamRanks[search.StreamLexical] != 1 {
		t.Errorf("query 2 (a file target): stream ranks %v", r[1].StreamRanks)
	}
	if _, err := RunQueries(ctx, QueriesOptions{Engine: search.Config{Root: root},
		Queries: []QuerySpec{{Query: "x y", Targets: []string{"src/Dates.java#Dates.parseISODate"}}}}); err == nil ||
		!strings.Contains(err.Error(), "Dates.parseISODate") {
		t.Errorf("a misspelt target: %v", err)
	}
	if _, err := ReadQueries(strings.NewReader(`{"query": "x", "target": ["a"]}`)); err == nil {
		t.Error("an unknown field was accepted")
	}
}

// TestReadQueriesBoundsQueryLength: a query line over search.MaxQueryBytes
// (the editor clips to it) was read and run; it
// is refused naming its line and the bound. One at the bound is read.
func TestReadQueriesBoundsQueryLength(t *testing.T) {
	long := strings.Repeat("parse a date ", 500) // 6,500 bytes
	_, err := ReadQueries(strings.NewReader(`{"query": "ok", "targets": ["a"]}
{"query": "` + long + `", "targets": ["a"]}`))
	if err == nil || !strings.Contains(err.Error(), "line 2") || !strings.Contains(err.Error(), "4000 bytes") {
		t.Errorf("a 6,500-byte query: err = %v; want one naming line 2 and the 4000-byte bound", err)
	}
	at := strings.Repeat("x", search.MaxQueryBytes)
	if qs, err := ReadQueries(strings.NewReader(`{"query": "` + at + `", "targets": ["a"]}`)); err != nil || len(qs) != 1 {
		t.Errorf("a query at the bound: %v", err)
	}
}
