package bench

// queries.go is the realistic-query benchmark: questions written by a
// person, each with the units that answer it fixed before running, scored
// at unit and file level next to a grep-style baseline.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/repilot-lsp/repilot-lsp/search"
	"github.com/repilot-lsp/repilot-lsp/search/index"
	"github.com/repilot-lsp/repilot-lsp/search/tokenize"
)

// QuerySpec is one realistic query: the question and the units that
// answer it. A target is a unit's ID without its overload suffix
// ("path#Container.Name": any member of the overload set counts) or a
// file path ("path": any unit of the file counts).
type QuerySpec struct {
	Query   string   `json:"query"`
	Targets []string `json:"targets"`
}

// ReadQueries reads a query file: JSON Lines, one QuerySpec per line;
// blank lines and lines starting with "//" are skipped. A query over
// search.MaxQueryBytes is an error naming its line (the command line
// refuses it too).
func ReadQueries(r io.Reader) ([]QuerySpec, error) {
	var out []QuerySpec
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "//") {
			continue
		}
		var q QuerySpec
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&q); err != nil {
			return nil, fmt.Errorf("line %d: %v", n, err)
		}
		if strings.TrimSpace(q.Query) == "" || len(q.Targets) == 0 {
			return nil, fmt.Errorf("line %d: a query needs \"query\" and at least one target", n)
		}
		if err := search.CheckQueryLen(q.Query); err != nil {
			return nil, fmt.Errorf("line %d: %v", n, err)
		}
		out = append(out, q)
	}
	return out, sc.Err()
}

// QueriesOptions configure RunQueries.
type QueriesOptions struct {
	Engine  search.Config
	Queries []QuerySpec
	Log     io.Writer // progress (nil: none)
}

// QueriesReport is the result of RunQueries: rows "search" (units),
// "search-file" (the first hit in a target's file) and "grep-file" (files
// ranked by how many distinct query words they contain, ties by path).
type QueriesReport struct {
	Root          string        `json:"root"`
	Files         int           `json:"files"`
	Units         int           `json:"units"`
	Queries       int           `json:"queries"`
	MedianQueryMS float64       `json:"median_query_ms"`
	Rows          []StreamScore `json:"rows"`
	Results       []QueryResult `json:"results,omitempty"`
	Match         MatchScore    `json:"match"`
	// Interrupted: ctx ended part-way; the report covers the Queries
	// answered before (RunQueries returns it with ctx's error).
	Interrupted bool `json:"interrupted,omitempty"`
}

// Row names of QueriesReport.
const (
	RowSearch     = "search"
	RowSearchFile = "search-file"
	RowGrepFile   = "grep-file"
)

// RunQueries indexes the repository and runs every query. It fails when a
// target names no unit or file of the index (a typo would count as a miss).
func RunQueries(ctx context.Context, opt QueriesOptions) (*QueriesReport, error) {
	logf := func(format string, a ...any) {
		if opt.Log != nil {
			fmt.Fprintf(opt.Log, format+"\n", a...)
		}
	}
	e, err := search.New(opt.Engine)
	if err != nil {
		return nil, err
	}
	defer e.Close()
	if err := e.Build(ctx, func(p index.Progress) {
		if p.Done {
			logf("indexed %d files, %d units", p.Files, p.Units)
		}
	}); err != nil {
		return nil, err
	}
	if err := e.SyncEmbeddings(ctx, nil); err != nil {
		return nil, err
	}
	all := e.Index().Units()
	keys, files := map[string]bool{}, map[string]bool{}
	for _, u := range all {
		keys[search.OverloadSet(u.ID)] = true
		files[u.Path] = true
	}
	var bad []string
	for _, q := range opt.Queries {
		for _, t := range q.Targets {
			if !keys[t] && !files[t] {
				bad = append(bad, t)
			}
		}
	}
	if len(bad) > 0 {
		return nil, fmt.Errorf("bench: targets that name no unit or file: %s", strings.Join(bad, ", "))
	}
	grep := newGrep(e.Index().Root(), e.Index().Files())
	depth := e.Config().Tuning.Depth
	rep := &QueriesReport{Root: e.Index().Root(), Files: len(files), Units: len(all), Queries: len(opt.Queries)}
	var lat []float64
	var stopped error // ctx's error: the queries answered so far are scored
	for _, q := range opt.Queries {
		if err := ctx.Err(); err != nil {
			stopped = err
			break
		}
		t0 := time.Now()
		res, err := e.Search(ctx, search.Query{Text: q.Query, K: depth})
		ms := float64(time.Since(t0).Microseconds()) / 1000
		if err != nil && ctx.Err() != nil {
			stopped = ctx.Err()
			break
		}
		if err != nil {
			return nil, fmt.Errorf("bench: query %q: %w", q.Query, err)
		}
		lat = append(lat, ms)
		isTarget := func(id, path string) bool {
			for _, t := range q.Targets {
				if t == path || t == search.OverloadSet(id) {
					return true
				}
			}
			return false
		}
		qr := QueryResult{Query: q.Query, Target: strings.Join(q.Targets, " "), LatencyMS: ms,
			Ranks: map[string]int{RowSearch: 0, RowSearchFile: 0, RowGrepFile: 0}}
		if len(res.Hits) > 0 {
			qr.TopMatch = res.Hits[0].Match
		}
		seen := map[string]bool{}
		for i, h := range res.Hits {
			if i < 3 {
				qr.Top = append(qr.Top, h.Unit.ID)
			}
			if qr.Ranks[RowSearch] == 0 && isTarget(h.Unit.ID, h.Unit.Path) {
				qr.Ranks[RowSearch] = i + 1
			}
			if !seen[h.Unit.Path] {
				seen[h.Unit.Path] = true
				if qr.Ranks[RowSearchFile] == 0 && fileHolds(h.Unit.Path, q.Targets) {
					qr.Ranks[RowSearchFile] = len(seen)
				}
			}
		}
		qr.StreamRanks = map[string]int{}
		qr.StreamTop = map[string]string{}
		for name, ids := range res.Streams {
			qr.StreamRanks[name] = 0
			if len(ids) > 0 {
				qr.StreamTop[name] = ids[0]
			}
			for i, id := range ids {
				if u, ok := e.Unit(id); ok && isTarget(id, u.Path) {
					qr.StreamRanks[name] = i + 1
					break
				}
			}
		}
		for i, f := range grep.rank(q.Query, depth) {
			if fileHolds(f, q.Targets) {
				qr.Ranks[RowGrepFile] = i + 1
				break
			}
		}
		// The fused rank of the strong/weak split is the unit row's.
		qr.Ranks[search.StreamFused] = qr.Ranks[RowSearch]
		rep.Results = append(rep.Results, qr)
	}
	if stopped != nil {
		rep.Queries, rep.Interrupted = len(rep.Results), true
	}
	sort.Float64s(lat)
	rep.MedianQueryMS = percentile(lat, 0.5)
	rep.Match = ScoreMatch(rep.Results)
	for _, r := range rep.Results {
		delete(r.Ranks, search.StreamFused)
	}
	rep.Rows = Score(rep.Results)
	return rep, stopped
}

// fileHolds says whether a target lies in file.
func fileHolds(file string, targets []string) bool {
	for _, t := range targets {
		if p, _, _ := strings.Cut(t, "#"); p == file {
			return true
		}
	}
	return false
}

// WriteText prints the report as a table.
func (r *QueriesReport) WriteText(w io.Writer) {
	fmt.Fprintf(w, "repository  %s\n", r.Root)
	fmt.Fprintf(w, "index       %d files, %d units\n", r.Files, r.Units)
	fmt.Fprintf(w, "queries     %d (median %.2f ms)\n", r.Queries, r.MedianQueryMS)
	if r.Interrupted {
		fmt.Fprintf(w, "            interrupted: the queries answered before it\n")
	}
	fmt.Fprintf(w, "\n%-12s %8s %8s %8s %8s\n", "row", "S@1", "S@5", "S@10", "MRR")
	for _, s := range r.Rows {
		fmt.Fprintf(w, "%-12s %7.1f%% %7.1f%% %7.1f%% %8.3f\n", s.Stream, 100*s.Success1, 100*s.Success5, 100*s.Success, s.MRR)
	}
	m := r.Match
	fmt.Fprintf(w, "\ntop hit strong (match >= %.2f): %d queries, S@1 %.1f%%, S@10 %.1f%%; weak: %d queries, S@1 %.1f%%, S@10 %.1f%%\n",
		search.StrongMatch, m.Strong, 100*m.StrongS1, 100*m.StrongS10, m.Weak, 100*m.WeakS1, 100*m.WeakS10)
	for _, q := range r.Results {
		if q.Ranks[RowSearch] == 0 || q.Ranks[RowSearch] > 10 {
			fmt.Fprintf(w, "miss@10  %-60q %s (file rank %d, grep %d)\n", q.Query, q.Target, q.Ranks[RowSearchFile], q.Ranks[RowGrepFile])
		}
	}
}

// grepBaseline ranks files by the number of distinct query words (lower
// case, stop words out, 3+ letters) that occur in them as substrings,
// case-insensitively: what a developer gets from grep -c per word.
type grepBaseline struct {
	paths []string
	texts [][]byte // lower-cased contents
}

func newGrep(root string, files []string) *grepBaseline {
	g := &grepBaseline{}
	sort.Strings(files)
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil {
			continue
		}
		g.paths = append(g.paths, f)
		g.texts = append(g.texts, bytes.ToLower(b))
	}
	return g
}

// rank returns at most k files with at least one query word, best first.
func (g *grepBaseline) rank(query string, k int) []string {
	var words [][]byte
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(query), func(r rune) bool {
		return !('a' <= r && r <= 'z' || '0' <= r && r <= '9' || r == '_')
	}) {
		if len(w) < 3 || tokenize.IsStopWord(w) || seen[w] {
			continue
		}
		seen[w] = true
		words = append(words, []byte(w))
	}
	type fc struct {
		i, n int
	}
	var hits []fc
	for i, t := range g.texts {
		n := 0
		for _, w := range words {
			if bytes.Contains(t, w) {
				n++
			}
		}
		if n > 0 {
			hits = append(hits, fc{i, n})
		}
	}
	sort.SliceStable(hits, func(a, b int) bool { return hits[a].n > hits[b].n })
	var out []string
	for _, h := range hits {
		if len(out) == k {
			break
		}
		out = append(out, g.paths[h.i])
	}
	return out
}
