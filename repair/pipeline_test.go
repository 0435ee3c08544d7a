package repair

// pipeline_test.go checks that overlapping sampling with validation, and
// samples with each other (Options.Concurrency), changes when results come,
// not what they are.

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/engine"
	"github.com/repilot-lsp/repilot-lsp/lm"
)

// spacedModel is hashModel with a second spelling of some tokens: "a" also
// comes as "a " and " a", so samples often differ only in whitespace, and
// deduplication replaces a text already validated by a better-scored one.
func spacedModel(generated string) ([]lm.Candidate, error) {
	d, _ := hashModel(generated)
	var out []lm.Candidate
	for _, c := range d {
		out = append(out, c)
		if c.Text == "a" {
			out = append(out, lm.Candidate{Text: "a ", LogProb: c.LogProb - 0.3}, lm.Candidate{Text: " a", LogProb: c.LogProb - 0.7})
		}
	}
	return out, nil
}

// deadlyEngine prunes much more than hashEngine: every token after a
// generated text whose hash is 0 mod 5 (so prefixes die, and the trie of
// rejected prefixes steers later samples), plus hashEngine's rules.
func deadlyEngine(generated, token string) (engine.Outcome, error) {
	if deadText(generated) {
		return engine.Infeasible, nil
	}
	return hashEngine(generated, token)
}

// deadText reports the texts after which deadlyEngine prunes every token.
func deadText(generated string) bool {
	h := fnv.New32a()
	h.Write([]byte(generated))
	return generated != "" && h.Sum32()%5 == 0
}

// deadlyModel is spacedModel without its end token after the texts where
// deadlyEngine prunes everything: a pruned end there would make the sample
// redraw its line (loop.go, redrawLine) instead of dying, and the prefix
// would never reach the trie of rejected prefixes.
func deadlyModel(generated string) ([]lm.Candidate, error) {
	d, err := spacedModel(generated)
	if err != nil || !deadText(generated) {
		return d, err
	}
	return slices.DeleteFunc(d, func(c lm.Candidate) bool { return c.End }), nil
}

// testProject writes javaFile under a temporary root; the request points at it.
func testProject(t *testing.T, r Request) Request {
	t.Helper()
	root := t.TempDir()
	file := filepath.Join(root, "src", "A.java")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(javaFile), 0o644); err != nil {
		t.Fatal(err)
	}
	r.Root, r.File = root, file
	return r
}

// someErrors fails candidates by a hash of their text (compile errors).
func someErrors(text string) []engine.CompileError {
	h := fnv.New32a()
	h.Write([]byte(text))
	if h.Sum32()%3 == 0 {
		return []engine.CompileError{{Line: 3, Message: "hash says no"}}
	}
	return nil
}

// TestPipelinedSameAsValidateAfter: validating between samples gives the
// candidates, verdicts and order of validating after the last sample, for
// many seeds, with tests and with whitespace duplicates that replace a
// validated text.
func TestPipelinedSameAsValidateAfter(t *testing.T) {
	// Two spellings of each line, the wider one likelier: when the
	// narrower comes first, the wider replaces it.
	spellings := table(map[string][]tok{
		"":                {{"    int x = 5;", 0.25, false}, {"    int x =  5;", 0.35, false}, {"    int x = 6;", 0.2, false}, {"   int x = 6;", 0.2, false}},
		"    int x = 5;":  {{"\n", 1, true}},
		"    int x =  5;": {{"\n", 1, true}},
		"    int x = 6;":  {{"\n", 1, true}},
		"   int x = 6;":   {{"\n", 1, true}},
	})
	revalidated := 0
	for seed := int64(0); seed < 16; seed++ {
		next, name := spacedModel, "full"
		if seed%2 == 1 {
			next, name = spellings, "base"
		}
		r := testProject(t, request(variant(t, name, func(o *Options) { o.Samples = 12; o.Seed = seed })))
		// The test passes when the hunk has no "b" and no "=  "
		// (whitespace counts: a duplicate spelled otherwise must be
		// tested again).
		r.TestCmd = []string{"sh", "-c", `! sed -n 3p src/A.java | grep -q 'b\|a  \|=  '`}
		var streamed []Patch
		var mu sync.Mutex
		r.OnPatch = func(p Patch) { mu.Lock(); streamed = append(streamed, p); mu.Unlock() }
		newService := func() *Service {
			return service(&fakeModel{next: next}, &fakeEngine{check: hashEngine, complete: hashComplete},
				&fakeCompiler{errs: someErrors})
		}
		piped := run(t, newService(), r)
		ref := newService()
		ref.validateAfter = true
		r.OnPatch = nil
		after := run(t, ref, r)
		if !reflect.DeepEqual(piped.Candidates, after.Candidates) {
			t.Fatalf("seed %d: pipelined candidates\n%+v\nvalidated after sampling\n%+v", seed, piped.Candidates, after.Candidates)
		}
		if !reflect.DeepEqual(piped.Patches, after.Patches) || piped.Stats.Unique != after.Stats.Unique ||
			piped.Stats.SameAsBuggy != after.Stats.SameAsBuggy || piped.Stats.Tested < after.Stats.Tested {
			t.Fatalf("seed %d: stats %+v against %+v", seed, piped.Stats, after.Stats)
		}
		if piped.Stats.CompileChecks > 1+int64(piped.Stats.Unique) {
			revalidated++
		}
		// Every final verdict was streamed (the last one for its text).
		for _, p := range piped.Candidates {
			i := len(streamed) - 1
			for ; i >= 0 && streamed[i].Hunk != p.Hunk; i-- {
			}
			if i < 0 || streamed[i].Compilable != p.Compilable || streamed[i].Plausible != p.Plausible {
				t.Fatalf("seed %d: candidate %q (compilable %v, plausible %v) not streamed with its verdict", seed, p.Hunk, p.Compilable, p.Plausible)
			}
		}
	}
	if revalidated == 0 {
		t.Fatal("no seed replaced a validated text with a better-scored spelling: the test does not cover it")
	}
}

// TestPipelinedFirstPatchBeforeSamplingEnds: the first validated patch is
// streamed while samples are still being drawn.
func TestPipelinedFirstPatchBeforeSamplingEnds(t *testing.T) {
	m := &fakeModel{next: hashModel}
	var callsAtFirst int
	r := request(variant(t, "full", func(o *Options) { o.Samples = 10 }))
	r.OnPatch = func(Patch) {
		if callsAtFirst == 0 {
			m.mu.Lock()
			callsAtFirst = m.calls
			m.mu.Unlock()
		}
	}
	res := run(t, service(m, &fakeEngine{check: hashEngine, complete: hashComplete}, nil), r)
	if callsAtFirst == 0 || callsAtFirst >= m.calls {
		t.Fatalf("first patch after %d of %d model calls; want it before the last", callsAtFirst, m.calls)
	}
	if res.Stats.FirstCompilable <= 0 || res.Stats.FirstCompilable >= res.Stats.Duration {
		t.Fatalf("FirstCompilable %v of %v", res.Stats.FirstCompilable, res.Stats.Duration)
	}
}

// TestInterruptedMidPipeline: the interruption comes while tests run in the
// background and sampling goes on. Repair returns promptly; the candidates
// whose tests were cut short stay compilable and Unvalidated; none is
// tested.
func TestInterruptedMidPipeline(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	comp := &fakeCompiler{}
	comp.errs = func(string) []engine.CompileError {
		if comp.calls == 3 { // three candidates (none has errors: the buggy file is not compiled)
			cancel()
		}
		return nil
	}
	r := testProject(t, request(variant(t, "base", func(o *Options) { o.Samples = 40 })))
	r.Options.KeepTop = 100
	r.TestCmd = []string{"sleep", "30"}
	m := &fakeModel{next: hashModel}
	began := time.Now()
	res, err := service(m, &fakeEngine{}, comp).Repair(ctx, r, nil)
	if d := time.Since(began); d > 20*time.Second {
		t.Fatalf("Repair took %v after the interruption; tests not stopped", d)
	}
	checkPartial(t, res, err, 100)
	if res.Stats.Samples >= 40 || res.Stats.Tested != 0 || res.Stats.Unique != 3 {
		t.Fatalf("stats %+v; want sampling stopped at the third candidate, nothing tested", res.Stats)
	}
	for _, p := range res.Candidates {
		if !p.Compilable || !p.Unvalidated || p.Tested {
			t.Errorf("candidate %+v; want compilable, untested, unvalidated", p)
		}
	}
}

// TestPipelinedCompileErrorFailsRepair: a compiler failure other than an
// unparsable text or a timeout ends the repair with an error wrapping it and
// stops the tests already running; the candidate compile-checked before it
// comes back in a partial Result, compilable and Unvalidated (its tests were
// stopped).
func TestPipelinedCompileErrorFailsRepair(t *testing.T) {
	comp := &fakeCompiler{fail: func(text string) error {
		if strings.Contains(text, "int x = 3;") {
			return errors.New("JDT LS died")
		}
		return nil
	}}
	r := testProject(t, request(variant(t, "base", func(o *Options) { o.Samples = 30 })))
	r.TestCmd = []string{"sleep", "30"}
	began := time.Now()
	res, err := service(oneTokenModel(), &fakeEngine{}, comp).Repair(context.Background(), r, nil)
	if err == nil || !strings.Contains(err.Error(), "JDT LS died") || res == nil || !res.Interrupted {
		t.Fatalf("res %v, err %v; want the compiler's error and a partial result", res, err)
	}
	if d := time.Since(began); d > 20*time.Second {
		t.Fatalf("Repair took %v; tests not stopped", d)
	}
	if len(res.Candidates) < 2 {
		t.Fatalf("candidates %q; want the ones sampled before the failure", hunks(res.Candidates))
	}
	for _, p := range res.Candidates {
		failed := strings.Contains(p.Hunk, "int x = 3;")
		if p.Compilable == failed || !p.Unvalidated || p.Tested {
			t.Errorf("candidate %+v; want it unvalidated, compilable unless its check failed", p)
		}
	}
}

// jitterModel is a model whose calls take a random few hundred
// microseconds, so concurrent samples interleave differently on every run.
func jitterModel(next func(string) ([]lm.Candidate, error)) *fakeModel {
	var mu sync.Mutex
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	return &fakeModel{next: func(g string) ([]lm.Candidate, error) {
		mu.Lock()
		d := time.Duration(rng.IntN(400)) * time.Microsecond
		mu.Unlock()
		time.Sleep(d)
		return next(g)
	}}
}

// TestConcurrencySamePatches: Options.Concurrency 2, 4 and 8 give the
// candidates (and stats of outcomes) of concurrency 1 for the same seed, with
// an engine that kills many prefixes, so that samples that ran beside an
// earlier one that died must be run again (Stats.Resampled).
func TestConcurrencySamePatches(t *testing.T) {
	resampled, dead := 0, 0
	for _, variantName := range []string{"prune", "full"} {
		for seed := int64(0); seed < 6; seed++ {
			repair := func(n int) *Result {
				o := variant(t, variantName, func(o *Options) { o.Samples = 16; o.Seed = seed; o.Concurrency = n })
				return run(t, service(jitterModel(deadlyModel), &fakeEngine{check: deadlyEngine, complete: hashComplete},
					&fakeCompiler{errs: someErrors}), request(o))
			}
			one := repair(1)
			dead += one.Stats.Dead
			for _, n := range []int{2, 4, 8} {
				got := repair(n)
				resampled += got.Stats.Resampled
				if !reflect.DeepEqual(got.Candidates, one.Candidates) {
					t.Fatalf("%s seed %d concurrency %d: candidates\n%q\nwant (concurrency 1)\n%q", variantName, seed, n,
						hunks(got.Candidates), hunks(one.Candidates))
				}
				a, b := got.Stats, one.Stats
				if fmt.Sprint(a.Samples, a.Completed, a.Dead, a.Truncated, a.NoProposal, a.Unique, a.SameAsBuggy, a.TruncEndPruned, a.TruncEndNotDrawn, a.TruncNoEnd) !=
					fmt.Sprint(b.Samples, b.Completed, b.Dead, b.Truncated, b.NoProposal, b.Unique, b.SameAsBuggy, b.TruncEndPruned, b.TruncEndNotDrawn, b.TruncNoEnd) {
					t.Fatalf("%s seed %d concurrency %d: stats %+v, want outcomes as %+v", variantName, seed, n, a, b)
				}
			}
		}
	}
	if dead == 0 || resampled == 0 {
		t.Fatalf("%d dead samples, %d resampled: the test does not exercise the trie across samples", dead, resampled)
	}
}

// TestConcurrencyOpensSessions: concurrency n opens n model sessions (one
// more when a sample is run again) and one engine session, closed at the end.
func TestConcurrencyOpensSessions(t *testing.T) {
	m := jitterModel(hashModel)
	e := &fakeEngine{check: hashEngine}
	run(t, service(m, e, nil), request(variant(t, "prune", func(o *Options) { o.Samples = 8; o.Concurrency = 3 })))
	if len(m.fims) < 3 || len(m.fims) > 4 || e.opened != 1 || e.closed != 1 {
		t.Fatalf("%d model sessions, %d engine sessions opened, %d closed; want 3 (or 4), 1, 1", len(m.fims), e.opened, e.closed)
	}
}

// TestConcurrencyInterrupted: an interruption during concurrent sampling
// returns the samples committed before it, in order, as a partial result.
func TestConcurrencyInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := jitterModel(hashModel)
	m.hook = func(call int) {
		if call == 30 {
			cancel()
		}
	}
	o := variant(t, "prune", func(o *Options) { o.Samples = 40; o.Concurrency = 4 })
	res, err := service(m, &fakeEngine{check: hashEngine}, nil).Repair(ctx, request(o), nil)
	checkPartial(t, res, err, o.KeepTop)
	if res.Stats.Samples >= 40 {
		t.Fatalf("stats %+v; want sampling stopped", res.Stats)
	}
	full := run(t, service(&fakeModel{next: hashModel}, &fakeEngine{check: hashEngine}, nil), request(o))
	// The committed samples are a prefix of the uninterrupted repair's:
	// every candidate found is one it found too.
	all := map[string]bool{}
	for _, p := range full.Candidates {
		all[p.Hunk] = true
	}
	for _, p := range res.Candidates {
		if !all[p.Hunk] {
			t.Errorf("interrupted repair found %q, which the whole repair did not", p.Hunk)
		}
	}
}

// specModel opens specServer sessions (speculative_test.go): lm.Speculator.
type specModel struct{ mode string }

func (m specModel) Name() string { return "spec-" + m.mode }

func (m specModel) Start(context.Context, lm.FIM) (lm.Session, error) {
	return &specServer{mode: m.mode}, nil
}

// TestConcurrencySamePatchesSpeculative: with speculative decoding, whether
// a sample finds a prefix's distribution in the memo decides whether it
// draws locally or asks the server (another random stream), so a sample
// must see only the distributions the samples before it recorded, as when
// they run one after another.
func TestConcurrencySamePatchesSpeculative(t *testing.T) {
	e := func() *fakeEngine {
		return &fakeEngine{
			check: func(g, tok string) (engine.Outcome, error) {
				if specFeasible(g, tok) {
					return engine.Unknown, nil
				}
				return engine.Infeasible, nil
			},
			end: func(g string) (engine.Outcome, error) {
				if specEndFeasible(g) {
					return engine.Unknown, nil
				}
				return engine.Infeasible, nil
			},
			complete: func(g string) (engine.Completions, error) { return specComplete(g), nil },
		}
	}
	resampled := 0
	for seed := int64(0); seed < 8; seed++ {
		repair := func(n int) *Result {
			o := variant(t, "full", func(o *Options) { o.Samples = 16; o.Seed = seed; o.Concurrency = n; o.MaxTokens = 12 })
			return run(t, NewService(Backends{Model: specModel{"topk"}, Engine: e(), Compiler: &fakeCompiler{}}), request(o))
		}
		one := repair(1)
		for _, n := range []int{2, 4} {
			got := repair(n)
			resampled += got.Stats.Resampled
			if !reflect.DeepEqual(got.Candidates, one.Candidates) || got.Stats.Tokens-one.Stats.Tokens != 0 && got.Stats.Resampled == 0 ||
				got.Stats.Truncated != got.Stats.TruncEndPruned+got.Stats.TruncEndNotDrawn+got.Stats.TruncNoEnd {
				t.Fatalf("seed %d concurrency %d: candidates %q (%d tokens), want %q (%d tokens)", seed, n,
					hunks(got.Candidates), got.Stats.Tokens, hunks(one.Candidates), one.Stats.Tokens)
			}
		}
	}
	t.Logf("%d samples run again", resampled)
}

// TestOneTestFewerWhileSampling: while sampling goes on (before finish) at
// most testsWhileSampling(TestParallelism()) candidates' tests run at once,
// one fewer than the cores, since sampling keeps one busy; after it all may.
// Each test run logs how many runs had started and not ended when it began.
func TestOneTestFewerWhileSampling(t *testing.T) {
	n := TestParallelism()
	if n < 2 {
		t.Skip("one CPU: the bound while sampling is the bound after it")
	}
	dir := t.TempDir()
	r := testProject(t, request(variant(t, "base", nil)))
	r.TestCmd = []string{"sh", "-c", `d="$1"; mkdir "$d/run.$$"; ls -d "$d"/run.* | wc -l >> "$d/log"; sleep 0.4; rmdir "$d/run.$$"`, "sh", dir}
	site, err := splitHunk(r.Text, r.StartLine, r.EndLine)
	if err != nil {
		t.Fatal(err)
	}
	st := &Stats{}
	v := newValidator(context.Background(), &fakeCompiler{}, r, "src/A.java", "file:///proj/src/A.java", site, st,
		func(string) {}, time.Now(), 10)
	for i := range n + 1 {
		if err := v.add(candidate{text: fmt.Sprintf("    int x = %d;\n", 10+i), count: 1, sample: i}); err != nil {
			t.Fatal(err)
		}
	}
	readLog := func() []string {
		b, _ := os.ReadFile(filepath.Join(dir, "log"))
		return strings.Fields(string(b))
	}
	deadline := time.Now().Add(20 * time.Second)
	for len(readLog()) < 2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	during := readLog()
	if _, err := v.finish(); err != nil {
		t.Fatal(err)
	}
	if len(during) < 2 {
		t.Fatalf("%d test runs began in 20 s while sampling; want 2", len(during))
	}
	for _, c := range during {
		if k, _ := strconv.Atoi(c); k > testsWhileSampling(n) {
			t.Fatalf("while sampling, test runs at once: %q; want at most %d of %d", during, testsWhileSampling(n), n)
		}
	}
	if st.Tested != n+1 {
		t.Fatalf("%d candidates tested, want %d", st.Tested, n+1)
	}
}
