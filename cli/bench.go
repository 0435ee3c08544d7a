package cli

// bench.go is "repilot-lsp bench repair": run the repair loop on every bug of
// a corpus (the README's "Bug fixtures" format) for one or more Repilot variants and
// print the columns of the paper's ablation table (Repilot, FSE 2023,
// Table 3).

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/repilot-lsp/repilot-lsp/backend"
	"github.com/repilot-lsp/repilot-lsp/corpus"
	"github.com/repilot-lsp/repilot-lsp/engine"
	"github.com/repilot-lsp/repilot-lsp/repair"
)

// benchCmd groups the benchmarks ("bench repair", ...).
var benchCmd = &cobra.Command{
	Use:   "bench",
	Short: "Benchmarks on bug corpora",
}

// corpusFlags choose the bugs of a benchmark: --corpus and --bug, shared by
// bench repair and bench engine.
type corpusFlags struct {
	dir  string   // corpus directory (README, "Bug fixtures")
	only []string // bug ids to run; empty: all
}

// addCorpusFlags registers --corpus and --bug on fs, bound to f.
func addCorpusFlags(fs *pflag.FlagSet, f *corpusFlags) {
	fs.StringVar(&f.dir, "corpus", "testdata/bugs", "corpus directory (one folder per bug: bug.json + project/, see the README's \"Bug fixtures\")")
	fs.StringSliceVar(&f.only, "bug", nil, "run only these bug ids (repeat or comma-separate)")
}

// load reads the corpus and keeps the bugs --bug names, in corpus order.
// Errors: the corpus's (corpus.Load), or a --bug id the corpus lacks.
func (f corpusFlags) load() ([]corpus.Bug, error) {
	bugs, err := corpus.Load(f.dir)
	if err != nil || len(f.only) == 0 {
		return bugs, err
	}
	keep := map[string]bool{}
	for _, id := range f.only {
		keep[id] = true
	}
	found := map[string]bool{}
	var sel []corpus.Bug
	for _, b := range bugs {
		if keep[b.ID] {
			sel = append(sel, b)
			found[b.ID] = true
		}
	}
	var missing []string
	for _, id := range f.only {
		if !found[id] {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("no bug of %s has id %s", f.dir, strings.Join(missing, ", "))
	}
	return sel, nil
}

type benchRepairFlags struct {
	corpus   corpusFlags
	variants []string
	sampling samplingFlags
	noTests  bool
	jsonOut  bool
	perBug   bool
	jdtls    string
	stateDir string
	shared   bool
	backends []string
	model    modelFlags
	// requestTimeout and compileTimeout bound the engine's JDT LS requests
	// and compile checks (0: the engine's defaults).
	requestTimeout time.Duration
	compileTimeout time.Duration
}

func init() {
	var f benchRepairFlags
	cmd := &cobra.Command{
		Use:   "repair --corpus DIR [--variant base|prune|prune+memo|full]...",
		Short: "Repair every bug of a corpus and print Table-3 columns per variant and backend",
		Long: `bench repair runs "repair" on every bug folder of a corpus in the
format of the README's "Bug fixtures" section (bug.json + project/) with JDT LS as completion
engine, once per variant and language-model backend, and prints per backend and
variant:

  time/patch    sampling wall time per unique candidate (seconds; validation excluded)
  compilable    % of unique candidates that compile (no new JDT LS error)
  plausible     % of unique candidates that compile and pass the bug's test_cmd
  #plausible    bugs with at least one plausible candidate
  #exact        bugs with a candidate equal to fixed_hunk after whitespace normalisation
  LM req/patch  model requests per unique candidate
  rejections/patch  proposed tokens the speculative loop did not take (pruned
                or outside the nucleus) per unique candidate; 0 for the n-gram
                model, which is asked token by token
  time/sample, LM req/sample, rejections/sample, cuts/sample  per sampling
                attempt, with re-proposals for other reasons (cuts); the
                speculative loop keeps LM req <= 1 + rejections + cuts
  queries/patch completion-engine queries (Check and Complete calls the loop
                made, memo hits excluded) per unique candidate
  JDT req/patch JDT LS requests the engine sent per unique candidate; the
                engine caches member lists per site, so a variant run after
                another on the same bug finds them warm (variants run in the
                order given)

and a second table, on time to results and the engine's cost:

  compilable patches  compilable unique candidates, all bugs (a count)
  first compilable / first plausible  seconds from the start of a bug's
                repair to its first compilable / plausible candidate, median
                and worst over the bugs that got one
  engine ms/token  wall time inside completion-engine calls per sampled
                token: the median over bugs, and over all tokens
  JDT LS req/token  JDT LS requests the engine sent per sampled token
  samples at --max-tokens %  samples discarded for reaching --max-tokens

The exit status is non-zero when some bug's repair failed (with --json too);
Ctrl-C stops the benchmark and prints the bugs finished so far.

Backends (--backend, comma-separated): "ngram", the embedded n-gram model, and
"openai", the OpenAI-compatible server of --model-base-url (llama.cpp's
llama-server, vLLM, ...). Default: ngram, plus openai when a server is
configured (flag or $` + EnvModelBaseURL + `). Each backend gets its own JDT LS per
bug, so neither finds the other's caches warm.

A "patch" here is a unique candidate (after whitespace normalisation, and not
equal to the buggy lines), as in the paper's "unique patches". Bugs run one after
another, each on its own JDT LS (--shared-engine: one for all), and the
variants of a bug one after another on that JDT LS.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runBenchRepair(cmd.Context(), f, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	fl := cmd.Flags()
	addCorpusFlags(fl, &f.corpus)
	fl.StringSliceVar(&f.variants, "variant", []string{"full"}, "variants to run (repeat or comma-separate): "+strings.Join(repair.Variants, ", ")+", or all")
	addSamplingFlags(fl, &f.sampling, "samples per bug")
	fl.BoolVar(&f.noTests, "no-tests", false, "skip test_cmd (plausible columns then read 0)")
	fl.BoolVar(&f.jsonOut, "json", false, "print JSON (per-bug results and totals)")
	fl.BoolVar(&f.perBug, "per-bug", false, "also print one line per bug and variant")
	addJDTLSFlag(fl, &f.jdtls)
	fl.BoolVar(&f.shared, "shared-engine", false, "one JDT LS serving every project of the corpus (much faster; JDT LS 1.20 imported only some of 15 projects this way and compile checks then timed out)")
	addStateDirFlag(fl, &f.stateDir, false)
	fl.StringSliceVar(&f.backends, "backend", nil, "language-model backends to run (comma-separate): ngram, openai (default: ngram, plus openai when --model-base-url or $"+EnvModelBaseURL+" is set)")
	addModelFlags(fl, &f.model)
	fl.DurationVar(&f.requestTimeout, "request-timeout", engine.DefaultRequestTimeout, "bound on one completion-engine request to JDT LS (a timed-out decision is unknown)")
	fl.DurationVar(&f.compileTimeout, "compile-timeout", engine.DefaultCompileTimeout, "bound on one compile check (waiting for JDT LS's diagnostics)")
	benchCmd.AddCommand(cmd)
	Root.AddCommand(benchCmd)
}

// bugRun is the outcome of one bug under one variant.
type bugRun struct {
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
	Candidates []benchCandidate `json:"candidates,omitempty"`
}

// benchCandidate is one validated candidate in --json output.
type benchCandidate struct {
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

// benchRow is one variant's totals: the Table-3 columns.
type benchRow struct {
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

func runBenchRepair(ctx context.Context, f benchRepairFlags, stdout, stderr io.Writer) (err error) {
	ctx, interrupted, stop := withSignals(ctx)
	defer stop()
	defer func() { err = interrupted(err) }()
	bugs, err := f.corpus.load()
	if err != nil {
		return err
	}
	var variants []string
	for _, v := range f.variants {
		if v == "all" {
			variants = append(variants, repair.Variants...)
			continue
		}
		if _, err := repair.DefaultOptions().WithVariant(v); err != nil {
			return err
		}
		variants = append(variants, v)
	}
	if err := f.sampling.apply(&repair.Options{}); err != nil {
		return err
	}
	model, err := f.model.resolve(os.Getenv)
	if err != nil {
		return err
	}
	backends, err := benchBackends(f.backends, model)
	if err != nil {
		return err
	}

	logf := func(format string, a ...any) { fmt.Fprintf(stderr, "bench: "+format+"\n", a...) }
	var runs []bugRun
	var stopped error // ctx's error when interrupted
	for _, lmName := range backends {
		cfg := backend.Config{JDTLSHome: f.jdtls, StateDir: f.stateDir, MaxRoots: 1,
			Progress: func(msg string, _ int) { logf("%s", msg) },
			Engine:   []engine.JDTOption{engine.WithRequestTimeout(f.requestTimeout), engine.WithCompileTimeout(f.compileTimeout)}}
		if lmName == backendOpenAI {
			cfg.Model = model
			if err := backend.CheckModel(ctx, model); err != nil {
				return err
			}
		}
		logf("backend %s: %s", lmName, cfg.Model)
		got, err := benchBackend(ctx, cfg, lmName, bugs, variants, f, logf)
		runs = append(runs, got...)
		if err != nil {
			if ctx.Err() == nil {
				return err
			}
			// Interrupted (Ctrl-C): the bugs finished so far are reported
			// below, then the interruption is the command's error.
			logf("interrupted: reporting the %s finished so far", plural(len(runs), "run", "runs"))
			stopped = ctx.Err()
			break
		}
	}
	defer func() {
		if stopped != nil && err == nil {
			err = stopped // after the results so far are printed
		}
	}()
	rows := make([]benchRow, 0, len(backends)*len(variants))
	for _, lmName := range backends {
		for _, v := range variants {
			rows = append(rows, totals(lmName, v, runs))
		}
	}
	if f.jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			Corpus    string     `json:"corpus"`
			Samples   int        `json:"samples"`
			Seed      int64      `json:"seed"`
			MaxTokens int        `json:"max_tokens"`
			Model     string     `json:"openai_model,omitempty"` // the openai backend's configuration, without the key
			Rows      []benchRow `json:"variants"`
			Runs      []bugRun   `json:"runs"`
		}{f.corpus.dir, f.sampling.samples, f.sampling.seed, f.sampling.maxTokens, model.Label(), rows, runs}); err != nil {
			return err
		}
		return benchFailed(rows)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	if f.perBug {
		fmt.Fprintln(tw, "backend\tbug\tvariant\tunique\tcompilable\tplausible\texact\tLM req\tJDT req\tseconds\t")
		for _, r := range runs {
			if r.Error != "" {
				fmt.Fprintf(tw, "%s\t%s\t%s\terror: %s\t\t\t\t\t\t\t\n", r.Backend, r.Bug, r.Variant, r.Error)
				continue
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%v\t%d\t%d\t%.1f\t\n", r.Backend, r.Bug, r.Variant, r.Unique, r.Compilable, r.Plausible, r.Exact,
				r.Stats.LMRequests, r.Stats.EngineRequests, r.Stats.Duration.Seconds())
		}
		fmt.Fprintln(tw, "\t\t\t\t\t\t\t\t\t\t")
	}
	fmt.Fprintf(tw, "backend\tvariant\tbugs\tunique patches\ttime/patch (s)\tcompilable %%\tplausible %%\t#plausible fixes\t#exact fixes\tLM req/patch\trejections/patch\ttime/sample (s)\tLM req/sample\trejections/sample\tcuts/sample\tengine queries/patch\tJDT LS req/patch\t\n")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.3f\t%.1f\t%.1f\t%d\t%d\t%.1f\t%.1f\t%.3f\t%.2f\t%.2f\t%.2f\t%.1f\t%.2f\t\n", r.Backend, r.Variant, r.Bugs, r.Unique, r.TimePerPatch,
			r.CompilablePct, r.PlausiblePct, r.PlausibleFixes, r.ExactFixes, r.LMPerPatch, r.RejectionsPerPatch,
			r.TimePerSample, r.LMPerSample, r.RejPerSample, r.CutsPerSample, r.QueriesPerPatch, r.EnginePerPatch)
	}
	fmt.Fprintln(tw, "\t\t\t\t\t\t\t\t\t\t\t\t\t")
	fmt.Fprintf(tw, "backend\tvariant\tcompilable patches\tbugs with one\tfirst compilable s (median)\t(worst)\tbugs plausible\tfirst plausible s (median)\t(worst)\ttokens\tengine ms/token (median over bugs)\t(all tokens)\tJDT LS req/token\tsamples at --max-tokens %%\t\n")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.1f\t%.1f\t%d\t%.1f\t%.1f\t%d\t%.2f\t%.2f\t%.3f\t%.1f\t\n", r.Backend, r.Variant, r.Compilable, r.BugsCompilable,
			r.FirstCompilableMedian, r.FirstCompilableWorst, r.PlausibleFixes, r.FirstPlausibleMedian, r.FirstPlausibleWorst,
			r.Tokens, r.EngineMsPerTokenMedian, r.EngineMsPerToken, r.JDTPerToken, r.TruncatedPct)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if model.Remote() {
		fmt.Fprintf(stdout, "\nopenai = %s\n", model.Label())
	}
	return benchFailed(rows)
}

// benchFailed is the command's error when a bug's repair failed in some row
// (the exit status is then non-zero, with --json too).
func benchFailed(rows []benchRow) error {
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

// Backend names of bench repair.
const (
	backendNgram  = "ngram"  // the embedded n-gram model
	backendOpenAI = "openai" // the configured OpenAI-compatible server
)

// benchBackends checks --backend against the model configuration; empty
// means ngram, plus openai when a server is configured.
func benchBackends(names []string, model backend.ModelConfig) ([]string, error) {
	if len(names) == 0 {
		names = []string{backendNgram}
		if model.Remote() {
			names = append(names, backendOpenAI)
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, n := range names {
		n = strings.ToLower(strings.TrimSpace(n))
		switch n {
		case backendNgram:
		case backendOpenAI:
			if !model.Remote() {
				return nil, fmt.Errorf("--backend openai needs a model server: --model-base-url or $%s", EnvModelBaseURL)
			}
		default:
			return nil, fmt.Errorf("unknown backend %q (want %s or %s)", n, backendNgram, backendOpenAI)
		}
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out, nil
}

// benchBackend runs every bug and variant with one backend's repair service
// (closed before it returns). It returns the runs so far and the context's
// error when the benchmark is interrupted.
func benchBackend(ctx context.Context, cfg backend.Config, lmName string, bugs []corpus.Bug, variants []string, f benchRepairFlags, logf func(string, ...any)) ([]bugRun, error) {
	var (
		r   repair.Repairer
		err error
	)
	if !f.shared {
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
	if c, ok := r.(io.Closer); ok {
		defer c.Close()
	}
	var runs []bugRun
	for _, b := range bugs {
		for _, v := range variants {
			run := benchOne(ctx, r, b, v, f)
			if err := ctx.Err(); err != nil {
				return runs, err
			}
			if run.Error != "" && strings.Contains(run.Error, context.DeadlineExceeded.Error()) {
				// A JDT LS still importing the corpus's projects can miss a
				// deadline once; a second failure is reported.
				logf("%s %s %s: %s; retrying once", lmName, b.ID, v, run.Error)
				run = benchOne(ctx, r, b, v, f)
				run.Retried = true
			}
			run.Backend = lmName
			if run.Error != "" {
				logf("%s %s %s: error: %s", lmName, b.ID, v, run.Error)
			} else {
				logf("%s %s %-10s %2d unique, %2d compilable, %2d plausible, exact=%v, %s, %s", lmName, b.ID, v, run.Unique, run.Compilable, run.Plausible, run.Exact, plural(run.Stats.LMRequests, "LM request", "LM requests"), run.Stats.Duration.Round(time.Millisecond))
			}
			runs = append(runs, run)
		}
	}
	return runs, nil
}

// benchOne repairs one bug with one variant; errors are recorded, not returned,
// so one broken fixture does not stop the benchmark.
func benchOne(ctx context.Context, r repair.Repairer, b corpus.Bug, variant string, f benchRepairFlags) bugRun {
	run := bugRun{Bug: b.ID, Variant: variant}
	opts, _ := repair.DefaultOptions().WithVariant(variant)
	_ = f.sampling.apply(&opts) // checked in runBenchRepair
	opts.KeepTop = 1 << 30
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
	if !f.noTests {
		req.TestCmd = b.TestCmd
	}
	res, err := r.Repair(ctx, req, nil)
	if err != nil {
		run.Error = err.Error()
		return run
	}
	run.Stats = res.Stats
	run.Unique = len(res.Candidates)
	fixed := repair.Normalize(b.FixedHunk)
	for i, p := range res.Candidates {
		if p.Compilable {
			run.Compilable++
		}
		if p.Plausible {
			run.Plausible++
		}
		exact := repair.Normalize(p.Hunk) == fixed
		if exact && !run.Exact {
			run.Exact, run.ExactRank = true, i+1
		}
		run.Candidates = append(run.Candidates, benchCandidate{Hunk: p.Hunk, Compilable: p.Compilable, Plausible: p.Plausible,
			Exact: exact, LogProb: p.LogProb, Tokens: p.Tokens, Count: p.Count, NewErrors: p.NewErrors,
			Tested: p.Tested, TestOutput: p.TestOutput, TestTimedOut: p.TestTimedOut})
	}
	return run
}

// totals sums the runs of one backend and variant into Table-3 columns.
func totals(lmName, variant string, runs []bugRun) benchRow {
	row := benchRow{Backend: lmName, Variant: variant}
	var lm, eng, queries, rejected, cuts int64
	var sample, validate, engTime time.Duration
	var firstComp, firstPlaus, msPerTok []float64
	truncated := 0
	compilable, plausible := 0, 0
	for _, r := range runs {
		if r.Variant != variant || r.Backend != lmName {
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
