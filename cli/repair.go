package cli

// repair.go is "repilot-lsp repair": repair one hunk of a Java file from the
// command line and print the ranked patches as unified diffs or JSON.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/repilot-lsp/repilot-lsp/backend"
	"github.com/repilot-lsp/repilot-lsp/engine"
	"github.com/repilot-lsp/repilot-lsp/jsonrpc"
	"github.com/repilot-lsp/repilot-lsp/repair"
	"github.com/repilot-lsp/repilot-lsp/textpos"
)

type repairFlags struct {
	project     string
	file        string
	lines       string
	sampling    samplingFlags
	jsonOut     bool
	jdtls       string
	stateDir    string
	variant     string
	keep        int
	testTimeout time.Duration
	testFactor  float64       // repair.Request.TestTimeFactor (0 here: off)
	testFloor   time.Duration // repair.Request.TestTimeFloor
	quiet       bool
	model       modelFlags
}

// testCommandAfterDash accepts repair's positional arguments only after "--":
// a word before it (a typo such as "--lines 30 extra", or a test command
// without the dash) is refused instead of being run as the test command.
func testCommandAfterDash(cmd *cobra.Command, args []string) error {
	if dash := cmd.ArgsLenAtDash(); len(args) > 0 && dash != 0 {
		n := len(args)
		if dash > 0 {
			n = dash
		}
		return fmt.Errorf("unexpected argument %q before \"--\": a test command goes after \"--\", e.g. repair ... -- mvn -q test", strings.Join(args[:n], " "))
	}
	return nil
}

func init() {
	var f repairFlags
	cmd := &cobra.Command{
		Use:   "repair [--project DIR] --file F --lines A-B [flags] [-- TEST-CMD...]",
		Short: "Repair a hunk of a Java file with Repilot and print the ranked patches",
		Long: `repair samples candidate hunks for lines A-B of a Java file from the language
model, pruned and completed by JDT LS used as a completion engine (Repilot,
FSE 2023), compile-checks each candidate and prints the best as unified diffs
(plausible first, then compilable, then the rest, each by the model's log-probability).
The project's files are never modified. Validation runs while sampling goes on:
each new candidate is compile-checked as soon as it is sampled and its tests
start in the background, so the first patches are printed (on stderr) before
sampling ends; the ranked list comes at the end.

Lines are 1-based and inclusive; "A" means "A-A"; an insertion before line A is
written "A-(A-1)", e.g. --lines 12-11 (--lines 1-0 inserts at the top of the
file, --lines N+1-N after its last line N).

Everything after "--" is a test command (argv, no shell), run in a scratch copy
of the project with each compilable patch applied: exit status 0 makes the patch
plausible. A patch's tests stop at --test-timeout, or sooner once they have
taken --test-time-factor times the unchanged code's test time (at least
--test-time-floor) and used as many times its CPU time: the tests run once
on the unchanged code when a patch's tests pass that floor, so a patch that
loops is stopped without waiting for --test-timeout, and its test output
says after how long and why.

repair exits with status 0 when it prints at least one patch (compilable or
not), 1 on an error or when no sample gave a candidate, 130 when interrupted
(Ctrl-C; 143 for SIGTERM). An interrupted repair still prints the candidates it found, ranked,
after a first line saying how far it got ("interrupted" in --json); those
whose compile check had not run are marked not validated.

The model is the embedded n-gram model, or an OpenAI-compatible server
(llama.cpp's llama-server, vLLM, ...) given by --model-base-url or
$REPILOT_MODEL_BASE_URL; it is checked once before JDT LS starts, and a server
that is down or returns no logprobs is reported then. With a server,
--model-concurrency samples are drawn at once (each on its own request
stream, so the server can batch them); the patches are those of drawing them
one after another with the same --seed. The API key is read from
the variable named by --api-key-env and never printed.

Progress goes to stderr; patches to stdout.`,
		Example: `  repilot-lsp repair --file src/main/java/org/example/Foo.java --lines 41-42
  repilot-lsp repair --project . --file Foo.java --lines 12 --json --variant prune -- mvn -q test
  repilot-lsp repair --project . --file Foo.java --lines 12 --model-base-url http://127.0.0.1:8080/v1`,
		Args: testCommandAfterDash,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRepair(cmd.Context(), f, args, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	fl := cmd.Flags()
	d := repair.DefaultOptions()
	fl.StringVar(&f.project, "project", "", projectFlagHelp)
	fl.StringVar(&f.file, "file", "", "the Java file, relative to the project (else to the current folder) or absolute (required)")
	fl.StringVar(&f.lines, "lines", "", `buggy lines "A-B" (1-based, inclusive), "A", or "A-(A-1)" to insert before A (required)`)
	addSamplingFlags(fl, &f.sampling, "samples to draw (each ends in at most one candidate; equal candidates merge)")
	fl.BoolVar(&f.jsonOut, "json", false, "print JSON instead of diffs")
	addJDTLSFlag(fl, &f.jdtls)
	addStateDirFlag(fl, &f.stateDir, false)
	fl.StringVar(&f.variant, "variant", "full", "Repilot variant, the paper's ablations: base (plain sampling), prune (tokens the completion engine proves cannot compile are pruned), "+
		"prune+memo (and the memo of accepted and rejected tokens and rejected prefixes), full (and active completion of identifiers whose continuation is certain)")
	fl.IntVar(&f.keep, "keep", d.KeepTop, "patches to print")
	fl.DurationVar(&f.testTimeout, "test-timeout", repair.DefaultTestTimeout, "time limit of the test command per patch (0: the default, "+repair.DefaultTestTimeout.String()+")")
	fl.Float64Var(&f.testFactor, "test-time-factor", repair.DefaultTestTimeFactor,
		"a patch's tests may take this many times the unchanged code's time and CPU time (run once a patch's tests pass --test-time-floor), at least --test-time-floor, at most --test-timeout; 0: only --test-timeout")
	fl.DurationVar(&f.testFloor, "test-time-floor", repair.DefaultTestTimeFloor, "the least time a patch's tests may take under --test-time-factor (0: the default)")
	fl.BoolVar(&f.quiet, "quiet", false, "no progress on stderr")
	addModelFlags(fl, &f.model)
	Root.AddCommand(cmd)
}

// newRepairer builds the repair service for the repair command (tests
// substitute one shared service).
var newRepairer = buildRepairer

// repairTarget is a checked command-line request.
type repairTarget struct {
	root, file string
	text       string
	start, end int
}

// insertion reports whether the target inserts lines ("A-(A-1)") instead of
// replacing some.
func (t repairTarget) insertion() bool { return t.end == t.start-1 }

// describe says in words which lines the repair replaces or where it
// inserts, e.g. "lines 3-5 of src/A.java" or "an insertion before line 1
// (the top) of src/A.java".
func (t repairTarget) describe() string {
	rel, err := filepath.Rel(t.root, t.file)
	if err != nil {
		rel = t.file
	}
	rel = filepath.ToSlash(rel)
	switch n := textpos.CountLines(t.text); {
	case t.insertion() && t.start == 1:
		return fmt.Sprintf("an insertion before line 1 (the top) of %s; nothing is replaced", rel)
	case t.insertion() && t.start > n:
		return fmt.Sprintf("an insertion after the last line (%d) of %s; nothing is replaced", n, rel)
	case t.insertion():
		return fmt.Sprintf("an insertion before line %d of %s; nothing is replaced", t.start, rel)
	case t.start == t.end:
		return fmt.Sprintf("line %d of %s", t.start, rel)
	default:
		return fmt.Sprintf("lines %d-%d of %s", t.start, t.end, rel)
	}
}

// resolveTarget checks --project, --file and --lines before anything is
// started, so that mistakes are reported at once. An empty project is
// defaultProject.
func resolveTarget(project, file, lines string) (repairTarget, error) {
	var t repairTarget
	var missing []string
	for _, f := range []struct{ name, value string }{{"--file", file}, {"--lines", lines}} {
		if f.value == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return t, fmt.Errorf("missing %s (repair needs --file F --lines A-B)", strings.Join(missing, " and "))
	}
	if project == "" {
		var err error
		if project, err = defaultProject(); err != nil {
			return t, err
		}
	}
	root, err := filepath.Abs(project)
	if err != nil {
		return t, err
	}
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		return t, fmt.Errorf("project %s is not a directory", project)
	}
	if root, err = filepath.EvalSymlinks(root); err != nil {
		return t, err
	}
	path := file
	if !filepath.IsAbs(path) {
		path = filepath.Join(root, file)
		if _, err := os.Stat(path); err != nil {
			if cwdPath, err2 := filepath.Abs(file); err2 == nil {
				if _, err2 := os.Stat(cwdPath); err2 == nil {
					path = cwdPath
				}
			}
		}
	}
	if path, err = filepath.EvalSymlinks(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) && !filepath.IsAbs(file) {
			return t, fmt.Errorf("file %s: no such file in the project (%s) or the current folder",
				file, filepath.Join(root, file))
		}
		return t, fmt.Errorf("file %s: %w", file, errors.Unwrap(err))
	}
	if !strings.EqualFold(filepath.Ext(path), ".java") {
		return t, fmt.Errorf("file %s is not a .java file", file)
	}
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return t, fmt.Errorf("file %s is not inside the project %s", path, root)
	}
	// Not a FIFO or device (reading one waits for a writer, for good) and
	// no larger than an editor could send in one message.
	if st, err := os.Stat(path); err != nil {
		return t, err
	} else if !st.Mode().IsRegular() {
		return t, fmt.Errorf("file %s is not a regular file", file)
	} else if st.Size() > maxTargetBytes {
		return t, fmt.Errorf("file %s has %d bytes, more than the %d a repair reads", file, st.Size(), maxTargetBytes)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return t, err
	}
	start, end, err := parseLines(lines)
	if err != nil {
		return t, err
	}
	n := textpos.CountLines(string(data))
	if start > n+1 || end > n {
		return t, fmt.Errorf("lines %s out of range: %s has %s", lines, rel, plural(n, "line", "lines"))
	}
	return repairTarget{root: root, file: path, text: string(data), start: start, end: end}, nil
}

// maxTargetBytes bounds the file a repair reads: the largest message body
// the proxy reads from an editor (jsonrpc.MaxBodyBytes, 64 MiB), so no
// larger document could reach a repair from the editor either.
const maxTargetBytes = jsonrpc.MaxBodyBytes

// parseLines reads "A-B", "A" or "A-(A-1)".
func parseLines(s string) (start, end int, err error) {
	a, b, found := strings.Cut(strings.TrimSpace(s), "-")
	bad := fmt.Errorf(`--lines %q: want "A-B" (1-based, inclusive), "A", or "A-(A-1)" for an insertion before A`, s)
	if start, err = strconv.Atoi(strings.TrimSpace(a)); err != nil {
		return 0, 0, bad
	}
	end = start
	if found {
		if end, err = strconv.Atoi(strings.TrimSpace(b)); err != nil {
			return 0, 0, bad
		}
	}
	switch {
	case start < 1:
		return 0, 0, fmt.Errorf("--lines %q: lines are numbered from 1", s)
	case end < start-1:
		return 0, 0, fmt.Errorf("--lines %q: the last line is before the first (an insertion before line %d is %d-%d)", s, start, start, start-1)
	}
	return start, end, nil
}

func runRepair(ctx context.Context, f repairFlags, testCmd []string, stdout, stderr io.Writer) (err error) {
	// Ctrl-C cancels ctx: the repair stops, the deferred Close stops JDT LS,
	// and the command reports "interrupted" whatever error the cancelled
	// work returned.
	ctx, interrupted, stop := withSignals(ctx)
	defer stop()
	defer func() { err = interrupted(err) }()

	t, err := resolveTarget(f.project, f.file, f.lines)
	if err != nil {
		return err
	}
	if f.project == "" && !f.quiet {
		fmt.Fprintln(stderr, projectChosen(t.root))
	}
	if err := repair.CheckEnv(); err != nil {
		return err
	}
	opts, err := repair.DefaultOptions().WithVariant(f.variant)
	if err != nil {
		return fmt.Errorf("--variant: %w", err)
	}
	if err := f.sampling.apply(&opts); err != nil {
		return err
	}
	if f.keep < 1 {
		return fmt.Errorf("--keep %d: want at least 1", f.keep)
	}
	if f.testTimeout < 0 {
		return fmt.Errorf("--test-timeout %s: want a duration of at least 0 (0: %s)", f.testTimeout, repair.DefaultTestTimeout)
	}
	if !(f.testFactor >= 0) || math.IsInf(f.testFactor, 0) {
		return fmt.Errorf("--test-time-factor %g: want a finite factor of at least 0 (0: off)", f.testFactor)
	}
	if f.testFloor < 0 {
		return fmt.Errorf("--test-time-floor %s: want a duration of at least 0 (0: the default, %s)", f.testFloor, repair.DefaultTestTimeFloor)
	}
	testFactor := f.testFactor
	if testFactor == 0 {
		testFactor = -1 // repair.Request: negative turns the scaled limit off
	}
	opts.KeepTop = f.keep

	progress := func(msg string, pct int) {
		if !f.quiet {
			fmt.Fprintf(stderr, "repilot: [%3d%%] %s\n", pct, msg)
		}
	}
	progress("hunk: "+t.describe(), 0)
	model, err := f.model.resolve(os.Getenv)
	if err != nil {
		return err
	}
	progress("language model: "+model.String(), 0)
	if model.Remote() {
		opts.Concurrency = max(1, f.model.concurrency) // samples at once (repair.Options.Concurrency)
	}
	if err := backend.CheckModel(ctx, model); err != nil {
		return err
	}
	// No warm-up: here the user waits for JDT LS's start and the repair
	// alike, so warming up would only move time (engine.WithWarmUp). The
	// engine lives for this one repair (engine.WithShortLived).
	r, err := newRepairer(backend.Config{JDTLSHome: f.jdtls, StateDir: f.stateDir, Progress: progress, Model: model,
		Engine: []engine.JDTOption{engine.WithWarmUp(false), engine.WithShortLived()}})
	if err != nil {
		return err
	}
	if c, ok := r.(io.Closer); ok {
		defer c.Close()
	}
	began := time.Now()
	var onPatch func(repair.Patch)
	if !f.quiet && !f.jsonOut {
		onPatch = func(p repair.Patch) { writeFound(stderr, p, time.Since(began)) }
	}
	res, err := r.Repair(ctx, repair.Request{
		Root: t.root, File: t.file, Text: t.text,
		StartLine: t.start, EndLine: t.end,
		Options: opts, TestCmd: testCmd, TestTimeout: f.testTimeout, TestBuggy: true,
		TestTimeFactor: testFactor, TestTimeFloor: f.testFloor,
		OnPatch: onPatch,
	}, progress)
	// An interrupted repair returns what it found with its error: that is
	// printed, then the error reported (exit status 130 for Ctrl-C). With
	// nothing found, or any other error, the error line alone is the output.
	after := ""
	if err != nil {
		if res == nil || !res.Interrupted || len(res.Candidates) == 0 {
			return err
		}
		after = interruptedAfter(res, opts)
	}
	if !f.quiet {
		fmt.Fprintln(stderr, "repilot: "+statsLine(res.Stats, time.Since(began)))
	}
	if res.TestsPassOnBuggy() { // the "found a plausible patch" lines above were not
		fmt.Fprintln(stderr, "repilot: warning: "+repair.TestsPassOnBuggyMsg)
	}
	// No patch at all is a failure (exit status 1) after the output, so
	// that a script can tell it from success; the JSON still has the stats.
	fail := err
	if fail == nil && len(res.Patches) == 0 {
		fail = errors.New("no patch: no sample produced a candidate different from the buggy lines")
		if t.insertion() {
			fail = errors.New("no patch: every sample inserted nothing")
		}
	}
	if f.jsonOut {
		if err := writeJSON(stdout, t, opts, res, after); err != nil {
			return err
		}
		return fail
	}
	if after != "" {
		fmt.Fprintf(stdout, "# interrupted after %s\n", after)
	}
	writeDiffs(stdout, res)
	return fail
}

// writeFound prints a compilable patch to w (stderr) as soon as it is
// validated, after elapsed since the repair started; the ranked patches
// follow on stdout when the repair ends.
func writeFound(w io.Writer, p repair.Patch, elapsed time.Duration) {
	if !p.Compilable {
		return
	}
	status := "a compilable patch"
	if p.Tested && p.Plausible {
		status = "a plausible patch (tests pass)"
	} else if p.Tested {
		status = "a compilable patch whose tests fail"
	}
	fmt.Fprintf(w, "repilot: found %s after %s:\n", status, elapsed.Round(100*time.Millisecond))
	for _, l := range strings.SplitAfter(p.Diff, "\n") {
		if l != "" {
			fmt.Fprint(w, "repilot:   "+l)
		}
	}
}

// interruptedAfter says how far an interrupted repair got, e.g. "7 of 20
// samples; 3 of 5 candidates validated", with "(2 more compile-checked,
// their tests interrupted)" when compilable candidates were still testing.
func interruptedAfter(res *repair.Result, opts repair.Options) string {
	validated, compiled := 0, 0
	for _, p := range res.Candidates {
		switch {
		case !p.Unvalidated:
			validated++
		case p.Compilable:
			compiled++
		}
	}
	s := fmt.Sprintf("%d of %d samples; %d of %s validated",
		res.Stats.Samples, opts.Samples, validated, plural(len(res.Candidates), "candidate", "candidates"))
	switch {
	case compiled == 1:
		s += " (1 more compile-checked, its tests interrupted)"
	case compiled > 1:
		s += fmt.Sprintf(" (%d more compile-checked, their tests interrupted)", compiled)
	}
	return s
}

// statsLine summarises a repair's counters in one line. s.Duration counts
// from when JDT LS and the model were ready; total (the clock of the "found
// ... after" lines) counts their start too, so both are named.
func statsLine(s repair.Stats, total time.Duration) string {
	return fmt.Sprintf("%s (%d complete, %s, %d too long), %s; %s, %s, %s pruned, %s, %s actively completed; repair %s once JDT LS and the model were ready, %s in all",
		plural(s.Samples, "sample", "samples"), s.Completed, plural(s.Dead, "dead prefix", "dead prefixes"), s.Truncated,
		plural(s.Unique, "unique candidate", "unique candidates"),
		plural(s.LMRequests, "model request", "model requests"), plural(s.EngineRequests, "engine request", "engine requests"),
		plural(s.Pruned, "token", "tokens"), plural(s.MemoHits, "memo hit", "memo hits"),
		plural(s.ActiveChars, "char", "chars"), s.Duration.Round(100*time.Millisecond), total.Round(100*time.Millisecond))
}

// plural is "1 error" or "n errors": n followed by one or many.
func plural[N int | int64](n N, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func writeDiffs(w io.Writer, res *repair.Result) {
	for i, p := range res.Patches {
		status := "compilable"
		switch {
		case p.Unvalidated && !p.Compilable:
			status = "not validated (interrupted before its compile check)"
		case p.Unvalidated:
			status = "compilable, tests interrupted"
		case !p.Compilable:
			status = fmt.Sprintf("does not compile (%s)", plural(len(p.NewErrors), "new error", "new errors"))
		}
		if p.Tested {
			switch {
			case p.Plausible && res.TestsPassOnBuggy():
				status += ", tests pass (on the unchanged code too: not plausible)"
			case p.Plausible:
				status += ", plausible (tests pass)"
			default:
				status += ", tests fail"
			}
		}
		fmt.Fprintf(w, "# patch %d/%d: %s; score %.3f (model log-probability over %s), sampled %s\n",
			i+1, len(res.Patches), status, p.Score, plural(p.Tokens, "token", "tokens"), plural(p.Count, "time", "times"))
		for _, e := range p.NewErrors {
			if !p.Unvalidated { // an unvalidated patch's only entry is repair.NotValidated, said above
				fmt.Fprintf(w, "#   %s\n", e)
			}
		}
		if p.Tested && !p.Plausible {
			for _, l := range lastLines(p.TestOutput, testTailLines) {
				fmt.Fprintf(w, "#   test: %s\n", l)
			}
		}
		io.WriteString(w, p.Diff)
		if i < len(res.Patches)-1 {
			fmt.Fprintln(w)
		}
	}
	if more := len(res.Candidates) - len(res.Patches); more > 0 && len(res.Patches) > 0 {
		fmt.Fprintf(w, "\n# %s not shown (ranked lower; --keep N prints more)\n", plural(more, "more candidate", "more candidates"))
	}
	// The buggy project's test run: shown when the tests pass there too (the
	// warning), or when no candidate passed them (how they fail on the bug).
	// With a plausible patch, tests that fail on the bug are as they should
	// be: nothing to say.
	if bt := res.BuggyTest; bt != nil && (bt.Passed || !anyPlausible(res.Patches)) {
		tail := lastLines(bt.Output, testTailLines)
		switch {
		case bt.Passed:
			fmt.Fprintln(w, "\n# warning: "+repair.TestsPassOnBuggyMsg)
		case len(tail) == 0: // a command that fails silently (`false`, `test -f x`)
			fmt.Fprintln(w, "\n# no candidate passed the tests; on the buggy project they fail too, with no output")
			fmt.Fprintln(w, "# (if this is not the failure you expected, check the test command)")
		default:
			fmt.Fprintln(w, "\n# no candidate passed the tests; on the buggy project they fail too, ending with")
			fmt.Fprintln(w, "# (if this is not the failure you expected, check the test command):")
		}
		for _, l := range tail {
			fmt.Fprintf(w, "#   buggy: %s\n", l)
		}
	}
}

// anyPlausible reports whether one of ps passed the test command.
func anyPlausible(ps []repair.Patch) bool {
	for _, p := range ps {
		if p.Plausible {
			return true
		}
	}
	return false
}

// testTailLines is how many lines of a failing test's output the text
// output shows under the patch (--json has the whole tail).
const testTailLines = 3

// ansiEscape matches terminal colour and cursor sequences (ECMA-48 CSI),
// which test runners such as Maven print even into a pipe.
var ansiEscape = regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]`)

// lastLines returns the last n non-blank lines of s, trimmed on the right,
// without terminal escape sequences.
func lastLines(s string, n int) []string {
	var out []string
	lines := strings.Split(ansiEscape.ReplaceAllString(s, ""), "\n")
	for i := len(lines) - 1; i >= 0 && len(out) < n; i-- {
		if l := strings.TrimRight(lines[i], " \t\r"); strings.TrimSpace(l) != "" {
			out = append([]string{l}, out...)
		}
	}
	return out
}

// jsonPatch is one patch in --json output.
type jsonPatch struct {
	Rank       int      `json:"rank"`
	Compilable bool     `json:"compilable"`
	Tested     bool     `json:"tested"`
	Plausible  bool     `json:"plausible"`
	Score      float64  `json:"score"`
	LogProb    float64  `json:"logprob"`
	Tokens     int      `json:"tokens"`
	Count      int      `json:"count"`
	NewErrors  []string `json:"new_errors"`
	Hunk       string   `json:"hunk"`
	Diff       string   `json:"diff"`
	TestOutput string   `json:"test_output,omitempty"`
	// Unvalidated: the repair was interrupted before this patch's compile
	// check (or its tests) finished (repair.Patch.Unvalidated).
	Unvalidated bool `json:"unvalidated,omitempty"`
}

// writeJSON prints the --json output. interruptedAfter is "" for a finished
// repair, or how far an interrupted one got (see interruptedAfter): then
// "interrupted" (true) and "interrupted_after" come first.
func writeJSON(w io.Writer, t repairTarget, opts repair.Options, res *repair.Result, interruptedAfter string) error {
	rel, _ := filepath.Rel(t.root, t.file)
	out := struct {
		Interrupted      bool         `json:"interrupted,omitempty"`
		InterruptedAfter string       `json:"interrupted_after,omitempty"`
		Project          string       `json:"project"`
		File             string       `json:"file"`
		StartLine        int          `json:"start_line"`
		EndLine          int          `json:"end_line"`
		Variant          string       `json:"variant"`
		Seed             int64        `json:"seed"`
		Patches          []jsonPatch  `json:"patches"`
		Stats            repair.Stats `json:"stats"`
		// BuggyTest: the test command on the unpatched project, run after
		// the first plausible patch or when no tested candidate passed
		// (repair.Result.BuggyTest).
		BuggyTest *repair.TestRun `json:"buggy_test,omitempty"`
		// TestsPassOnBuggy: BuggyTest passed, so the patches' "plausible"
		// says only that the tests pass (repair.Result.TestsPassOnBuggy);
		// Warning says so in words.
		TestsPassOnBuggy bool   `json:"tests_pass_on_buggy,omitempty"`
		Warning          string `json:"warning,omitempty"`
	}{Interrupted: interruptedAfter != "", InterruptedAfter: interruptedAfter,
		Project: t.root, File: filepath.ToSlash(rel), StartLine: t.start, EndLine: t.end, Variant: opts.Variant(), Seed: opts.Seed,
		Patches: []jsonPatch{}, Stats: res.Stats, BuggyTest: res.BuggyTest, TestsPassOnBuggy: res.TestsPassOnBuggy()}
	if out.TestsPassOnBuggy {
		out.Warning = repair.TestsPassOnBuggyMsg
	}
	for i, p := range res.Patches {
		errs := p.NewErrors
		if errs == nil {
			errs = []string{}
		}
		out.Patches = append(out.Patches, jsonPatch{
			Rank: i + 1, Compilable: p.Compilable, Tested: p.Tested, Plausible: p.Plausible,
			Score: p.Score, LogProb: p.LogProb, Tokens: p.Tokens, Count: p.Count,
			NewErrors: errs, Hunk: p.Hunk, Diff: p.Diff, TestOutput: p.TestOutput, Unvalidated: p.Unvalidated,
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
