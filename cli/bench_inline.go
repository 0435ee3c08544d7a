package cli

// bench_inline.go is `bench inline`: ghost text replayed on real Java files.
// At seeded positions inside method bodies it cuts the rest of the line (a
// statement that ends on that line), asks for a suggestion at the caret and
// compares it with the text removed.

import (
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/agnivade/levenshtein"
	"github.com/spf13/cobra"

	"github.com/repilot-lsp/repilot-lsp/backend"
	"github.com/repilot-lsp/repilot-lsp/engine"
	"github.com/repilot-lsp/repilot-lsp/inline"
	"github.com/repilot-lsp/repilot-lsp/javalex"
	"github.com/repilot-lsp/repilot-lsp/jdtls"
	"github.com/repilot-lsp/repilot-lsp/repair"
)

type benchInlineFlags struct {
	project  string
	corpus   string
	include  string
	requests int
	perFile  int
	seed     uint64
	invoked  bool
	budget   time.Duration
	invokedB time.Duration
	samples  int
	compare  int
	compareT float64
	jdtls    string
	verbose  bool
	midIdent bool
	// wholeFile: the guided rows check whole files (inline.Options.WholeFileCheck);
	// compareReduced: every shown suggestion is also checked on the reduced
	// unit and the verdicts compared with the whole file's (reducedAgreement).
	wholeFile      bool
	compareReduced bool
}

func init() {
	var f benchInlineFlags
	cmd := &cobra.Command{
		Use:   "inline (--project DIR | --corpus SOURCES.zip|-sources.jar [--include PREFIX])",
		Short: "Ghost text on real Java files: shown, exact, edit similarity, compile rate, latency",
		Long: `bench inline replays ghost text on a Java project. At seeded positions
inside method bodies (a statement that starts and ends on one line, the caret
after one of its tokens) it cuts the rest of the line, asks for a suggestion at
the caret and compares it with the text removed. With --mid-identifier the
caret sits inside an identifier instead (the rest of the name is cut too).

--corpus takes a source archive (the JDK's lib/src.zip, a Maven -sources.jar)
and extracts the .java files under --include (e.g. jdk.internal.opt/) into a
temporary Eclipse project that JDT LS imports.

The model is the embedded n-gram model trained on the JDK's java.base sources
only: the files under test are held out of its training (--include java.base/
is refused for that reason).

Rows:
  guided    the suggestion service as editors get it: generation guided by the
            strict completion engine, shown only when the shadow JDT LS finds no
            error it introduces (automatic trigger with --samples samples
            within --budget; --invoked: invoked)
  guided, N   the same with --compare-samples N automatic samples, side by side
  unguided  the same model and sampling without the engine or the check

Columns (over all requests; a request with nothing shown is neither exact nor
similar):
  shown       share of requests with a suggestion shown
  exact       the suggestion equals the removed text (trailing blanks ignored)
  edit-sim    1 - Levenshtein(suggestion, removed) / max(len), mean
  compiles    share of shown suggestions that introduce no compile error
              (checked again for every shown suggestion, inline.Introduced)
  p50/p95     latency of the request in ms; cold: the first request in a file,
              warm: the others

Ctrl-C stops the benchmark and prints the positions finished so far (the one
under way counts for no row); the exit status is then 130.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runBenchInline(cmd.Context(), f, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.project, "project", "", "project directory JDT LS can import")
	fl.StringVar(&f.corpus, "corpus", "", "source archive (.zip or -sources.jar) to extract instead of --project")
	fl.StringVar(&f.include, "include", "", "with --corpus: only entries under this prefix (stripped), e.g. jdk.internal.opt/")
	fl.IntVar(&f.requests, "requests", 500, "requests to make")
	fl.IntVar(&f.perFile, "per-file", 4, "positions per file at most")
	fl.Uint64Var(&f.seed, "seed", 1, "position seed")
	fl.BoolVar(&f.invoked, "invoked", false, "use the invoked trigger (more samples) instead of the automatic one")
	fl.DurationVar(&f.budget, "budget", inlineAutomaticBudget, "budget of an automatic request, generation and compile check together (0: none), as serve uses")
	fl.DurationVar(&f.invokedB, "invoked-budget", inlineInvokedBudget, "with --invoked: budget of an invoked request's work, counted once the backends are held (0: none), as serve uses")
	fl.IntVar(&f.samples, "samples", inlineAutomaticSamples, "samples an automatic request may try within the budget (the next one, at serve's temperature 0.3, when a sample fails the check), as serve uses")
	fl.IntVar(&f.compare, "compare-samples", 0, "also run a guided row with this many automatic samples, side by side (0: no such row)")
	fl.Float64Var(&f.compareT, "compare-temperature", 0, "temperature of the --compare-samples row's samples after the first (0: the default, 0.8)")
	fl.BoolVar(&f.wholeFile, "whole-file-check", false, "guided rows compile-check the whole file, not the reduced unit (other method bodies stubbed) that gives the same verdict")
	fl.BoolVar(&f.compareReduced, "compare-reduced", false, "check every shown suggestion (every row's) on the reduced unit too and count the verdicts that differ from the whole file's, with both checks' times")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "print every request on stderr")
	fl.BoolVar(&f.midIdent, "mid-identifier", false, "place every caret inside an identifier of the statement (after a seeded 1 to n-1 of its n characters, as while typing a name) instead of after a whole token")
	addJDTLSFlag(fl, &f.jdtls)
	benchCmd.AddCommand(cmd)
}

// inlinePos is one benchmark request: the caret in a file and the text cut
// after it.
type inlinePos struct {
	file    string
	src     string
	caret   int
	lineEnd int
}

func (p inlinePos) doc() string     { return p.src[:p.caret] + p.src[p.lineEnd:] }
func (p inlinePos) removed() string { return strings.TrimRight(p.src[p.caret:p.lineEnd], " \t\r") }

// inlineRow accumulates one row of the report.
type inlineRow struct {
	name                      string
	requests, shown, exact    int
	sim                       float64
	checked, compiled, errors int
	cold, warm                []time.Duration
	// Warm requests answered by generation (not the cache): where their
	// time went.
	gen, check, other []time.Duration // other: the rest of the latency
	engineCalls       []int64
	svc               *inline.Service
	// why counts the requests with nothing shown (and no error) by how
	// their samples ended (whyNothing).
	why map[string]int
}

// check refuses the numbers bench inline cannot run with, naming the flag:
// a count below its least use (--per-file -1 panicked; --samples 0 ran one
// sample under a row named "0 samples"), a negative budget (which meant no
// budget), a temperature that is negative or not finite (NaN reached the
// sampler).
func (f benchInlineFlags) check() error {
	for _, c := range []struct {
		name     string
		val, min int
	}{{"--requests", f.requests, 1}, {"--per-file", f.perFile, 1}, {"--samples", f.samples, 1}, {"--compare-samples", f.compare, 0}} {
		if c.val < c.min {
			return fmt.Errorf("%s %d: want at least %d", c.name, c.val, c.min)
		}
	}
	for _, c := range []struct {
		name string
		val  time.Duration
	}{{"--budget", f.budget}, {"--invoked-budget", f.invokedB}} {
		if c.val < 0 {
			return fmt.Errorf("%s %v: want 0 (none) or more", c.name, c.val)
		}
	}
	if !(f.compareT >= 0) || math.IsInf(f.compareT, 1) {
		return fmt.Errorf("--compare-temperature %g: want a finite number, at least 0", f.compareT)
	}
	return nil
}

func runBenchInline(ctx context.Context, f benchInlineFlags, stdout, stderr io.Writer) (err error) {
	ctx, interrupted, stop := withSignals(ctx)
	defer stop()
	defer func() { err = interrupted(err) }()
	if (f.project == "") == (f.corpus == "") {
		return errors.New("give exactly one of --project DIR and --corpus ARCHIVE")
	}
	if err := f.check(); err != nil {
		return err
	}
	if strings.HasPrefix(f.include, "java.base/") {
		return errors.New("--include java.base/: the model trains on java.base, so those files would not be held out")
	}
	// Before anything starts: the flags name what is missing.
	if f.project != "" {
		if st, err := os.Stat(f.project); err != nil || !st.IsDir() {
			return fmt.Errorf("--project %s is not a directory", f.project)
		}
	} else if st, err := os.Stat(f.corpus); err != nil || st.IsDir() {
		return fmt.Errorf("--corpus %s is not a file (a source archive: .zip or -sources.jar)", f.corpus)
	}
	home, err := jdtls.ResolveHome(f.jdtls)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "repilot-bench-inline-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	root := f.project
	label := f.project
	if f.corpus != "" {
		root = filepath.Join(tmp, "project")
		n, err := extractSources(f.corpus, f.include, root)
		if err != nil {
			return fmt.Errorf("--corpus %s: %w", f.corpus, err)
		}
		label = filepath.Base(f.corpus) + ":" + f.include
		fmt.Fprintf(stderr, "extracted %d .java files of %s into an Eclipse project\n", n, label)
	}
	if root, err = filepath.Abs(root); err != nil {
		return err
	}
	positions, err := inlinePositions(root, f.requests, f.perFile, f.seed, f.midIdent)
	if err != nil {
		return err
	}
	if len(positions) == 0 {
		return fmt.Errorf("no position found in %s", root)
	}
	progress := func(msg string, _ int) { fmt.Fprintln(stderr, msg) }
	eng, err := backend.StartEngine(ctx, backend.EngineSpec{Home: home, Dir: filepath.Join(tmp, "engine"), Root: root, Progress: progress})
	if err != nil {
		return err
	}
	defer eng.Close()
	model, err := backend.TrainNGram(ctx, nil, nil) // java.base only: the files under test are held out
	if err != nil {
		return err
	}
	backends := inline.Backends{Model: model, Engine: eng, Compiler: eng}
	acquire := func(ctx context.Context, _ string, fn func(inline.Backends) error) error { return fn(backends) }
	rows := []*inlineRow{
		{name: fmt.Sprintf("%s guided, %d samples", model.Name(), f.samples),
			svc: inline.NewService(acquire, inline.Options{AutomaticBudget: f.budget, AutomaticSamples: f.samples, AutomaticTemperature: inlineAutomaticTemperature, InvokedBudget: f.invokedB, WholeFileCheck: f.wholeFile})},
		{name: model.Name() + " unguided", svc: inline.NewService(acquire, inline.Options{Unguided: true})},
	}
	if f.compare > 0 {
		name := fmt.Sprintf("%s guided, %d samples", model.Name(), f.compare)
		if f.compareT > 0 {
			name += fmt.Sprintf(" at T=%g", f.compareT)
		}
		rows = append(rows, &inlineRow{name: name,
			svc: inline.NewService(acquire, inline.Options{AutomaticBudget: f.budget, AutomaticSamples: f.compare, Temperature: f.compareT, AutomaticTemperature: f.compareT, InvokedBudget: f.invokedB, WholeFileCheck: f.wholeFile})})
	}
	trig := inline.Automatic
	if f.invoked {
		trig = inline.Invoked
	}
	fmt.Fprintf(stderr, "%d requests in %s\n", len(positions), root)
	seen := map[string]bool{}
	var agree reducedAgreement
	began := time.Now()
	var stopped error // the interruption (Ctrl-C): the positions finished so far are reported
	done := 0
positions:
	for i, p := range positions {
		snap := snapshotRows(rows)
		cold := !seen[p.file]
		seen[p.file] = true
		uri := repair.FileURI(p.file)
		// The rows take turns going first: the first request at a caret
		// warms JDT LS for the others (its compile checks of a new document
		// state cost most).
		for k := range rows {
			r := rows[(i+k)%len(rows)]
			t0 := time.Now()
			before := r.svc.Totals()
			sug, err := r.svc.Suggest(ctx, inline.Request{URI: uri, Root: root, Text: p.doc(), Offset: p.caret, Trigger: trig})
			lat := time.Since(t0)
			if ctx.Err() != nil {
				// This position counts for no row, so that the rows stay
				// comparable (their service totals may include its work).
				restoreRows(rows, snap)
				fmt.Fprintf(stderr, "interrupted: reporting the %d of %d positions finished so far\n", done, len(positions))
				stopped = ctx.Err()
				break positions
			}
			r.requests++
			if cold {
				r.cold = append(r.cold, lat)
			} else {
				r.warm = append(r.warm, lat)
				if d := r.svc.Totals(); d.Samples > before.Samples {
					r.gen = append(r.gen, d.GenerateTime-before.GenerateTime)
					r.check = append(r.check, d.CheckTime-before.CheckTime)
					r.other = append(r.other, lat-(d.GenerateTime-before.GenerateTime)-(d.CheckTime-before.CheckTime))
					r.engineCalls = append(r.engineCalls, d.EngineCalls-before.EngineCalls)
				}
			}
			if err != nil {
				r.errors++
				fmt.Fprintf(stderr, "%s %s: %v\n", r.name, p.file, err)
				continue
			}
			if sug == nil {
				why := whyNothing(before, r.svc.Totals())
				if r.why == nil {
					r.why = map[string]int{}
				}
				r.why[why]++
				if f.verbose {
					fmt.Fprintf(stderr, "[%d] %s: nothing (%s; removed %q) %v\n", i, r.name, why, p.removed(), lat.Round(time.Millisecond))
				}
				continue
			}
			r.shown++
			want, got := p.removed(), strings.TrimRight(sug.Text, " \t\r")
			if got == want {
				r.exact++
			}
			r.sim += editSimilarity(got, want)
			ok, err := introducesNone(ctx, eng, uri, p.doc(), p.caret, sug.Text)
			if err != nil {
				fmt.Fprintf(stderr, "%s: checking %q: %v\n", r.name, sug.Text, err)
			} else {
				r.checked++
				if ok {
					r.compiled++
				}
			}
			if f.verbose {
				fmt.Fprintf(stderr, "[%d] %s: %q (removed %q) compiles=%v %v\n", i, r.name, got, want, ok, lat.Round(time.Millisecond))
			}
			if f.compareReduced && err == nil {
				if msg, err := agree.add(ctx, eng, uri, p.doc(), p.caret, sug.Text, ok); err != nil {
					fmt.Fprintf(stderr, "%s: reduced check of %q: %v\n", r.name, sug.Text, err)
				} else if msg != "" {
					fmt.Fprintf(stderr, "[%d] %s: %s\n", i, r.name, msg)
				}
			}
		}
		done++
		if (i+1)%25 == 0 {
			fmt.Fprintf(stderr, "%d/%d requests, %v\n", i+1, len(positions), time.Since(began).Round(time.Second))
		}
	}
	if stopped != nil && done == 0 {
		return stopped
	}
	budget := f.budget
	if f.invoked {
		budget = f.invokedB
	}
	interruptedNote := ""
	if stopped != nil {
		interruptedNote = fmt.Sprintf(" (interrupted: %d of %d positions)", done, len(positions))
	}
	fmt.Fprintf(stdout, "bench inline: %s, %d requests%s, seed %d, %s trigger, carets %s, generation budget %v, load average at the end %s\n", label, done, interruptedNote, f.seed, map[bool]string{false: "automatic", true: "invoked"}[f.invoked], map[bool]string{false: "after whole tokens", true: "inside identifiers"}[f.midIdent], budget, loadAverage())
	w := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "backend\trequests\tshown\texact\tedit-sim\tcompiles\tp50 cold\tp95 cold\tp50 warm\tp95 warm\terrors\t")
	for _, r := range rows {
		fmt.Fprintf(w, "%s\t%d\t%s\t%s\t%.3f\t%s\t%s\t%s\t%s\t%s\t%d\t\n", r.name, r.requests,
			pct(r.shown, r.requests), pct(r.exact, r.requests), r.sim/float64(max(r.requests, 1)),
			fmt.Sprintf("%s (%d/%d)", pct(r.compiled, r.checked), r.compiled, r.checked),
			ms(quantile(r.cold, 0.5)), ms(quantile(r.cold, 0.95)), ms(quantile(r.warm, 0.5)), ms(quantile(r.warm, 0.95)), r.errors)
	}
	w.Flush()
	for _, r := range rows {
		if r == rows[1] {
			continue // unguided: no engine, no check
		}
		t := r.svc.Totals()
		fmt.Fprintf(stdout, "%s, where the time goes: generation %v (%d model calls, %d engine calls, %d samples), compile checks %v (%d checks, %v each on average; %d guarantees on the reduced unit), %d completed samples failed the guarantee (%d with no error on the inserted lines, only elsewhere; %d prefixes rejected from their unresolved names), %d requests ran out of the %v budget while sampling; under the budget, %d engine decisions answered unknown at the end of sampling, %d checks not started and %d cut by the deadline\n",
			r.name, t.GenerateTime.Round(time.Millisecond), t.ModelCalls, t.EngineCalls, t.Samples, t.CheckTime.Round(time.Millisecond), t.CompileChecks,
			(t.CheckTime / time.Duration(max(t.CompileChecks, 1))).Round(time.Millisecond), t.ReducedChecks, t.Rejected, t.RejectedElsewhere, t.Fed, t.OverBudget, budget, t.LateUnknown, t.ChecksSkipped, t.ChecksCut)
		calls := make([]time.Duration, len(r.engineCalls)) // quantile works on durations
		for i, n := range r.engineCalls {
			calls[i] = time.Duration(n)
		}
		fmt.Fprintf(stdout, "%s, why nothing was shown (requests): %s\n", r.name, formatWhy(r.why))
		fmt.Fprintf(stdout, "%s, per warm generated request (%d): median generation %s ms, median compile checks %s ms, median rest (engine open, model start, queueing) %s ms, median engine calls %d\n",
			r.name, len(r.gen), ms(quantile(r.gen, 0.5)), ms(quantile(r.check, 0.5)), ms(quantile(r.other, 0.5)), int64(quantile(calls, 0.5)))
	}
	if f.compareReduced {
		fmt.Fprintln(stdout, agree.String())
	}
	fmt.Fprintf(stdout, "wall time %v\n", time.Since(began).Round(time.Second))
	if u := rows[1]; u.checked > 0 {
		fmt.Fprintf(stdout, "unguided: %s of its shown suggestions would not compile (%d/%d)\n", pct(u.checked-u.compiled, u.checked), u.checked-u.compiled, u.checked)
	}
	return stopped
}

// snapshotRows copies the rows' counts (the why map included) so that a
// position can be taken back (restoreRows).
func snapshotRows(rows []*inlineRow) []inlineRow {
	out := make([]inlineRow, len(rows))
	for k, r := range rows {
		out[k] = *r
		out[k].why = maps.Clone(r.why)
	}
	return out
}

// restoreRows sets the rows back to snap (snapshotRows).
func restoreRows(rows []*inlineRow, snap []inlineRow) {
	for k := range rows {
		*rows[k] = snap[k]
	}
}

// whyNothing says how the samples of a request that showed nothing ended,
// from the service's totals before and after it: the counts of samples
// that failed the check ("rejected"; "of them only elsewhere": with no
// error on the inserted lines, inline.Stats.RejectedElsewhere), died with every token pruned
// ("dead"), reached the token limit ("truncated"), ended blank or repeated
// a checked text, did not parse before the check ("unparsable"), and
// "budget" when the generation ran out of its budget.
// "no sample" when none ran (a cached or typed-through answer).
func whyNothing(before, after inline.Stats) string {
	var parts []string
	for _, c := range []struct {
		name string
		n    int
	}{
		{"rejected", after.Rejected - before.Rejected},
		{"of them only elsewhere", after.RejectedElsewhere - before.RejectedElsewhere},
		{"dead", after.Dead - before.Dead},
		{"truncated", after.Truncated - before.Truncated},
		{"blank", after.Blank - before.Blank},
		{"repeated", after.Repeated - before.Repeated},
		{"unparsable", after.Unparsable - before.Unparsable},
	} {
		if c.n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", c.name, c.n))
		}
	}
	if after.ChecksSkipped > before.ChecksSkipped {
		parts = append(parts, "check not started (deadline)")
	}
	if after.ChecksCut > before.ChecksCut {
		parts = append(parts, "check cut (deadline)")
	}
	if after.OverBudget > before.OverBudget {
		parts = append(parts, "budget")
	}
	if len(parts) == 0 {
		return "no sample"
	}
	return strings.Join(parts, ", ")
}

// formatWhy prints whyNothing's counts, most frequent first.
func formatWhy(why map[string]int) string {
	keys := make([]string, 0, len(why))
	for k := range why {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if why[keys[i]] != why[keys[j]] {
			return why[keys[i]] > why[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d [%s]", why[k], k)
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "; ")
}

// introducesNone checks text inserted at caret in doc with the guarantee's
// comparison (inline.Introduced), independently of the service's own check.
// A text the compiler cannot parse does not compile.
func introducesNone(ctx context.Context, c engine.Compiler, uri, doc string, caret int, text string) (bool, error) {
	newErrs, err := c.CompileErrors(ctx, uri, doc[:caret]+text+doc[caret:])
	if errors.Is(err, engine.ErrUnparsable) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	span := inline.Span{From: strings.Count(doc[:caret], "\n") + 1}
	span.To = span.From + strings.Count(text, "\n")
	if len(newErrs) == 0 {
		return true, nil
	}
	old, err := c.CompileErrors(ctx, uri, doc)
	if err != nil && !errors.Is(err, engine.ErrUnparsable) {
		return false, err
	}
	return len(inline.Introduced(newErrs, old, span)) == 0, nil
}

// editSimilarity is 1 - Levenshtein(a, b) / max(len(a), len(b)) over runes.
func editSimilarity(a, b string) float64 {
	n := max(len([]rune(a)), len([]rune(b)))
	if n == 0 {
		return 1
	}
	return 1 - float64(levenshtein.ComputeDistance(a, b))/float64(n)
}

func pct(a, b int) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(a)/float64(b))
}

func ms(d time.Duration) string {
	if d < 0 {
		return "-"
	}
	return fmt.Sprint(d.Milliseconds())
}

// quantile returns the q-quantile (nearest rank) of ds, or -1 when empty.
func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return -1
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(q*float64(len(s))+0.999999) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// extractSources writes the .java files of archive under prefix (stripped)
// into root/src and makes root an Eclipse Java project (.project,
// .classpath) that JDT LS imports. module-info and package-info files are
// skipped. It returns the number of files written.
func extractSources(archive, prefix, root string) (int, error) {
	zr, err := zip.OpenReader(archive)
	if err != nil {
		return 0, err
	}
	defer zr.Close()
	n := 0
	for _, zf := range zr.File {
		rel, ok := strings.CutPrefix(zf.Name, prefix)
		base := filepath.Base(rel)
		if !ok || !strings.HasSuffix(rel, ".java") || base == "module-info.java" || base == "package-info.java" || strings.Contains(rel, "..") {
			continue
		}
		if zf.UncompressedSize64 > 1<<20 {
			continue
		}
		dst := filepath.Join(root, "src", filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return n, err
		}
		rc, err := zf.Open()
		if err != nil {
			return n, err
		}
		b, err := io.ReadAll(io.LimitReader(rc, 1<<20))
		rc.Close()
		if err != nil {
			return n, err
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			return n, err
		}
		n++
	}
	if n == 0 {
		return 0, fmt.Errorf("%s has no .java file under %q", archive, prefix)
	}
	files := map[string]string{
		".project": `<?xml version="1.0" encoding="UTF-8"?>
<projectDescription><name>bench-inline</name><comment></comment><projects></projects>
<buildSpec><buildCommand><name>org.eclipse.jdt.core.javabuilder</name><arguments></arguments></buildCommand></buildSpec>
<natures><nature>org.eclipse.jdt.core.javanature</nature></natures></projectDescription>
`,
		".classpath": `<?xml version="1.0" encoding="UTF-8"?>
<classpath><classpathentry kind="src" path="src"/><classpathentry kind="con" path="org.eclipse.jdt.launching.JRE_CONTAINER"/><classpathentry kind="output" path="bin"/></classpath>
`,
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			return n, err
		}
	}
	return n, nil
}

// maxBenchFileBytes bounds the files bench inline places carets in.
const maxBenchFileBytes = 200_000

// readAtMost reads the file at path when it holds at most n bytes; a larger
// one is an error, read no further than n+1 bytes.
func readAtMost(path string, n int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, n+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > n {
		return nil, fmt.Errorf("%s is over %d bytes", path, n)
	}
	return b, nil
}

// inlinePositions picks up to want positions, at most perFile per file, from
// root's .java files in a seeded order; with midIdent, carets inside
// identifiers (linePositions).
func inlinePositions(root string, want, perFile int, seed uint64, midIdent bool) ([]inlinePos, error) {
	var files []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "target" || d.Name() == "build" || d.Name() == "bin") {
			return filepath.SkipDir
		}
		// Regular files only: a FIFO's open waits for a writer for good.
		if d.Type().IsRegular() && strings.HasSuffix(path, ".java") && d.Name() != "module-info.java" && d.Name() != "package-info.java" {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	rng.Shuffle(len(files), func(i, j int) { files[i], files[j] = files[j], files[i] })
	var out []inlinePos
	for _, file := range files {
		if len(out) >= want {
			break
		}
		b, err := readAtMost(file, maxBenchFileBytes)
		if err != nil {
			continue // unreadable, or over the bound
		}
		var mid func(n int) int
		if midIdent {
			mid = func(n int) int { return 1 + rng.IntN(n-1) }
		}
		ps := linePositions(file, string(b), mid)
		rng.Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
		for _, p := range ps[:min(len(ps), perFile, want-len(out))] {
			out = append(out, p)
		}
	}
	return out, nil
}

// linePositions returns the candidate positions of one file: in a statement
// at brace depth 2 or more (a method body) that starts and ends on one line
// with ";" after a ";", "{" or "}", the caret after one of its tokens but
// the last; or, with mid non-nil, inside one of its identifiers of n >= 2
// bytes, after mid(n) of them (1 <= mid(n) < n; a caret that would split a
// UTF-8 sequence is skipped).
func linePositions(file, src string, mid func(n int) int) []inlinePos {
	toks := javalex.LexCode(src)
	lineOf := func(off int) int { return strings.Count(src[:off], "\n") }
	var out []inlinePos
	depth := 0
	for i := 0; i < len(toks); {
		// toks[i] starts a line's statement when the previous token ends one.
		startsStmt := i > 0 && (toks[i-1].Text == ";" || toks[i-1].Text == "{" || toks[i-1].Text == "}") && lineOf(toks[i-1].Start) < lineOf(toks[i].Start)
		j := i
		line := lineOf(toks[i].Start)
		d := depth
		minDepth := depth
		for j < len(toks) && lineOf(toks[j].Start) == line {
			switch toks[j].Text {
			case "{":
				d++
			case "}":
				d--
				minDepth = min(minDepth, d)
			}
			j++
		}
		last := toks[j-1]
		if startsStmt && depth >= 2 && d == depth && minDepth == depth && last.Text == ";" && j-i >= 3 {
			lineEnd := last.End + strings.IndexByte(src[last.End:]+"\n", '\n')
			if strings.TrimSpace(src[last.End:lineEnd]) == "" {
				for k := i; k < j-1; k++ {
					caret := toks[k].End
					if mid != nil {
						if toks[k].Kind != javalex.Ident || len(toks[k].Text) < 2 {
							continue
						}
						if caret = toks[k].Start + mid(len(toks[k].Text)); !utf8.RuneStart(src[caret]) {
							continue
						}
					}
					out = append(out, inlinePos{file: file, src: src, caret: caret, lineEnd: lineEnd})
				}
			}
		}
		depth = d
		i = j
	}
	return out
}

// loadAverage returns the 1, 5 and 15 minute load averages ("?" where
// /proc/loadavg is missing).
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// reducedAgreement compares the guarantee's verdict on the reduced unit
// (inline.ReducedPair: the other method and constructor bodies stubbed) with
// its verdict on the whole file, suggestion by suggestion (bench inline
// --compare-reduced). A suggestion the reduced check passes and the whole
// check fails is a soundness bug of the reduction (unsound); the other way
// it would only hide a suggestion (missed).
type reducedAgreement struct {
	compared, notReduced int
	agreeOK, agreeFail   int
	unsound, missed      int
	wholeNew, reducedNew []time.Duration // the new text's check, each form
}

// add checks text inserted at caret in doc on the reduced unit and compares
// the verdict with whole's (introducesNone's); it returns a line to print
// for a disagreement. Both forms' new-text checks are timed, the reduced
// first on even counts and second on odd ones (the first check of a new
// document state may cost more).
func (a *reducedAgreement) add(ctx context.Context, c engine.Compiler, uri, doc string, caret int, text string, whole bool) (string, error) {
	newRed, oldRed, ok := inline.ReducedPair(doc[:caret], text, doc[caret:])
	if !ok {
		a.notReduced++
		return "", nil
	}
	check := func(full string) ([]engine.CompileError, time.Duration, error) {
		t0 := time.Now()
		errs, err := c.CompileErrors(ctx, uri, full)
		if errors.Is(err, engine.ErrUnparsable) {
			return nil, 0, errUnparsableText
		}
		return errs, time.Since(t0), err
	}
	var wholeNew, redNew []engine.CompileError
	var tw, tr time.Duration
	var err error
	first, second := &redNew, &wholeNew
	tf, ts := &tr, &tw
	ff, sf := newRed, doc[:caret]+text+doc[caret:]
	if a.compared%2 == 1 {
		first, second, tf, ts, ff, sf = second, first, ts, tf, sf, ff
	}
	if *first, *tf, err = check(ff); err != nil && err != errUnparsableText {
		return "", err
	}
	firstBad := err == errUnparsableText
	if *second, *ts, err = check(sf); err != nil && err != errUnparsableText {
		return "", err
	}
	secondBad := err == errUnparsableText
	redBad := firstBad
	if a.compared%2 == 1 {
		redBad = secondBad
	}
	a.compared++
	if !firstBad && !secondBad {
		a.wholeNew = append(a.wholeNew, tw)
		a.reducedNew = append(a.reducedNew, tr)
	}
	reduced := false
	if !redBad {
		span := inline.Span{From: strings.Count(doc[:caret], "\n") + 1}
		span.To = span.From + strings.Count(text, "\n")
		var old []engine.CompileError
		if len(redNew) > 0 {
			if old, _, err = check(oldRed); err != nil && err != errUnparsableText {
				return "", err
			}
		}
		reduced = len(inline.Introduced(redNew, old, span)) == 0
	}
	switch {
	case reduced == whole && whole:
		a.agreeOK++
	case reduced == whole:
		a.agreeFail++
	case reduced:
		a.unsound++
		return fmt.Sprintf("UNSOUND reduction: %q passes the reduced check, not the whole one (whole file's errors %v, reduced %v)", text, wholeNew, redNew), nil
	default:
		a.missed++
		return fmt.Sprintf("reduction missed %q: it fails the reduced check, passes the whole one (reduced errors %v)", text, redNew), nil
	}
	return "", nil
}

var errUnparsableText = errors.New("unparsable")

// String is the comparison's summary line.
func (a reducedAgreement) String() string {
	return fmt.Sprintf("reduced check against the whole file's: %d shown suggestions compared (%d more not reducible): both pass %d, both fail %d, reduced passes and whole fails %d (unsound), reduced fails and whole passes %d; new text's check median whole %s ms, reduced %s ms (p90 %s / %s ms)",
		a.compared, a.notReduced, a.agreeOK, a.agreeFail, a.unsound, a.missed,
		ms(quantile(a.wholeNew, 0.5)), ms(quantile(a.reducedNew, 0.5)), ms(quantile(a.wholeNew, 0.9)), ms(quantile(a.reducedNew, 0.9)))
}
