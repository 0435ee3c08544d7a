package cli

// bench.go is "repilot-lsp bench repair": run the repair loop on every bug of
// a corpus (shared/bug-corpus.md format) for one or more Repilot variants and
// print the columns of the paper's ablation table (Repilot, FSE 2023,
// Table 3).

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/repilot-lsp/repilot-lsp/corpus"
	"github.com/repilot-lsp/repilot-lsp/repair"
)

// benchCmd groups the benchmarks ("bench repair", ...).
var benchCmd = &cobra.Command{
	Use:   "bench",
	Short: "Benchmarks on bug corpora",
}

type benchRepairFlags struct {
	corpus   string
	variants []string
	samples  int
	seed     int64
	temp     float64
	topP     float64
	noTests  bool
	jsonOut  bool
	perBug   bool
	only     []string
	jdtls    string
	stateDir string
	shared   bool
}

func init() {
	var f benchRepairFlags
	cmd := &cobra.Command{
		Use:   "repair --corpus DIR [--variant base|prune|prune+memo|full]...",
		Short: "Repair every bug of a corpus and print Table-3 columns per variant",
		Long: `bench repair runs "repair" on every bug folder of a corpus in the
shared/bug-corpus.md format (bug.json + project/) with the embedded n-gram model
and JDT LS as completion engine, once per variant, and prints per variant:

  time/patch    sampling wall time per unique candidate (seconds; validation excluded)
  compilable    % of unique candidates that compile (no new JDT LS error)
  plausible     % of unique candidates that compile and pass the bug's test_cmd
  #plausible    bugs with at least one plausible candidate
  #exact        bugs with a candidate equal to fixed_hunk after whitespace normalisation
  LM req/patch  model requests per unique candidate
  queries/patch completion-engine queries (Check and Complete calls the loop
                made, memo hits excluded) per unique candidate
  JDT req/patch JDT LS requests the engine sent per unique candidate; the
                engine caches member lists per site, so a variant run after
                another on the same bug finds them warm (variants run in the
                order given)

A "patch" here is a unique candidate (after whitespace normalisation, and not
equal to the buggy lines), as in the paper's "unique patches". Bugs run one after
another, each on its own JDT LS (--shared-engine: one for all), and the
variants of a bug one after another on that JDT LS.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runBenchRepair(cmd.Context(), f, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.corpus, "corpus", "testdata/bugs", "corpus directory (one folder per bug)")
	fl.StringSliceVar(&f.variants, "variant", []string{"full"}, "variants to run (repeat or comma-separate): "+strings.Join(repair.Variants, ", ")+", or all")
	fl.IntVar(&f.samples, "samples", repair.DefaultSamples, "samples per bug")
	fl.Int64Var(&f.seed, "seed", 0, "sampling seed")
	fl.Float64Var(&f.temp, "temperature", repair.DefaultTemperature, "sampling temperature (0: greedy)")
	fl.Float64Var(&f.topP, "top-p", repair.DefaultTopP, "nucleus mass in (0,1]")
	fl.BoolVar(&f.noTests, "no-tests", false, "skip test_cmd (plausible columns then read 0)")
	fl.BoolVar(&f.jsonOut, "json", false, "print JSON (per-bug results and totals)")
	fl.BoolVar(&f.perBug, "per-bug", false, "also print one line per bug and variant")
	fl.StringSliceVar(&f.only, "bug", nil, "run only these bug ids")
	fl.StringVar(&f.jdtls, "jdtls", "", "JDT LS install directory")
	fl.BoolVar(&f.shared, "shared-engine", false, "one JDT LS serving every project of the corpus (much faster; JDT LS 1.20 imported only some of 15 projects this way and compile checks then timed out)")
	fl.StringVar(&f.stateDir, "state-dir", "", "where the engine's JDT LS data and model caches live")
	benchCmd.AddCommand(cmd)
	Root.AddCommand(benchCmd)
}

// bugRun is the outcome of one bug under one variant.
type bugRun struct {
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
}

// benchRow is one variant's totals: the Table-3 columns.
type benchRow struct {
	Variant         string  `json:"variant"`
	Bugs            int     `json:"bugs"`
	Errors          int     `json:"errors"`
	Samples         int     `json:"samples"`
	Unique          int     `json:"unique"`
	TimePerPatch    float64 `json:"time_per_patch_s"`
	CompilablePct   float64 `json:"compilable_pct"`
	PlausiblePct    float64 `json:"plausible_pct"`
	PlausibleFixes  int     `json:"plausible_fixes"`
	ExactFixes      int     `json:"exact_fixes"`
	LMPerPatch      float64 `json:"lm_requests_per_patch"`
	QueriesPerPatch float64 `json:"engine_queries_per_patch"`
	EnginePerPatch  float64 `json:"jdtls_requests_per_patch"`
	SampleSeconds   float64 `json:"sample_seconds"`
	ValidateSeconds float64 `json:"validate_seconds"`
}

func runBenchRepair(ctx context.Context, f benchRepairFlags, stdout, stderr io.Writer) error {
	bugs, err := corpus.Load(f.corpus)
	if err != nil {
		return err
	}
	if len(f.only) > 0 {
		keep := map[string]bool{}
		for _, id := range f.only {
			keep[id] = true
		}
		var sel []corpus.Bug
		for _, b := range bugs {
			if keep[b.ID] {
				sel = append(sel, b)
			}
		}
		if len(sel) == 0 {
			return fmt.Errorf("no bug of %s has id %s", f.corpus, strings.Join(f.only, ", "))
		}
		bugs = sel
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
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()

	logf := func(format string, a ...any) { fmt.Fprintf(stderr, "bench: "+format+"\n", a...) }
	cfg := RepairConfig{JDTLSHome: f.jdtls, StateDir: f.stateDir, MaxRoots: 1,
		Progress: func(msg string, _ int) { logf("%s", msg) }}
	var r repair.Repairer
	if !f.shared {
		r, err = buildRepairer(cfg)
	} else {
		roots := make([]string, len(bugs))
		for i, b := range bugs {
			roots[i] = b.ProjectDir()
		}
		r, err = buildSharedRepairer(cfg, roots)
	}
	if err != nil {
		return err
	}
	if c, ok := r.(io.Closer); ok {
		defer c.Close()
	}

	var runs []bugRun
	for _, b := range bugs {
		for _, v := range variants {
			run := benchOne(ctx, r, b, v, f)
			if err := ctx.Err(); err != nil {
				return err
			}
			if run.Error != "" && strings.Contains(run.Error, context.DeadlineExceeded.Error()) {
				// A JDT LS still importing the corpus's projects can miss a
				// deadline once; a second failure is reported.
				logf("%s %s: %s; retrying once", b.ID, v, run.Error)
				run = benchOne(ctx, r, b, v, f)
				run.Retried = true
			}
			if run.Error != "" {
				logf("%s %s: error: %s", b.ID, v, run.Error)
			} else {
				logf("%s %-10s %2d unique, %2d compilable, %2d plausible, exact=%v, %s", b.ID, v, run.Unique, run.Compilable, run.Plausible, run.Exact, run.Stats.Duration.Round(time.Millisecond))
			}
			runs = append(runs, run)
		}
	}
	rows := make([]benchRow, 0, len(variants))
	for _, v := range variants {
		rows = append(rows, totals(v, runs))
	}
	if f.jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Corpus  string     `json:"corpus"`
			Samples int        `json:"samples"`
			Seed    int64      `json:"seed"`
			Rows    []benchRow `json:"variants"`
			Runs    []bugRun   `json:"runs"`
		}{f.corpus, f.samples, f.seed, rows, runs})
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	if f.perBug {
		fmt.Fprintln(tw, "bug\tvariant\tunique\tcompilable\tplausible\texact\tLM req\tJDT req\tseconds\t")
		for _, r := range runs {
			if r.Error != "" {
				fmt.Fprintf(tw, "%s\t%s\terror: %s\t\t\t\t\t\t\t\n", r.Bug, r.Variant, r.Error)
				continue
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%v\t%d\t%d\t%.1f\t\n", r.Bug, r.Variant, r.Unique, r.Compilable, r.Plausible, r.Exact,
				r.Stats.LMRequests, r.Stats.EngineRequests, r.Stats.Duration.Seconds())
		}
		fmt.Fprintln(tw, "\t\t\t\t\t\t\t\t\t")
	}
	fmt.Fprintf(tw, "variant\tbugs\tunique patches\ttime/patch (s)\tcompilable %%\tplausible %%\t#plausible fixes\t#exact fixes\tLM req/patch\tengine queries/patch\tJDT LS req/patch\t\n")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.3f\t%.1f\t%.1f\t%d\t%d\t%.1f\t%.1f\t%.2f\t\n", r.Variant, r.Bugs, r.Unique, r.TimePerPatch,
			r.CompilablePct, r.PlausiblePct, r.PlausibleFixes, r.ExactFixes, r.LMPerPatch, r.QueriesPerPatch, r.EnginePerPatch)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range rows {
		if r.Errors > 0 {
			return fmt.Errorf("%d of %d repairs failed for variant %s (see stderr)", r.Errors, r.Bugs, r.Variant)
		}
	}
	return nil
}

// benchOne repairs one bug with one variant; errors are recorded, not returned,
// so one broken fixture does not stop the benchmark.
func benchOne(ctx context.Context, r repair.Repairer, b corpus.Bug, variant string, f benchRepairFlags) bugRun {
	run := bugRun{Bug: b.ID, Variant: variant}
	opts, _ := repair.DefaultOptions().WithVariant(variant)
	opts.Samples, opts.Seed, opts.KeepTop = f.samples, f.seed, 1<<30
	opts.Temperature, opts.TopP = f.temp, f.topP
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
			Exact: exact, LogProb: p.LogProb, Tokens: p.Tokens, Count: p.Count})
	}
	return run
}

// totals sums the runs of one variant into Table-3 columns.
func totals(variant string, runs []bugRun) benchRow {
	row := benchRow{Variant: variant}
	var lm, eng, queries int64
	var sample, validate time.Duration
	compilable, plausible := 0, 0
	for _, r := range runs {
		if r.Variant != variant {
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
		eng += r.Stats.EngineRequests
		queries += r.Stats.EngineCalls
		sample += r.Stats.SampleTime
		validate += r.Stats.ValidateTime
	}
	row.SampleSeconds, row.ValidateSeconds = sample.Seconds(), validate.Seconds()
	if row.Unique > 0 {
		u := float64(row.Unique)
		row.TimePerPatch = sample.Seconds() / u
		row.CompilablePct = 100 * float64(compilable) / u
		row.PlausiblePct = 100 * float64(plausible) / u
		row.LMPerPatch = float64(lm) / u
		row.EnginePerPatch = float64(eng) / u
		row.QueriesPerPatch = float64(queries) / u
	}
	return row
}
