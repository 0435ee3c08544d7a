package repair

// loop_test.go tests Algorithms 1-3 and the memo with the fakes of
// fakes_test.go.

import (
	"context"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/engine"
	"github.com/repilot-lsp/repilot-lsp/lm"
)

const javaFile = "class A {\n  void f() {\n    int x = 1;\n    return;\n  }\n}\n"

func request(opts Options) Request {
	return Request{
		Root: "/proj", File: "/proj/src/A.java", Text: javaFile,
		StartLine: 3, EndLine: 3, Options: opts,
	}
}

func service(m *fakeModel, e *fakeEngine, c *fakeCompiler) *Service {
	if c == nil {
		c = &fakeCompiler{}
	}
	return NewService(Backends{Model: m, Engine: e, Compiler: c})
}

func variant(t *testing.T, name string, mod func(*Options)) Options {
	t.Helper()
	o, err := DefaultOptions().WithVariant(name)
	if err != nil {
		t.Fatal(err)
	}
	o.KeepTop = 100
	if mod != nil {
		mod(&o)
	}
	return o
}

func hunks(ps []Patch) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Hunk)
	}
	return out
}

func run(t *testing.T, s *Service, r Request) *Result {
	t.Helper()
	res, err := s.Repair(context.Background(), r, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestDeterministicBySeed(t *testing.T) {
	for _, v := range Variants {
		t.Run(v, func(t *testing.T) {
			get := func(seed int64) *Result {
				m := &fakeModel{next: hashModel}
				e := &fakeEngine{check: hashEngine, complete: hashComplete}
				return run(t, service(m, e, nil), request(variant(t, v, func(o *Options) { o.Seed = seed })))
			}
			a, b, c := get(7), get(7), get(8)
			if len(a.Candidates) < 3 {
				t.Fatalf("want several candidates, got %q", hunks(a.Candidates))
			}
			if !reflect.DeepEqual(a.Candidates, b.Candidates) {
				t.Fatalf("same seed, different candidates:\n%q\n%q", hunks(a.Candidates), hunks(b.Candidates))
			}
			if reflect.DeepEqual(hunks(a.Candidates), hunks(c.Candidates)) {
				t.Fatalf("seeds 7 and 8 gave the same candidates %q", hunks(a.Candidates))
			}
		})
	}
}

func TestSampleStreamsIndependentOfOrder(t *testing.T) {
	// Stream i must not depend on whether stream j was used before.
	a := sampleStream(3, 5).Float64()
	_ = sampleStream(3, 4).Float64()
	if b := sampleStream(3, 5).Float64(); a != b {
		t.Fatalf("stream 5 changed: %v vs %v", a, b)
	}
	if sampleStream(3, 5).Float64() == sampleStream(3, 6).Float64() {
		t.Fatal("streams 5 and 6 start equal")
	}
}

func TestPruneRemovesInfeasibleTokens(t *testing.T) {
	// The model likes "bad" best; the engine says it is infeasible.
	next := table(map[string][]tok{
		"":        {{"bad", 0.7, false}, {"good", 0.3, false}},
		"bad":     {{";", 1, true}},
		"good":    {{";", 1, true}},
		"ignored": nil,
	})
	check := func(g, t string) (engine.Outcome, error) {
		if t == "bad" {
			return engine.Infeasible, nil
		}
		return engine.Unknown, nil
	}
	base := run(t, service(&fakeModel{next: next}, &fakeEngine{check: check}, nil), request(variant(t, "base", nil)))
	if !contains(hunks(base.Candidates), "bad;\n") {
		t.Fatalf("base sampling should produce the infeasible candidate, got %q", hunks(base.Candidates))
	}
	e := &fakeEngine{check: check}
	pruned := run(t, service(&fakeModel{next: next}, e, nil), request(variant(t, "prune", nil)))
	if got := hunks(pruned.Candidates); !reflect.DeepEqual(got, []string{"good;\n"}) {
		t.Fatalf("prune: got %q, want only good;", got)
	}
	if pruned.Stats.Pruned == 0 {
		t.Fatal("Stats.Pruned = 0")
	}
	if e.opened != 1 || e.closed != 1 {
		t.Fatalf("engine sessions opened %d closed %d, want 1 and 1", e.opened, e.closed)
	}
	if base.Stats.EngineCalls != 0 {
		t.Fatalf("base variant asked the engine %d times", base.Stats.EngineCalls)
	}
}

func TestEndCheckPrunesTheEndToken(t *testing.T) {
	// The model likes ending after "x" (no ";" yet); the engine says that
	// file cannot parse, so the end token is pruned and the sample goes on.
	next := table(map[string][]tok{
		"":   {{"x", 1, false}},
		"x":  {{"", 0.8, true}, {";", 0.2, false}},
		"x;": {{"", 1, true}},
	})
	end := func(g string) (engine.Outcome, error) {
		if g == "x" {
			return engine.Infeasible, nil
		}
		return engine.Unknown, nil
	}
	base := run(t, service(&fakeModel{next: next}, &fakeEngine{end: end}, nil), request(variant(t, "base", nil)))
	if !contains(hunks(base.Candidates), "x\n") {
		t.Fatalf("base sampling should end after x, got %q", hunks(base.Candidates))
	}
	for _, v := range []string{"prune", "prune+memo", "full"} {
		e := &fakeEngine{end: end}
		r := run(t, service(&fakeModel{next: next}, e, nil), request(variant(t, v, nil)))
		if got := hunks(r.Candidates); !reflect.DeepEqual(got, []string{"x;\n"}) {
			t.Fatalf("%s: got %q, want only x;", v, got)
		}
		if r.Stats.Pruned == 0 || e.ends == 0 {
			t.Fatalf("%s: Stats.Pruned = %d, end checks %d", v, r.Stats.Pruned, e.ends)
		}
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func TestDeadPrefixGoesIntoTrie(t *testing.T) {
	// After "x" every token is infeasible, so "x" is a dead prefix. Greedy
	// decoding makes sample 0 walk into it; later samples must avoid "x"
	// from the trie, without asking the engine about it again.
	next := table(map[string][]tok{
		"":   {{"x", 0.9, false}, {"y", 0.1, false}},
		"x":  {{"1", 0.6, false}, {"2", 0.4, false}},
		"y":  {{";", 1, true}},
		"x1": {{";", 1, true}},
	})
	check := func(g, t string) (engine.Outcome, error) {
		if g == "x" {
			return engine.Infeasible, nil
		}
		return engine.Unknown, nil
	}
	for _, memo := range []bool{false, true} {
		e := &fakeEngine{check: check}
		o := variant(t, "prune", func(o *Options) { o.Temperature = 0; o.Samples = 4; o.Memo = memo })
		res := run(t, service(&fakeModel{next: next}, e, nil), request(o))
		if res.Stats.Dead != 1 {
			t.Fatalf("memo=%v: Dead = %d, want 1", memo, res.Stats.Dead)
		}
		if got := hunks(res.Candidates); !reflect.DeepEqual(got, []string{"y;\n"}) {
			t.Fatalf("memo=%v: candidates %q, want [y;]", memo, got)
		}
		if n := e.checks[[2]string{"", "x"}]; n != 1 {
			t.Fatalf("memo=%v: engine asked about x %d times, want 1", memo, n)
		}
		if n := e.checks[[2]string{"x", "1"}] + e.checks[[2]string{"x", "2"}]; n != 2 {
			t.Fatalf("memo=%v: engine asked %d times after x, want 2", memo, n)
		}
		if res.Stats.MemoHits < 3 {
			t.Fatalf("memo=%v: MemoHits = %d, want >= 3 (one trie hit per later sample)", memo, res.Stats.MemoHits)
		}
	}
}

func TestActiveCompletionAppendsCommonPrefix(t *testing.T) {
	next := table(map[string][]tok{
		"":               {{"x.", 1, false}},
		"x.":             {{"len", 1, false}},
		"x.length":       {{"();", 1, true}},
		"x.len":          {{"gth();", 1, true}},
		"x.lengthOfAll":  nil,
		"x.lengthOf":     nil,
		"x.lengthOfIt;":  nil,
		"unused-entries": nil,
	})
	complete := func(g string) (engine.Completions, error) {
		if g == "x.len" {
			return engine.Completions{Known: true, Names: []string{"length", "lengthOf"}}, nil
		}
		if g == "x." {
			return engine.Completions{Known: false}, nil
		}
		return engine.Completions{Known: true, Names: nil}, nil
	}
	o := variant(t, "full", func(o *Options) { o.Samples = 1 })
	res := run(t, service(&fakeModel{next: next}, &fakeEngine{complete: complete}, nil), request(o))
	if got := hunks(res.Candidates); !reflect.DeepEqual(got, []string{"x.length();\n"}) {
		t.Fatalf("candidates %q, want [x.length();]", got)
	}
	if res.Stats.ActiveChars != 3 {
		t.Fatalf("ActiveChars = %d, want 3", res.Stats.ActiveChars)
	}
	if p := res.Candidates[0]; p.Tokens != 3 {
		t.Fatalf("Tokens = %d, want 3 (actively completed text is not a token)", p.Tokens)
	}
	// Without active completion the model's own "gth();" is used.
	o.ActiveComplete = false
	res = run(t, service(&fakeModel{next: next}, &fakeEngine{complete: complete}, nil), request(o))
	if got := hunks(res.Candidates); !reflect.DeepEqual(got, []string{"x.length();\n"}) || res.Stats.ActiveChars != 0 {
		t.Fatalf("without active completion: %q, ActiveChars %d", got, res.Stats.ActiveChars)
	}
}

func TestActiveCompletionIgnoresNamesNotExtendingPartial(t *testing.T) {
	s := &sampler{opts: DefaultOptions(), stats: &Stats{}}
	s.eng = &fakeEngineSession{e: &fakeEngine{complete: func(string) (engine.Completions, error) {
		return engine.Completions{Known: true, Names: []string{"getFoo", "getBar"}}, nil // camelCase matches
	}, checks: map[[2]string]int{}}}
	got, err := s.activelyComplete(context.Background(), "x.gf")
	if err != nil || got != "x.gf" {
		t.Fatalf("got %q, %v; want x.gf unchanged", got, err)
	}
}

// wholeSession is a whole-word model session (lm.WholeWords).
type wholeSession struct{ fakeModelSession }

func (wholeSession) WholeWords() bool { return true }

// A whole-word model's identifier token is checked as a complete name (the
// token plus a space): "x.i" is pruned, although members such as "isEmpty"
// start with "i", because such a model never continues "i". Number literals
// and tokens ending in punctuation are checked as they are; a subword model's
// tokens are checked as prefixes.
func TestWholeWordTokensCheckedAsNames(t *testing.T) {
	m := &fakeModel{next: table(map[string][]tok{"x.": {{"i", 0.6, false}, {"size", 0.3, false}, {"10", 0.1, false}}})}
	for _, whole := range []bool{true, false} {
		e := &fakeEngine{check: func(generated, token string) (engine.Outcome, error) {
			if token == "i " { // "i" is no member; "i" alone may start "isEmpty"
				return engine.Infeasible, nil
			}
			return engine.Feasible, nil
		}, checks: map[[2]string]int{}}
		es, _ := e.Open(context.Background(), engine.Hunk{})
		s := &sampler{opts: Options{TopP: 1, Temperature: 1, Prune: true}, eng: es, stats: &Stats{},
			model: &wholeSession{fakeModelSession{m}}, wholeWords: whole}
		for _, c := range []lm.Candidate{{Text: "i"}, {Text: "size"}, {Text: "10"}, {Text: "("}} {
			ok, err := s.feasible(context.Background(), "x.", c)
			if err != nil {
				t.Fatal(err)
			}
			want := !(whole && c.Text == "i")
			if ok != want {
				t.Errorf("whole=%v: %q feasible %v, want %v", whole, c.Text, ok, want)
			}
		}
		wantKeys := map[bool][]string{true: {"i ", "size ", "10", "("}, false: {"i", "size", "10", "("}}[whole]
		for _, k := range wantKeys {
			if e.checks[[2]string{"x.", k}] != 1 {
				t.Errorf("whole=%v: engine asked about %q %d times, want 1 (calls %v)", whole, k, e.checks[[2]string{"x.", k}], e.checks)
			}
		}
	}
	var _ lm.WholeWords = &wholeSession{}
}

func TestMemoSavesQueriesNotResults(t *testing.T) {
	for _, active := range []bool{false, true} {
		for _, seed := range []int64{1, 2, 3} {
			get := func(memo bool) (*Result, *fakeModel, *fakeEngine) {
				m := &fakeModel{next: hashModel}
				e := &fakeEngine{check: hashEngine, complete: hashComplete}
				o := variant(t, "prune", func(o *Options) {
					o.Seed, o.Memo, o.ActiveComplete, o.Samples = seed, memo, active, 30
				})
				return run(t, service(m, e, nil), request(o)), m, e
			}
			off, moff, eoff := get(false)
			on, mon, eon := get(true)
			if !reflect.DeepEqual(off.Candidates, on.Candidates) {
				t.Fatalf("active=%v seed=%d: memo changed the candidates:\noff %q\non  %q", active, seed, hunks(off.Candidates), hunks(on.Candidates))
			}
			if off.Stats.Pruned != on.Stats.Pruned || off.Stats.Dead != on.Stats.Dead || off.Stats.ActiveChars != on.Stats.ActiveChars {
				t.Fatalf("active=%v seed=%d: decisions differ: off %+v on %+v", active, seed, off.Stats, on.Stats)
			}
			if on.Stats.EngineCalls >= off.Stats.EngineCalls || on.Stats.EngineRequests >= off.Stats.EngineRequests {
				t.Fatalf("active=%v seed=%d: memo saved no engine calls: off %d on %d", active, seed, off.Stats.EngineCalls, on.Stats.EngineCalls)
			}
			if on.Stats.LMRequests >= off.Stats.LMRequests || mon.calls >= moff.calls {
				t.Fatalf("active=%v seed=%d: memo saved no model calls: off %d on %d", active, seed, moff.calls, mon.calls)
			}
			if int64(eon.totalChecks()+eon.completes+eon.ends) != on.Stats.EngineCalls || int64(eoff.totalChecks()+eoff.completes+eoff.ends) != off.Stats.EngineCalls {
				t.Fatalf("EngineCalls does not match the engine's count")
			}
			if on.Stats.MemoHits == 0 {
				t.Fatal("MemoHits = 0 with memo on")
			}
		}
	}
}

func TestCancellationStopsPromptly(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := &fakeModel{next: hashModel, hook: func(call int) {
		if call == 5 {
			cancel()
		}
	}}
	began := time.Now()
	_, err := service(m, &fakeEngine{check: hashEngine}, nil).Repair(ctx, request(variant(t, "full", func(o *Options) { o.Samples = 1000 })), nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if m.calls > 6 {
		t.Fatalf("model called %d times after cancellation at call 5", m.calls)
	}
	if d := time.Since(began); d > 2*time.Second {
		t.Fatalf("took %v", d)
	}
}

func TestModelProposingNothing(t *testing.T) {
	m := &fakeModel{next: func(string) ([]lm.Candidate, error) { return nil, nil }}
	c := &fakeCompiler{}
	res := run(t, service(m, &fakeEngine{}, c), request(variant(t, "full", func(o *Options) { o.Samples = 3 })))
	if len(res.Patches) != 0 || res.Stats.NoProposal != 3 || res.Stats.Samples != 3 {
		t.Fatalf("patches %d, stats %+v", len(res.Patches), res.Stats)
	}
	if c.calls != 0 {
		t.Fatalf("compiled %d times with no candidates", c.calls)
	}
}

func TestModelErrorIsReturned(t *testing.T) {
	boom := errors.New("server down")
	m := &fakeModel{next: func(string) ([]lm.Candidate, error) { return nil, boom }}
	_, err := service(m, &fakeEngine{}, nil).Repair(context.Background(), request(Options{}), nil)
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want %v", err, boom)
	}
}

func TestEngineErrorAbortsRepair(t *testing.T) {
	boom := errors.New("JDT LS died")
	e := &fakeEngine{check: func(g, t string) (engine.Outcome, error) {
		if g != "" {
			return engine.Unknown, boom
		}
		return engine.Unknown, nil
	}}
	_, err := service(&fakeModel{next: hashModel}, e, nil).Repair(context.Background(), request(Options{}), nil)
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "completion engine") {
		t.Fatalf("err = %v, want the engine error", err)
	}
	e = &fakeEngine{complete: func(string) (engine.Completions, error) { return engine.Completions{}, boom }}
	_, err = service(&fakeModel{next: hashModel}, e, nil).Repair(context.Background(), request(Options{}), nil)
	if !errors.Is(err, boom) {
		t.Fatalf("Complete error: err = %v, want %v", err, boom)
	}
}

func TestTruncatedCandidatesAreDiscarded(t *testing.T) {
	m := &fakeModel{next: func(string) ([]lm.Candidate, error) { return []lm.Candidate{{Text: "a", LogProb: 0}}, nil }}
	res := run(t, service(m, &fakeEngine{}, nil), request(variant(t, "full", func(o *Options) { o.Samples = 2; o.MaxTokens = 5 })))
	if len(res.Candidates) != 0 || res.Stats.Truncated != 2 || res.Stats.LMRequests != 5 {
		t.Fatalf("candidates %q stats %+v", hunks(res.Candidates), res.Stats)
	}
}

func TestDedupeAndBuggyFilter(t *testing.T) {
	// Samples give "int x = 2;" in four spellings of one program (other
	// spacing, a comment, an empty statement on a line of its own, the
	// example's patch 3 and 4), and the buggy line itself.
	next := table(map[string][]tok{
		"": {{"    int x = 2;", 0.3, false}, {"    int  x=2 ;", 0.1, false}, {"    int x = 2; // two", 0.1, false},
			{"    int x = 2;\n    ;", 0.1, false}, {"    int x = 1;", 0.4, false}},
		"    int x = 2;":        {{"\n", 1, true}},
		"    int  x=2 ;":        {{"\n", 1, true}},
		"    int x = 2; // two": {{"\n", 1, true}},
		"    int x = 2;\n    ;": {{"\n", 1, true}},
		"    int x = 1;":        {{"\n", 1, true}},
	})
	res := run(t, service(&fakeModel{next: next}, &fakeEngine{}, nil), request(variant(t, "base", func(o *Options) { o.Samples = 40 })))
	if len(res.Candidates) != 1 || res.Stats.Unique != 1 {
		t.Fatalf("candidates %q (Stats.Unique %d), want the one program int x = 2;", hunks(res.Candidates), res.Stats.Unique)
	}
	if res.Stats.SameAsBuggy == 0 {
		t.Fatal("the buggy line was sampled but not counted")
	}
	if p := res.Candidates[0]; MatchKey(p.Hunk) != MatchKey("int x = 2;") || p.Count+res.Stats.SameAsBuggy != 40 {
		t.Fatalf("candidate %q sampled %d times + same-as-buggy %d, want int x = 2; and 40 samples in all", p.Hunk, p.Count, res.Stats.SameAsBuggy)
	}
}

func TestRankingOrder(t *testing.T) {
	// Four candidates: a likely one that does not compile, a compilable one,
	// a compilable and less likely one, and one that also exists in the buggy
	// file's errors (not new, so compilable).
	next := table(map[string][]tok{
		"":    {{"bad", 0.5, false}, {"ok1", 0.25, false}, {"ok2", 0.15, false}, {"old", 0.1, false}},
		"bad": {{";", 1, true}}, "ok1": {{";", 1, true}}, "ok2": {{" ;", 0.5, false}}, "ok2 ;": {{"", 1, true}},
		"old": {{";", 1, true}},
	})
	comp := &fakeCompiler{errs: func(text string) []engine.CompileError {
		errs := []engine.CompileError{{Line: 9, Message: "pre-existing"}}
		if strings.Contains(text, "bad;") {
			errs = append(errs, engine.CompileError{Line: 3, Message: "cannot find symbol bad"})
		}
		return errs
	}}
	res := run(t, service(&fakeModel{next: next}, &fakeEngine{}, comp), request(variant(t, "base", func(o *Options) { o.Samples = 60 })))
	got := hunks(res.Candidates)
	want := []string{"ok1;\n", "old;\n", "ok2 ;\n", "bad;\n"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("order %q, want %q", got, want)
	}
	last := res.Candidates[3]
	if last.Compilable || !reflect.DeepEqual(last.NewErrors, []string{"line 3: cannot find symbol bad"}) {
		t.Fatalf("bad: compilable=%v errors=%q", last.Compilable, last.NewErrors)
	}
	for _, p := range res.Candidates[:3] {
		if !p.Compilable || len(p.NewErrors) != 0 {
			t.Fatalf("%q: compilable=%v errors=%q", p.Hunk, p.Compilable, p.NewErrors)
		}
	}
	// Score is the sum: ok2 ; is log(.15)+log(.5)+log(1) over three tokens.
	if p := res.Candidates[2]; p.Tokens != 3 || !near(p.Score, math.Log(.15)+math.Log(.5)) || p.Score != p.LogProb {
		t.Fatalf("ok2: tokens %d score %v logprob %v", p.Tokens, p.Score, p.LogProb)
	}
	// KeepTop cuts the list, keeping the order.
	o := variant(t, "base", func(o *Options) { o.Samples = 60; o.KeepTop = 2 })
	res = run(t, service(&fakeModel{next: next}, &fakeEngine{}, comp), request(o))
	if got := hunks(res.Patches); !reflect.DeepEqual(got, want[:2]) {
		t.Fatalf("KeepTop 2: %q", got)
	}
}

func logp(p float64) float64 { return math.Log(p) }

func negInf() float64 { return math.Inf(-1) }

func near(a, b float64) bool { d := a - b; return d < 1e-9 && d > -1e-9 }

func TestFIMAndEngineHunk(t *testing.T) {
	m := &fakeModel{next: table(map[string][]tok{"": {{"    y();\n", 1, true}}})}
	e := &fakeEngine{}
	run(t, service(m, e, nil), request(Options{}))
	want := lm.FIM{Prefix: "class A {\n  void f() {\n", Suffix: "    return;\n  }\n}\n", Indent: "    ", Buggy: "    int x = 1;\n"}
	// The model is told the hunk's token budget (a bounded context keeps
	// room for it: lm/openai's fit).
	want.MaxTokens = Options{}.TokenBudget(want.Buggy)
	if len(m.fims) != 1 || m.fims[0] != want {
		t.Fatalf("FIM %+v, want %+v", m.fims, want)
	}
	if len(e.hunks) != 1 || e.hunks[0].URI != "file:///proj/src/A.java" || e.hunks[0].Prefix != want.Prefix || e.hunks[0].Suffix != want.Suffix || e.hunks[0].Buggy != want.Buggy {
		t.Fatalf("engine hunk %+v", e.hunks)
	} // An insertion (end = start-1) says so.
	ins := request(Options{})
	ins.EndLine = ins.StartLine - 1
	run(t, service(m, e, nil), ins)
	if len(m.fims) != 2 || !m.fims[1].Insert || m.fims[1].Buggy != "" || m.fims[0].Insert {
		t.Fatalf("FIMs %+v: want the second an insertion", m.fims)
	}
}

func TestInsertionAndDeletionHunks(t *testing.T) {
	// Insertion before line 4 ("return;"): end = start-1.
	m := &fakeModel{next: table(map[string][]tok{"": {{"    x++;", 1, false}}, "    x++;": {{"", 1, true}}})}
	r := request(variant(t, "full", func(o *Options) { o.Samples = 2 }))
	r.StartLine, r.EndLine = 4, 3
	res := run(t, service(m, &fakeEngine{}, nil), r)
	if len(res.Patches) != 1 || res.Patches[0].Hunk != "    x++;\n" {
		t.Fatalf("insertion patches %q", hunks(res.Patches))
	}
	applyCheck(t, javaFile, res.Patches[0].Diff, "class A {\n  void f() {\n    int x = 1;\n    x++;\n    return;\n  }\n}\n")

	// Deletion of line 3: the model ends at once with an empty middle.
	m = &fakeModel{next: table(map[string][]tok{"": {{"", 1, true}}})}
	r = request(variant(t, "full", func(o *Options) { o.Samples = 2 }))
	res = run(t, service(m, &fakeEngine{}, nil), r)
	if len(res.Patches) != 1 || res.Patches[0].Hunk != "" {
		t.Fatalf("deletion patches %q", hunks(res.Patches))
	}
	applyCheck(t, javaFile, res.Patches[0].Diff, "class A {\n  void f() {\n    return;\n  }\n}\n")

	// An empty insertion is identical to the (empty) buggy hunk: no patch.
	r.StartLine, r.EndLine = 4, 3
	res = run(t, service(m, &fakeEngine{}, nil), r)
	if len(res.Patches) != 0 || res.Stats.SameAsBuggy != 2 {
		t.Fatalf("empty insertion: patches %q stats %+v", hunks(res.Patches), res.Stats)
	}
}

func TestRequestErrors(t *testing.T) {
	s := service(&fakeModel{next: hashModel}, &fakeEngine{}, nil)
	for _, tc := range []struct {
		name  string
		mod   func(*Request)
		wants string
	}{
		{"outside", func(r *Request) { r.File = "/elsewhere/A.java" }, "not inside the project"},
		{"relative", func(r *Request) { r.Root = "proj" }, "absolute"},
		{"end past file", func(r *Request) { r.EndLine = 7 }, "out of range"},
		{"start zero", func(r *Request) { r.StartLine = 0 }, "out of range"},
		{"reversed", func(r *Request) { r.StartLine, r.EndLine = 4, 2 }, "before start"},
	} {
		r := request(Options{})
		tc.mod(&r)
		if _, err := s.Repair(context.Background(), r, nil); err == nil || !strings.Contains(err.Error(), tc.wants) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.wants)
		}
	}
}

func TestProgressReported(t *testing.T) {
	var msgs []string
	last := -1
	_, err := service(&fakeModel{next: hashModel}, &fakeEngine{check: hashEngine}, nil).Repair(context.Background(),
		request(variant(t, "full", func(o *Options) { o.Samples = 3 })), func(m string, pct int) {
			if pct < last || pct > 100 {
				t.Errorf("percent went from %d to %d", last, pct)
			}
			last = pct
			msgs = append(msgs, m)
		})
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(msgs, "|")
	for _, w := range []string{"sampling 1/3", "sampling 3/3", "validating candidate 1", "done"} {
		if !strings.Contains(joined, w) {
			t.Errorf("progress %q lacks %q", joined, w)
		}
	}
}

func TestNucleus(t *testing.T) {
	d := []lm.Candidate{{Text: "a", LogProb: logp(0.1)}, {Text: "b", LogProb: logp(0.6)}, {Text: "c", LogProb: logp(0.3)}, {Text: "z", LogProb: negInf()}}
	idx, w := weigh(d, 1)
	if !reflect.DeepEqual(idx, []int{1, 2, 0}) || !near(w[0]/w[1], 2) {
		t.Fatalf("weigh: idx %v w %v (sorted, the -Inf token gone)", idx, w)
	}
	if n := nucleusEnd(w, 0.85); n != 2 {
		t.Fatalf("top-p 0.85 nucleus holds %d tokens, want 2 (b, c)", n)
	}
	if n := nucleusEnd(w, 1); n != 3 {
		t.Fatalf("top-p 1 nucleus holds %d tokens, want 3", n)
	}
	// Pruning b gives its mass back: c alone is 0.75 of what is left, so the
	// 0.85 nucleus now reaches a.
	w[0] = 0
	if n := nucleusEnd(w, 0.85); n != 3 {
		t.Fatalf("after pruning b, top-p 0.85 nucleus ends at %d, want 3", n)
	}
	w[1], w[2] = 0, 0
	if n := nucleusEnd(w, 0.85); n != 0 {
		t.Fatalf("all pruned: nucleus ends at %d", n)
	}
	// Temperature 2 flattens: weight ratio b/c = sqrt(2).
	_, w = weigh(d, 2)
	if !near(w[0]/w[1], 1.4142135623730951) {
		t.Fatalf("temperature 2: %v", w)
	}
	if idx, _ := weigh(nil, 1); len(idx) != 0 {
		t.Fatal("empty distribution")
	}
}

// TestGuidedPruneReopensNucleus: a feasible token outside the first nucleus
// is drawn once the likelier tokens are pruned.
func TestGuidedPruneReopensNucleus(t *testing.T) {
	d := []lm.Candidate{{Text: "bad1", LogProb: logp(0.6)}, {Text: "bad2", LogProb: logp(0.35)}, {Text: "fix", LogProb: logp(0.05)}}
	eng := &fakeEngine{check: func(_, tok string) (engine.Outcome, error) {
		if tok == "fix" {
			return engine.Feasible, nil
		}
		return engine.Infeasible, nil
	}}
	sess, _ := eng.Open(context.Background(), engine.Hunk{})
	s := &sampler{opts: Options{TopP: 0.9, Temperature: 1, Prune: true}, eng: sess, stats: &Stats{}}
	for seed := int64(0); seed < 20; seed++ {
		idx, w := weigh(d, 1)
		k, err := s.guidedPrune(context.Background(), sampleStream(seed, 0), "", d, idx, w)
		if err != nil {
			t.Fatal(err)
		}
		if k != 2 {
			t.Fatalf("seed %d: chose %d, want the feasible fix (2)", seed, k)
		}
	}
}

func TestTrie(t *testing.T) {
	var tr Trie
	if tr.Covers("") || tr.Covers("abc") {
		t.Fatal("empty trie covers")
	}
	tr.Add("ab")
	for s, want := range map[string]bool{"ab": true, "abc": true, "a": false, "b": false, "": false, "ac": false} {
		if tr.Covers(s) != want {
			t.Errorf("Covers(%q) = %v", s, !want)
		}
	}
	tr.Add("abcd") // covered already
	tr.Add("x")
	if tr.Len() != 2 {
		t.Fatalf("Len = %d", tr.Len())
	}
	tr.Add("")
	if !tr.Covers("anything") {
		t.Fatal("the empty prefix covers everything")
	}
}

func TestMemoBounded(t *testing.T) {
	m := NewMemo(2)
	m.Record("h", "p1", "t", true)
	m.Record("h", "p2", "t", false)
	m.Record("h", "p3", "t", true)
	if m.Verdict("h", "p1", "t") != unseen {
		t.Fatal("oldest prefix not evicted")
	}
	if m.Verdict("h", "p2", "t") != rejected || m.Verdict("h", "p3", "t") != accepted || m.Verdict("h2", "p3", "t") != unseen {
		t.Fatal("verdicts lost or shared across hunks")
	}
}

func TestLongestCommonPrefixAndIdent(t *testing.T) {
	if got := longestCommonPrefix([]string{"length", "lengthOf", "len"}); got != "len" {
		t.Fatal(got)
	}
	if got := longestCommonPrefix([]string{"é1", "é2"}); got != "é" {
		t.Fatal(got)
	}
	if got := longestCommonPrefix([]string{"\u00e9", "\u00e8"}); got != "" { // share a first byte only
		t.Fatalf("%q", got)
	}
	for s, want := range map[string]string{"x.len": "len", "a + b_1$": "b_1$", "f(": "", "": "", "café": "café"} {
		if got := trailingIdent(s); got != want {
			t.Errorf("trailingIdent(%q) = %q, want %q", s, got, want)
		}
	}
}

func TestOptionsDefaultsAndVariants(t *testing.T) {
	if got := (Options{}).withDefaults(); got != DefaultOptions() {
		t.Fatalf("zero options: %+v", got)
	}
	o := Options{Samples: 3}.withDefaults()
	if o.Samples != 3 || o.TopK != DefaultTopK || o.Prune {
		t.Fatalf("partial options: %+v", o)
	}
	for _, v := range Variants {
		o, err := DefaultOptions().WithVariant(v)
		if err != nil || o.Variant() != v {
			t.Fatalf("%s: %v %s", v, err, o.Variant())
		}
	}
	if _, err := DefaultOptions().WithVariant("turbo"); err == nil {
		t.Fatal("unknown variant accepted")
	}
}

func TestHunkBounds(t *testing.T) {
	o := DefaultOptions()
	if o.MaxHunkBytes != DefaultMaxHunkBytes || o.MaxHunkLines != DefaultMaxHunkLines {
		t.Fatalf("defaults %d bytes %d lines", o.MaxHunkBytes, o.MaxHunkLines)
	}
	if o.overHunkBounds(strings.Repeat("x\n", 200)) || !o.overHunkBounds(strings.Repeat("x\n", 201)) {
		t.Error("the line bound is not 200 newlines")
	}
	if o.overHunkBounds(strings.Repeat("x", 16<<10)) || !o.overHunkBounds(strings.Repeat("x", 16<<10+1)) {
		t.Error("the byte bound is not 16 KiB")
	}
	t.Setenv(EnvMaxHunkLines, "3")
	if o := (Options{Samples: 2}).withDefaults(); o.MaxHunkLines != 3 || !o.overHunkBounds("a\nb\nc\nd\n") {
		t.Errorf("$%s=3: MaxHunkLines %d", EnvMaxHunkLines, o.MaxHunkLines)
	}
}
