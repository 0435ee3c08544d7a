package repair

// service.go is Service, the Repairer: it splits the file around the hunk
// into a FIM context, samples candidates (loop.go), deduplicates them,
// validates them (validate.go) and ranks them. Sampling and validation
// overlap (pipeline.go).

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/repilot-lsp/repilot-lsp/engine"
	"github.com/repilot-lsp/repilot-lsp/lm"
	"github.com/repilot-lsp/repilot-lsp/textpos"
)

// Backends are the model, completion engine and compiler one project's
// repairs use.
type Backends struct {
	Model    lm.Model
	Engine   engine.Engine
	Compiler engine.Compiler
}

// Service implements Repairer with Repilot's loop over one project's
// backends, which its caller started (package backend keeps one per project
// root). Each Repair opens one model session per concurrent sample
// (Options.Concurrency) and (unless the variant is base) one engine
// session, whose calls it serializes; the memo lives for
// one repair, because the engine's verdicts depend on the whole project,
// which may change between repairs.
type Service struct {
	// Backends serve every Repair; all three are required.
	Backends Backends
	// MemoSize bounds the memo's caches (0: DefaultMemoSize).
	MemoSize int
	// validateAfter makes Repair validate only after the last sample, as
	// it did before pipelining: the reference the tests compare with.
	validateAfter bool
}

// NewService returns a Service that uses b for every repair.
func NewService(b Backends) *Service { return &Service{Backends: b} }

// FileURI returns the file:// URI of an absolute path (RFC 8089), as LSP
// servers spell document URIs.
func FileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// Repair runs Algorithm 1 on req and returns the ranked patches. Each
// completed sample is deduplicated and, when its candidate is new, compile-
// checked at once, between samples (compile checks and the engine share one
// JDT LS); a compilable candidate's tests start in the background, at most
// TestParallelism at a time (one fewer while sampling goes on:
// testsWhileSampling), in the order the candidates compiled (pipeline.go). The
// Result is the same as when validation follows sampling: the same
// candidates, verdicts and order for the same seed. With
// req.FirstCompilable, validation waits for the last sample. Errors: a bad
// request (file outside Root, lines out of range), a model or engine failure,
// or ctx's error when cancelled. A model that proposes nothing gives a Result
// with no patches and no error.
//
// When ctx ends during sampling or validation, Repair returns both a partial
// Result, with Interrupted set, and an error wrapping ctx.Err(): the sample
// running at that moment is dropped, the candidates validated so far keep
// their verdicts, and the candidates sampled but not yet validated are kept
// as patches with Unvalidated set, Compilable false and NewErrors
// [NotValidated]; all are deduplicated and ranked as usual. A caller that
// only checks the error sees the cancellation as before. When ctx ends
// before sampling starts, the Result is nil. A backend that fails during
// sampling (the shadow JDT LS exits) ends the repair the same way, with an
// error wrapping the backend's, when candidates were already validated
// between samples (failedMidway).
func (s *Service) Repair(ctx context.Context, req Request, progress Progress) (*Result, error) {
	began := time.Now()
	if progress == nil {
		progress = func(string, int) {}
	}
	rel, err := relPath(req.Root, req.File)
	if err != nil {
		return nil, err
	}
	site, err := splitHunk(req.Text, req.StartLine, req.EndLine)
	if err != nil {
		return nil, err
	}
	if err := checkTestCmd(req.Root, req.TestCmd); err != nil {
		return nil, err
	}
	opts := req.Options.withDefaults()
	b := s.Backends
	if b.Model == nil || b.Engine == nil || b.Compiler == nil {
		return nil, errors.New("repair service: model, engine and compiler are all required")
	}
	uri := FileURI(req.File)
	res := &Result{}
	st := &res.Stats

	// Progress percentages never go back: sampling reports 0-90, and
	// validation between samples reports where sampling stands.
	pct := 0
	report := func(msg string, p int) {
		pct = max(pct, p)
		progress(msg, pct)
	}
	v := newValidator(ctx, b.Compiler, req, rel, uri, site, st, func(msg string) { report(msg, pct) }, began, opts.Samples)
	commit := v.add // pipelined: each completed sample is validated at once
	if req.FirstCompilable || s.validateAfter {
		commit = nil // every candidate must be known to pick the best-scored ones
	}
	cands, err := s.sampleAll(ctx, b, uri, site, opts, st, report, commit)
	v.sampled() // every test worker may run now
	st.SampleTime = time.Since(began) - v.spent
	if err != nil && ctx.Err() == nil {
		return s.failedMidway(res, v, commit != nil, err, opts, began)
	}
	vbegan := time.Now()
	var patches []Patch
	switch {
	case req.FirstCompilable && err != nil: // interrupted while sampling: nothing is validated
		cands = dedupe(cands, v.keys, site.Buggy, st)
		patches = notValidated(rel, site, cands, NotValidated)
		v.abort()
	case req.FirstCompilable:
		patches, err = v.firstCompilable(dedupe(cands, v.keys, site.Buggy, st))
	case s.validateAfter && err == nil:
		for _, c := range dedupe(cands, v.keys, site.Buggy, st) {
			if err = v.add(c); err != nil {
				break
			}
		}
		fallthrough
	default:
		if err == nil && len(req.TestCmd) > 0 {
			report("validating: waiting for the tests to end", 90)
		}
		var verr error
		patches, verr = v.finish()
		if err == nil {
			err = verr
		}
	}
	st.ValidateTime = v.spent + time.Since(vbegan)
	if err != nil && ctx.Err() == nil {
		return nil, err
	}
	if v.buggyRun != nil && req.TestBuggy { // started at the first plausible patch or beside a slow candidate's tests (testBuggy)
		res.BuggyTest = v.buggyRun
	}
	if err == nil && req.TestBuggy && len(req.TestCmd) > 0 && st.Tested > 0 && !anyPlausible(patches) && res.BuggyTest == nil {
		progress("no candidate passed the tests: running them on the buggy project", 99)
		tr, terr := runTests(ctx, req.Root, rel, req.Text, req.TestCmd, req.TestTimeout, nil)
		switch {
		case terr == nil:
			res.BuggyTest = &tr
		case ctx.Err() != nil:
			err = terr // interrupted: the partial result below
		default:
			res.BuggyTest = &TestRun{Output: "could not run: " + terr.Error()}
		}
	}
	setPatches(res, patches, opts.KeepTop, began)
	if err != nil {
		// ctx ended: the partial result goes back with the error, and no
		// more progress is reported (the caller may have ended its report).
		res.Interrupted = true
		return res, fmt.Errorf("repair interrupted after %d of %d samples: %w", st.Samples, opts.Samples, ctx.Err())
	}
	progress(fmt.Sprintf("done: %s, %s", plural(len(patches), "candidate", "candidates"), plural(len(res.Patches), "patch", "patches")), 100)
	return res, nil
}

// failedMidway ends a repair whose sampling failed with err, not ctx's: a
// backend went away (the shadow JDT LS exited, the model's server stopped
// answering). When candidates were compile-checked between samples
// (pipelined), their verdicts are kept and res comes back partial, as after
// an interruption: the tests still running or queued are stopped (those
// candidates stay compilable and Unvalidated), Interrupted is set, the
// candidates are ranked, and the error wraps err. Otherwise (nothing
// validated, or validation that waits for the last sample) the Result is
// nil and the error is err.
func (s *Service) failedMidway(res *Result, v *validator, pipelined bool, err error, opts Options, began time.Time) (*Result, error) {
	if !pipelined {
		v.abort()
		return nil, err
	}
	vbegan := time.Now()
	v.tcancel()
	patches, verr := v.finish()
	res.Stats.ValidateTime = v.spent + time.Since(vbegan)
	if verr != nil || len(patches) == 0 {
		return nil, err
	}
	setPatches(res, patches, opts.KeepTop, began)
	res.Interrupted = true
	return res, fmt.Errorf("repair stopped after %d of %d samples: %w", res.Stats.Samples, opts.Samples, err)
}

// setPatches ranks patches into res: Candidates all of them, Patches the
// first keepTop; Stats.Duration is the time since began.
func setPatches(res *Result, patches []Patch, keepTop int, began time.Time) {
	rank(patches)
	res.Candidates = patches
	res.Patches = patches[:min(len(patches), keepTop)]
	res.Stats.Duration = time.Since(began)
}

// anyPlausible says whether a patch passed the tests.
func anyPlausible(ps []Patch) bool {
	for _, p := range ps {
		if p.Plausible {
			return true
		}
	}
	return false
}

// plural is "1 line" or "n lines": n followed by one or many.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// relPath returns file relative to root, slash-separated, or an error when
// file is not inside root.
func relPath(root, file string) (string, error) {
	if !filepath.IsAbs(root) || !filepath.IsAbs(file) {
		return "", fmt.Errorf("project root %q and file %q must be absolute paths", root, file)
	}
	rel, err := filepath.Rel(root, file)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("file %s is not inside the project %s", file, root)
	}
	return filepath.ToSlash(rel), nil
}

// sampleAll runs opts.Samples samples, opts.Concurrency at a time, and
// returns the completed candidates (newline-terminated) in sample order, not
// yet deduplicated; when commit is set, it is given each of them in that
// order as soon as it and the samples before it are done, while later
// samples run. On an error (a sample's, or commit's) it returns the
// candidates completed before it, which Repair keeps when the error is ctx
// ending.
func (s *Service) sampleAll(ctx context.Context, b Backends, uri string, site hunkSite, opts Options, st *Stats,
	progress Progress, commit func(candidate) error) ([]candidate, error) {
	opts.MaxTokens = opts.TokenBudget(site.Buggy) // options.go
	// Every session of the hunk (concurrent samples, reruns) starts on this
	// one FIM, so a model that cuts the prompt to its context cuts it alike.
	fim := lm.FIM{Prefix: site.Prefix, Suffix: site.Suffix, Indent: site.Indent, Buggy: site.Buggy,
		Insert: site.Insert, MaxTokens: opts.MaxTokens}
	ms, err := b.Model.Start(ctx, fim)
	if err != nil {
		return nil, fmt.Errorf("language model %s: %w", b.Model.Name(), err)
	}
	sp := &sampler{
		opts:    opts,
		model:   ms,
		hunkKey: HunkKey(uri, site.Prefix, site.Suffix),
		distKey: HunkKey(uri, site.Prefix, site.Suffix, b.Model.Name(), fmt.Sprint(opts.TopK)),
		dead:    &deadPrefixes{},
	}
	if ww, ok := ms.(lm.WholeWords); ok {
		sp.wholeWords = ww.WholeWords()
	}
	if opts.Memo {
		sp.memo = NewMemo(s.MemoSize)
	}
	if opts.Prune || opts.ActiveComplete {
		es, err := b.Engine.Open(ctx, engine.Hunk{URI: uri, Prefix: site.Prefix, Suffix: site.Suffix, Buggy: site.Buggy})
		if err != nil {
			return nil, fmt.Errorf("completion engine: %w", err)
		}
		defer func() {
			st.EngineRequests = es.Stats().Requests
			es.Close()
		}()
		// One engine session serves every sample, one call at a time.
		sp.eng = &lockedSession{Session: es, spent: &st.EngineTime}
	}
	var out []candidate
	hunkName := fmt.Sprintf("%s:%d", uri, textpos.CountLines(site.Prefix)+1)
	accept := func(r sampleRun) error {
		st.Samples++
		addOutcome(st, &r.work)
		traceSample(hunkName, opts, r)
		if r.trace.isDead && r.trace.deferred {
			sp.dead.Add(r.trace.dead)
		}
		switch r.end {
		case endComplete:
			st.Completed++
			c := r.c
			if c.text != "" && !textpos.EndsLine(c.text) {
				c.text += "\n"
			}
			c.text = textpos.WithLineEnd(c.text, site.lineEnd())
			out = append(out, c)
			if commit != nil {
				return commit(c)
			}
		case endDead:
			st.Dead++
		case endTruncated:
			st.Truncated++
		case endNothing:
			st.NoProposal++
		}
		return nil
	}
	if n := min(opts.Concurrency, opts.Samples); n > 1 {
		err := sp.sampleConcurrently(ctx, b.Model, fim, ms, n, opts.Samples, st, progress,
			func(_ int, r sampleRun) error { return accept(r) })
		return out, err
	}
	for i := 0; i < opts.Samples; i++ {
		progress(fmt.Sprintf("sampling %d/%d", i+1, opts.Samples), 90*i/opts.Samples)
		r := sp.runSample(ctx, ms, i, false)
		addWork(st, &r.work)
		if r.err != nil {
			return out, r.err
		}
		if err := accept(r); err != nil {
			return out, err
		}
	}
	return out, nil
}

// candidateSet holds the deduplicated candidates of one repair: those
// equivalent to the buggy hunk are dropped, and equivalent ones (the same
// program: equivKeyer) are merged, in the order of their first sample.
// dedupe fills one after sampling; the validator (pipeline.go) fills its
// own as samples complete.
type candidateSet struct {
	keys     *equivKeyer
	buggyKey string
	byKey    map[string]int
	cands    []candidate
}

func newCandidateSet(keys *equivKeyer, buggy string) candidateSet {
	return candidateSet{keys: keys, buggyKey: keys.key(buggy), byKey: map[string]int{}}
}

// merge adds c and returns its index in s.cands, or -1 when it is the
// buggy hunk's program (st.SameAsBuggy counts it). An equivalent candidate
// already there takes the summed count, keeps its first sample, and takes
// c's text and scores when c scores better (on ties it keeps its own).
// added reports a new candidate, respelled a merge that changed the text.
func (s *candidateSet) merge(c candidate, st *Stats) (j int, added, respelled bool) {
	c.key = s.keys.key(c.text)
	if c.key == s.buggyKey {
		st.SameAsBuggy++
		return -1, false, false
	}
	j, ok := s.byKey[c.key]
	if !ok {
		j = len(s.cands)
		s.byKey[c.key] = j
		s.cands = append(s.cands, c)
		return j, true, false
	}
	prev := &s.cands[j]
	count, first, text := prev.count+c.count, prev.sample, prev.text
	if c.score() > prev.score() {
		*prev = c
	}
	prev.count, prev.sample = count, first
	return j, false, prev.text != text
}

// dedupe returns cands deduplicated (candidateSet), each merged candidate
// with the text of the best-scored one (the earliest on ties) at the
// position of the first. It sets st.Unique and st.SameAsBuggy.
func dedupe(cands []candidate, keys *equivKeyer, buggy string, st *Stats) []candidate {
	s := newCandidateSet(keys, buggy)
	for _, c := range cands {
		s.merge(c, st)
	}
	st.Unique = len(s.cands)
	return s.cands
}

// TestParallelism is how many candidates' tests run at once: the number of
// CPUs (each runs in its own scratch copy of the project).
func TestParallelism() int { return max(1, runtime.NumCPU()) }

// candidatePatch is the Patch of a candidate before validation: its text,
// diff and model scores.
func candidatePatch(rel string, site hunkSite, c candidate) Patch {
	return Patch{
		Hunk:    c.text,
		Diff:    unifiedDiff(rel, site, c.text),
		LogProb: c.logProb,
		Tokens:  c.tokens,
		Score:   c.score(),
		Count:   c.count,
	}
}

// notValidated returns the patches of candidates left unchecked (by an
// interruption, or by Request.FirstCompilable): Unvalidated, not Compilable,
// NewErrors [why].
func notValidated(rel string, site hunkSite, cands []candidate, why string) []Patch {
	out := make([]Patch, 0, len(cands))
	for _, c := range cands {
		p := candidatePatch(rel, site, c)
		p.Unvalidated, p.NewErrors = true, []string{why}
		out = append(out, p)
	}
	return out
}

// rank orders patches: plausible first, then compilable, then the rest, each
// group by Score
// (higher first); the stable sort keeps sample order on ties.
func rank(patches []Patch) {
	sort.SliceStable(patches, func(i, j int) bool {
		a, b := patches[i], patches[j]
		if a.Compilable != b.Compilable {
			return a.Compilable
		}
		if a.Plausible != b.Plausible {
			return a.Plausible
		}
		return a.Score > b.Score
	})
}
