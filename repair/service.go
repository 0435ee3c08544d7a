package repair

// service.go is Service, the Repairer: it splits the file around the hunk
// into a FIM context, samples candidates (loop.go), deduplicates them,
// validates them (validate.go) and ranks them.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/repilot-lsp/repilot-lsp/engine"
	"github.com/repilot-lsp/repilot-lsp/lm"
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
// root). Each Repair opens one model session and (unless the variant is base)
// one engine session, and uses them from one goroutine; the memo lives for
// one repair, because the engine's verdicts depend on the whole project,
// which may change between repairs.
type Service struct {
	// Backends serve every Repair; all three are required.
	Backends Backends
	// MemoSize bounds the memo's caches (0: DefaultMemoSize).
	MemoSize int
}

// NewService returns a Service that uses b for every repair.
func NewService(b Backends) *Service { return &Service{Backends: b} }

// FileURI returns the file:// URI of an absolute path (RFC 8089), as LSP
// servers spell document URIs.
func FileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// Normalize collapses every run of whitespace to one space and trims the
// ends: the whitespace normalisation used to deduplicate candidates and to
// compare a patch with a developer fix (docs/bug-corpus.md).
func Normalize(s string) string { return strings.Join(strings.Fields(s), " ") }

// Repair runs Algorithm 1 on req and returns the ranked patches. Errors: a bad
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
// before sampling starts, the Result is nil.
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

	cands, err := s.sampleAll(ctx, b, uri, site, opts, st, progress)
	st.SampleTime = time.Since(began)
	if err != nil && ctx.Err() == nil {
		return nil, err
	}
	cands = dedupe(cands, site.Buggy, st)

	var patches []Patch
	if err != nil { // interrupted while sampling: nothing is validated
		patches = notValidated(rel, site, cands, NotValidated)
	} else {
		vbegan := time.Now()
		patches, err = validateAll(ctx, b.Compiler, req, rel, uri, site, cands, st, progress, began)
		st.ValidateTime = time.Since(vbegan)
		if err != nil && ctx.Err() == nil {
			return nil, err
		}
	}
	if err == nil && req.TestBuggy && len(req.TestCmd) > 0 && st.Tested > 0 && !anyPlausible(patches) {
		progress("no candidate passed the tests: running them on the buggy project", 99)
		tr, terr := runTests(ctx, req.Root, rel, req.Text, req.TestCmd, req.TestTimeout)
		switch {
		case terr == nil:
			res.BuggyTest = &tr
		case ctx.Err() != nil:
			err = terr // interrupted: the partial result below
		default:
			res.BuggyTest = &TestRun{Output: "could not run: " + terr.Error()}
		}
	}
	rank(patches)
	res.Candidates = patches
	res.Patches = patches[:min(len(patches), opts.KeepTop)]
	st.Duration = time.Since(began)
	if err != nil {
		// ctx ended: the partial result goes back with the error, and no
		// more progress is reported (the caller may have ended its report).
		res.Interrupted = true
		return res, fmt.Errorf("repair interrupted after %d of %d samples: %w", st.Samples, opts.Samples, ctx.Err())
	}
	progress(fmt.Sprintf("done: %s, %s", plural(len(patches), "candidate", "candidates"), plural(len(res.Patches), "patch", "patches")), 100)
	return res, nil
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

// sampleAll runs opts.Samples samples in order and returns the completed
// candidates (newline-terminated), not yet deduplicated. On an error it
// returns the candidates completed before it, which Repair keeps when the
// error is ctx ending.
func (s *Service) sampleAll(ctx context.Context, b Backends, uri string, site hunkSite, opts Options, st *Stats, progress Progress) ([]candidate, error) {
	fim := lm.FIM{Prefix: site.Prefix, Suffix: site.Suffix, Indent: site.Indent, Buggy: site.Buggy,
		Insert: site.Insert}
	ms, err := b.Model.Start(ctx, fim)
	if err != nil {
		return nil, fmt.Errorf("language model %s: %w", b.Model.Name(), err)
	}
	opts.MaxTokens = opts.TokenBudget(site.Buggy) // options.go
	sp := &sampler{
		opts:    opts,
		model:   ms,
		hunkKey: HunkKey(uri, site.Prefix, site.Suffix),
		distKey: HunkKey(uri, site.Prefix, site.Suffix, b.Model.Name(), fmt.Sprint(opts.TopK)),
		stats:   st,
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
		sp.eng = &timedSession{Session: es, spent: &st.EngineTime}
	}
	var out []candidate
	for i := 0; i < opts.Samples; i++ {
		progress(fmt.Sprintf("sampling %d/%d", i+1, opts.Samples), 80*i/opts.Samples)
		c, end, err := sp.sample(ctx, i)
		if err != nil {
			return out, err
		}
		st.Samples++
		switch end {
		case endComplete:
			st.Completed++
			if c.text != "" && !strings.HasSuffix(c.text, "\n") {
				c.text += "\n"
			}
			out = append(out, c)
		case endDead:
			st.Dead++
		case endTruncated:
			st.Truncated++
		case endNothing:
			st.NoProposal++
		}
	}
	return out, nil
}

// dedupe drops candidates equal to the buggy hunk and merges candidates equal
// after whitespace normalisation, keeping the text of the best-scored one
// (the earliest on ties) at the position of the first. It sets st.Unique and
// st.SameAsBuggy.
func dedupe(cands []candidate, buggy string, st *Stats) []candidate {
	buggyNorm := Normalize(buggy)
	byNorm := map[string]int{}
	var out []candidate
	for _, c := range cands {
		c.norm = Normalize(c.text)
		if c.norm == buggyNorm {
			st.SameAsBuggy++
			continue
		}
		j, ok := byNorm[c.norm]
		if !ok {
			byNorm[c.norm] = len(out)
			out = append(out, c)
			continue
		}
		prev := &out[j]
		count, first := prev.count+c.count, prev.sample
		if c.score() > prev.score() {
			*prev = c
		}
		prev.count, prev.sample = count, first
	}
	st.Unique = len(out)
	return out
}

// validateAll compile-checks every candidate and runs req.TestCmd on the
// compilable ones. Compile checks run one after another (they share the
// engine's JDT LS); each compilable candidate's tests start at once in their
// own scratch copy, at most TestParallelism at a time, while the next
// candidates are compile-checked. When ctx ends, it returns ctx.Err() with a
// patch for every candidate: those validated, then the rest with Unvalidated
// set (see notValidated; a candidate whose tests were cut short keeps its
// compile verdict). Patches come back in candidate order whatever order
// their tests end in, so the result does not depend on timing. With
// req.FirstCompilable it checks the candidates best Score first and stops
// after the first compilable one (its tests still run): the rest come back
// Unvalidated with NewErrors [NotValidatedStopped].
//
// began is when the repair started: Stats.FirstCompilable and
// FirstPlausible are measured from it.
func validateAll(ctx context.Context, comp engine.Compiler, req Request, rel, uri string, site hunkSite, cands []candidate, st *Stats, progress Progress, began time.Time) ([]Patch, error) {
	patches := make([]Patch, 0, len(cands)) // never grows past len(cands): test goroutines hold pointers into it
	if len(cands) == 0 {
		return patches, nil
	}
	if req.FirstCompilable {
		cands = slices.Clone(cands)
		slices.SortStableFunc(cands, func(a, b candidate) int { return cmp.Compare(b.score(), a.score()) })
	}
	interrupted := func(done []Patch, rest []candidate) ([]Patch, error) {
		return append(done, notValidated(rel, site, rest, NotValidated)...), ctx.Err()
	}
	st.CompileChecks++
	buggyErrs, err := comp.CompileErrors(ctx, uri, req.Text)
	if err != nil {
		if ctx.Err() != nil {
			return interrupted(patches, cands)
		}
		return nil, fmt.Errorf("compile check of the buggy file: %w", err)
	}
	var (
		mu      sync.Mutex // guards st's test fields, testErr, tested patches, OnPatch calls
		wg      sync.WaitGroup
		testErr error
		sem     = make(chan struct{}, TestParallelism())
	)
	// found records a validated patch; mu is held.
	found := func(p Patch) {
		if p.Compilable && st.FirstCompilable == 0 {
			st.FirstCompilable = time.Since(began)
		}
		if p.Plausible && st.FirstPlausible == 0 {
			st.FirstPlausible = time.Since(began)
		}
		if req.OnPatch != nil {
			req.OnPatch(p)
		}
	}
	failed := func() error {
		mu.Lock()
		defer mu.Unlock()
		return testErr
	}
	rest := []candidate(nil) // candidates left unvalidated by an interruption
	// stopped are the candidates after the first compilable one, left
	// unvalidated on purpose with req.FirstCompilable.
	var stopped []candidate
	for j, c := range cands {
		if ctx.Err() != nil || failed() != nil {
			rest = cands[j:]
			break
		}
		progress(fmt.Sprintf("validating %d/%d", j+1, len(cands)), 80+20*j/len(cands))
		patched := site.Prefix + c.text + site.Suffix
		st.CompileChecks++
		errs, err := comp.CompileErrors(ctx, uri, patched)
		var unchecked string
		if err != nil {
			if ctx.Err() != nil {
				rest = cands[j:]
				break
			}
			// A candidate the compiler cannot report on does not compile
			// (ErrUnparsable), or was not checked in time: either way it is
			// not offered as compilable, and the other candidates are kept.
			if !(errors.Is(err, engine.ErrUnparsable) || errors.Is(err, context.DeadlineExceeded)) {
				wg.Wait()
				return nil, fmt.Errorf("compile check of candidate %d: %w", j+1, err)
			}
			st.Unchecked++
			unchecked = "not compile-checked: " + err.Error()
		}
		p := candidatePatch(rel, site, c)
		p.NewErrors = newErrors(buggyErrs, errs, req.StartLine, req.EndLine,
			req.StartLine, req.StartLine+strings.Count(c.text, "\n")-1)
		if unchecked != "" {
			p.NewErrors = []string{unchecked}
		}
		p.Compilable = len(p.NewErrors) == 0
		if !p.Compilable || len(req.TestCmd) == 0 {
			patches = append(patches, p)
			mu.Lock()
			found(p)
			mu.Unlock()
			if req.FirstCompilable && p.Compilable {
				stopped = cands[j+1:]
				break
			}
			continue
		}
		// Compiles: test it in the background. Until its tests end it
		// stands as compilable with Unvalidated set, which is what an
		// interruption leaves.
		p.Unvalidated = true
		patches = append(patches, p)
		q := &patches[len(patches)-1]
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			rest = cands[j+1:]
		}
		if rest != nil {
			break
		}
		wg.Add(1)
		go func(n int) {
			defer wg.Done()
			defer func() { <-sem }()
			tr, err := runTests(ctx, req.Root, rel, patched, req.TestCmd, req.TestTimeout)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if ctx.Err() == nil && testErr == nil {
					testErr = fmt.Errorf("testing candidate %d: %w", n, err)
				}
				return // interrupted: q stays compilable and Unvalidated
			}
			st.Tested++
			q.Unvalidated = false
			q.Tested, q.Plausible, q.TestOutput, q.TestTimedOut = true, tr.Passed, tr.Output, tr.TimedOut
			found(*q)
		}(j + 1)
		if req.FirstCompilable {
			stopped = cands[j+1:]
			break
		}
	}
	wg.Wait()
	if testErr != nil {
		return nil, testErr
	}
	if ctx.Err() != nil {
		return interrupted(patches, append(rest, stopped...))
	}
	return append(patches, notValidated(rel, site, stopped, NotValidatedStopped)...), nil
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

// timedSession adds the wall time of every engine call to *spent
// (Stats.EngineTime).
type timedSession struct {
	engine.Session
	spent *time.Duration
}

func (t *timedSession) Check(ctx context.Context, generated, token string) (engine.Outcome, error) {
	defer t.add(time.Now())
	return t.Session.Check(ctx, generated, token)
}

func (t *timedSession) CheckEnd(ctx context.Context, generated string) (engine.Outcome, error) {
	defer t.add(time.Now())
	return t.Session.CheckEnd(ctx, generated)
}

func (t *timedSession) Complete(ctx context.Context, generated string) (engine.Completions, error) {
	defer t.add(time.Now())
	return t.Session.Complete(ctx, generated)
}

func (t *timedSession) add(start time.Time) { *t.spent += time.Since(start) }
