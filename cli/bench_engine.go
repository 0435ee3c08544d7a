package cli

// bench_engine.go is "repilot-lsp bench engine": the completion engine's
// pruning power on mutated developer fixes, its soundness on the unmutated
// fixes, and the cost of a decision with and without the site cache. The
// work is in bench/enginebench; this file only parses flags and prints.

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/repilot-lsp/repilot-lsp/bench/enginebench"
	"github.com/repilot-lsp/repilot-lsp/jdtls"
)

type benchEngineFlags struct {
	corpus   corpusFlags
	seed     uint64
	tries    int
	newLines int
	noSpeed  bool
	jsonOut  bool
	verbose  bool
	jdtls    string
}

func init() {
	var f benchEngineFlags
	cmd := &cobra.Command{
		Use:   "engine --corpus DIR",
		Short: "Pruning power, soundness and speed of the completion engine on a bug corpus",
		Long: `bench engine starts one JDT LS over every project of a corpus
(bug.json + project/, the README's "Bug fixtures" format; projects copied to a temporary directory) and,
for each fixture:

  soundness     forces the developer's fixed_hunk through the engine token by
                token (whole Java tokens, then 3-byte chunks): no token may be
                pruned ("pruned" must read 0)
  pruning       mutates one identifier of the fix at a time (kinds: member-typo,
                member-wrong-type, simple-name, type-name, new-type; new-type
                also on up to --new-lines further lines of the fixed file that
                construct an object), keeps a mutant only when JDT LS reports a
                compile error the fixed file lacks saying that the new name
                does not exist there (replacements that compile, or fail for
                another reason, are counted and skipped), forces it token by
                token, and counts
                it pruned when some token at or after the mutation is
                infeasible ("pruned early" would be a soundness failure)
  speed         forces every fix again through a fresh engine with the site
                cache and one without: median time per decision and JDT LS
                requests per generated token (--no-speed skips it)

Mutants are deterministic for a --seed.

Ctrl-C stops the benchmark and prints the report of the fixtures finished so
far (and the speed modes finished), marked interrupted (exit status 130).`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runBenchEngine(cmd.Context(), f, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	fl := cmd.Flags()
	addCorpusFlags(fl, &f.corpus)
	fl.Uint64Var(&f.seed, "seed", 1, "mutation seed")
	fl.IntVar(&f.tries, "tries", 4, "replacements tried per site until one does not compile")
	fl.IntVar(&f.newLines, "new-lines", 2, "further lines per fixture with \"new Type\" used for new-type mutants (-1: none)")
	fl.BoolVar(&f.noSpeed, "no-speed", false, "skip the speed measurement")
	fl.BoolVar(&f.jsonOut, "json", false, "print the report as JSON")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "list every mutant and log progress on stderr")
	addJDTLSFlag(fl, &f.jdtls)
	benchCmd.AddCommand(cmd)
}

func runBenchEngine(ctx context.Context, f benchEngineFlags, stdout, stderr io.Writer) (err error) {
	// An interrupt ends the run through ctx, so that JDT LS is stopped.
	ctx, interrupted, stop := withSignals(ctx)
	defer stop()
	defer func() { err = interrupted(err) }()
	bugs, err := f.corpus.load()
	if err != nil {
		return err
	}
	home, err := jdtls.ResolveHome(f.jdtls)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "starting JDT LS (%s) for %s\n", home, plural(len(bugs), "project", "projects"))
	sctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	var jerr io.Writer
	if f.verbose {
		jerr = os.Stderr
	}
	w, err := enginebench.Start(sctx, bugs, home, jerr)
	if err != nil {
		return err
	}
	defer w.Close()
	o := enginebench.Options{Seed: f.seed, Tries: f.tries, NewLines: f.newLines, Speed: !f.noSpeed}
	if f.verbose {
		o.Log = stderr
	}
	rep, err := enginebench.Run(ctx, w, o)
	if rep == nil {
		return err
	}
	// Interrupted (Ctrl-C), rep covers the fixtures finished. The
	// soundness check below holds for --json too: the report is printed
	// first, then a pruned token is the command's error (exit status 1).
	if err := printReport(stdout, f.jsonOut, rep, func(w io.Writer) { rep.Print(w, f.verbose) }, err); err != nil {
		return err
	}
	return soundnessErr(rep)
}

// soundnessErr is bench engine's verdict on a report, in text and JSON mode
// alike: an error when the engine pruned a token of an unmutated developer
// fix or the end of a fix before its mutation (a soundness failure), nil
// otherwise.
func soundnessErr(rep *enginebench.Report) error {
	if rep.Soundness.Pruned > 0 || rep.Member.Early > 0 {
		return fmt.Errorf("the engine pruned a token or the end of a developer fix (%d unmutated, %d before a mutation)", rep.Soundness.Pruned, rep.Member.Early)
	}
	return nil
}
