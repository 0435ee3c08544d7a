// Package repairbench is the measuring code of "repilot-lsp bench repair":
// it runs the repair loop on every bug of a corpus (docs/bug-corpus.md) for
// one or more Repilot variants and language-model backends, and sums the
// runs into the columns of the paper's ablation table (Repilot, FSE 2023,
// Table 3) plus time to results and the engine's cost (issue 14). The
// command (cli/bench.go) parses flags and prints; the backends come from
// package backend.
package repairbench

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/repilot-lsp/repilot-lsp/backend"
	"github.com/repilot-lsp/repilot-lsp/corpus"
	"github.com/repilot-lsp/repilot-lsp/repair"
)

// Options say what RunBackend runs on each bug.
type Options struct {
	// Variants are repair.Variants names, run in this order on each bug.
	Variants []string
	// Sampling gives Samples (per bug), Seed, Temperature, TopP and
	// MaxTokens; its other fields are ignored (each variant's come from
	// repair.Options.WithVariant, and every candidate is kept).
	Sampling repair.Options
	// NoTests skips the bugs' test_cmd (the plausible columns then read 0).
	NoTests bool
	// Shared: one JDT LS imports every bug's project (backend.NewShared)
	// instead of one per bug.
	Shared bool
	// WarmFile: before each bug's repair (and outside its clock), start the
	// bug's backends and warm the engine up on the bug's file
	// (backend.Pool.Warm, then WarmFile), as serve does when the editor
	// opens that file (cli/warm.go). Off: the backends start inside the
	// first repair's acquire and only StartJDT's own warm-up runs.
	WarmFile bool
	// WarmWait is how long, after WarmFile's warm-up, the bug's repair
	// waits (the time a user takes between opening a file and asking for
	// its repair; JDT LS finishes the work that opening and closing the
	// document started meanwhile). Only with WarmFile.
	WarmWait time.Duration
	// Concurrency is how many samples of a repair are drawn at once
	// (repair.Options.Concurrency; bench repair's --model-concurrency with
	// a model server, as in repair); 0 or 1: one at a time. Equal seeds
	// give equal patches at any concurrency.
	Concurrency int
	// Log, if set, hears one line per run (printf-style).
	Log func(format string, args ...any)
}

// Run is the outcome of one bug under one variant. Unique, Compilable and
// Plausible count unique candidates (repair.Patch); Exact says one of them
// is the developer's fix (corpus.Bug.FixedHunk, compared by repair.MatchKey).
type Run struct {
	Backend    string       `json:"backend"`
	Bug        string       `json:"bug"`
	Variant    string       `json:"variant"`
	Unique     int          `json:"unique"`
	Compilable int          `json:"compilable"`
	Plausible  int          `json:"plausible"`
	Exact      bool         `json:"exact"`
	ExactRank  int          `json:"exact_rank,omitempty"` // 1-based rank of the exact fix among candidates
	Stats      repair.Stats `json:"stats"`
	Error      string       `json:"error,omitempty"`
	Retried    bool         `json:"retried,omitempty"` // the first attempt timed out
	// Candidates are the validated unique candidates in ranked order.
	Candidates []Candidate `json:"candidates,omitempty"`
}

// Candidate is one validated candidate (bench repair --json); its fields
// are repair.Patch's: LogProb the sum of the sampled tokens' natural-log
// probabilities, Tokens the tokens sampled, Count the samples that gave it.
type Candidate struct {
	Hunk       string  `json:"hunk"`
	Compilable bool    `json:"compilable"`
	Plausible  bool    `json:"plausible"`
	Exact      bool    `json:"exact"`
	LogProb    float64 `json:"logprob"`
	Tokens     int     `json:"tokens"`
	Count      int     `json:"count"`
	// NewErrors are the compile errors the candidate introduces ("line N: message"), empty when it is compilable.
	NewErrors []string `json:"new_errors,omitempty"`
	// Tested: test_cmd ran; TestOutput is the tail of its output and
	// TestTimedOut says it was killed at the bug's timeout.
	Tested       bool   `json:"tested"`
	TestOutput   string `json:"test_output,omitempty"`
	TestTimedOut bool   `json:"test_timed_out,omitempty"`
}

// Row is one variant's totals: the Table-3 columns.
type Row struct {
	Backend        string  `json:"backend"`
	Variant        string  `json:"variant"`
	Bugs           int     `json:"bugs"`
	Errors         int     `json:"errors"`
	Samples        int     `json:"samples"`
	Unique         int     `json:"unique"`
	TimePerPatch   float64 `json:"time_per_patch_s"`
	CompilablePct  float64 `json:"compilable_pct"`
	PlausiblePct   float64 `json:"plausible_pct"`
	PlausibleFixes int     `json:"plausible_fixes"`
	ExactFixes     int     `json:"exact_fixes"`
	LMPerPatch     float64 `json:"lm_requests_per_patch"`
	// RejectionsPerPatch counts proposed tokens the speculative loop did not
	// take (repair.Stats.SpecRejected), 0 for models without proposals.
	RejectionsPerPatch float64 `json:"rejections_per_patch"`
	// Per sampling attempt (repair.Stats.Samples): model requests, rejected
	// proposed tokens, and re-proposals for other reasons (SpecCuts). The
	// speculative loop keeps LMPerSample <= 1 + RejPerSample + CutsPerSample.
	TimePerSample   float64 `json:"time_per_sample_s"` // sampling wall time per sampling attempt
	LMPerSample     float64 `json:"lm_requests_per_sample"`
	RejPerSample    float64 `json:"rejections_per_sample"`
	CutsPerSample   float64 `json:"cuts_per_sample"`
	QueriesPerPatch float64 `json:"engine_queries_per_patch"`
	EnginePerPatch  float64 `json:"jdtls_requests_per_patch"`
	SampleSeconds   float64 `json:"sample_seconds"`
	ValidateSeconds float64 `json:"validate_seconds"`

	// Time to results and engine cost (issue 14).
	Compilable int `json:"compilable"` // compilable unique candidates, all bugs together (a count)
	// Seconds from the start of a bug's repair (the engine already started)
	// to its first compilable and first plausible candidate: the median and
	// worst over the bugs that got one, and how many did.
	FirstCompilableMedian float64 `json:"first_compilable_median_s"`
	FirstCompilableWorst  float64 `json:"first_compilable_worst_s"`
	BugsCompilable        int     `json:"bugs_compilable"`
	FirstPlausibleMedian  float64 `json:"first_plausible_median_s"`
	FirstPlausibleWorst   float64 `json:"first_plausible_worst_s"`
	// Tokens sampled; engine wall time per sampled token (milliseconds), the
	// median over bugs and over all tokens; JDT LS requests per token.
	Tokens                 int64   `json:"tokens"`
	EngineMsPerTokenMedian float64 `json:"engine_ms_per_token_median"`
	EngineMsPerToken       float64 `json:"engine_ms_per_token"`
	JDTPerToken            float64 `json:"jdtls_requests_per_token"`
	// TruncatedPct is the share of samples that reached --max-tokens.
	TruncatedPct float64 `json:"truncated_pct"`
}

// Failed is the benchmark's error when a bug's repair failed in some row
// (bench repair's exit status is then non-zero, with --json too).
func Failed(rows []Row) error {
	for _, r := range rows {
		if r.Errors > 0 {
			return fmt.Errorf("%d of %s failed for backend %s, variant %s (see stderr)", r.Errors, plural(r.Bugs, "repair", "repairs"), r.Backend, r.Variant)
		}
	}
	return nil
}

// median returns the median of xs (0 for none); xs is sorted in place.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	sort.Float64s(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// RunBackend runs every bug of bugs under every variant of o with one
// language-model backend: a backend.Pool built from cfg (one JDT LS per bug,
// or with o.Shared one for all), closed before it returns. name labels the
// backend in the runs and the log. Bugs run one after another, the variants
// of a bug one after another on its JDT LS; a run that failed on a deadline
// is tried once more (Run.Retried). It returns the runs so far and ctx's
// error when ctx ends (Ctrl-C), or the error of building the pool.
func RunBackend(ctx context.Context, cfg backend.Config, name string, bugs []corpus.Bug, o Options) ([]Run, error) {
	logf := o.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	var (
		r   *backend.Pool
		err error
	)
	if !o.Shared {
		r, err = backend.New(cfg)
	} else {
		roots := make([]string, len(bugs))
		for i, b := range bugs {
			roots[i] = b.ProjectDir()
		}
		r, err = backend.NewShared(cfg, roots)
	}
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var runs []Run
	for _, b := range bugs {
		if o.WarmFile {
			if err := warmFile(ctx, r, b); err != nil {
				logf("%s %s: warming up on the file: %v", name, b.ID, err)
			}
			select {
			case <-time.After(o.WarmWait):
			case <-ctx.Done():
				return runs, ctx.Err()
			}
		}
		for _, v := range o.Variants {
			run := one(ctx, r, b, v, o)
			if err := ctx.Err(); err != nil {
				return runs, err
			}
			if run.Error != "" && strings.Contains(run.Error, context.DeadlineExceeded.Error()) {
				// A JDT LS still importing the corpus's projects can miss a
				// deadline once; a second failure is reported.
				logf("%s %s %s: %s; retrying once", name, b.ID, v, run.Error)
				run = one(ctx, r, b, v, o)
				run.Retried = true
			}
			run.Backend = name
			if run.Error != "" {
				logf("%s %s %s: error: %s", name, b.ID, v, run.Error)
			} else {
				logf("%s %s %-10s %2d unique, %2d compilable, %2d plausible, exact=%v, %s, %s", name, b.ID, v, run.Unique, run.Compilable, run.Plausible, run.Exact, plural(run.Stats.LMRequests, "LM request", "LM requests"), run.Stats.Duration.Round(time.Millisecond))
			}
			runs = append(runs, run)
		}
	}
	return runs, nil
}

// warmFile does what serve's warm-up does when the editor opens b's file:
// starts its project's backends, then warms the engine up on the file.
func warmFile(ctx context.Context, r *backend.Pool, b corpus.Bug) error {
	text, err := os.ReadFile(b.FilePath())
	if err != nil {
		return err
	}
	if err := r.Warm(ctx, b.ProjectDir(), nil); err != nil {
		return err
	}
	return r.WarmFile(ctx, b.ProjectDir(), b.FilePath(), string(text))
}

// one repairs one bug with one variant; errors are recorded, not returned,
// so one broken fixture does not stop the benchmark.
func one(ctx context.Context, r repair.Repairer, b corpus.Bug, variant string, o Options) Run {
	run := Run{Bug: b.ID, Variant: variant}
	opts, err := repair.DefaultOptions().WithVariant(variant)
	if err != nil {
		run.Error = err.Error()
		return run
	}
	s := o.Sampling
	opts.Samples, opts.Seed, opts.MaxTokens = s.Samples, s.Seed, s.MaxTokens
	opts.Temperature, opts.TopP = s.Temperature, s.TopP
	opts.KeepTop = 1 << 30
	opts.Concurrency = max(1, o.Concurrency)
	text, err := os.ReadFile(b.FilePath())
	if err != nil {
		run.Error = err.Error()
		return run
	}
	req := repair.Request{
		Root: b.ProjectDir(), File: b.FilePath(), Text: string(text),
		StartLine: b.StartLine, EndLine: b.EndLine, Options: opts,
		TestTimeout: b.Timeout(),
	}
	if !o.NoTests {
		req.TestCmd = b.TestCmd
	}
	res, err := r.Repair(ctx, req, nil)
	if err != nil {
		run.Error = err.Error()
		return run
	}
	run.Stats = res.Stats
	run.Unique = len(res.Candidates)
	fixed := repair.MatchKey(b.FixedHunk)
	for i, p := range res.Candidates {
		if p.Compilable {
			run.Compilable++
		}
		if p.Plausible {
			run.Plausible++
		}
		exact := repair.MatchKey(p.Hunk) == fixed
		if exact && !run.Exact {
			run.Exact, run.ExactRank = true, i+1
		}
		run.Candidates = append(run.Candidates, Candidate{Hunk: p.Hunk, Compilable: p.Compilable, Plausible: p.Plausible,
			Exact: exact, LogProb: p.LogProb, Tokens: p.Tokens, Count: p.Count, NewErrors: p.NewErrors,
			Tested: p.Tested, TestOutput: p.TestOutput, TestTimedOut: p.TestTimedOut})
	}
	return run
}

// Totals sums the runs of one backend and variant into Table-3 columns.
func Totals(name, variant string, runs []Run) Row {
	row := Row{Backend: name, Variant: variant}
	var lm, eng, queries, rejected, cuts int64
	var sample, validate, engTime time.Duration
	var firstComp, firstPlaus, msPerTok []float64
	truncated := 0
	compilable, plausible := 0, 0
	for _, r := range runs {
		if r.Variant != variant || r.Backend != name {
			continue
		}
		row.Bugs++
		if r.Error != "" {
			row.Errors++
			continue
		}
		row.Samples += r.Stats.Samples
		row.Unique += r.Unique
		compilable += r.Compilable
		plausible += r.Plausible
		if r.Plausible > 0 {
			row.PlausibleFixes++
		}
		if r.Exact {
			row.ExactFixes++
		}
		lm += r.Stats.LMRequests
		rejected += r.Stats.SpecRejected
		cuts += r.Stats.SpecCuts
		eng += r.Stats.EngineRequests
		queries += r.Stats.EngineCalls
		sample += r.Stats.SampleTime
		validate += r.Stats.ValidateTime
		engTime += r.Stats.EngineTime
		row.Tokens += r.Stats.Tokens
		truncated += r.Stats.Truncated
		if r.Stats.FirstCompilable > 0 {
			firstComp = append(firstComp, r.Stats.FirstCompilable.Seconds())
		}
		if r.Stats.FirstPlausible > 0 {
			firstPlaus = append(firstPlaus, r.Stats.FirstPlausible.Seconds())
		}
		if r.Stats.Tokens > 0 {
			msPerTok = append(msPerTok, float64(r.Stats.EngineTime.Microseconds())/1000/float64(r.Stats.Tokens))
		}
	}
	row.Compilable = compilable
	row.BugsCompilable = len(firstComp)
	row.FirstCompilableMedian, row.FirstPlausibleMedian = median(firstComp), median(firstPlaus)
	if n := len(firstComp); n > 0 {
		row.FirstCompilableWorst = firstComp[n-1] // sorted by median
	}
	if n := len(firstPlaus); n > 0 {
		row.FirstPlausibleWorst = firstPlaus[n-1]
	}
	row.EngineMsPerTokenMedian = median(msPerTok)
	if row.Tokens > 0 {
		row.EngineMsPerToken = float64(engTime.Microseconds()) / 1000 / float64(row.Tokens)
		row.JDTPerToken = float64(eng) / float64(row.Tokens)
	}
	if row.Samples > 0 {
		row.TruncatedPct = 100 * float64(truncated) / float64(row.Samples)
	}
	row.SampleSeconds, row.ValidateSeconds = sample.Seconds(), validate.Seconds()
	if row.Samples > 0 {
		n := float64(row.Samples)
		row.TimePerSample = sample.Seconds() / n
		row.LMPerSample, row.RejPerSample, row.CutsPerSample = float64(lm)/n, float64(rejected)/n, float64(cuts)/n
	}
	if row.Unique > 0 {
		u := float64(row.Unique)
		row.TimePerPatch = sample.Seconds() / u
		row.CompilablePct = 100 * float64(compilable) / u
		row.PlausiblePct = 100 * float64(plausible) / u
		row.LMPerPatch = float64(lm) / u
		row.RejectionsPerPatch = float64(rejected) / u
		row.EnginePerPatch = float64(eng) / u
		row.QueriesPerPatch = float64(queries) / u
	}
	return row
}

// plural is "1 line" or "n lines": n followed by one or many.
func plural[N int | int64](n N, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
