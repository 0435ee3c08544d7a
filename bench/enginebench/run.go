package enginebench

// run.go runs the engine benchmark on a corpus: it starts one shadow JDT LS
// for every fixture's project (copied to a temporary directory), forces the
// unmutated fixes and the confirmed non-compiling mutants through the
// engine, and times decisions with and without the per-site cache.

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/repilot-lsp/repilot-lsp/backend"
	"github.com/repilot-lsp/repilot-lsp/corpus"
	"github.com/repilot-lsp/repilot-lsp/engine"
	"github.com/repilot-lsp/repilot-lsp/internal/forcetok"
	"github.com/repilot-lsp/repilot-lsp/javalex"
	"github.com/repilot-lsp/repilot-lsp/jdtls"
)

// Options tune Run. The zero value means the defaults named on each field.
type Options struct {
	// Seed makes the mutants (Candidates); equal seeds give equal mutants.
	Seed uint64
	// Tries bounds the replacements tried per site until one is confirmed not
	// to compile (default 4); a site whose tries all compile has no mutant.
	Tries int
	// NewLines is how many further lines per fixture holding "new Type" are
	// taken from the fixed file as hunks for NewType mutants (default 2; the
	// fixes themselves rarely construct objects). -1: none.
	NewLines int
	// Speed also times decisions with and without the site cache.
	Speed bool
	// SkipFixSoundness does not force the tokens of the unmutated fixes
	// (Report.Soundness then counts the "new" lines' tokens and every
	// hunk's end, the fixes' included): for the package's test, since
	// engine's TestSoundnessOnBugCorpus forces the same fixes, in the same
	// token splits, on a JDT LS started the same way.
	SkipFixSoundness bool
	// Log receives progress lines (nil: discarded).
	Log io.Writer
}

func (o Options) withDefaults() Options {
	if o.Tries <= 0 {
		o.Tries = 4
	}
	if o.NewLines == 0 {
		o.NewLines = 2
	}
	return o
}

// KindResult is the pruning power of one mutation kind.
type KindResult struct {
	Kind  Kind `json:"kind"`
	Sites int  `json:"sites"` // identifiers of this kind in the hunks
	// Mutants are the confirmed mutants forced through the engine: each has
	// a JDT LS compile error, which the fixed file lacks, saying that the
	// replacement names nothing there (nameErrorMarkers).
	Mutants int `json:"mutants"`
	// Pruned mutants had a token answered Infeasible at or after the mutated
	// identifier.
	Pruned int `json:"pruned"`
	// Early mutants were pruned before the mutated identifier: a token the
	// unmutated fix shares was called infeasible (a soundness failure).
	Early int `json:"early"`
	// Compiled counts replacements that compiled (a real name of the right
	// type, say); OtherError, replacements that failed to compile for another
	// reason than the name (a real member taking other arguments): both are
	// skipped. NoMutant counts sites whose every try was skipped.
	Compiled   int `json:"compiled"`
	OtherError int `json:"other_error"`
	NoMutant   int `json:"no_mutant"`
	// CompileFailed counts replacements whose compile check failed (JDT LS
	// published no diagnostics in time): skipped too.
	CompileFailed int `json:"compile_failed"`
}

// Rate is Pruned/Mutants (0 when there are none).
func (k KindResult) Rate() float64 {
	if k.Mutants == 0 {
		return 0
	}
	return float64(k.Pruned) / float64(k.Mutants)
}

// Soundness is the unmutated check: fixes forced token by token, none of
// whose tokens may be pruned.
type Soundness struct {
	Hunks    int `json:"hunks"`    // hunks forced (fixes plus the "new" lines)
	Checks   int `json:"checks"`   // Check calls
	Feasible int `json:"feasible"` // decisions proven feasible
	Ends     int `json:"ends"`     // end-of-hunk checks (Session.CheckEnd), one per forced hunk and split
	Pruned   int `json:"pruned"`   // tokens or ends answered Infeasible: must be 0
	// PrunedAt lists each pruned token as "bug: token after prefix", and
	// each pruned end as "bug: the end of the hunk after text".
	PrunedAt []string `json:"pruned_at,omitempty"`
}

// Speed is the cost of decisions in one cache mode.
type Speed struct {
	Mode      string        `json:"mode"`      // "site cache" or "no site cache"
	Decisions int           `json:"decisions"` // Check calls timed
	Median    time.Duration `json:"median_ns"` // median time per decision
	P90       time.Duration `json:"p90_ns"`
	// StrictMedian is the median of decisions that consulted a member list
	// (from the cache or JDT LS): the ones whose cost the cache changes.
	Strict       int           `json:"strict"`
	StrictMedian time.Duration `json:"strict_median_ns"`
	Requests     int64         `json:"requests"` // JDT LS requests sent
	// RequestsPerToken is Requests per Check call (each Check is one
	// generated token).
	RequestsPerToken float64       `json:"requests_per_token"`
	Total            time.Duration `json:"total_ns"`
}

// MutantResult is one forced mutant, for the detailed listing.
type MutantResult struct {
	Bug    string `json:"bug"`
	Kind   Kind   `json:"kind"`
	Orig   string `json:"orig"`
	Repl   string `json:"repl"`
	Pruned bool   `json:"pruned"`
	Early  bool   `json:"early,omitempty"`
	Token  string `json:"token,omitempty"` // the token pruned
	Error  string `json:"error,omitempty"` // the compile error that confirmed it
}

// Report is the benchmark's result.
type Report struct {
	Fixtures  int            `json:"fixtures"`
	Seed      uint64         `json:"seed"`
	Kinds     []KindResult   `json:"kinds"`
	Member    KindResult     `json:"member"` // MemberTypo and MemberWrongType together
	Soundness Soundness      `json:"soundness"`
	Speed     []Speed        `json:"speed,omitempty"`
	Mutants   []MutantResult `json:"mutants"`
	// Notes say where the engine did not engage (no decision proven
	// feasible on a fix with member accesses) and other caveats.
	Notes []string `json:"notes,omitempty"`
	// Startup is how long the shadow JDT LS took to be ready (0 when the
	// caller started it).
	Startup time.Duration `json:"startup_ns"`
	// Finished is the number of fixtures whose soundness checks and
	// mutants the report counts: Fixtures unless Interrupted.
	Finished int `json:"finished"`
	// Interrupted: ctx ended part-way (Ctrl-C); the report covers the
	// Finished fixtures and the Speed modes finished (Run returns it with
	// ctx's error).
	Interrupted bool `json:"interrupted,omitempty"`
}

// Workspace is a corpus copied to a temporary directory, with one shadow JDT
// LS importing every fixture's project.
type Workspace struct {
	Bugs    []corpus.Bug
	Roots   []string // project copies, parallel to Bugs
	Engine  *engine.JDT
	Startup time.Duration
	dir     string
}

// Start copies bugs' projects to a temporary directory and starts one JDT LS
// (install home) over all of them (Maven projects offline), with a request
// and compile timeout of 2 minutes each (a request timeout is Unknown and
// would hide pruning; a compile timeout skips a mutant). Close
// stops it and removes the copies. Errors: no bugs, a copy's, or JDT LS's
// start; the copies are removed then.
func Start(ctx context.Context, bugs []corpus.Bug, home string, stderr io.Writer) (*Workspace, error) {
	if len(bugs) == 0 {
		return nil, fmt.Errorf("no bugs")
	}
	dir, err := os.MkdirTemp("", "repilot-bench-engine-")
	if err != nil {
		return nil, err
	}
	w := &Workspace{Bugs: bugs, dir: dir}
	for _, b := range bugs {
		dst := filepath.Join(dir, "projects", b.ID)
		if err := os.CopyFS(dst, os.DirFS(b.ProjectDir())); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		w.Roots = append(w.Roots, dst)
	}
	began := time.Now()
	if stderr == nil {
		stderr = io.Discard
	}
	w.Engine, err = backend.StartEngine(ctx, backend.EngineSpec{Home: home, Dir: filepath.Join(dir, "state"),
		Root: w.Roots[0], Folders: w.Roots[1:], Stderr: stderr, HeapMB: 2048,
		Settings: map[string]any{"java.import.maven.offline.enabled": true},
		Options:  []engine.JDTOption{engine.WithRequestTimeout(2 * time.Minute), engine.WithCompileTimeout(2 * time.Minute)}})
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	w.Startup = time.Since(began)
	return w, nil
}

// Close stops the JDT LS and removes the project copies; the error is the
// engine's Close.
func (w *Workspace) Close() error {
	err := w.Engine.Close()
	os.RemoveAll(w.dir)
	return err
}

// target is one hunk to force: the fix, or a line of the fixed file.
type target struct {
	prefix, hunk, suffix string
	fix                  bool // the bug's fixed_hunk (else a "new" line)
}

// fixture is one bug's fixed file split into targets.
type fixture struct {
	bug     corpus.Bug
	uri     string
	text    string // the fixed file
	targets []target
}

func loadFixture(b corpus.Bug, root string, newLines int) (fixture, error) {
	path := filepath.Join(root, filepath.FromSlash(b.File))
	data, err := os.ReadFile(path)
	if err != nil {
		return fixture{}, err
	}
	prefix, _, suffix, err := corpus.Split(string(data), b.StartLine, b.EndLine)
	if err != nil {
		return fixture{}, fmt.Errorf("%s: %w", b.ID, err)
	}
	f := fixture{bug: b, uri: jdtls.FileURI(path), text: prefix + b.FixedHunk + suffix}
	f.targets = append(f.targets, target{prefix: prefix, hunk: b.FixedHunk, suffix: suffix, fix: true})
	if newLines < 0 {
		return f, nil
	}
	// Lines of the fixed file (outside the fix) that construct an object.
	fixed := corpus.SplitLines(f.text)
	fixStart, fixEnd := b.StartLine-1, b.StartLine-1+len(corpus.SplitLines(b.FixedHunk))
	off := 0
	for i, line := range fixed {
		lineOff := off
		off += len(line)
		if len(f.targets)-1 >= newLines || i >= fixStart && i < fixEnd {
			continue
		}
		has := false
		for _, s := range Sites(line) {
			if s.Kind == NewType && javalex.ContextAt(f.text, lineOff+s.Start) == javalex.Code {
				has = true
			}
		}
		if has {
			f.targets = append(f.targets, target{prefix: f.text[:lineOff], hunk: line, suffix: f.text[off:]})
		}
	}
	return f, nil
}

// force checks toks one by one in a fresh session of eng on h. It returns
// the index of the first token answered Infeasible (-1 if none), the number
// of checks and of feasible answers, and each check's duration and whether
// it consulted a member list. stopAtPrune ends at the first pruned token.
// checkEnd also judges the end of the hunk after the last token
// (Session.CheckEnd, the model's end token): an end answered Infeasible
// returns pruned = len(toks) when no token was pruned.
func force(ctx context.Context, eng engine.Engine, h engine.Hunk, toks []string, stopAtPrune, checkEnd bool) (pruned int, st engine.Stats, feasible int, times []time.Duration, strict []bool, err error) {
	s, err := eng.Open(ctx, h)
	if err != nil {
		return -1, st, 0, nil, nil, err
	}
	defer s.Close()
	pruned = -1
	gen := ""
	for i, tok := range toks {
		before := s.Stats()
		began := time.Now()
		out, err := s.Check(ctx, gen, tok)
		d := time.Since(began)
		if err != nil {
			return pruned, s.Stats(), feasible, times, strict, fmt.Errorf("Check(%q, %q): %w", gen, tok, err)
		}
		after := s.Stats()
		times = append(times, d)
		strict = append(strict, after.Requests+after.SiteHits+after.Errors > before.Requests+before.SiteHits+before.Errors)
		if out == engine.Feasible {
			feasible++
		}
		if out == engine.Infeasible && pruned < 0 {
			pruned = i
			if stopAtPrune {
				break
			}
		}
		gen += tok
	}
	if checkEnd {
		out, err := s.CheckEnd(ctx, gen)
		if err != nil {
			return pruned, s.Stats(), feasible, times, strict, fmt.Errorf("CheckEnd(%q): %w", gen, err)
		}
		if out == engine.Infeasible && pruned < 0 {
			pruned = len(toks)
		}
	}
	return pruned, s.Stats(), feasible, times, strict, nil
}

// checkEnd judges the end of the hunk after text in a fresh session of eng
// on h (Session.CheckEnd), without forcing text's tokens.
func checkEnd(ctx context.Context, eng engine.Engine, h engine.Hunk, text string) (engine.Outcome, error) {
	s, err := eng.Open(ctx, h)
	if err != nil {
		return engine.Unknown, err
	}
	defer s.Close()
	out, err := s.CheckEnd(ctx, text)
	if err != nil {
		return engine.Unknown, fmt.Errorf("CheckEnd(%q): %w", text, err)
	}
	return out, nil
}

// fatal reports whether err ends the run: ctx ended or the JDT LS died.
// Other engine errors (a compile check that timed out) skip one mutant.
func fatal(ctx context.Context, w *Workspace, err error) bool {
	return ctx.Err() != nil || w.Engine.Client().Err() != nil
}

// nameErrorMarkers are phrases of the JDT compiler's messages for a name
// that does not exist where it is used ("The method x() is undefined for the
// type T", "x cannot be resolved to a variable", "x cannot be resolved or is
// not a field", "Cannot invoke x() on the array type int[]", "Cannot invoke
// x() on the primitive type int").
var nameErrorMarkers = []string{"is undefined", "cannot be resolved", "Cannot invoke", "is not a field"}

// nameError returns the first message of msgs that says repl names nothing
// there, or "".
func nameError(msgs []string, repl string) string {
	for _, m := range msgs {
		if !strings.Contains(m, repl) {
			continue
		}
		for _, k := range nameErrorMarkers {
			if strings.Contains(m, k) {
				return m
			}
		}
	}
	return ""
}

// newErrors returns the messages of errs that base lacks (as multisets).
func newErrors(errs, base []engine.CompileError) []string {
	left := map[string]int{}
	for _, e := range base {
		left[e.Message]++
	}
	var out []string
	for _, e := range errs {
		if left[e.Message] > 0 {
			left[e.Message]--
			continue
		}
		out = append(out, e.Message)
	}
	return out
}

// Run forces w's fixes and their mutants through w.Engine and, with
// o.Speed, times decisions. Errors: the engine failing (JDT LS died) or ctx
// ending; a JDT LS that cannot decide is not an error (it answers Unknown,
// which shows as unpruned mutants). When ctx ends part-way (Ctrl-C), Run
// returns the report of the fixtures finished (Interrupted; a fixture cut
// short counts nowhere, and neither does a speed mode) with ctx's error.
func Run(ctx context.Context, w *Workspace, o Options) (*Report, error) {
	o = o.withDefaults()
	logf := func(format string, a ...any) {
		if o.Log != nil {
			fmt.Fprintf(o.Log, format+"\n", a...)
		}
	}
	rep := &Report{Fixtures: len(w.Bugs), Seed: o.Seed, Startup: w.Startup}
	kinds := map[Kind]*KindResult{}
	for _, k := range Kinds {
		kinds[k] = &KindResult{Kind: k}
	}
	var fixtures []fixture
	var texts []string
	for i, b := range w.Bugs {
		f, err := loadFixture(b, w.Roots[i], o.NewLines)
		if err != nil {
			return nil, err
		}
		fixtures = append(fixtures, f)
		texts = append(texts, f.text)
	}
	pool := MemberPool(texts)

	// runFixture adds one fixture's soundness checks, mutants and notes to
	// rep and kinds.
	runFixture := func(f fixture) error {
		b := f.bug
		// The fixed file's own errors (none for a compiling fixture; a Maven
		// dependency JDT LS could not resolve shows here).
		base, err := w.Engine.CompileErrors(ctx, f.uri, f.text)
		compiles := err == nil
		if err != nil {
			if fatal(ctx, w, err) {
				return fmt.Errorf("%s: compiling the fixed file: %w", b.ID, err)
			}
			rep.Notes = append(rep.Notes, fmt.Sprintf("%s: the compile check of the fixed file failed (%v): no mutant of this fixture is confirmed, its sites count as without mutant", b.ID, err))
		}
		if len(base) > 0 {
			rep.Notes = append(rep.Notes, fmt.Sprintf("%s: the fixed file has %d compile error(s) as JDT LS sees it (first: %s)", b.ID, len(base), base[0].Message))
		}
		for ti, t := range f.targets {
			// Buggy is the fixed text itself: the file as it stands is the
			// fixed file, which the end check parses once.
			h := engine.Hunk{URI: f.uri, Prefix: t.prefix, Suffix: t.suffix, Buggy: t.hunk}
			// Soundness: the unmutated hunk, whole tokens and 3-byte chunks,
			// and its end.
			feasibleHere := 0
			splits := [][]string{forcetok.LexTokens(t.hunk), forcetok.Chunks(t.hunk, 3)}
			if t.fix && o.SkipFixSoundness {
				// The tokens are engine's TestSoundnessOnBugCorpus's; the
				// end after the whole fix is still judged here.
				splits = nil
				out, err := checkEnd(ctx, w.Engine, h, t.hunk)
				if err != nil {
					return fmt.Errorf("%s: %w", b.ID, err)
				}
				rep.Soundness.Ends++
				if out == engine.Infeasible {
					rep.Soundness.Pruned++
					rep.Soundness.PrunedAt = append(rep.Soundness.PrunedAt, fmt.Sprintf("%s: the end of the hunk after %q", b.ID, t.hunk))
				}
			}
			for _, toks := range splits {
				p, st, feas, _, _, err := force(ctx, w.Engine, h, toks, false, true)
				if err != nil {
					return fmt.Errorf("%s: %w", b.ID, err)
				}
				rep.Soundness.Checks += int(st.Checks)
				rep.Soundness.Feasible += feas
				feasibleHere += feas
				rep.Soundness.Ends++
				switch {
				case p == len(toks):
					rep.Soundness.Pruned++
					rep.Soundness.PrunedAt = append(rep.Soundness.PrunedAt,
						fmt.Sprintf("%s: the end of the hunk after %q", b.ID, strings.Join(toks, "")))
				case p >= 0:
					rep.Soundness.Pruned++
					rep.Soundness.PrunedAt = append(rep.Soundness.PrunedAt,
						fmt.Sprintf("%s: %q after %q", b.ID, toks[p], strings.Join(toks[:p], "")))
				}
			}
			if splits != nil {
				rep.Soundness.Hunks++
			}
			sites := Sites(t.hunk)
			hasMember := slices.ContainsFunc(sites, func(s Site) bool { return s.Kind.IsMember() })
			if splits != nil && hasMember && feasibleHere == 0 {
				rep.Notes = append(rep.Notes, fmt.Sprintf("%s: no decision proven feasible on a hunk with member accesses (JDT LS resolved no receiver): the engine did not engage", b.ID))
			}
			// Mutants.
			for _, s := range sites {
				if !t.fix && s.Kind != NewType {
					continue // other lines serve the "new" kind only
				}
				kr := kinds[s.Kind]
				kr.Sites++
				key := fmt.Sprintf("%s\x00%d\x00%d", b.ID, ti, s.Start)
				var m *Mutant
				var why string
				for _, repl := range Candidates(s, pool, o.Seed, key, o.Tries) {
					if !compiles {
						break
					}
					mu := Apply(t.hunk, s, repl)
					errs, err := w.Engine.CompileErrors(ctx, f.uri, t.prefix+mu.Hunk+t.suffix)
					if err != nil {
						if fatal(ctx, w, err) {
							return fmt.Errorf("%s: compiling a mutant: %w", b.ID, err)
						}
						kr.CompileFailed++
						logf("%s: %s %s -> %s: compile check failed (%v); skipped", b.ID, s.Kind, s.Ident, repl, err)
						continue
					}
					ne := newErrors(errs, base)
					if why = nameError(ne, repl); why != "" {
						m = &mu
						break
					}
					if len(ne) == 0 {
						kr.Compiled++
						logf("%s: %s %s -> %s compiles; skipped", b.ID, s.Kind, s.Ident, repl)
					} else {
						kr.OtherError++
						logf("%s: %s %s -> %s: the name exists there (%s); skipped", b.ID, s.Kind, s.Ident, repl, ne[0])
					}
				}
				if m == nil {
					kr.NoMutant++
					continue
				}
				toks := forcetok.LexTokens(m.Hunk)
				p, _, _, _, _, err := force(ctx, w.Engine, h, toks, true, false)
				if err != nil {
					return fmt.Errorf("%s: %w", b.ID, err)
				}
				kr.Mutants++
				mr := MutantResult{Bug: b.ID, Kind: s.Kind, Orig: s.Ident, Repl: m.Repl, Error: why}
				if p >= 0 {
					mr.Token = toks[p]
					end := len(strings.Join(toks[:p+1], ""))
					if end <= s.Start {
						mr.Early = true
						kr.Early++
					} else {
						mr.Pruned = true
						kr.Pruned++
					}
				}
				rep.Mutants = append(rep.Mutants, mr)
				logf("%s: %-17s %s -> %s: pruned=%v token=%q", b.ID, s.Kind, s.Ident, m.Repl, mr.Pruned, mr.Token)
			}
		}
		return nil
	}
	// stopped is ctx's error once it ended: the fixture it cut short is
	// taken back out of the report (roll), and the rest are not run.
	var stopped error
	for i, f := range fixtures {
		roll := saveRun(rep, kinds)
		err := runFixture(f)
		if ctx.Err() != nil {
			// Even without an error: a request ctx ended may have
			// answered Unknown.
			roll.restore(rep, kinds)
			stopped = ctx.Err()
			logf("interrupted: reporting the %d of %d fixtures finished so far", rep.Finished, len(fixtures))
			break
		}
		if err != nil {
			return nil, err
		}
		rep.Finished++
		logf("%s: done (%d of %d fixtures)", f.bug.ID, i+1, len(fixtures))
	}
	for _, k := range Kinds {
		kr := *kinds[k]
		rep.Kinds = append(rep.Kinds, kr)
		if k.IsMember() {
			rep.Member.Sites += kr.Sites
			rep.Member.Mutants += kr.Mutants
			rep.Member.Pruned += kr.Pruned
			rep.Member.Early += kr.Early
			rep.Member.Compiled += kr.Compiled
			rep.Member.OtherError += kr.OtherError
			rep.Member.CompileFailed += kr.CompileFailed
			rep.Member.NoMutant += kr.NoMutant
		}
	}
	rep.Member.Kind = "member (both)"
	if o.Speed && stopped == nil {
		for _, mode := range []struct {
			name string
			opts []engine.JDTOption
		}{{"site cache", nil}, {"no site cache", []engine.JDTOption{engine.WithSiteCache(0)}}} {
			sp, err := timeFixes(ctx, w, fixtures, mode.name, append(mode.opts, engine.WithRequestTimeout(2*time.Minute)))
			if ctx.Err() != nil {
				stopped = ctx.Err()
				logf("interrupted: reporting the speed modes finished so far (%d)", len(rep.Speed))
				break
			}
			if err != nil {
				return nil, err
			}
			rep.Speed = append(rep.Speed, sp)
		}
	}
	rep.Interrupted = stopped != nil
	return rep, stopped
}

// runState is what one fixture adds to a Report and its kinds, saved
// before the fixture so that an interrupted one can be taken back out.
type runState struct {
	soundness      Soundness // PrunedAt only grows: its saved length restores it
	notes, mutants int
	kinds          map[Kind]KindResult
}

func saveRun(rep *Report, kinds map[Kind]*KindResult) runState {
	st := runState{soundness: rep.Soundness, notes: len(rep.Notes), mutants: len(rep.Mutants), kinds: map[Kind]KindResult{}}
	for k, kr := range kinds {
		st.kinds[k] = *kr
	}
	return st
}

func (st runState) restore(rep *Report, kinds map[Kind]*KindResult) {
	rep.Soundness = st.soundness
	rep.Notes = rep.Notes[:st.notes]
	rep.Mutants = rep.Mutants[:st.mutants]
	for k, kr := range st.kinds {
		*kinds[k] = kr
	}
}

// timeFixes forces every fix (whole tokens, then 3-byte chunks) through a
// fresh engine over w's JDT LS built with opts (so its site cache starts
// empty) and summarises the decision times.
func timeFixes(ctx context.Context, w *Workspace, fixtures []fixture, mode string, opts []engine.JDTOption) (Speed, error) {
	eng := engine.NewJDT(w.Engine.Client(), opts...)
	sp := Speed{Mode: mode}
	var all, strictT []time.Duration
	var checks int64
	began := time.Now()
	for _, f := range fixtures {
		t := f.targets[0]
		h := engine.Hunk{URI: f.uri, Prefix: t.prefix, Suffix: t.suffix}
		for _, toks := range [][]string{forcetok.LexTokens(t.hunk), forcetok.Chunks(t.hunk, 3)} {
			_, st, _, times, strict, err := force(ctx, eng, h, toks, false, false)
			if err != nil {
				return sp, fmt.Errorf("%s: %w", f.bug.ID, err)
			}
			checks += st.Checks
			sp.Requests += st.Requests
			all = append(all, times...)
			for i, d := range times {
				if strict[i] {
					strictT = append(strictT, d)
				}
			}
		}
	}
	sp.Total = time.Since(began)
	sp.Decisions = len(all)
	sp.Strict = len(strictT)
	sp.Median, sp.P90 = Percentile(all, 0.5), Percentile(all, 0.9)
	sp.StrictMedian = Percentile(strictT, 0.5)
	if checks > 0 {
		sp.RequestsPerToken = float64(sp.Requests) / float64(checks)
	}
	return sp, nil
}

// Percentile returns the p-quantile (0..1, nearest rank below) of d; 0 for
// an empty slice.
func Percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[int(p*float64(len(s)-1))]
}
