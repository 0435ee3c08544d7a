// Package bench evaluates semantic search the CodeSearchNet way (Husain et
// al. 2019, "CodeSearchNet Challenge"), inside one repository:
//
//   - a query is the first sentence of a documented unit's doc comment
//     (units.FirstSentence: the javadoc tool's rule; for Go without the
//     leading declared name, see Query);
//   - its target is that unit with the doc comment removed;
//   - every other unit of the repository is a distractor.
//
// Which units are queries follows CodeSearchNet's filters (section 3.1 of
// the paper): functions and methods (not classes), whose first sentence
// has at least three words, whose code has at least three lines, that are
// not tests ("test" in the name, or in test directories and files), not
// constructors and not standard extension methods (Python __dunder__
// methods, Java toString/hashCode/equals/clone/finalize, Go String/Error).
// A query must also be unique in the repository: a sentence shared by
// several units ("Returns the hash code value for this map.") has no
// single right answer, so all its units are dropped as queries (they stay
// as distractors).
//
// Whether distractors keep their docs is a real choice, so there are two
// modes:
//
//   - "csn" (default): every unit is indexed without its doc comment, as in
//     CodeSearchNet, whose candidates are all functions with the docstring
//     stripped. Target and distractors are on equal terms: the query's words
//     can only meet code, never another unit's prose. This measures
//     code-to-language matching.
//   - "keep-docs": distractors keep their docs and only the target loses its
//     own (swapped in for its query, then restored). This is the editor's
//     situation for undocumented code in a documented repository, and it is
//     harder: a documented neighbour whose doc shares the query's words
//     outranks the bare target.
//
// Metrics per stream and fused: Success@k (the target is in the top k) for
// k = 1, 5, 10, and MRR (mean of 1/rank, 0 when the target is not within
// the stream's depth, Config.Depth = 100 by default).
package bench

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/repilot-lsp/repilot-lsp/search"
	"github.com/repilot-lsp/repilot-lsp/search/index"
	"github.com/repilot-lsp/repilot-lsp/search/units"
)

// Modes of the benchmark.
const (
	ModeCSN      = "csn"
	ModeKeepDocs = "keep-docs"
)

// Options configure a run.
type Options struct {
	// Engine is the search configuration; Root must be set. Transform is
	// set by Run (mode csn).
	Engine search.Config
	// Mode is ModeCSN (default) or ModeKeepDocs.
	Mode string
	// MaxQueries samples that many queries deterministically (by the
	// SHA-256 of the unit ID); 0 takes all.
	MaxQueries int
	// Log receives progress lines (may be nil).
	Log io.Writer
	// Holdout is what each query keeps out of the statistics mined from
	// the repository's doc comments (search.Query.Exclude): HoldoutUnit
	// (default) the target's own doc, the editor's situation for an
	// undocumented unit; HoldoutFile the docs of every unit in the
	// target's file, a stricter check that sibling overloads with
	// near-identical docs do not carry the answer.
	Holdout string
}

// Holdouts of Options.Holdout.
const (
	HoldoutUnit = "unit"
	HoldoutFile = "file"
)

// Item is one query and its target.
type Item struct {
	Query  string
	Target units.Unit // with its doc
}

// StreamScore is one stream's metrics.
type StreamScore struct {
	Stream   string  `json:"stream"`
	Queries  int     `json:"queries"` // queries the stream answered
	Success1 float64 `json:"success_at_1"`
	Success5 float64 `json:"success_at_5"`
	Success  float64 `json:"success_at_10"`
	MRR      float64 `json:"mrr"`
}

// QueryResult is the outcome of one query.
type QueryResult struct {
	Query     string         `json:"query"`
	Target    string         `json:"target"`
	Ranks     map[string]int `json:"ranks"` // 0: not within depth
	LatencyMS float64        `json:"latency_ms"`
	Errors    []string       `json:"errors,omitempty"`
	// TopMatch is the top hit's search.Hit.Match (how much of the query it
	// contains).
	TopMatch float64 `json:"top_match"`
	// Top holds the IDs of the first hits (at most 3), for failure
	// analysis: what ranked above the target (realistic queries only).
	Top []string `json:"top,omitempty"`
	// StreamRanks gives the best rank of a target unit in each stream's
	// own ranking (single units, before overload sets and test placement;
	// 0: not within depth), realistic queries only.
	StreamRanks map[string]int `json:"stream_ranks,omitempty"`
	// StreamTop gives the ID of each stream's first unit (the fused
	// stream's after the reordering rules, before overload sets), realistic
	// queries only. StreamRanks is the best rank of any target, so a query
	// with two targets that each lead one stream shows rank 1 in every
	// stream; StreamTop tells it from one target that leads them all.
	StreamTop map[string]string `json:"stream_top,omitempty"`
}

// MatchScore splits the queries by whether the top hit was strong
// (TopMatch >= search.StrongMatch): how often each kind found its target
// in the fused ranking, at rank 1 and within 10.
type MatchScore struct {
	Strong    int     `json:"strong"`
	Weak      int     `json:"weak"`
	StrongS1  float64 `json:"strong_success_at_1"`
	StrongS10 float64 `json:"strong_success_at_10"`
	WeakS1    float64 `json:"weak_success_at_1"`
	WeakS10   float64 `json:"weak_success_at_10"`
}

// ScoreMatch computes MatchScore from per-query results.
func ScoreMatch(rs []QueryResult) MatchScore {
	var m MatchScore
	for _, r := range rs {
		rank := r.Ranks[search.StreamFused]
		s1, s10 := b2f(rank == 1), b2f(rank >= 1 && rank <= 10)
		if r.TopMatch >= search.StrongMatch {
			m.Strong++
			m.StrongS1 += s1
			m.StrongS10 += s10
		} else {
			m.Weak++
			m.WeakS1 += s1
			m.WeakS10 += s10
		}
	}
	if m.Strong > 0 {
		m.StrongS1 /= float64(m.Strong)
		m.StrongS10 /= float64(m.Strong)
	}
	if m.Weak > 0 {
		m.WeakS1 /= float64(m.Weak)
		m.WeakS10 /= float64(m.Weak)
	}
	return m
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// Report is the result of a run.
type Report struct {
	Root          string        `json:"root"`
	Mode          string        `json:"mode"`
	Files         int           `json:"files"`
	Units         int           `json:"units"`
	Documented    int           `json:"documented_candidates"` // units eligible before dedup and sampling
	Queries       int           `json:"queries"`
	Lexical       string        `json:"lexical_backend"`
	Embedder      string        `json:"embedder,omitempty"`
	Chat          string        `json:"chat,omitempty"`
	IndexSeconds  float64       `json:"index_seconds"`
	EmbedSeconds  float64       `json:"embed_seconds,omitempty"`
	MedianQueryMS float64       `json:"median_query_ms"`
	P90QueryMS    float64       `json:"p90_query_ms"`
	Streams       []StreamScore `json:"streams"`
	Results       []QueryResult `json:"results,omitempty"`
	ErrorCount    int           `json:"stream_errors"`
	Match         MatchScore    `json:"match"`
	// Interrupted: ctx ended part-way; the report covers the Queries
	// answered before (Run returns it with ctx's error).
	Interrupted bool `json:"interrupted,omitempty"`
}

// isTest says whether a unit belongs to test code.
func isTest(u *units.Unit) bool {
	p := "/" + strings.ToLower(u.Path)
	for _, seg := range []string{"/test/", "/tests/", "/testing/", "/testdata/"} {
		if strings.Contains(p, seg) {
			return true
		}
	}
	base := path.Base(u.Path)
	if strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py") || strings.HasSuffix(base, "_test.go") ||
		strings.HasSuffix(base, "Test.java") || strings.HasSuffix(base, "Tests.java") {
		return true
	}
	return strings.Contains(strings.ToLower(u.Name), "test")
}

// extensionMethods are CodeSearchNet's "standard extension methods".
var extensionMethods = map[string]map[string]bool{
	"java": {"toString": true, "hashCode": true, "equals": true, "clone": true, "finalize": true},
	"go":   {"String": true, "Error": true},
}

// isCandidate applies CodeSearchNet's filters to a documented unit.
func isCandidate(u *units.Unit) bool {
	if u.Doc == "" || u.Kind == units.Class || u.Kind == units.Constructor || isTest(u) {
		return false
	}
	if strings.HasPrefix(u.Name, "__") && strings.HasSuffix(u.Name, "__") || extensionMethods[u.Lang][u.Name] {
		return false
	}
	return strings.Count(strings.TrimSpace(u.Code), "\n") >= 2 // at least three lines
}

// Query is the query a unit's doc gives: its first sentence; for Go, whose
// doc comments start with the declared name by convention ("Parse reads
// ..."), without that first word, since a user looking for the code does
// not know its name.
func Query(u *units.Unit) string {
	q := units.FirstSentence(u.Doc)
	if u.Lang == "go" {
		first, rest, ok := strings.Cut(q, " ")
		if ok && (first == u.Name || first == u.QualifiedName()) {
			q = rest
		}
	}
	return q
}

// Select picks the benchmark's queries from us (see the package comment);
// it returns the items, in a deterministic order, and the number of
// eligible documented units before deduplication and sampling.
func Select(us []units.Unit, maxQueries int) ([]Item, int) {
	byQuery := map[string][]Item{}
	eligible := 0
	for _, u := range us {
		if !isCandidate(&u) {
			continue
		}
		q := Query(&u)
		if len(strings.Fields(q)) < 3 {
			continue
		}
		eligible++
		key := strings.ToLower(q)
		byQuery[key] = append(byQuery[key], Item{Query: q, Target: u})
	}
	var items []Item
	for _, its := range byQuery {
		if len(its) == 1 {
			items = append(items, its[0])
		}
	}
	hash := func(id string) string { s := sha256.Sum256([]byte(id)); return hex.EncodeToString(s[:]) }
	sort.Slice(items, func(i, j int) bool { return hash(items[i].Target.ID) < hash(items[j].Target.ID) })
	if maxQueries > 0 && len(items) > maxQueries {
		items = items[:maxQueries]
	}
	return items, eligible
}

// Run builds the engine over the repository, selects the queries, runs
// them and scores every stream.
func Run(ctx context.Context, opt Options) (*Report, error) {
	logf := func(format string, args ...any) {
		if opt.Log != nil {
			fmt.Fprintf(opt.Log, format+"\n", args...)
		}
	}
	if opt.Mode == "" {
		opt.Mode = ModeCSN
	}
	cfg := opt.Engine
	switch opt.Mode {
	case ModeCSN:
		cfg.Transform = func(u units.Unit) units.Unit { return u.WithoutDoc() }
	case ModeKeepDocs:
		cfg.Transform = nil
	default:
		return nil, fmt.Errorf("bench: unknown mode %q (want %s or %s)", opt.Mode, ModeCSN, ModeKeepDocs)
	}
	e, err := search.New(cfg)
	if err != nil {
		return nil, err
	}
	defer e.Close()
	t0 := time.Now()
	if err := e.Build(ctx, func(p index.Progress) {
		if p.Done {
			logf("indexed %d files, %d units (%d files from cache)", p.Files, p.Units, p.Reused)
		}
	}); err != nil {
		return nil, err
	}
	rep := &Report{Root: e.Index().Root(), Mode: opt.Mode, Files: len(e.Index().Files()), Units: e.Index().Len(),
		IndexSeconds: time.Since(t0).Seconds(), Lexical: "bm25"}
	if cfg.Embedder != nil {
		rep.Embedder = cfg.Embedder.Model()
	}
	if cfg.Chat != nil {
		rep.Chat = cfg.Chat.Model()
	}
	items, eligible := Select(e.Index().Units(), opt.MaxQueries)
	rep.Documented, rep.Queries = eligible, len(items)
	if len(items) == 0 {
		return nil, fmt.Errorf("bench: no documented units to query in %s", rep.Root)
	}
	logf("%d queries (of %d documented candidates), mode %s", len(items), eligible, opt.Mode)
	if e.HasDense() {
		t1 := time.Now()
		if opt.Mode == ModeKeepDocs {
			var docless []units.Unit
			for _, it := range items {
				docless = append(docless, it.Target.WithoutDoc())
			}
			if err := e.WarmEmbeddings(ctx, docless); err != nil {
				return nil, err
			}
		}
		if err := e.SyncEmbeddings(ctx, func(done, total int) {
			if done%512 < 32 || done == total {
				logf("embedded %d/%d units", done, total)
			}
		}); err != nil {
			return nil, err
		}
		rep.EmbedSeconds = time.Since(t1).Seconds()
	}

	byFile := map[string][]string{}
	for _, u := range e.Index().Units() {
		byFile[u.Path] = append(byFile[u.Path], u.ID)
	}
	exclude := func(it Item) []string { return []string{it.Target.ID} }
	switch opt.Holdout {
	case "", HoldoutUnit:
	case HoldoutFile:
		exclude = func(it Item) []string { return byFile[it.Target.Path] }
	default:
		return nil, fmt.Errorf("bench: unknown holdout %q (want %s or %s)", opt.Holdout, HoldoutUnit, HoldoutFile)
	}
	depth := e.Config().Tuning.Depth
	var lat []float64
	var stopped error // ctx's error: the queries answered so far are scored
	for i, it := range items {
		if err := ctx.Err(); err != nil {
			stopped = err
			break
		}
		if opt.Mode == ModeKeepDocs {
			e.Replace(it.Target.WithoutDoc())
		}
		t := time.Now()
		res, err := e.Search(ctx, search.Query{Text: it.Query, K: depth, Lang: it.Target.Lang, Exclude: exclude(it)})
		ms := float64(time.Since(t).Microseconds()) / 1000
		if opt.Mode == ModeKeepDocs {
			e.Replace(it.Target)
		}
		if err != nil && ctx.Err() != nil {
			stopped = ctx.Err()
			break
		}
		if err != nil {
			return nil, fmt.Errorf("bench: query %q: %w", it.Query, err)
		}
		qr := QueryResult{Query: it.Query, Target: it.Target.ID, Ranks: map[string]int{}, LatencyMS: ms}
		if len(res.Hits) > 0 {
			qr.TopMatch = res.Hits[0].Match
		}
		for name, ids := range res.Streams {
			qr.Ranks[name] = 0
			for r, id := range ids {
				if id == it.Target.ID {
					qr.Ranks[name] = r + 1
					break
				}
			}
		}
		for name, msg := range res.Errors {
			qr.Errors = append(qr.Errors, name+": "+msg)
		}
		sort.Strings(qr.Errors)
		rep.ErrorCount += len(qr.Errors)
		rep.Results = append(rep.Results, qr)
		lat = append(lat, ms)
		if (i+1)%100 == 0 || i+1 == len(items) {
			logf("%d/%d queries", i+1, len(items))
		}
	}
	if stopped != nil {
		logf("interrupted: scoring the %d of %d queries answered", len(rep.Results), len(items))
		rep.Queries, rep.Interrupted = len(rep.Results), true
	}
	sort.Float64s(lat)
	rep.MedianQueryMS = percentile(lat, 0.5)
	rep.P90QueryMS = percentile(lat, 0.9)
	rep.Streams = Score(rep.Results)
	rep.Match = ScoreMatch(rep.Results)
	return rep, stopped
}

// percentile of sorted xs (nearest rank).
func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	i := int(p*float64(len(xs))+0.5) - 1
	return xs[max(0, min(i, len(xs)-1))]
}

// streamOrder is the report's row order.
var streamOrder = []string{search.StreamLexical, search.StreamDense, search.StreamAugLexical, search.StreamAugDense,
	search.StreamGenDense, search.StreamGenParts, search.StreamGenLexical, search.StreamFused, search.StreamRerank, RowSearch, RowSearchFile, RowGrepFile}

// Score computes each stream's metrics over the query results. A stream is
// scored over the queries it answered (a failed model call leaves it out of
// that query); Queries says how many.
func Score(rs []QueryResult) []StreamScore {
	agg := map[string]*StreamScore{}
	for _, r := range rs {
		for name, rank := range r.Ranks {
			s := agg[name]
			if s == nil {
				s = &StreamScore{Stream: name}
				agg[name] = s
			}
			s.Queries++
			if rank > 0 {
				if rank == 1 {
					s.Success1++
				}
				if rank <= 5 {
					s.Success5++
				}
				if rank <= 10 {
					s.Success++
				}
				s.MRR += 1 / float64(rank)
			}
		}
	}
	var out []StreamScore
	for _, name := range streamOrder {
		if s := agg[name]; s != nil {
			n := float64(s.Queries)
			s.Success1, s.Success5, s.Success, s.MRR = s.Success1/n, s.Success5/n, s.Success/n, s.MRR/n
			out = append(out, *s)
		}
	}
	return out
}

// onlyStream returns the one retrieval stream (lexical, dense, augmented
// or generated) that ran when the report has a fused row and no other
// retrieval stream, else "".
func (r *Report) onlyStream() string {
	var ran []string
	fused := false
	for _, s := range r.Streams {
		switch s.Stream {
		case search.StreamFused:
			fused = true
		case search.StreamLexical, search.StreamDense, search.StreamAugLexical, search.StreamAugDense,
			search.StreamGenDense, search.StreamGenParts, search.StreamGenLexical:
			ran = append(ran, s.Stream)
		}
	}
	if fused && len(ran) == 1 {
		return ran[0]
	}
	return ""
}

// WriteText prints the report as a table.
func (r *Report) WriteText(w io.Writer) {
	fmt.Fprintf(w, "repository  %s\n", r.Root)
	fmt.Fprintf(w, "mode        %s (%s)\n", r.Mode, map[string]string{ModeCSN: "every unit indexed without its doc",
		ModeKeepDocs: "distractors keep docs; the target's is removed"}[r.Mode])
	fmt.Fprintf(w, "index       %d files, %d units, built in %.2f s (lexical: %s)\n", r.Files, r.Units, r.IndexSeconds, r.Lexical)
	if r.Embedder != "" {
		fmt.Fprintf(w, "embedder    %s (%.1f s to embed)\n", r.Embedder, r.EmbedSeconds)
	}
	if r.Chat != "" {
		fmt.Fprintf(w, "chat        %s\n", r.Chat)
	}
	fmt.Fprintf(w, "queries     %d (of %d eligible by CodeSearchNet's filters; unique first sentences only)\n", r.Queries, r.Documented)
	if r.Interrupted {
		fmt.Fprintf(w, "            interrupted: the queries answered before it\n")
	}
	fmt.Fprintf(w, "latency     median %.2f ms, p90 %.2f ms per query (whole pipeline)\n", r.MedianQueryMS, r.P90QueryMS)
	if r.ErrorCount > 0 {
		fmt.Fprintf(w, "errors      %d stream failures (see --json)\n", r.ErrorCount)
	}
	fmt.Fprintf(w, "\n%-12s %8s %8s %8s %8s %8s\n", "stream", "queries", "S@1", "S@5", "S@10", "MRR")
	for _, s := range r.Streams {
		fmt.Fprintf(w, "%-12s %8d %7.1f%% %7.1f%% %7.1f%% %8.3f\n", s.Stream, s.Queries, 100*s.Success1, 100*s.Success5, 100*s.Success, s.MRR)
	}
	if one := r.onlyStream(); one != "" {
		fmt.Fprintf(w, "(one stream ran: %s differs from %s only by the result order search applies to it: a class just below its best member, constructors after the other members, tests placed)\n", search.StreamFused, one)
	}
	m := r.Match
	fmt.Fprintf(w, "\ntop hit strong (match >= %.2f): %d queries, fused S@1 %.1f%%, S@10 %.1f%%; weak: %d queries, S@1 %.1f%%, S@10 %.1f%%\n",
		search.StrongMatch, m.Strong, 100*m.StrongS1, 100*m.StrongS10, m.Weak, 100*m.WeakS1, 100*m.WeakS10)
}
