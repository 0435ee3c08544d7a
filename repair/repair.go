// Package repair is Repilot's repair loop (Wei, Xia, Zhang, FSE 2023,
// Algorithm 1): it samples candidate hunks from a language model token by
// token, prunes infeasible tokens with the completion engine (Algorithm 2,
// GuidedPrune), memoizes accepted and rejected tokens with a trie of rejected
// prefixes (section 4.3), appends text the engine proves certain (Algorithm 3,
// ActivelyComplete), then validates (compile, then tests) and ranks the
// candidates.
//
// Architecture invariant: repair never touches the user's files and knows no
// LSP; it returns patches, and the caller (proxy or CLI) decides what to do
// with them.
package repair

import (
	"context"
	"sync"
	"time"
)

// Request is one hunk to repair.
type Request struct {
	// Root is the project root directory (absolute).
	Root string
	// File is the absolute path of the Java file holding the hunk.
	File string
	// Text is the file's current content (the editor's buffer, or the file on
	// disk for the CLI).
	Text string
	// StartLine and EndLine are 1-based and inclusive: the buggy hunk is those
	// whole lines. An insertion has EndLine == StartLine-1 (docs/bug-corpus.md).
	StartLine, EndLine int
	// Options tune sampling; the zero value means DefaultOptions.
	Options Options
	// TestCmd, if set, is run (argv, no shell) in a copy of Root with the patch
	// applied; exit 0 makes the patch plausible. TestTimeout bounds it.
	TestCmd     []string
	TestTimeout time.Duration
	// TestTimeFactor and TestTimeFloor set the scaled limit of a
	// candidate's test run (testlimit.go): min(TestTimeout,
	// max(TestTimeFloor, TestTimeFactor x the unchanged code's test time)),
	// so that a candidate that loops is stopped long before TestTimeout.
	// The unchanged code's tests run for it once a candidate's tests take
	// longer than TestTimeFloor (or after the first plausible patch, with
	// TestBuggy). 0 means DefaultTestTimeFactor and DefaultTestTimeFloor;
	// a negative TestTimeFactor turns the scaled limit off.
	TestTimeFactor float64
	TestTimeFloor  time.Duration
	// TestBuggy, with TestCmd, runs the tests once on the buggy project
	// (Result.BuggyTest): after the first plausible patch, in the test
	// worker that found it (so it delays neither that patch nor takes one
	// more core), or at the end when the tests ran on candidates and none
	// passed; or earlier, beside a candidate's run that passed
	// TestTimeFloor (the scaled limit needs its time), and then only once.
	// One more test run, made for a person reading the result (the CLI,
	// the editor), not for benchmarks.
	TestBuggy bool
	// OnPatch, if set, receives each candidate as soon as it is validated
	// (compile-checked, and tested when TestCmd is set), in the order
	// validation ends, before ranking: a caller streams patches with it
	// (issue 14). Validation runs while sampling goes on (each new unique
	// candidate is compile-checked as soon as it is sampled, and its tests
	// start in the background), so the first patches come before sampling
	// ends. A candidate may come twice: when a later sample gives the same
	// hunk up to whitespace with a better Score, the Result keeps that
	// sample's text (deduplication keeps the best-scored text), which is
	// validated again and sent again. Calls never overlap; they must not block for long.
	OnPatch func(Patch)
	// FirstCompilable makes validation compile-check the candidates best
	// Score first and stop after the first compilable one (and its tests):
	// the rest come back Unvalidated with NewErrors [NotValidatedStopped].
	// For callers that need one compilable patch, not the full ranking (the
	// corpus acceptance test); sampling is unchanged.
	FirstCompilable bool
}

// Options are the knobs of Algorithm 1. Prune, Memo and ActiveComplete select
// the paper's ablation variants (Table 3): base = none, prune, prune+memo,
// full = all three.
type Options struct {
	Samples        int     // candidates to sample (N); default 20
	Seed           int64   // sampling seed: equal seeds give equal patches
	Temperature    float64 // softmax temperature; default 1.0
	TopP           float64 // nucleus mass in (0,1]; default 0.95
	TopK           int     // candidates asked of the model per step; default 20
	MaxTokens      int     // tokens per hunk at most; default 64 (see TokenBudget)
	FixedBudget    bool    // every hunk may take MaxTokens tokens (not the hunk-scaled TokenBudget)
	MaxHunkBytes   int     // bytes per hunk; default $REPILOT_MAX_HUNK_BYTES, else 16 KiB
	MaxHunkLines   int     // newlines per hunk; default $REPILOT_MAX_HUNK_LINES, else 200
	Prune          bool    // GuidedPrune with the completion engine
	Memo           bool    // section 4.3 memoization
	ActiveComplete bool    // Algorithm 3
	KeepTop        int     // patches returned; default 5
	// Concurrency is how many samples run at once, each on its own model
	// session (lm.Model.Start), so that a model server can batch their
	// requests; default 1. Engine calls are serialized (one engine session
	// is shared), and results are committed in sample order: equal seeds
	// give equal patches at any concurrency (see sampleConcurrently).
	Concurrency int
}

// Patch is one validated candidate.
type Patch struct {
	Hunk         string   // replacement text for the buggy lines, newline-terminated ("" deletes)
	Diff         string   // unified diff of the file
	LogProb      float64  // sum of the model log-probabilities of the sampled tokens
	Tokens       int      // number of tokens sampled (actively completed text excluded)
	Score        float64  // ranking score: LogProb (see loop.go for why the sum, not the mean per token)
	Count        int      // samples that produced this candidate (the same program: equivKeyer)
	Compilable   bool     // no compile error that the buggy file lacked
	NewErrors    []string // compile errors the patch introduces (empty when Compilable)
	Tested       bool     // TestCmd ran
	Plausible    bool     // Compilable and TestCmd exited 0
	TestOutput   string   // tail of the test output, when Tested
	TestTimedOut bool     // Tested, and the test command was killed at the test timeout or at the scaled limit (Request.TestTimeFactor; TestOutput's last line says which)
	// Unvalidated is set in an interrupted Result (Result.Interrupted):
	// the interruption came before this candidate's validation finished.
	// Either its compile check never ran (Compilable false, NewErrors is
	// [NotValidated]), or it compiled and its tests did not run to the end
	// (Compilable true, Tested false). With Request.FirstCompilable it is
	// also set on the candidates left after the first compilable one
	// (Compilable false, NewErrors [NotValidatedStopped]).
	Unvalidated bool
}

// NotValidated is the NewErrors entry of a candidate sampled but not
// compile-checked because the repair was interrupted (Patch.Unvalidated).
const NotValidated = "not validated: interrupted"

// NotValidatedStopped is the NewErrors entry of a candidate not
// compile-checked because Request.FirstCompilable stopped validation at an
// earlier compilable one.
const NotValidatedStopped = "not validated: validation stopped at the first compilable candidate"

// Stats counts the work behind a Result.
type Stats struct {
	Samples        int           `json:"samples"`         // sampling attempts
	Unique         int           `json:"unique"`          // unique candidates (the same program: whitespace, comments, empty statements aside)
	Pruned         int64         `json:"pruned"`          // tokens pruned (by the engine, the memo or the trie of rejected prefixes)
	MemoHits       int64         `json:"memo_hits"`       // decisions answered from the memo or the trie without the engine
	ActiveChars    int64         `json:"active_chars"`    // characters appended by active completion
	LMRequests     int64         `json:"lm_requests"`     // model Next calls
	EngineRequests int64         `json:"engine_requests"` // JDT LS requests by the engine
	Duration       time.Duration `json:"duration_ns"`     // wall time of the whole repair

	Completed  int `json:"completed"`   // samples that ended with the model's end token
	Dead       int `json:"dead"`        // samples ended because every candidate was pruned (prefix added to the trie)
	Truncated  int `json:"truncated"`   // samples that reached MaxTokens, MaxHunkBytes or MaxHunkLines without the end token (discarded)
	NoProposal int `json:"no_proposal"` // samples ended because the model proposed no token
	// Why samples were truncated (Truncated = the three together): the
	// model's end token was drawn and pruned at least once (the file would
	// not parse there, or the memo or trie said so); it was proposed (in
	// the top-k distribution at some step after the first, where it would
	// delete the buggy lines) but never drawn; it was never proposed after
	// the first step (the n-gram model offers it only at a line end where
	// the brackets fit the buggy hunk's).
	TruncEndPruned   int   `json:"trunc_end_pruned"`
	TruncEndNotDrawn int   `json:"trunc_end_not_drawn"`
	TruncNoEnd       int   `json:"trunc_no_end"`
	SameAsBuggy      int   `json:"same_as_buggy"`  // completed samples equal to the buggy hunk after normalisation (dropped)
	EngineCalls      int64 `json:"engine_calls"`   // Check and Complete calls made by the loop (memo hits excluded)
	CompileChecks    int64 `json:"compile_checks"` // CompileErrors calls made by validation
	Unchecked        int64 `json:"unchecked"`      // candidates whose compile check failed (unparsable text or a timeout): not compilable
	Tested           int   `json:"tested"`         // candidates whose TestCmd ran
	// SampleTime and ValidateTime split the repair's wall time. Compile
	// checks run between samples (Request.OnPatch), so SampleTime is the
	// wall time of sampling less the compile checks made meanwhile, and
	// ValidateTime is those compile checks plus the wait for validation
	// after the last sample (the tests still running, or every check with
	// Request.FirstCompilable). Tests that ran during sampling are in
	// neither.
	SampleTime   time.Duration `json:"sample_time_ns"`
	ValidateTime time.Duration `json:"validate_time_ns"`
	// Resampled counts samples run a second time with Options.Concurrency
	// above 1: a sample before them ended dead while they ran, and its
	// rejected prefix covers text they asked about, so they are run again
	// as they would have run one after another (sampleConcurrently).
	Resampled int `json:"resampled"`

	// Speculative guided decoding (repair/speculative.go), when the model
	// session implements lm.Speculator. Proposals are also counted in
	// LMRequests; Proposals <= Samples + Resampled + SpecRejected +
	// SpecCuts (the work of a sample run twice counts twice).
	Proposals    int64 `json:"proposals"`     // model requests that proposed a continuation
	SpecAccepted int64 `json:"spec_accepted"` // proposed tokens taken as they were
	SpecRejected int64 `json:"spec_rejected"` // proposed tokens not taken (pruned or outside the nucleus): resampled locally
	SpecCuts     int64 `json:"spec_cuts"`     // re-proposals for other reasons: the proposal ran out (the server returned fewer tokens than asked, or active completion took budget), or active completion appended text the proposal does not spell

	// Engine cost and time to results, for bench repair (issue 14).
	Tokens          int64         `json:"tokens"`              // tokens sampled in all samples (completed, dead and truncated; actively completed text excluded)
	EngineTime      time.Duration `json:"engine_time_ns"`      // wall time inside completion-engine calls (Check, CheckEnd, Complete) while sampling
	FirstCompilable time.Duration `json:"first_compilable_ns"` // from the start of Repair to the first candidate found compilable; 0 when none
	FirstPlausible  time.Duration `json:"first_plausible_ns"`  // from the start of Repair to the first candidate found plausible; 0 when none

	// BuggyTestTime is the wall time of the test command on the unchanged
	// code (its run for the scaled test limit or for Request.TestBuggy),
	// and TestLimit the scaled limit derived from it (Request.TestTimeFactor;
	// it equals the test timeout when the scaled one would not be lower);
	// both 0 when that run did not end.
	BuggyTestTime time.Duration `json:"buggy_test_time_ns,omitempty"`
	TestLimit     time.Duration `json:"test_limit_ns,omitempty"`

	// LineRedraws counts the lines drawn again because the end token drawn
	// after them was pruned (loop.go, redrawLine).
	LineRedraws int64 `json:"line_redraws"`
}

// Result is the ranked outcome: compilable patches first, then plausible,
// then by Score. Patches holds at most Options.KeepTop patches; Candidates, all
// validated unique candidates in the same order (for benchmarks).
type Result struct {
	Patches    []Patch
	Stats      Stats
	Candidates []Patch
	// Interrupted says the context ended during sampling or validation and
	// this Result is partial: it holds the candidates of the samples that
	// finished (Stats.Samples of Options.Samples), the validated ones as
	// usual and the others with Patch.Unvalidated set, ranked the same way.
	// Repair returns such a Result together with an error wrapping ctx.Err(),
	// or wrapping a backend's error when one failed during sampling after
	// candidates were validated (Service.Repair).
	Interrupted bool
	// BuggyTest is Request.TestCmd run once on the project as it is (the
	// buggy hunk), made only with Request.TestBuggy: after the first
	// plausible patch, or when the tests ran on at least one candidate and
	// none passed; nil otherwise (or when the repair ended before it did).
	// It tells a test command that cannot pass at all (a missing build
	// file, a typo: the buggy project fails the same way) from tests the
	// candidates fail, and a command that passes on the bug too, which
	// cannot tell a fix from the bug (TestsPassOnBuggy).
	BuggyTest *TestRun
}

// TestsPassOnBuggy reports whether the test command passed on the buggy
// project too (BuggyTest.Passed): then no test fails on the bug, and a
// patch's Plausible says only that the tests pass, not Repilot's
// "plausible" (passes the tests the buggy program fails; Wei et al., FSE
// 2023).
func (r *Result) TestsPassOnBuggy() bool { return r != nil && r.BuggyTest != nil && r.BuggyTest.Passed }

// TestsPassOnBuggyMsg says what TestsPassOnBuggy means for the user, in the
// CLI's output and the editor's message.
const TestsPassOnBuggyMsg = "the test command passes on the unchanged (buggy) code too, so it cannot tell a fix from the bug: " +
	"a patch that passes it is not plausible (plausible: passes tests that the buggy code fails); give a test command that fails on the bug"

// TestRun is the outcome of one run of a test command.
type TestRun struct {
	Passed bool   `json:"passed"` // exit status 0 within the timeout
	Output string `json:"output"` // tail of stdout and stderr, with a note on a timeout
	// TimedOut: the command was killed at the test timeout (Passed is false).
	TimedOut bool `json:"timed_out,omitempty"`
	// took is the test command's wall time (sandbox.Result.Duration),
	// the copy of the project not included, and cpu its CPU time
	// (sandbox.Result.CPU).
	took, cpu time.Duration
}

// Progress receives human-readable progress: message and percentage 0-100.
type Progress func(message string, percent int)

// Repairer runs repairs; see repair.go's implementation for the loop.
// When ctx ends mid-repair, or a backend fails after candidates were
// validated, Repair may return a partial Result (Interrupted set) together
// with its error; a caller that drops the Result on any error
// loses only that partial result.
type Repairer interface {
	Repair(ctx context.Context, req Request, progress Progress) (*Result, error)
}

// Periodic calls tick after first and then every every (both > 0), on a
// goroutine of its own, until tick returns false or the returned stop is
// called. stop returns once no call of tick is running or can come; it may
// be called more than once. It is how a long wait says it still waits (the
// engine's start, a repair waiting for its backends) through a Progress.
func Periodic(first, every time.Duration, tick func() bool) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTimer(first)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			if !tick() {
				return
			}
			t.Reset(every)
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(done); wg.Wait() }) }
}
