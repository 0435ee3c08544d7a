package cli

// bench.go is "repilot-lsp bench repair": run the repair loop on every bug of
// a corpus (the README's "Bug fixtures" format) for one or more Repilot variants and
// print the columns of the paper's ablation table (Repilot, FSE 2023,
// Table 3). The work is in bench/repairbench; this file parses flags and
// prints.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/repilot-lsp/repilot-lsp/backend"
	"github.com/repilot-lsp/repilot-lsp/bench/repairbench"
	"github.com/repilot-lsp/repilot-lsp/corpus"
	"github.com/repilot-lsp/repilot-lsp/engine"
	"github.com/repilot-lsp/repilot-lsp/repair"
)

// benchCmd groups the benchmarks ("bench repair", ...). "bench" alone prints
// its help; "bench NAME" with no such benchmark is an error (exit status 1),
// as an unknown command of the root is: without a RunE cobra printed the
// help and exited 0, so a typo ("bench repiar") looked like success.
var benchCmd = &cobra.Command{
	Use:   "bench",
	Short: "Benchmarks: repair and the completion engine on bug corpora, ghost text, search, a soak test",
	Args:  cobra.NoArgs,
	// The usage's first line is then "repilot-lsp bench", not "... bench
	// [flags]": bench has no flags of its own.
	DisableFlagsInUseLine: true,
	RunE: func(cmd *cobra.Command, args []string) error {
		return cmd.Help()
	},
}

// printReport prints a benchmark's report, indented JSON with jsonOut, else
// with text, and returns runErr (the run's error: after Ctrl-C, rep covers
// what finished and the interruption is the command's error) joined with
// any error encoding rep. Shared by bench engine and both modes of bench
// search.
func printReport(stdout io.Writer, jsonOut bool, rep any, text func(io.Writer), runErr error) error {
	if jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return errors.Join(enc.Encode(rep), runErr)
	}
	text(stdout)
	return runErr
}

// corpusFlags choose the bugs of a benchmark: --corpus and --bug, shared by
// bench repair and bench engine.
type corpusFlags struct {
	dir  string   // corpus directory (README, "Bug fixtures")
	only []string // bug ids to run; empty: all
}

// addCorpusFlags registers --corpus and --bug on fs, bound to f.
func addCorpusFlags(fs *pflag.FlagSet, f *corpusFlags) {
	fs.StringVar(&f.dir, "corpus", defaultCorpus, "corpus directory (one folder per bug: bug.json + project/, see the README's \"Bug fixtures\")")
	fs.StringSliceVar(&f.only, "bug", nil, "run only these bug ids (repeat or comma-separate)")
}

// defaultCorpus is --corpus's default, relative to the repository's root.
const defaultCorpus = "testdata/bugs"

// load reads the corpus and keeps the bugs --bug names, in corpus order.
// Errors: a --corpus folder that does not exist (saying where the default
// is), the corpus's (corpus.Load), or a --bug id the corpus lacks.
func (f corpusFlags) load() ([]corpus.Bug, error) {
	if st, err := os.Stat(f.dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("--corpus %s is not a directory (a corpus is a folder of bugs, bug.json and project/ each; the default, %s, is relative to the repository's root)", f.dir, defaultCorpus)
	}
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
	warmFile bool
	warmWait time.Duration
	backends []string
	model    modelFlags
	// requestTimeout and compileTimeout bound the engine's JDT LS requests
	// and compile checks (more than 0; the flags default to the engine's
	// defaults).
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
	fl.BoolVar(&f.warmFile, "warm-file", false, "before each bug's repair, do what serve does when the editor opens the bug's file: start the project's backends and warm the engine up on that file (backend.Pool.WarmFile); the repair's times then start warm, as a repair asked in serve some seconds after opening the file")
	fl.DurationVar(&f.warmWait, "warm-wait", 5*time.Second, "with --warm-file: how long each bug's repair waits after the warm-up (a user reading the file before asking; JDT LS finishes the work the warm-up started)")
	addStateDirFlag(fl, &f.stateDir, false)
	fl.StringSliceVar(&f.backends, "backend", nil, "language-model backends to run (comma-separate): ngram, openai (default: ngram, plus openai when --model-base-url or $"+EnvModelBaseURL+" is set)")
	addModelFlags(fl, &f.model)
	fl.DurationVar(&f.requestTimeout, "request-timeout", engine.DefaultRequestTimeout, "bound on one completion-engine request to JDT LS (a timed-out decision is unknown)")
	fl.DurationVar(&f.compileTimeout, "compile-timeout", engine.DefaultCompileTimeout, "bound on one compile check (waiting for JDT LS's diagnostics)")
	benchCmd.AddCommand(cmd)
	Root.AddCommand(benchCmd)
}

func runBenchRepair(ctx context.Context, f benchRepairFlags, stdout, stderr io.Writer) (err error) {
	ctx, interrupted, stop := withSignals(ctx)
	defer stop()
	defer func() { err = interrupted(err) }()
	// A timeout of 0 or less timed every engine request and compile check
	// out at once: the benchmark ran, unguided and with nothing compilable.
	for _, c := range []struct {
		name string
		val  time.Duration
	}{{"--request-timeout", f.requestTimeout}, {"--compile-timeout", f.compileTimeout}} {
		if c.val <= 0 {
			return fmt.Errorf("%s %v: want more than 0", c.name, c.val)
		}
	}
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
			return fmt.Errorf("--variant: %w", err)
		}
		variants = append(variants, v)
	}
	if err := f.sampling.apply(&repair.Options{}); err != nil {
		return err
	}
	if err := repair.CheckEnv(); err != nil {
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
	var sampling repair.Options
	_ = f.sampling.apply(&sampling) // checked above
	o := repairbench.Options{Variants: variants, Sampling: sampling, NoTests: f.noTests, Shared: f.shared, WarmFile: f.warmFile, WarmWait: f.warmWait, Log: logf}
	var runs []repairbench.Run
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
		bo := o
		if model := cfg.Model; model.Remote() {
			bo.Concurrency = max(1, f.model.concurrency) // samples at once, as in repair
		}
		got, err := repairbench.RunBackend(ctx, cfg, lmName, bugs, bo)
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
	rows := make([]repairbench.Row, 0, len(backends)*len(variants))
	for _, lmName := range backends {
		for _, v := range variants {
			rows = append(rows, repairbench.Totals(lmName, v, runs))
		}
	}
	if f.jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			Corpus    string            `json:"corpus"`
			Samples   int               `json:"samples"`
			Seed      int64             `json:"seed"`
			MaxTokens int               `json:"max_tokens"`
			Model     string            `json:"openai_model,omitempty"` // the openai backend's configuration, without the key
			Rows      []repairbench.Row `json:"variants"`
			Runs      []repairbench.Run `json:"runs"`
		}{f.corpus.dir, f.sampling.samples, f.sampling.seed, f.sampling.maxTokens, model.Label(), rows, runs}); err != nil {
			return err
		}
		return repairbench.Failed(rows)
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
	return repairbench.Failed(rows)
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
