package inline

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/engine"
	"github.com/repilot-lsp/repilot-lsp/lm"
)

// scriptModel proposes the next bytes of a fixed middle, one word at a time,
// then its end token; Next blocks while block is set (until ctx ends).
type scriptModel struct {
	middle string
	calls  atomic.Int64
	block  atomic.Bool
}

func (m *scriptModel) Name() string { return "script" }
func (m *scriptModel) Start(ctx context.Context, fim lm.FIM) (lm.Session, error) {
	return scriptSession{m}, nil
}

type scriptSession struct{ m *scriptModel }

func (s scriptSession) Next(ctx context.Context, generated string, k int) ([]lm.Candidate, error) {
	s.m.calls.Add(1)
	if s.m.block.Load() {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	rest := strings.TrimPrefix(s.m.middle, generated)
	if rest == "" || len(rest) == len(s.m.middle) && generated != "" {
		return []lm.Candidate{{End: true}}, nil
	}
	n := strings.IndexAny(rest[1:], " .(;\n") + 1
	if n <= 0 {
		n = len(rest)
	}
	return []lm.Candidate{{Text: rest[:n], LogProb: -0.1}, {End: true, LogProb: -5}}, nil
}

// okEngine answers Unknown to everything.
type okEngine struct{}

func (okEngine) Open(context.Context, engine.Hunk) (engine.Session, error) { return okSession{}, nil }

type okSession struct{}

func (okSession) Check(context.Context, string, string) (engine.Outcome, error) {
	return engine.Unknown, nil
}
func (okSession) CheckEnd(context.Context, string) (engine.Outcome, error) {
	return engine.Unknown, nil
}
func (okSession) Complete(context.Context, string) (engine.Completions, error) {
	return engine.Completions{}, nil
}
func (okSession) Stats() engine.Stats { return engine.Stats{} }
func (okSession) Close() error        { return nil }

// funcCompiler reports errors from a function of the text.
type funcCompiler struct {
	f     func(text string) []engine.CompileError
	calls atomic.Int64
}

func (c *funcCompiler) CompileErrors(ctx context.Context, uri, text string) ([]engine.CompileError, error) {
	c.calls.Add(1)
	return c.f(text), nil
}

func newTestService(m lm.Model, c engine.Compiler, opts Options) *Service {
	var mu sync.Mutex
	return NewService(func(ctx context.Context, root string, fn func(Backends) error) error {
		mu.Lock()
		defer mu.Unlock()
		return fn(Backends{Model: m, Engine: okEngine{}, Compiler: c})
	}, opts)
}

const doc = "class A {\n  void f() {\n    int x = \n  }\n}\n"

func TestSuggestStopsAtLineEnd(t *testing.T) {
	m := &scriptModel{middle: "1 + 2;\n    int y = 3;\n"}
	c := &funcCompiler{f: func(string) []engine.CompileError { return nil }}
	s := newTestService(m, c, Options{})
	off := strings.Index(doc, "= ") + 2
	got, err := s.Suggest(context.Background(), Request{URI: "file:///A.java", Text: doc, Offset: off})
	if err != nil || got == nil {
		t.Fatalf("Suggest = %v, %v", got, err)
	}
	if got.Text != "1 + 2;" {
		t.Errorf("suggestion %q, want %q (the rest of the line only)", got.Text, "1 + 2;")
	}
}

func TestFailedGuaranteeIsNotShown(t *testing.T) {
	m := &scriptModel{middle: "1 + 2;\n"}
	line := strings.Count(doc[:strings.Index(doc, "= ")], "\n") + 1
	c := &funcCompiler{f: func(text string) []engine.CompileError {
		if strings.Contains(text, "1 + 2;") {
			return []engine.CompileError{{Line: line, Message: "Type mismatch"}}
		}
		return nil
	}}
	s := newTestService(m, c, Options{})
	got, err := s.Suggest(context.Background(), Request{URI: "file:///A.java", Text: doc, Offset: strings.Index(doc, "= ") + 2})
	if err != nil || got != nil {
		t.Fatalf("Suggest = %+v, %v; want nothing shown", got, err)
	}
}

func TestTypingThroughMakesNoModelCall(t *testing.T) {
	m := &scriptModel{middle: "compute(1, 2);\n"}
	c := &funcCompiler{f: func(string) []engine.CompileError { return nil }}
	s := newTestService(m, c, Options{})
	off := strings.Index(doc, "= ") + 2
	first, err := s.Suggest(context.Background(), Request{URI: "file:///A.java", Text: doc, Offset: off})
	if err != nil || first == nil || first.Text != "compute(1, 2);" {
		t.Fatalf("first Suggest = %+v, %v", first, err)
	}
	calls, checks := m.calls.Load(), c.calls.Load()
	for i := 1; i < len(first.Text); i++ {
		typed := doc[:off] + first.Text[:i] + doc[off:]
		got, err := s.Suggest(context.Background(), Request{URI: "file:///A.java", Text: typed, Offset: off + i})
		if err != nil || got == nil || !got.Cached || got.Text != first.Text[i:] {
			t.Fatalf("after typing %q: %+v, %v; want %q from the cache", first.Text[:i], got, err, first.Text[i:])
		}
	}
	if m.calls.Load() != calls || c.calls.Load() != checks {
		t.Errorf("typing through made %d model calls and %d compile checks, want 0", m.calls.Load()-calls, c.calls.Load()-checks)
	}
	// A change elsewhere (a comment line added at the top): the rest is
	// checked again, with no model call.
	typed := "// note\n" + doc[:off] + "comp" + doc[off:]
	got, err := s.Suggest(context.Background(), Request{URI: "file:///A.java", Text: typed, Offset: len("// note\n") + off + 4})
	if err != nil || got == nil || !got.Rechecked || got.Text != "ute(1, 2);" {
		t.Fatalf("after a change elsewhere: %+v, %v; want ute(1, 2); rechecked", got, err)
	}
	if m.calls.Load() != calls {
		t.Errorf("the recheck made %d model calls, want 0", m.calls.Load()-calls)
	}
}

func TestNewerRequestCancelsOlder(t *testing.T) {
	m := &scriptModel{middle: "1;\n"}
	m.block.Store(true)
	c := &funcCompiler{f: func(string) []engine.CompileError { return nil }}
	// No shared lock: the newer request must not wait for the older one's
	// backends to be released before cancelling it.
	s := NewService(func(ctx context.Context, root string, fn func(Backends) error) error {
		return fn(Backends{Model: m, Engine: okEngine{}, Compiler: c})
	}, Options{})
	off := strings.Index(doc, "= ") + 2
	done := make(chan time.Time, 1)
	var firstErr error
	go func() {
		_, firstErr = s.Suggest(context.Background(), Request{URI: "file:///A.java", Text: doc, Offset: off})
		done <- time.Now()
	}()
	for m.calls.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go s.Suggest(ctx, Request{URI: "file:///A.java", Text: doc, Offset: off - 1})
	sent := time.Now()
	select {
	case at := <-done:
		if !errors.Is(firstErr, ErrSuperseded) {
			t.Errorf("older request ended with %v, want ErrSuperseded", firstErr)
		}
		t.Logf("older request stopped %v after the newer one arrived", at.Sub(sent))
	case <-time.After(5 * time.Second):
		t.Fatal("the older request was not cancelled")
	}
}

func TestStopRule(t *testing.T) {
	for _, c := range []struct {
		prefix, suffix, gen, tok string
		want                     int
	}{
		{"x = ", "\n}", "foo(", "a)\n", 2},                    // line ends at depth 0
		{"x = ", "\n}", "foo(", "a,\n", -1},                   // inside a call: continues
		{"f(", ");\n", "a", ")", 0},                           // the line's own ")"
		{"f(", "\n", "a", ")", -1},                            // no rest of line: writes ")"
		{"if (a) {", "\n  }\n", "\n  x();\n", "}", 0},         // block already closed
		{"if (a) {", "\n", "\n  x();\n", "}\n", 1},            // block closed by the suggestion
		{"x = ", "\n", "", "\n", 0},                           // mid-line: no new line
		{"  foo();", "\n", "", "\n  bar();\n", 9},             // after a statement: the next line
		{"x = ", "\n", "\"a\n", "", -1},                       // nothing to cut
		{"x = ", "\n", "", "\"}\" + 1;\n", len("\"}\" + 1;")}, // brace in a string
	} {
		r := newStopRule(c.prefix, c.suffix)
		if got := r.cut(c.gen, c.tok); got != c.want {
			t.Errorf("prefix %q suffix %q: cut(%q, %q) = %d, want %d", c.prefix, c.suffix, c.gen, c.tok, got, c.want)
		}
	}
}

func TestIntroduced(t *testing.T) {
	e := func(l int, m string) engine.CompileError { return engine.CompileError{Line: l, Message: m} }
	span := Span{From: 3, To: 4} // the insertion adds one line
	for _, c := range []struct {
		name     string
		new, old []engine.CompileError
		want     int
	}{
		{"clean", nil, nil, 0},
		{"on the inserted lines", []engine.CompileError{e(4, "m")}, []engine.CompileError{e(3, "m")}, 1},
		{"old error before, same line", []engine.CompileError{e(1, "m")}, []engine.CompileError{e(1, "m")}, 0},
		{"old error after, shifted", []engine.CompileError{e(6, "m")}, []engine.CompileError{e(5, "m")}, 0},
		{"new error after", []engine.CompileError{e(6, "m")}, []engine.CompileError{e(6, "m")}, 1},
		{"one old excuses one new", []engine.CompileError{e(1, "m"), e(1, "m")}, []engine.CompileError{e(1, "m")}, 1},
	} {
		if got := Introduced(c.new, c.old, span); len(got) != c.want {
			t.Errorf("%s: Introduced = %v, want %d errors", c.name, got, c.want)
		}
	}
}

func TestAutomaticBudgetShowsNothing(t *testing.T) {
	m := &scriptModel{middle: "1;\n"}
	m.block.Store(true)
	c := &funcCompiler{f: func(string) []engine.CompileError { return nil }}
	s := newTestService(m, c, Options{AutomaticBudget: 400 * time.Millisecond})
	got, err := s.Suggest(context.Background(), Request{URI: "file:///A.java", Text: doc, Offset: strings.Index(doc, "= ") + 2})
	if err != nil || got != nil || s.Totals().OverBudget != 1 {
		t.Fatalf("Suggest = %+v, %v, totals %+v; want nothing, no error, one over budget", got, err, s.Totals())
	}
}

// TestAutomaticBudgetBoundsTheWaitForBackends: an automatic request whose
// project's backends are busy (starting, or serving a repair) shows nothing
// once its budget is spent instead of waiting for them; an invoked request
// waits.
func TestAutomaticBudgetBoundsTheWaitForBackends(t *testing.T) {
	release := make(chan struct{})
	m := &scriptModel{middle: "1;\n"}
	c := &funcCompiler{f: func(string) []engine.CompileError { return nil }}
	s := NewService(func(ctx context.Context, root string, fn func(Backends) error) error {
		select { // busy backends: free only when released
		case <-release:
		case <-ctx.Done():
			return ctx.Err()
		}
		return fn(Backends{Model: m, Engine: okEngine{}, Compiler: c})
	}, Options{AutomaticBudget: 300 * time.Millisecond})
	req := Request{URI: "file:///A.java", Text: doc, Offset: strings.Index(doc, "= ") + 2}
	done := make(chan error, 1)
	go func() {
		got, err := s.Suggest(context.Background(), req)
		if err == nil && got != nil {
			err = fmt.Errorf("showed %q", got.Text)
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil || s.Totals().OverBudget != 1 {
			t.Fatalf("Suggest while the backends are busy: %v, totals %+v; want nothing, no error, one over budget", err, s.Totals())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("an automatic request waited for busy backends beyond its budget")
	}
	inv := req
	inv.Trigger = Invoked
	go func() {
		time.Sleep(100 * time.Millisecond)
		close(release)
	}()
	got, err := s.Suggest(context.Background(), inv)
	if err != nil || got == nil || got.Text != "1;" {
		t.Fatalf("invoked Suggest after the backends freed = %+v, %v; want 1;", got, err)
	}
}

// An invoked request's work is bounded by InvokedBudget: a compile check
// that never answers is cut at the deadline and nothing is shown, where
// without the budget each of the invoked samples would wait for its check's
// CheckTimeout.
func TestInvokedBudgetBoundsTheWork(t *testing.T) {
	m := choiceModel{a: "1 + 2;\n", b: "3;\n"}
	req := Request{URI: "file:///A.java", Text: doc, Offset: strings.Index(doc, "= ") + 2, Trigger: Invoked}
	c := &blockCompiler{}
	s := newTestService(m, c, Options{InvokedBudget: 400 * time.Millisecond, CheckTimeout: 5 * time.Second})
	t0 := time.Now()
	got, err := s.Suggest(context.Background(), req)
	if err != nil || got != nil {
		t.Fatalf("Suggest = %+v, %v; want nothing, no error", got, err)
	}
	if d := time.Since(t0); d > 3*time.Second {
		t.Errorf("the invoked request took %v, want about its 400 ms budget", d)
	}
	if st := s.Totals(); c.calls.Load() != 1 || st.ChecksCut != 1 {
		t.Errorf("%d checks, totals %+v; want one check, cut by the deadline", c.calls.Load(), st)
	}
}

// The invoked budget counts from when the request holds the backends: an
// invoked request that waited longer than its budget for them (the shadow
// JDT LS starting) still gets its suggestion, and tries past samples that
// fail the check, as without a budget.
func TestInvokedBudgetStartsWithTheBackends(t *testing.T) {
	m := choiceModel{a: "1 + 2;\n", b: "3;\n"}
	c := rejectCompiler("1 + 2;", 0)
	s := NewService(func(ctx context.Context, root string, fn func(Backends) error) error {
		select { // backends starting: held only after 600 ms
		case <-time.After(600 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
		return fn(Backends{Model: m, Engine: okEngine{}, Compiler: c})
	}, Options{InvokedBudget: 300 * time.Millisecond, AutomaticBudget: 300 * time.Millisecond})
	req := Request{URI: "file:///A.java", Text: doc, Offset: strings.Index(doc, "= ") + 2, Trigger: Invoked}
	got, err := s.Suggest(context.Background(), req)
	if err != nil || got == nil || got.Text != "3;" {
		t.Fatalf("invoked Suggest = %+v, %v; want 3; (the second sample)", got, err)
	}
	req.Trigger, req.Text = Automatic, doc+"\n" // not the cached document
	if got, err := s.Suggest(context.Background(), req); err != nil || got != nil {
		t.Fatalf("automatic Suggest = %+v, %v; want nothing (its budget counts the wait)", got, err)
	}
}

// choiceModel offers two whole middles at the start, the first more likely,
// then its end token.
type choiceModel struct{ a, b string }

func (m choiceModel) Name() string { return "choice" }
func (m choiceModel) Start(context.Context, lm.FIM) (lm.Session, error) {
	return choiceSession(m), nil
}

type choiceSession choiceModel

func (s choiceSession) Next(ctx context.Context, generated string, k int) ([]lm.Candidate, error) {
	if generated == "" {
		return []lm.Candidate{{Text: s.a, LogProb: -0.2}, {Text: s.b, LogProb: -0.4}}, nil
	}
	return []lm.Candidate{{End: true}}, nil
}

// rejectCompiler fails every text containing bad on line 3 (the caret's),
// after sleeping delay.
func rejectCompiler(bad string, delay time.Duration) *funcCompiler {
	return &funcCompiler{f: func(text string) []engine.CompileError {
		time.Sleep(delay)
		if strings.Contains(text, bad) {
			return []engine.CompileError{{Line: 3, Message: "Type mismatch"}}
		}
		return nil
	}}
}

func TestAutomaticRetryShowsNextSample(t *testing.T) {
	m := choiceModel{a: "1 + 2;\n", b: "3;\n"}
	off := strings.Index(doc, "= ") + 2
	req := Request{URI: "file:///A.java", Text: doc, Offset: off}
	// One sample: the greedy one fails the check and nothing is shown.
	if got, err := newTestService(m, rejectCompiler("1 + 2;", 0), Options{AutomaticBudget: time.Minute}).Suggest(context.Background(), req); err != nil || got != nil {
		t.Fatalf("one sample: Suggest = %+v, %v; want nothing", got, err)
	}
	// More samples within the budget: a later sample passes and is shown.
	c := rejectCompiler("1 + 2;", 0)
	got, err := newTestService(m, c, Options{AutomaticSamples: 8, AutomaticBudget: time.Minute}).Suggest(context.Background(), req)
	if err != nil || got == nil || got.Text != "3;" {
		t.Fatalf("eight samples: Suggest = %+v, %v; want 3;", got, err)
	}
	if got.Stats.Rejected != 1 {
		t.Errorf("rejected %d samples, want 1 (the greedy one)", got.Stats.Rejected)
	}
}

func TestAutomaticRetryStopsAtBudget(t *testing.T) {
	m := choiceModel{a: "1 + 2;\n", b: "3;\n"}
	// The check of the greedy sample takes 300 ms of the 500 ms budget:
	// no second sample starts, since its check (300 ms, as the first) could
	// not finish before the deadline.
	c := rejectCompiler("1 + 2;", 300*time.Millisecond)
	s := newTestService(m, c, Options{AutomaticSamples: 8, AutomaticBudget: 500 * time.Millisecond})
	got, err := s.Suggest(context.Background(), Request{URI: "file:///A.java", Text: doc, Offset: strings.Index(doc, "= ") + 2})
	if err != nil || got != nil {
		t.Fatalf("Suggest = %+v, %v; want nothing", got, err)
	}
	if n := c.calls.Load(); n != 1 || s.Totals().Samples != 1 {
		t.Errorf("%d compile checks, %d samples after the first check took most of the budget; want 1 and 1", n, s.Totals().Samples)
	}
}

// A check that cannot finish before the request's deadline, by the recent
// checks' durations, is not started: a check of 300 ms measured on an
// invoked request (no budget), then an automatic request with a 250 ms
// budget runs no sample and no check.
func TestCheckThatCannotFinishIsNotStarted(t *testing.T) {
	m := choiceModel{a: "1 + 2;\n", b: "3;\n"}
	c := rejectCompiler("no such text", 300*time.Millisecond)
	s := newTestService(m, c, Options{AutomaticBudget: 250 * time.Millisecond})
	req := Request{URI: "file:///A.java", Text: doc, Offset: strings.Index(doc, "= ") + 2, Trigger: Invoked}
	if got, err := s.Suggest(context.Background(), req); err != nil || got == nil {
		t.Fatalf("invoked: Suggest = %+v, %v; want a suggestion", got, err)
	}
	req.Trigger, req.Text = Automatic, doc+"\n" // not the cached document
	got, err := s.Suggest(context.Background(), req)
	if err != nil || got != nil {
		t.Fatalf("automatic: Suggest = %+v, %v; want nothing", got, err)
	}
	if n, st := c.calls.Load(), s.Totals(); n != 1 || st.Samples != 1 || st.OverBudget != 1 {
		t.Errorf("%d compile checks, %d samples, %d over budget; want 1, 1 (the invoked request's) and 1", n, st.Samples, st.OverBudget)
	}
}

// blockCompiler blocks every compile check until its context ends.
type blockCompiler struct{ calls atomic.Int64 }

func (c *blockCompiler) CompileErrors(ctx context.Context, uri, text string) ([]engine.CompileError, error) {
	c.calls.Add(1)
	<-ctx.Done()
	return nil, ctx.Err()
}

// A check still running at the request's deadline is cut: the suggestion is
// not shown, and the request ends without an error.
func TestCheckCutByDeadlineFails(t *testing.T) {
	m := &scriptModel{middle: "1 + 2;\n"}
	c := &blockCompiler{}
	s := newTestService(m, c, Options{AutomaticBudget: time.Second})
	got, err := s.Suggest(context.Background(), Request{URI: "file:///A.java", Text: doc, Offset: strings.Index(doc, "= ") + 2})
	if err != nil || got != nil {
		t.Fatalf("Suggest = %+v, %v; want nothing, no error", got, err)
	}
	if st := s.Totals(); c.calls.Load() != 1 || st.ChecksCut != 1 || st.Rejected != 0 {
		t.Errorf("%d checks, totals %+v; want one check, cut, none rejected", c.calls.Load(), st)
	}
}

// slowEngine's sessions answer Check and Complete only when ctx ends (JDT LS
// slower than the budget).
type slowEngine struct{}

func (slowEngine) Open(context.Context, engine.Hunk) (engine.Session, error) {
	return slowSession{}, nil
}

type slowSession struct{ okSession }

func (slowSession) Check(ctx context.Context, _, _ string) (engine.Outcome, error) {
	<-ctx.Done()
	return engine.Unknown, ctx.Err()
}
func (slowSession) Complete(ctx context.Context, _ string) (engine.Completions, error) {
	<-ctx.Done()
	return engine.Completions{}, ctx.Err()
}

// Near the end of sampling's time the engine's decisions answer unknown
// instead of waiting: a sample whose engine is slower than the budget still
// completes, and its check decides.
func TestLateEngineDecisionsAreUnknown(t *testing.T) {
	m := &scriptModel{middle: "1 + 2;\n"}
	c := &funcCompiler{f: func(string) []engine.CompileError { return nil }}
	s := NewService(func(ctx context.Context, root string, fn func(Backends) error) error {
		return fn(Backends{Model: m, Engine: slowEngine{}, Compiler: c})
	}, Options{AutomaticBudget: time.Second})
	got, err := s.Suggest(context.Background(), Request{URI: "file:///A.java", Text: doc, Offset: strings.Index(doc, "= ") + 2})
	if err != nil || got == nil || got.Text != "1 + 2;" {
		t.Fatalf("Suggest = %+v, %v; want \"1 + 2;\"", got, err)
	}
	if got.Stats.LateUnknown == 0 || c.calls.Load() != 1 {
		t.Errorf("%d late unknown decisions, %d checks; want some and 1", got.Stats.LateUnknown, c.calls.Load())
	}
	// Without a budget nothing is cut: the engine's answers are awaited.
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	s2 := NewService(func(ctx context.Context, root string, fn func(Backends) error) error {
		return fn(Backends{Model: m, Engine: slowEngine{}, Compiler: c})
	}, Options{})
	if got, err := s2.Suggest(ctx, Request{URI: "file:///A.java", Text: doc, Offset: strings.Index(doc, "= ") + 2}); err == nil || got != nil {
		t.Fatalf("no budget: Suggest = %+v, %v; want ctx's error", got, err)
	}
}

// A blank suggestion is never shown, so the stop rule never lets one end:
// at a caret where the model's best is to end at once, it writes its next
// best instead.
func TestBlankEndIsDropped(t *testing.T) {
	r := newStopRule("    foo(a);\n    x = y", "\n  }\n}\n")
	dist := []lm.Candidate{{End: true, LogProb: -0.1}, {Text: "\n", LogProb: -0.5}, {Text: ";", LogProb: -2}}
	out, where := r.apply("", dist)
	if len(out) != 1 || out[0].Text != ";" || out[0].End || where[0] != -1 || where[1] != -1 {
		t.Fatalf("apply = %+v, %v; want only \";\" (the end and the cut newline dropped)", out, where)
	}
	out, _ = r.apply(";", dist)
	if len(out) != 2 || !out[0].End || out[0].Text != "" {
		t.Fatalf("after \";\": apply = %+v; want the end kept", out)
	}
}

// listModel offers whole middles at the start, the first likeliest and
// each next one less likely by 0.1 in log-probability, then its end token.
type listModel []string

func (m listModel) Name() string { return "list" }
func (m listModel) Start(context.Context, lm.FIM) (lm.Session, error) {
	return listSession(m), nil
}

type listSession listModel

func (s listSession) Next(ctx context.Context, generated string, k int) ([]lm.Candidate, error) {
	if generated != "" {
		return []lm.Candidate{{End: true}}, nil
	}
	out := make([]lm.Candidate, len(s))
	for i, text := range s {
		out[i] = lm.Candidate{Text: text, LogProb: -0.1 * float64(i+1)}
	}
	return out, nil
}

// checkedTexts is a compiler that records the caret line of every text it
// checks and passes only the one containing good.
func checkedTexts(good string) (*funcCompiler, func() []string) {
	var mu sync.Mutex
	var seen []string
	c := &funcCompiler{f: func(text string) []engine.CompileError {
		mu.Lock()
		seen = append(seen, strings.TrimSpace(strings.Split(text, "\n")[2]))
		mu.Unlock()
		if strings.Contains(text, good) {
			return nil
		}
		return []engine.CompileError{{Line: 3, Message: "Type mismatch"}}
	}}
	return c, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(seen)
	}
}

// Automatic samples after the first are drawn at AutomaticTemperature,
// invoked ones at Temperature. Every text is drawn once at most (samples
// are drawn without replacement), so at a temperature near 0 the samples
// come in the model's order; at 0.8 they do not (with the fixed seed of the
// samples' random streams).
func TestAutomaticTemperature(t *testing.T) {
	m := listModel{"0;\n", "1;\n", "2;\n", "3;\n", "4;\n", "5;\n", "6;\n", "7;\n", "8;\n", "9;\n"}
	req := Request{URI: "file:///A.java", Text: doc, Offset: strings.Index(doc, "= ") + 2}
	opts := Options{AutomaticSamples: 8, InvokedSamples: 8, AutomaticTemperature: 0.01}
	c, seen := checkedTexts("9;")
	if got, err := newTestService(m, c, opts).Suggest(context.Background(), req); err != nil || got != nil {
		t.Fatalf("automatic at T=0.01: Suggest = %+v, %v; want nothing", got, err)
	}
	want := []string{"int x = 0;", "int x = 1;", "int x = 2;", "int x = 3;", "int x = 4;", "int x = 5;", "int x = 6;", "int x = 7;"}
	if got := seen(); !slices.Equal(got, want) {
		t.Errorf("automatic at T=0.01 checked %q, want %q (the model's order, each once)", got, want)
	}
	req.Trigger = Invoked
	c, seen = checkedTexts("9;")
	if got, err := newTestService(m, c, opts).Suggest(context.Background(), req); err != nil || got != nil {
		t.Fatalf("invoked at T=0.8: Suggest = %+v, %v; want nothing", got, err)
	}
	got := seen()
	if len(got) != 8 || len(slices.Compact(slices.Sorted(slices.Values(got)))) != 8 || slices.Equal(got, want) {
		t.Errorf("invoked at T=0.8 checked %q; want eight different texts, not in the model's order", got)
	}
}

func TestStopRuleOpenBrackets(t *testing.T) {
	for _, c := range []struct {
		prefix string
		want   int
	}{
		{"x = foo(a, ", 1},
		{"for (int i = 0; i < n; i++", 1},
		{"foo(x -> {\n  a();\n}, b", 1},               // a closed lambda body inside the call
		{"a[i] = b(c[", 2},                            //
		{"if (a) {\n  x(", 1},                         // the block's brace starts a new count
		{"foo(\"(\" /* ( */, 'x'", 1},                 // literals and comments skipped
		{"foo(a));\nbar(", 1},                         // an unmatched closer is ignored
		{"class A {\n  void f() {\n    int x = ", 0},  //
		{"a(b(c), d[e]", 1},                           //
		{"void f() {\n  g(new Runnable() {\n    ", 0}, // inside an anonymous class body
	} {
		if got := openBrackets(c.prefix); got != c.want {
			t.Errorf("openBrackets(%q) = %d, want %d", c.prefix, got, c.want)
		}
	}
	for _, c := range []struct {
		suffix string
		want   int
	}{
		{");\n}", 1},
		{"\n    foo(a);\n  }\n", 0},
		{"\n      c));\n", 2},
		{"] = 1;", 1},
		{"\n  }\n  void g() { h(); }", 0},
	} {
		if got := closersAfter(c.suffix); got != c.want {
			t.Errorf("closersAfter(%q) = %d, want %d", c.suffix, got, c.want)
		}
	}
	for _, c := range []struct {
		prefix, suffix, gen, tok string
		want                     int
	}{
		{"x = foo(a, ", "\n}", "b", "\n", -1},         // the call is open: the line goes on
		{"x = foo(a, ", "\n}", "b)", ";\n", 1},        // closed: the line ends
		{"x = foo(a, ", "\n  c);\n}", "b,", "\n", 0},  // the suffix closes the call
		{"x = foo(", ")\n}", "a", ")", 0},             // the line's own ")"
		{"if (a) {\n  x = foo(", "\n}", "1", ")", -1}, // written
	} {
		r := newStopRule(c.prefix, c.suffix)
		if got := r.cut(c.gen, c.tok); got != c.want {
			t.Errorf("prefix %q suffix %q: cut(%q, %q) = %d, want %d", c.prefix, c.suffix, c.gen, c.tok, got, c.want)
		}
	}
	for _, c := range []struct {
		prefix, suffix, gen string
		want                bool
	}{
		{"x = foo(a, ", "\n}", "b", false},
		{"x = foo(a, ", "\n}", "b);", true},
		{"x = foo(a, ", "\n  c);\n}", "b,", true},
		{"x = ", "\n}", "\"abc", false},
		{"x = ", "\n}", "bar(", false},
		{"x = ", "\n}", "bar();", true},
		{"if (a) {", "\n}", "\n  foo(", true}, // block mode: the engine and the check judge
	} {
		if got := newStopRule(c.prefix, c.suffix).mayEnd(c.gen); got != c.want {
			t.Errorf("prefix %q suffix %q: mayEnd(%q) = %v, want %v", c.prefix, c.suffix, c.gen, got, c.want)
		}
	}
}

// An end token where the statement's brackets are still open is dropped: the
// sample proposes nothing else, so nothing is shown and no compile check is
// spent on it.
func TestOpenStatementDoesNotEnd(t *testing.T) {
	d := "class A {\n  void f() {\n    int x = foo(\n  }\n}\n"
	m := &scriptModel{middle: "1"}
	c := &funcCompiler{f: func(string) []engine.CompileError { return nil }}
	s := newTestService(m, c, Options{})
	got, err := s.Suggest(context.Background(), Request{URI: "file:///A.java", Text: d, Offset: strings.Index(d, "foo(") + 4})
	if err != nil || got != nil {
		t.Fatalf("Suggest = %+v, %v; want nothing shown", got, err)
	}
	if n := c.calls.Load(); n != 0 {
		t.Errorf("%d compile checks, want 0", n)
	}
	m2 := &scriptModel{middle: "1);"}
	s2 := newTestService(m2, c, Options{})
	got, err = s2.Suggest(context.Background(), Request{URI: "file:///A.java", Text: d, Offset: strings.Index(d, "foo(") + 4})
	if err != nil || got == nil || got.Text != "1);" {
		t.Fatalf("Suggest = %+v, %v; want \"1);\"", got, err)
	}
}

// A later sample never ends with a text an earlier one ended with, even
// where the model all but insists on it (automatic samples at temperature
// 0.01): the second sample is the model's second text.
func TestLaterSampleDoesNotRepeatTried(t *testing.T) {
	m := choiceModel{a: "1 + 2;\n", b: "3;\n"}
	req := Request{URI: "file:///A.java", Text: doc, Offset: strings.Index(doc, "= ") + 2}
	for _, budget := range []time.Duration{0, time.Minute} {
		c := rejectCompiler("1 + 2;", 0)
		s := newTestService(m, c, Options{AutomaticSamples: 2, AutomaticTemperature: 0.01, AutomaticBudget: budget})
		got, err := s.Suggest(context.Background(), req)
		if err != nil || got == nil || got.Text != "3;" {
			t.Fatalf("budget %v: Suggest = %+v, %v; want 3;", budget, got, err)
		}
		if st := got.Stats; st.Samples != 2 || st.Repeated != 0 || st.Rejected != 1 || c.calls.Load() != 2 {
			t.Errorf("budget %v: %d samples, %d repeated, %d rejected, %d checks; want 2, 0, 1, 2", budget, st.Samples, st.Repeated, st.Rejected, c.calls.Load())
		}
	}
}

// Under a budget, a sample that ends without a candidate does not count
// toward the samples; at most maxAutomaticAttempts samples run. Without a
// budget every sample counts.
func TestSampleWithoutCandidateDoesNotCount(t *testing.T) {
	// After "0;" and "1;", both rejected, nothing is left to draw: every
	// later sample dies at once.
	m := listModel{"0;\n", "1;\n"}
	req := Request{URI: "file:///A.java", Text: doc, Offset: strings.Index(doc, "= ") + 2}
	c := rejectCompiler(";", 0)
	s := newTestService(m, c, Options{AutomaticSamples: 4, AutomaticBudget: time.Minute})
	if got, err := s.Suggest(context.Background(), req); err != nil || got != nil {
		t.Fatalf("Suggest = %+v, %v; want nothing", got, err)
	}
	if n, st := c.calls.Load(), s.Totals(); n != 2 || st.Samples != maxAutomaticAttempts || st.Rejected != 2 || st.Dead != maxAutomaticAttempts-2 {
		t.Errorf("%d compile checks, %d samples, %d rejected, %d dead; want 2, %d, 2, %d", n, st.Samples, st.Rejected, st.Dead, maxAutomaticAttempts, maxAutomaticAttempts-2)
	}
	c = rejectCompiler(";", 0)
	s = newTestService(m, c, Options{AutomaticSamples: 4})
	if got, err := s.Suggest(context.Background(), req); err != nil || got != nil {
		t.Fatalf("no budget: Suggest = %+v, %v; want nothing", got, err)
	}
	if st := s.Totals(); st.Samples != 4 || st.Dead != 2 {
		t.Errorf("no budget: %d samples, %d dead; want 4 and 2", st.Samples, st.Dead)
	}
	// An invoked request under InvokedBudget: every sample counts, as
	// without a budget (the budget only bounds the time).
	c = rejectCompiler(";", 0)
	s = newTestService(m, c, Options{InvokedSamples: 4, InvokedBudget: time.Minute})
	inv := req
	inv.Trigger = Invoked
	if got, err := s.Suggest(context.Background(), inv); err != nil || got != nil {
		t.Fatalf("invoked: Suggest = %+v, %v; want nothing", got, err)
	}
	if st := s.Totals(); st.Samples != 4 || st.Dead != 2 || st.Rejected != 2 {
		t.Errorf("invoked under its budget: %d samples, %d dead, %d rejected; want 4, 2 and 2", st.Samples, st.Dead, st.Rejected)
	}
}

// In line mode a token that breaks the line inside a bracket is never
// proposed (the statement must end on the caret's line); a line break at
// depth 0 still ends the suggestion, and block mode may break lines.
func TestLineSuggestionDoesNotWrap(t *testing.T) {
	r := newStopRule("    x = foo(a,", "\n  }\n}\n")
	dist := []lm.Candidate{{Text: "\n", LogProb: -0.1}, {Text: " b", LogProb: -0.5}, {Text: " b)\n", LogProb: -1}}
	out, where := r.apply("", dist)
	if where[0] != -1 || len(out) != 2 || out[0].Text != " b" {
		t.Fatalf("apply = %+v, %v; want the line break dropped", out, where)
	}
	if !r.wraps(" b +", "\n") || r.wraps(" b);", "\n") {
		t.Errorf("wraps: a break inside the call must wrap, one after it must not")
	}
	if b := newStopRule("    if (a) {", "\n  }\n}\n"); b.wraps("\n      foo(", "\n") {
		t.Errorf("block mode: a line break inside a call must be allowed")
	}
}

// In line mode a token that writes a ")" or "]" with no bracket of the
// statement open is never proposed: "));" where one "(" is open, ")" where
// the next line closes the call. The rest of the line's own closer still
// ends the suggestion (cut), and block mode is left to the engine and the
// check.
func TestLineSuggestionDoesNotOverclose(t *testing.T) {
	r := newStopRule("    x = foo(a, ", "\n  }\n}\n")
	dist := []lm.Candidate{{Text: "b));", LogProb: -0.1}, {Text: "b);", LogProb: -0.5}, {Text: ")", LogProb: -1}}
	out, where := r.apply("", dist)
	if where[0] != -1 || len(out) != 2 || out[0].Text != "b);" || out[1].Text != ")" {
		t.Fatalf("apply = %+v, %v; want b)); dropped, b); and ) kept", out, where)
	}
	for _, c := range []struct {
		prefix, suffix, gen, tok string
		want                     bool
	}{
		{"    x = foo(a, ", "\n}", "b)", ")", true},
		{"    x = foo(a, ", "\n}", "b", "]", false}, // closes the "(" (depth only)
		{"    x = ", "\n}", "a", ");", true},
		{"    x = ", "\n}", "a[i", "]);", true},
		{"    x = foo(a, ", "\n      c);\n}", "b", ")", true}, // the next line closes the call
		{"    x = foo(", ");\n}", "a", ")", false},            // the line's own ")" ends the suggestion
		{"    x = \"", "\n}", "a", ")\";", false},             // in a literal
		{"    if (a) {", "\n}", "\n      b", ");", false},     // block mode
	} {
		if got := newStopRule(c.prefix, c.suffix).overcloses(c.gen, c.tok); got != c.want {
			t.Errorf("prefix %q suffix %q: overcloses(%q, %q) = %v, want %v", c.prefix, c.suffix, c.gen, c.tok, got, c.want)
		}
	}
}

// A rejection for an error outside the inserted lines (one the file as it
// stands lacks) counts in RejectedElsewhere; one on the inserted line does
// not, nor does a text that passes.
func TestRejectedElsewhereCounts(t *testing.T) {
	off := strings.Index(doc, "= ") + 2
	req := Request{URI: "file:///A.java", Text: doc, Offset: off}
	for _, tc := range []struct {
		name      string
		errs      []engine.CompileError // of the text with the suggestion inserted
		shown     bool
		elsewhere int
	}{
		{"clean", nil, true, 0},
		{"on the inserted line", []engine.CompileError{{Line: 3, Message: "Type mismatch"}}, false, 0},
		{"on the inserted line and elsewhere", []engine.CompileError{{Line: 1, Message: "The package p conflicts"}, {Line: 3, Message: "Type mismatch"}}, false, 0},
		{"elsewhere only", []engine.CompileError{{Line: 1, Message: "The package p conflicts"}}, false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &funcCompiler{f: func(text string) []engine.CompileError {
				if text == doc {
					return nil // the file as it stands: no error
				}
				return tc.errs
			}}
			s := newTestService(&scriptModel{middle: "1 + 2;\n"}, c, Options{})
			got, err := s.Suggest(context.Background(), req)
			if err != nil || (got != nil) != tc.shown {
				t.Fatalf("Suggest = %+v, %v; want shown %v", got, err, tc.shown)
			}
			if n := s.Totals().RejectedElsewhere; n != tc.elsewhere {
				t.Errorf("RejectedElsewhere = %d, want %d", n, tc.elsewhere)
			}
			if r := s.Totals().Rejected; r != map[bool]int{true: 0, false: 1}[tc.shown] {
				t.Errorf("Rejected = %d", r)
			}
		})
	}
}
