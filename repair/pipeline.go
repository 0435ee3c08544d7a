package repair

// pipeline.go runs Algorithm 1's two halves at once (issue 14): samples
// (loop.go), several at a time with Options.Concurrency, and validation
// (validate.go) of each new unique candidate as soon as it is sampled, its
// tests in the background. Whatever the overlap, the Result is the one the
// halves give one after another: samples are committed in sample order, and
// a candidate is validated with the text deduplication finally keeps.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/repilot-lsp/repilot-lsp/engine"
	"github.com/repilot-lsp/repilot-lsp/lm"
	"github.com/repilot-lsp/repilot-lsp/textpos"
)

// deadPrefixes is the trie of rejected prefixes (section 4.3) shared by a
// repair's samples, safe for concurrent use. A nil *deadPrefixes covers
// nothing.
type deadPrefixes struct {
	mu sync.Mutex
	t  Trie
}

// Covers reports whether a rejected prefix is a prefix of s.
func (d *deadPrefixes) Covers(s string) bool {
	if d == nil {
		return false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.t.Covers(s)
}

// Add records p as a rejected prefix.
func (d *deadPrefixes) Add(p string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.t.Add(p)
}

// sampleTrace is one run of a sample's traffic with the trie. A concurrent
// run (deferred) does not add its dead prefix at once: the commit does, in
// sample order. It records the texts the trie did not cover, so the commit
// can tell whether a prefix rejected by an earlier sample, committed after
// the run asked, would have changed the run.
//
// It does the same for the memo's model distributions in speculative
// decoding (speculative.go), where finding a prefix's distribution decides
// whether the sample draws locally or asks the server, from another random
// stream: with samples running at once, a sample sees only the
// distributions that committed samples and its own run recorded, and the
// commit checks its misses.
type sampleTrace struct {
	deferred   bool
	uncovered  []string // texts deadCovers answered false (deferred runs only)
	dead       string   // the prefix the sample found dead
	isDead     bool
	ownDists   map[string]bool // prefixes whose distributions this run recorded (committedDists set)
	distMisses []string        // prefixes memoDist did not show for want of a commit (deferred runs only)
	redrawn    []string        // the texts whose end was pruned and whose last line was redrawn (trace.go)
}

// recordedDists is the set of prefixes whose distributions committed
// samples recorded in the memo, safe for concurrent use.
type recordedDists struct {
	mu sync.Mutex
	m  map[string]bool
}

func (r *recordedDists) has(prefix string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.m[prefix]
}

func (r *recordedDists) add(prefixes map[string]bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for p := range prefixes {
		r.m[p] = true
	}
}

// memoDist returns the memo's distribution after prefix for speculative
// decoding; with samples running at once, only one that a committed sample
// or this run recorded (a sample run alone would not have the others').
func (s *sampler) memoDist(prefix string) ([]lm.Candidate, bool) {
	if s.memo == nil {
		return nil, false
	}
	if s.committedDists != nil && !s.run.ownDists[prefix] && !s.committedDists.has(prefix) {
		if s.run.deferred {
			s.run.distMisses = append(s.run.distMisses, prefix)
		}
		return nil, false
	}
	return s.memo.Dist(s.distKey, prefix)
}

// recordDist records the distribution after prefix in the memo, and as this
// run's when samples run at once.
func (s *sampler) recordDist(prefix string, d []lm.Candidate) {
	s.memo.RecordDist(s.distKey, prefix, d)
	if s.committedDists != nil {
		if s.run.ownDists == nil {
			s.run.ownDists = map[string]bool{}
		}
		s.run.ownDists[prefix] = true
	}
}

// deadCovers asks the shared trie about s and records a miss.
func (s *sampler) deadCovers(text string) bool {
	if s.dead.Covers(text) {
		return true
	}
	if s.run.deferred {
		s.run.uncovered = append(s.run.uncovered, text)
	}
	return false
}

// markDead records the current sample's dead prefix: into the trie at once
// when samples run one after another, at the commit otherwise.
func (s *sampler) markDead(prefix string) {
	s.run.dead, s.run.isDead = prefix, true
	if s.run.deferred {
		return
	}
	if s.dead == nil {
		s.dead = &deadPrefixes{}
	}
	s.dead.Add(prefix)
}

// sampleRun is what one run of one sample produced.
type sampleRun struct {
	c     candidate
	end   sampleEnd
	err   error
	work  Stats // the run's counters (addWork)
	trace sampleTrace
}

// runSample runs sample i on the model session ms with a copy of s's
// per-sample state; the memo, the trie and the engine session are shared.
// deferred: other samples run at the same time (sampleTrace).
func (s *sampler) runSample(ctx context.Context, ms lm.Session, i int, deferred bool) sampleRun {
	r := *s
	var out sampleRun
	r.model, r.stats = ms, &out.work
	r.run = sampleTrace{deferred: deferred}
	out.c, out.end, out.err = r.sample(ctx, i)
	out.trace = r.run
	return out
}

// stale reports whether a deferred run of sample i asked the trie about a
// text that it now covers. Called when every sample before i is committed
// and no later one is: the trie then holds what a run after all earlier
// samples would have seen, so a run that saw none of it covering its texts
// took the same path.
func (s *sampler) stale(r sampleRun) bool {
	for _, t := range r.trace.uncovered {
		if s.dead.Covers(t) {
			return true
		}
	}
	for _, p := range r.trace.distMisses {
		if s.committedDists.has(p) {
			return true
		}
	}
	return false
}

// addWork adds the work counters of one sample's run to st: model and engine
// requests, decisions, tokens (not the per-sample outcome counters, which the
// commit sets: addOutcome).
func addWork(st, w *Stats) {
	st.Pruned += w.Pruned
	st.MemoHits += w.MemoHits
	st.ActiveChars += w.ActiveChars
	st.LMRequests += w.LMRequests
	st.EngineCalls += w.EngineCalls
	st.Tokens += w.Tokens
	st.Proposals += w.Proposals
	st.SpecAccepted += w.SpecAccepted
	st.SpecRejected += w.SpecRejected
	st.SpecCuts += w.SpecCuts
	st.LineRedraws += w.LineRedraws
}

// addOutcome adds the outcome counters of a committed run to st: why it was
// truncated (Stats.TruncEndPruned, TruncEndNotDrawn, TruncNoEnd).
func addOutcome(st, w *Stats) {
	st.TruncEndPruned += w.TruncEndPruned
	st.TruncEndNotDrawn += w.TruncEndNotDrawn
	st.TruncNoEnd += w.TruncNoEnd
}

// sampleConcurrently runs samples 0..samples-1, n at a time, on n model
// sessions (first and n-1 more from model.Start), and hands each to commit in
// sample order. A sample starts only when fewer than n samples are running or
// waiting to be committed.
//
// Why the patches are those of the samples run one after another. A sample
// depends on the others through the trie of rejected prefixes, and with
// speculative decoding through which model distributions the memo holds
// (sampleTrace); otherwise the memo holds facts: engine verdicts and model
// distributions, the same whoever asks first. Prefixes enter the trie only at the commit, in sample order,
// so a run of sample i sees only prefixes of samples before i; it may miss
// some that were committed after it asked. At its commit every earlier sample
// is committed: if the trie now covers none of the texts it found uncovered,
// it took the path the sequential run takes; otherwise it is run again
// (Stats.Resampled) on its own session, seeing what the sequential run sees.
// Each sample draws from its own random stream (sampleStream), so the order
// in which they run does not matter otherwise. On a model whose answers
// depend on the batch they are computed in (a server batching requests with
// different numerics), equal seeds can still differ.
//
// Errors: the first sample, in sample order, that fails ends the sampling with
// its error; so does an error from commit. Samples finished after it are
// dropped, as the sequential loop never reaches them.
func (s *sampler) sampleConcurrently(ctx context.Context, model lm.Model, fim lm.FIM, first lm.Session, n, samples int,
	st *Stats, progress Progress, commit func(i int, r sampleRun) error) error {
	s.committedDists = &recordedDists{m: map[string]bool{}}
	wctx, cancel := context.WithCancel(ctx)
	sessions := []lm.Session{first}
	for len(sessions) < n {
		ms, err := model.Start(ctx, fim)
		if err != nil {
			cancel()
			return fmt.Errorf("language model %s: %w", model.Name(), err)
		}
		sessions = append(sessions, ms)
	}
	type result struct {
		i int
		r sampleRun
	}
	next := make(chan int)
	results := make(chan result, n) // at most n samples are out: sends never block
	var wg sync.WaitGroup
	for _, ms := range sessions {
		wg.Add(1)
		go func(ms lm.Session) {
			defer wg.Done()
			for i := range next {
				results <- result{i, s.runSample(wctx, ms, i, true)}
			}
		}(ms)
	}
	defer func() {
		close(next)
		cancel()
		wg.Wait()
	}()
	var rerun lm.Session // opened for the first run again
	pending := map[int]sampleRun{}
	started := 0
	for done := 0; done < samples; {
		for started < samples && started < done+n {
			next <- started
			started++
		}
		r, ok := pending[done]
		if !ok {
			select {
			case res := <-results:
				pending[res.i] = res.r
			case <-ctx.Done():
				return ctx.Err()
			}
			continue
		}
		delete(pending, done)
		addWork(st, &r.work)
		if r.err == nil && s.stale(r) {
			if rerun == nil {
				ms, err := model.Start(ctx, fim)
				if err != nil {
					return fmt.Errorf("language model %s: %w", model.Name(), err)
				}
				rerun = ms
			}
			st.Resampled++
			r = s.runSample(ctx, rerun, done, false)
			addWork(st, &r.work)
		}
		if r.err != nil {
			return r.err
		}
		s.committedDists.add(r.trace.ownDists)
		progress(fmt.Sprintf("sampling %d/%d", done+1, samples), 90*done/samples)
		if err := commit(done, r); err != nil {
			return err
		}
		done++
	}
	return nil
}

// lockedSession serializes the calls of concurrent samples on one engine
// session (engine.Session is used by one goroutine at a time) and adds the
// wall time of each call to *spent (Stats.EngineTime). The lock is held for
// the whole call, so a wait for the lock is not engine time.
type lockedSession struct {
	engine.Session
	mu    sync.Mutex
	spent *time.Duration
}

func (t *lockedSession) Check(ctx context.Context, generated, token string) (engine.Outcome, error) {
	t.mu.Lock()
	defer t.add(time.Now())
	return t.Session.Check(ctx, generated, token)
}

func (t *lockedSession) CheckEnd(ctx context.Context, generated string) (engine.Outcome, error) {
	t.mu.Lock()
	defer t.add(time.Now())
	return t.Session.CheckEnd(ctx, generated)
}

func (t *lockedSession) Complete(ctx context.Context, generated string) (engine.Completions, error) {
	t.mu.Lock()
	defer t.add(time.Now())
	return t.Session.Complete(ctx, generated)
}

// add ends a call that started at start: its time is added, the lock freed.
func (t *lockedSession) add(start time.Time) {
	*t.spent += time.Since(start)
	t.mu.Unlock()
}

// validator validates one repair's candidates (validate.go's checks): compile
// checks on the caller's goroutine, one at a time (they share the engine's
// JDT LS), and each compilable candidate's tests in the background, at most
// TestParallelism at a time, in the order the candidates compiled.
//
// In the pipelined repair it is fed every completed sample in sample order
// (add) and deduplicates them as dedupe does; a candidate is compile-checked
// when it first appears and again when a later duplicate replaces its text.
// With Request.FirstCompilable it is given the deduplicated candidates after
// sampling (firstCompilable).
type validator struct {
	ctx      context.Context
	comp     engine.Compiler
	req      Request
	rel, uri string
	site     hunkSite
	st       *Stats
	progress func(string)
	began    time.Time

	candidateSet          // the candidates, deduplicated as they come (cands)
	buggyStarted bool     // testBuggy began (v.mu)
	buggyRun     *TestRun // testBuggy's outcome (v.mu)
	limit        *testLimit
	bctx         context.Context    // the unchanged code's run started by the limit (testBuggySlow): tctx, or cancelled by finish
	bcancel      context.CancelFunc // ends bctx
	buggyWG      sync.WaitGroup     // testBuggySlow's run
	closed       bool               // finish began: no testBuggySlow run starts (v.mu)
	checked      bool               // the buggy file's compile check ran (before the first candidate with errors)
	buggyErrs    []engine.CompileError
	spent        time.Duration // in compile checks (Stats.ValidateTime)

	tctx    context.Context // the tests' context: ctx, or cancelled by abort
	tcancel context.CancelFunc
	jobs    chan testJob
	workers sync.WaitGroup
	mu      sync.Mutex // guards verdicts, gen, cancels, testErr, st's test fields, OnPatch calls
	verdict []*Patch   // per candidate: its validation so far; nil until compile-checked
	gen     []int      // per candidate: bumped by every compile check (a test of an older one is dropped)
	cancels []context.CancelFunc
	testErr error
	started bool // the test workers run

	afterSampling chan struct{} // closed by sampled: the late test workers start
	samplingDone  sync.Once
}

// testJob is one candidate's test run: candidate j as compile-checked in
// generation gen.
type testJob struct {
	j, gen  int
	patched string
	ctx     context.Context
}

// newValidator returns a validator for one repair; capacity bounds the test
// runs it may queue (one per sample at most).
func newValidator(ctx context.Context, comp engine.Compiler, req Request, rel, uri string, site hunkSite, st *Stats,
	progress func(string), began time.Time, capacity int) *validator {
	tctx, tcancel := context.WithCancel(ctx)
	bctx, bcancel := context.WithCancel(tctx)
	v := &validator{ctx: ctx, comp: comp, req: req, rel: rel, uri: uri, site: site, st: st, progress: progress,
		began: began, candidateSet: newCandidateSet(newEquivKeyer(site), site.Buggy), tctx: tctx, tcancel: tcancel,
		bctx: bctx, bcancel: bcancel, jobs: make(chan testJob, capacity+1), afterSampling: make(chan struct{})}
	v.limit = newTestLimit(req, v.testBuggySlow)
	return v
}

// add deduplicates one completed sample's candidate (candidateSet.merge,
// as dedupe does; st.Unique counts the candidates so far) and
// compile-checks it when it is new, or when it replaces the text of an
// earlier duplicate. Errors:
// ctx's, a compile check that failed for another reason than an
// unparsable text or a timeout, or a test command that could not run.
func (v *validator) add(c candidate) error {
	if err := v.failed(); err != nil {
		return err
	}
	j, added, respelled := v.merge(c, v.st)
	switch {
	case added:
		v.mu.Lock()
		v.verdict, v.gen, v.cancels = append(v.verdict, nil), append(v.gen, 0), append(v.cancels, nil)
		v.mu.Unlock()
		v.st.Unique = len(v.cands)
		v.progress(fmt.Sprintf("validating candidate %d", j+1))
	case !respelled:
		return nil // the buggy hunk's program (j < 0), or the same text: the verdict stands (finish takes the new counts and scores)
	default:
		v.progress(fmt.Sprintf("validating candidate %d again (a better-scored spelling)", j+1))
	}
	return v.check(j)
}

// check compile-checks candidate j and queues its tests when it compiles and
// the request has a test command. The candidate's earlier validation, if
// any, is dropped (its test run cancelled).
func (v *validator) check(j int) error {
	began := time.Now()
	defer func() { v.spent += time.Since(began) }()
	ctx := v.ctx
	c := v.cands[j]
	patched := v.site.Prefix + c.text + v.site.Suffix
	v.st.CompileChecks++
	errs, err := v.comp.CompileErrors(ctx, v.uri, patched)
	var unchecked string
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		// A candidate the compiler cannot report on does not compile
		// (ErrUnparsable), or was not checked in time: either way it is
		// not offered as compilable, and the other candidates are kept.
		if !(errors.Is(err, engine.ErrUnparsable) || errors.Is(err, context.DeadlineExceeded)) {
			return fmt.Errorf("compile check of candidate %d: %w", j+1, err)
		}
		v.st.Unchecked++
		unchecked = "not compile-checked: " + err.Error()
	}
	// The buggy file's errors only excuse a candidate's errors (newErrors),
	// so they are asked for the first candidate that has any, not before
	// the first candidate: a candidate without errors is compilable
	// whatever the buggy file's are, and its tests start one compile check
	// sooner (issue 14: the first plausible patch).
	if len(errs) > 0 && !v.checked {
		v.st.CompileChecks++
		berrs, err := v.comp.CompileErrors(ctx, v.uri, v.req.Text)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("compile check of the buggy file: %w", err)
		}
		v.buggyErrs, v.checked = berrs, true
	}
	p := candidatePatch(v.rel, v.site, c)
	p.NewErrors = newErrors(v.buggyErrs, errs, v.req.StartLine, v.req.EndLine,
		v.req.StartLine, v.req.StartLine+textpos.Breaks(c.text)-1)
	if unchecked != "" {
		p.NewErrors = []string{unchecked}
	}
	p.Compilable = len(p.NewErrors) == 0
	tested := p.Compilable && len(v.req.TestCmd) > 0
	// Until its tests end a compilable candidate stands with Unvalidated
	// set, which is what an interruption leaves.
	p.Unvalidated = tested
	v.mu.Lock()
	defer v.mu.Unlock()
	v.gen[j]++
	if v.cancels[j] != nil {
		v.cancels[j]() // a test of the text this one replaces
		v.cancels[j] = nil
	}
	v.verdict[j] = &p
	if !tested {
		v.found(p)
		return nil
	}
	tctx, cancel := context.WithCancel(v.tctx)
	v.cancels[j] = cancel
	if len(v.jobs) == cap(v.jobs) { // not reached: one check per sample at most
		cancel()
		return fmt.Errorf("testing candidate %d: more test runs queued than samples", j+1)
	}
	v.jobs <- testJob{j: j, gen: v.gen[j], patched: patched, ctx: tctx}
	if !v.started {
		v.started = true
		n := TestParallelism()
		for w := range n {
			v.workers.Add(1)
			go v.testWorker(w >= testsWhileSampling(n))
		}
	}
	return nil
}

// testsWhileSampling is how many of n test workers run tests while sampling
// goes on: one fewer than n (at least one), because sampling (the model and
// the shadow JDT LS, one request after another) keeps a core busy. On 2
// cores a second test beside it only shared the other core with the first:
// the first candidate's verdict came later and no test sooner. The others
// start when sampling ends (sampled).
func testsWhileSampling(n int) int { return max(1, n-1) }

// sampled marks the end of sampling: every test worker may run tests.
func (v *validator) sampled() { v.samplingDone.Do(func() { close(v.afterSampling) }) }

// testWorker runs queued tests until the queue is closed; a late worker
// starts only after sampling (sampled, testsWhileSampling). A test whose
// candidate was compile-checked again meanwhile is dropped; one cut short by
// the end of ctx leaves the candidate compilable and Unvalidated.
func (v *validator) testWorker(late bool) {
	defer v.workers.Done()
	if late {
		select {
		case <-v.afterSampling:
		case <-v.tctx.Done():
			return
		}
	}
	for job := range v.jobs {
		v.mu.Lock()
		skip := v.gen[job.j] != job.gen || v.testErr != nil || job.ctx.Err() != nil
		v.mu.Unlock()
		if skip {
			continue
		}
		tr, err := runTests(job.ctx, v.req.Root, v.rel, job.patched, v.req.TestCmd, v.req.TestTimeout, v.limit)
		buggy := false // this worker runs testBuggy next
		v.mu.Lock()
		switch {
		case v.gen[job.j] != job.gen: // replaced by a later text
		case err != nil:
			if v.tctx.Err() == nil && v.testErr == nil {
				v.testErr = fmt.Errorf("testing candidate %d: %w", job.j+1, err)
			}
		default:
			v.cancels[job.j]()
			v.cancels[job.j] = nil
			v.st.Tested++
			q := v.verdict[job.j]
			q.Unvalidated = false
			q.Tested, q.Plausible, q.TestOutput, q.TestTimedOut = true, tr.Passed, tr.Output, tr.TimedOut
			v.found(*q)
			if q.Plausible && v.req.TestBuggy && !v.buggyStarted {
				v.buggyStarted, buggy = true, true
			}
		}
		v.mu.Unlock()
		if buggy {
			v.testBuggy(v.tctx)
		}
	}
}

// testBuggySlow starts the run of the tests on the unchanged code on a
// goroutine of its own, beside the candidate's run that took longer than
// the scaled limit's floor (testLimit.slow), unless it began already or
// the validator is finishing. Its time sets the limit; its result is
// Result.BuggyTest only with Request.TestBuggy (without it, finish stops
// the run once the candidates' tests ended).
func (v *validator) testBuggySlow() {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.buggyStarted || v.closed {
		return
	}
	v.buggyStarted = true
	v.buggyWG.Add(1)
	go func() {
		defer v.buggyWG.Done()
		v.testBuggy(v.bctx)
	}()
}

// testBuggy runs the tests once on the buggy project (Request.TestBuggy,
// Result.BuggyTest), in the test worker that found the first plausible
// patch, after that patch went out: it does not delay the first plausible
// patch, and it takes a test worker's turn, not one more core; or beside a
// slow candidate's run (testBuggySlow). The result is in v.buggyRun (nil
// when ctx ended first), and its time sets the scaled limit (v.limit).
func (v *validator) testBuggy(ctx context.Context) {
	tr, err := runTests(ctx, v.req.Root, v.rel, v.req.Text, v.req.TestCmd, v.req.TestTimeout, nil)
	if err == nil {
		v.limit.set(tr.took, tr.cpu)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	switch {
	case err == nil:
		v.buggyRun = &tr
		v.st.BuggyTestTime = tr.took
		if lim, ok := v.limit.current(); ok {
			v.st.TestLimit = lim
		}
	case ctx.Err() == nil:
		v.buggyRun = &TestRun{Output: "could not run: " + err.Error()}
	}
}

// found records a validated patch: the time to the first compilable and
// plausible ones, and Request.OnPatch. v.mu is held.
func (v *validator) found(p Patch) {
	if p.Compilable && v.st.FirstCompilable == 0 {
		v.st.FirstCompilable = time.Since(v.began)
	}
	if p.Plausible && v.st.FirstPlausible == 0 {
		v.st.FirstPlausible = time.Since(v.began)
	}
	if v.req.OnPatch != nil {
		v.req.OnPatch(p)
	}
}

// failed returns the error of a test command that could not run.
func (v *validator) failed() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.testErr
}

// finish waits for the queued tests and returns a patch per candidate, in
// candidate order: its validation, with the count and score of all its
// samples; a candidate never compile-checked comes back Unvalidated with
// NewErrors [NotValidated]. Patches come back in candidate order whatever
// order their tests end in, so the result does not depend on timing. The
// error is a test command's that could not run (with no patches), or else
// ctx's when it ended (the patches are then partial). The validator takes no
// more candidates.
func (v *validator) finish() ([]Patch, error) {
	v.sampled()
	close(v.jobs)
	v.workers.Wait()
	v.mu.Lock()
	v.closed = true
	v.mu.Unlock()
	if !v.req.TestBuggy {
		v.bcancel() // run for the limit only, which no test needs now
	}
	v.buggyWG.Wait()
	v.tcancel()
	v.bcancel()
	if v.testErr != nil {
		return nil, v.testErr
	}
	out := make([]Patch, 0, len(v.cands))
	for j, c := range v.cands {
		if v.verdict[j] == nil {
			out = append(out, notValidated(v.rel, v.site, []candidate{c}, NotValidated)...)
			continue
		}
		p, cp := *v.verdict[j], candidatePatch(v.rel, v.site, c)
		p.LogProb, p.Tokens, p.Score, p.Count = cp.LogProb, cp.Tokens, cp.Score, cp.Count
		out = append(out, p)
	}
	return out, v.ctx.Err()
}

// abort stops the tests (a repair that fails) and waits for them.
func (v *validator) abort() {
	v.tcancel()
	v.finish() //nolint:errcheck // the repair returns its own error
}

// firstCompilable validates cands (deduplicated) for Request.FirstCompilable:
// best Score first, stopping after the first compilable one, whose tests
// still run; the rest come back Unvalidated with NewErrors
// [NotValidatedStopped] ([NotValidated] when ctx ended). Errors as finish's,
// and a compile check's as add's.
func (v *validator) firstCompilable(cands []candidate) ([]Patch, error) {
	v.cands = slices.Clone(cands)
	slices.SortStableFunc(v.cands, func(a, b candidate) int { return cmp.Compare(b.score(), a.score()) })
	v.verdict = make([]*Patch, len(v.cands))
	v.gen = make([]int, len(v.cands))
	v.cancels = make([]context.CancelFunc, len(v.cands))
	stop := len(v.cands)
	for j := range v.cands {
		if v.ctx.Err() != nil || v.failed() != nil {
			break
		}
		v.progress(fmt.Sprintf("validating %d/%d", j+1, len(v.cands)))
		if err := v.check(j); err != nil {
			if v.ctx.Err() != nil {
				break
			}
			v.abort()
			return nil, err
		}
		if v.verdict[j].Compilable {
			stop = j + 1
			break
		}
	}
	patches, err := v.finish()
	if err != nil {
		return patches, err
	}
	for j := stop; j < len(patches); j++ {
		patches[j].NewErrors = []string{NotValidatedStopped}
	}
	return patches, nil
}
