package cli

// bench_soak.go is "repilot-lsp bench soak": a replayed editing session
// against the real JDT LS through this very binary's serve, with JDT LS
// killed every few minutes (issue 12). The session is in bench/soak; this
// file parses flags and prints.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/repilot-lsp/repilot-lsp/bench/soak"
	"github.com/repilot-lsp/repilot-lsp/corpus"
)

type benchSoakFlags struct {
	project     string
	files       []string
	duration    time.Duration
	killEvery   time.Duration
	sampleEvery time.Duration
	checkEvery  time.Duration
	repairEvery time.Duration
	seed        uint64
	noGhost     bool
	jsonOut     bool
	keep        bool
	quiet       bool
	jdtls       string
}

// defaultSoakProject is the README's example, relative to the repository.
const defaultSoakProject = "example/shop-cart-discount/project"

func init() {
	// A repilot-lsp started with REPILOT_DEBUG_STATS=FILE (the soak starts
	// serve so) writes its goroutine count there once a second.
	cobra.OnInitialize(soak.StartStatsWriter)

	var f benchSoakFlags
	cmd := &cobra.Command{
		Use:   "soak [--duration 10m] [--kill-every 3m]",
		Short: "A long editing session through serve against the real JDT LS, killing JDT LS every few minutes",
		Long: `bench soak starts this binary's "serve" as an editor would (stdio, initialize
with VS Code's capabilities) on a copy of --project (the original is never
written: all editing is didChange of the editor's in-memory text) and, for
--duration, plays a seeded editing session: methods typed a few characters at
a time with typos taken back, deleted by backspace or as a line, their values
retyped (incremental changes, some with several changes in one didChange,
characters outside the BMP); hovers, completions (some cancelled by the next
keystroke), code actions, document and workspace symbols, semantic searches,
ghost text, and repairs (one at a time; the first, third, ... cancelled). Every
--kill-every it SIGKILLs the editor's JDT LS; the proxy restarts it.

It samples, every --sample-every: the proxy's RSS and threads (/proc), its
goroutines and Go heap (the proxy writes them to $REPILOT_DEBUG_STATS), the
RSS of the proxy with every process below it, and the load average.

Invariants, checked after each restart, every --check-every and at the end:
JDT LS's documentSymbol for every open document (names, kinds, ranges,
selection ranges) equals what the editor's text implies, so no edit was lost,
doubled or reordered; every request got exactly one answer; every kill was
followed by a restart; after shutdown and exit the proxy ends within 5 s and
no process it started is left. The exit status is 1 when one fails.

The proxy restarts JDT LS at most 3 times in 5 minutes: a --kill-every
under 100 s makes it give up, which fails the run.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runBenchSoak(cmd.Context(), f, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.project, "project", defaultSoakProject, "Java project to edit (copied to a temporary folder; when its parent holds a bug.json, repairs ask for that bug's hunk with its test command)")
	fl.StringSliceVar(&f.files, "file", nil, "documents to open, relative to --project (default: the first six .java files)")
	fl.DurationVar(&f.duration, "duration", 10*time.Minute, "length of the editing session")
	fl.DurationVar(&f.killEvery, "kill-every", 3*time.Minute, "SIGKILL the editor's JDT LS this often (0: never)")
	fl.DurationVar(&f.sampleEvery, "sample-every", 30*time.Second, "time between samples of memory and goroutines")
	fl.DurationVar(&f.checkEvery, "check-every", 2*time.Minute, "time between agreement checks besides those after restarts and at the end (0: none)")
	fl.DurationVar(&f.repairEvery, "repair-every", 90*time.Second, "pause between one repair's end and the next one's start (0: no repairs)")
	fl.BoolVar(&f.noGhost, "no-ghost-text", false, "send no ghost-text requests")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of the session's choices")
	fl.BoolVar(&f.jsonOut, "json", false, "print the report as JSON")
	fl.BoolVar(&f.keep, "keep", false, "keep the temporary folder (project copy, JDT LS state, the proxy's log)")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "no progress lines on stderr")
	addJDTLSFlag(fl, &f.jdtls)
	benchCmd.AddCommand(cmd)
}

func runBenchSoak(ctx context.Context, f benchSoakFlags, stdout, stderr io.Writer) (err error) {
	// Ctrl-C ends the editing early; the checks and the shutdown still run.
	ctx, interrupted, stop := withSignals(ctx)
	defer stop()
	defer func() { err = interrupted(err) }()
	if _, err := os.Stat(f.project); err != nil {
		return fmt.Errorf("--project: %w (the default, %s, is relative to the repository's root)", err, defaultSoakProject)
	}
	if f.duration <= 0 {
		return fmt.Errorf("--duration must be positive, got %v", f.duration)
	}
	bin, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding this binary to run as serve: %w", err)
	}
	cfg := soak.Config{Binary: bin, Project: f.project, Files: f.files, Duration: f.duration, KillEvery: f.killEvery,
		SampleEvery: f.sampleEvery, NoGhostText: f.noGhost, CheckEvery: f.checkEvery, RepairEvery: f.repairEvery, Seed: f.seed,
		JDTLSHome: f.jdtls, Keep: f.keep, Log: stderr}
	if f.quiet {
		cfg.Log = nil
	}
	if bug, err := corpus.LoadBug(filepath.Dir(filepath.Clean(f.project))); err == nil && filepath.Clean(bug.ProjectDir()) == mustAbs(f.project) {
		cfg.RepairFile, cfg.RepairLine, cfg.TestCommand = filepath.FromSlash(bug.File), bug.StartLine, bug.TestCmd
	}
	rep, err := soak.Run(ctx, cfg)
	if err != nil {
		if rep != nil && len(rep.ProxyLogTail) > 0 {
			fmt.Fprintf(stderr, "the proxy's log ends:\n")
			for _, l := range rep.ProxyLogTail {
				fmt.Fprintf(stderr, "  | %s\n", l)
			}
		}
		return err
	}
	if rep != nil {
		if f.jsonOut {
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			if jerr := enc.Encode(rep); jerr != nil {
				return jerr
			}
		} else {
			rep.Print(stdout)
		}
	}
	if rep.Failed() {
		return fmt.Errorf("soak: %d invariants failed", len(rep.Failures))
	}
	return nil
}

func mustAbs(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	return filepath.Clean(a)
}
