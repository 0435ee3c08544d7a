package cli

// bench_search.go is "repilot-lsp bench search": the CodeSearchNet-style
// evaluation of semantic search inside one repository (package search/bench).

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/repilot-lsp/repilot-lsp/search"
	"github.com/repilot-lsp/repilot-lsp/search/bench"
)

type benchSearchFlags struct {
	SearchFlags
	TuningFlags
	mode       string
	maxQueries int
	jsonOut    bool
	perQuery   bool
	quiet      bool
	holdout    string
	queries    string
}

func init() {
	var f benchSearchFlags
	cmd := &cobra.Command{
		Use:   "search --project DIR [flags]",
		Short: "Evaluate semantic search on a repository, CodeSearchNet style",
		Long: `bench search turns a repository into a code search benchmark: each
documented function's first doc sentence is a query, the function without its
doc is the target, every other unit is a distractor. It prints Success@1, @5,
@10 and MRR for every stream and for the fused ranking, the index build time
and the median query latency.

--mode csn (default) indexes every unit without its doc, as CodeSearchNet does;
--mode keep-docs lets distractors keep their docs (harder; the editor's case for
undocumented code). See package search/bench for the selection rules.

Model flags are those of "search": without them only the lexical stream runs.
The ranking flags (--bm25-*, --assoc*, --weights, --analyzer, --depth,
--fusion, --rrf-k, --stream-weights, ...) change search.DefaultTuning for this run
only, to measure a variant; the editor and "search" always use the defaults.

Ctrl-C stops the benchmark and prints the scores of the queries answered so
far, marked interrupted (exit status 130).`,
		Example: `  repilot-lsp bench search --project /usr/lib/python3.11
  repilot-lsp bench search --project . --mode keep-docs --json > bench.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runBenchSearch(cmd.Context(), f, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f.SearchFlags.AddFlags(cmd.Flags())
	f.TuningFlags.AddFlags(cmd.Flags())
	fl := cmd.Flags()
	fl.StringVar(&f.mode, "mode", bench.ModeCSN, "csn (every unit without its doc) or keep-docs (distractors keep docs)")
	fl.IntVar(&f.maxQueries, "max-queries", 0, "sample this many queries deterministically (0: all)")
	fl.BoolVar(&f.jsonOut, "json", false, "print the report as JSON")
	fl.BoolVar(&f.perQuery, "per-query", false, "with --json, include every query's ranks")
	fl.BoolVar(&f.quiet, "quiet", false, "no progress on stderr")
	fl.StringVar(&f.queries, "queries", "", "run the realistic queries of this file (JSON Lines of {\"query\": ..., \"targets\": [\"path#Class.method\" or \"path\"]}) instead of the CodeSearchNet-style ones: Success@1/5/10 and MRR for units, files, and a grep baseline of files ranked by distinct query words")
	fl.StringVar(&f.holdout, "holdout", bench.HoldoutUnit, "docs kept out of the doc-mined statistics per query: unit (the target's) or file (every unit in the target's file)")
	benchCmd.AddCommand(cmd)
}

func runBenchSearch(ctx context.Context, f benchSearchFlags, stdout, stderr io.Writer) (err error) {
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	t, err := f.Tuning()
	if err != nil {
		return err
	}
	cfg.Tuning = &t
	ctx, interrupted, stop := withSignals(ctx)
	defer stop()
	defer func() { err = interrupted(err) }()
	if f.quiet {
		stderr = io.Discard
	}
	if f.queries != "" {
		return runBenchQueries(ctx, f, cfg, stdout, stderr)
	}
	rep, err := bench.Run(ctx, bench.Options{Engine: cfg, Mode: f.mode, MaxQueries: f.maxQueries, Log: stderr, Holdout: f.holdout})
	if rep == nil {
		return err
	}
	// Interrupted (Ctrl-C), rep covers the queries answered.
	if f.jsonOut && !f.perQuery {
		rep.Results = nil
	}
	return printReport(stdout, f.jsonOut, rep, rep.WriteText, err)
}

func runBenchQueries(ctx context.Context, f benchSearchFlags, cfg search.Config, stdout, stderr io.Writer) error {
	fh, err := os.Open(f.queries)
	if err != nil {
		return fmt.Errorf("--queries: %w", err)
	}
	qs, err := bench.ReadQueries(fh)
	fh.Close()
	if err != nil {
		return fmt.Errorf("--queries %s: %w", f.queries, err)
	}
	rep, err := bench.RunQueries(ctx, bench.QueriesOptions{Engine: cfg, Queries: qs, Log: stderr})
	if rep == nil {
		return err
	}
	if f.jsonOut && !f.perQuery {
		rep.Results = nil
	}
	return printReport(stdout, f.jsonOut, rep, rep.WriteText, err)
}
