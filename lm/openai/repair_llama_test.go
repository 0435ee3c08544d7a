package openai

// repair_llama_test.go runs whole repairs through a real llama-server and a
// real JDT LS completion engine (one of each per test binary): the
// token-by-token baseline and speculative guided decoding on the same bug,
// and a benchmark comparing their time and model requests per sample.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/corpus"
	"github.com/repilot-lsp/repilot-lsp/engine"
	"github.com/repilot-lsp/repilot-lsp/internal/realpart"
	"github.com/repilot-lsp/repilot-lsp/jdtls"
	"github.com/repilot-lsp/repilot-lsp/lm"
	"github.com/repilot-lsp/repilot-lsp/lm/openai/llamatest"
	"github.com/repilot-lsp/repilot-lsp/repair"
)

// benchBug is the fixture repaired here (a plain, build-file-less project).
const benchBug = "binary-search-off-by-one"

var jdt struct {
	once sync.Once
	eng  *engine.JDT
	bug  corpus.Bug
	root string
	dir  string
	err  error
	took time.Duration
}

// sharedJDT starts one JDT LS engine on a copy of benchBug's project. Team
// rule: no JDT LS fails the test with how to install it, unless
// REPILOT_SKIP_JDTLS=1.
func sharedJDT(t testing.TB) (*engine.JDT, corpus.Bug, string) {
	t.Helper()
	home, err := jdtls.ResolveHome("")
	realpart.JDTLS.Require(t, err)
	jdt.once.Do(func() {
		began := time.Now()
		jdt.bug, jdt.err = corpus.LoadBug(filepath.Join("..", "..", "testdata", "bugs", benchBug))
		if jdt.err != nil {
			return
		}
		if jdt.dir, jdt.err = os.MkdirTemp("", "repilot-openai-e2e"); jdt.err != nil {
			return
		}
		jdt.root = filepath.Join(jdt.dir, "project")
		if jdt.err = jdt.bug.CopyProject(jdt.root); jdt.err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		jdt.eng, jdt.err = engine.StartJDT(ctx, jdtls.Options{Home: home, Root: jdt.root, StateDir: filepath.Join(jdt.dir, "state")})
		jdt.took = time.Since(began)
	})
	if jdt.err != nil {
		t.Fatalf("starting JDT LS on %s: %v", benchBug, jdt.err)
	}
	return jdt.eng, jdt.bug, jdt.root
}

func closeJDT() {
	if jdt.eng != nil {
		jdt.eng.Close()
	}
	if jdt.dir != "" {
		os.RemoveAll(jdt.dir)
	}
}

func repairRequest(t testing.TB, bug corpus.Bug, root string, opts repair.Options) repair.Request {
	t.Helper()
	file := filepath.Join(root, filepath.FromSlash(bug.File))
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return repair.Request{Root: root, File: file, Text: string(text), StartLine: bug.StartLine, EndLine: bug.EndLine, Options: opts}
}

// e2eOptions: Repilot's full variant, a short hunk budget (the random model
// rarely chooses its end token, so samples run to MaxTokens).
func e2eOptions(seed int64, samples int) repair.Options {
	o := repair.DefaultOptions()
	o.Samples, o.MaxTokens, o.Seed, o.KeepTop = samples, 16, seed, 5
	return o
}

func TestLlamaRepairEndToEnd(t *testing.T) {
	srv := llamatest.Shared(t)
	eng, bug, root := sharedJDT(t)
	req := repairRequest(t, bug, root, e2eOptions(1, 4))
	results := map[bool]*repair.Result{}
	for _, speculate := range []bool{false, true} {
		m, err := New(Config{BaseURL: srv.URL, NoSpeculate: !speculate})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		res, err := repair.NewService(repair.Backends{Model: m, Engine: eng, Compiler: eng}).Repair(ctx, req, nil)
		cancel()
		if err != nil {
			t.Fatalf("speculate=%v: %v", speculate, err)
		}
		st := res.Stats
		t.Logf("speculate=%v: %d samples (%d completed, %d truncated, %d dead) in %s; LM requests %d (proposals %d, accepted %d, rejected %d, cuts %d); pruned %d; engine calls %d; %d candidates",
			speculate, st.Samples, st.Completed, st.Truncated, st.Dead, st.SampleTime.Round(time.Millisecond),
			st.LMRequests, st.Proposals, st.SpecAccepted, st.SpecRejected, st.SpecCuts, st.Pruned, st.EngineCalls, len(res.Candidates))
		if st.Samples != 4 || st.LMRequests == 0 {
			t.Errorf("speculate=%v: stats %+v", speculate, st)
		}
		if m.Client().Requests() != st.LMRequests+2 { // +2: GET /v1/models, GET /props (the context; the file fits it whole)
			t.Errorf("speculate=%v: server saw %d requests, loop counted %d (+2 detection)", speculate, m.Client().Requests(), st.LMRequests)
		}
		results[speculate] = res
	}
	plain, spec := results[false].Stats, results[true].Stats
	if plain.Proposals != 0 || spec.Proposals != spec.LMRequests {
		t.Errorf("proposals: plain %d, speculative %d of %d requests", plain.Proposals, spec.Proposals, spec.LMRequests)
	}
	if spec.LMRequests > int64(spec.Samples)+spec.SpecRejected+spec.SpecCuts {
		t.Errorf("speculative requests %d > samples %d + rejections %d + cuts %d", spec.LMRequests, spec.Samples, spec.SpecRejected, spec.SpecCuts)
	}
	if spec.LMRequests >= plain.LMRequests {
		t.Errorf("speculative made %d requests, token-by-token %d", spec.LMRequests, plain.LMRequests)
	}
}

// timedModel wraps a Model to add up the wall time spent in model calls
// (Next and Propose), keeping whether sessions implement lm.Speculator.
type timedModel struct {
	*Model
	spent *time.Duration
}

func (m timedModel) Start(ctx context.Context, f lm.FIM) (lm.Session, error) {
	s, err := m.Model.Start(ctx, f)
	if err != nil {
		return nil, err
	}
	ts := timedSession{s: s, spent: m.spent}
	if sp, ok := s.(lm.Speculator); ok {
		return timedSpeculator{ts, sp}, nil
	}
	return ts, nil
}

type timedSession struct {
	s     lm.Session
	spent *time.Duration
}

func (t timedSession) Next(ctx context.Context, g string, k int) ([]lm.Candidate, error) {
	defer func(began time.Time) { *t.spent += time.Since(began) }(time.Now())
	return t.s.Next(ctx, g, k)
}

type timedSpeculator struct {
	timedSession
	sp lm.Speculator
}

func (t timedSpeculator) Propose(ctx context.Context, g string, o lm.ProposeOptions) ([]lm.Step, error) {
	defer func(began time.Time) { *t.spent += time.Since(began) }(time.Now())
	return t.sp.Propose(ctx, g, o)
}

// BenchmarkLlamaRepair compares token-by-token and speculative decoding on
// one bug through llama-server and JDT LS. Each iteration is one repair of
// 10 samples with a new seed; reported per sample: sampling wall time, time
// in model calls, model requests, rejections, sampled tokens.
//
//	REPILOT_LLAMA_SHAPE=small go test ./lm/openai -run '^$' -bench LlamaRepair -benchtime 3x
func BenchmarkLlamaRepair(b *testing.B) {
	srv := llamatest.Shared(b)
	eng, bug, root := sharedJDT(b)
	for _, mode := range []struct {
		name      string
		speculate bool
	}{{"token-by-token", false}, {"speculative", true}} {
		b.Run(mode.name, func(b *testing.B) {
			m, err := New(Config{BaseURL: srv.URL, NoSpeculate: !mode.speculate})
			if err != nil {
				b.Fatal(err)
			}
			var lmTime, sampleTime time.Duration
			svc := repair.NewService(repair.Backends{Model: timedModel{m, &lmTime}, Engine: eng, Compiler: eng})
			var samples, requests, rejected, cands int64
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				res, err := svc.Repair(context.Background(), repairRequest(b, bug, root, e2eOptions(int64(100+i), 10)), nil)
				if err != nil {
					b.Fatal(err)
				}
				st := res.Stats
				samples += int64(st.Samples)
				requests += st.LMRequests
				rejected += st.SpecRejected
				sampleTime += st.SampleTime
				cands += int64(len(res.Candidates))
			}
			b.ReportMetric(float64(sampleTime.Milliseconds())/float64(samples), "ms/sample")
			b.ReportMetric(float64(lmTime.Milliseconds())/float64(samples), "lm-ms/sample")
			b.ReportMetric(float64(requests)/float64(samples), "lmreq/sample")
			b.ReportMetric(float64(rejected)/float64(samples), "rejected/sample")
			b.ReportMetric(float64(cands)/float64(b.N), "candidates/repair")
		})
	}
}

// concurrencySlots is the llama-server slots of the concurrency test and
// benchmark: -np 4, one per concurrent sample.
const concurrencySlots = 4

// concurrencyServer starts a llama-server of the test's own with the given
// slots on the shape $REPILOT_LLAMA_SHAPE (default tiny).
func concurrencyServer(t testing.TB, slots int) *llamatest.Server {
	shape := os.Getenv("REPILOT_LLAMA_SHAPE")
	if shape == "" {
		shape = "tiny"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return llamatest.StartRandom(ctx, t, "deepseek-coder", shape, llamatest.Options{Slots: slots,
		LogFile: filepath.Join(os.TempDir(), fmt.Sprintf("repilot-llamatest-np%d-%d.log", slots, os.Getpid()))})
}

// TestLlamaConcurrencySamePatches: a repair drawing 4 samples at once from a
// llama-server gives the candidates, in the same order with the same
// verdicts and scores, and the same sampling paths, as drawing them one
// after another, for the same seed, token by token and with speculative
// decoding. The server has one slot: with several, llama.cpp computes a
// request's logits in batches with the other slots' requests, and they can
// differ in the last bits with the batch (llama.cpp #6950, #7347), which no
// client can undo. When a sample ran again (Stats.Resampled), the tokens of
// its first run are counted too, so the paths are then compared by their
// outcomes only.
func TestLlamaConcurrencySamePatches(t *testing.T) {
	srv := concurrencyServer(t, 1)
	eng, bug, root := sharedJDT(t)
	for _, speculate := range []bool{false, true} {
		m, err := New(Config{BaseURL: srv.URL, NoSpeculate: !speculate, MaxConcurrent: concurrencySlots})
		if err != nil {
			t.Fatal(err)
		}
		svc := repair.NewService(repair.Backends{Model: m, Engine: eng, Compiler: eng})
		var results []*repair.Result
		for _, n := range []int{1, concurrencySlots} {
			o := e2eOptions(7, 8)
			o.Concurrency = n
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			res, err := svc.Repair(ctx, repairRequest(t, bug, root, o), nil)
			cancel()
			if err != nil {
				t.Fatalf("speculate=%v concurrency %d: %v", speculate, n, err)
			}
			t.Logf("speculate=%v concurrency %d: %d candidates, %d resampled, %d tokens, %d pruned, %d LM requests, engine %s, %s",
				speculate, n, len(res.Candidates), res.Stats.Resampled, res.Stats.Tokens, res.Stats.Pruned, res.Stats.LMRequests,
				res.Stats.EngineTime.Round(time.Millisecond), res.Stats.Duration.Round(time.Millisecond))
			results = append(results, res)
		}
		one, many := results[0], results[1]
		if !reflect.DeepEqual(one.Candidates, many.Candidates) {
			t.Errorf("speculate=%v: concurrency %d gave\n%q\nconcurrency 1\n%q", speculate, concurrencySlots,
				hunkTexts(many.Candidates), hunkTexts(one.Candidates))
		}
		if one.Stats.Samples != many.Stats.Samples || one.Stats.Truncated != many.Stats.Truncated || one.Stats.Dead != many.Stats.Dead {
			t.Errorf("speculate=%v: outcomes differ: %+v against %+v", speculate, many.Stats, one.Stats)
		}
		// The random model seldom ends a hunk: most samples are truncated,
		// so the paths are compared by their tokens sampled and pruned
		// (path counts, whoever asked the memo first), unless a sample ran
		// twice (its first run's work is counted too).
		if many.Stats.Resampled == 0 && (one.Stats.Tokens != many.Stats.Tokens || one.Stats.Pruned != many.Stats.Pruned) {
			t.Errorf("speculate=%v: %d tokens sampled, %d pruned at concurrency %d; %d and %d at concurrency 1", speculate,
				many.Stats.Tokens, many.Stats.Pruned, concurrencySlots, one.Stats.Tokens, one.Stats.Pruned)
		}
	}
}

func hunkTexts(ps []repair.Patch) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Hunk)
	}
	return out
}

// BenchmarkLlamaRepairConcurrency times 20-sample repairs (full variant,
// speculative decoding, 16-token budget) through a llama-server with 4
// slots at concurrency 1 and 4, alternating which goes first in each
// iteration, each iteration with a new seed for both. Reported: the wall
// time of a repair at each concurrency, their ratio, and the time in model
// calls and in engine calls per repair at concurrency 4 (summed over
// concurrent samples, so they can exceed the wall time). Also the CPU time
// of the whole process tree (this test, JDT LS, llama-server) per repair at
// each concurrency, and c4-floor: the CPU time at concurrency 4 over
// (cores x the wall time at concurrency 1), the least c4/c1 that keeping
// every core busy could reach. Where it exceeds the 0.4, the work
// itself, not its scheduling, rules the target out on this machine.
//
//	go test ./lm/openai -run '^$' -bench LlamaRepairConcurrency -benchtime 5x
func BenchmarkLlamaRepairConcurrency(b *testing.B) {
	srv := concurrencyServer(b, concurrencySlots)
	eng, bug, root := sharedJDT(b)
	m, err := New(Config{BaseURL: srv.URL, MaxConcurrent: concurrencySlots})
	if err != nil {
		b.Fatal(err)
	}
	var lmTime time.Duration
	var mu sync.Mutex
	svc := repair.NewService(repair.Backends{Model: lockedTimedModel{m, &lmTime, &mu}, Engine: eng, Compiler: eng})
	wall, cpu := map[int]time.Duration{}, map[int]time.Duration{}
	cpuOf := map[string]time.Duration{} // "java-c1", "llama-server-c4", ...
	var engineTime, lm4 time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		order := []int{1, concurrencySlots}
		if i%2 == 1 {
			order = []int{concurrencySlots, 1}
		}
		for _, n := range order {
			o := e2eOptions(int64(200+i), 20)
			o.Concurrency = n
			mu.Lock()
			before := lmTime
			mu.Unlock()
			cpu0 := treeCPUByName()
			res, err := svc.Repair(context.Background(), repairRequest(b, bug, root, o), nil)
			if err != nil {
				b.Fatal(err)
			}
			for name, d := range treeCPUByName() {
				cpu[n] += d - cpu0[name]
				if name == "java" || name == "llama-server" {
					cpuOf[fmt.Sprintf("%s-c%d", name, n)] += d - cpu0[name]
				}
			}
			wall[n] += res.Stats.Duration
			if n == concurrencySlots {
				engineTime += res.Stats.EngineTime
				mu.Lock()
				lm4 += lmTime - before
				mu.Unlock()
			}
		}
	}
	per := func(d time.Duration) float64 { return float64(d.Milliseconds()) / float64(b.N) }
	b.ReportMetric(per(wall[1]), "ms/repair-c1")
	b.ReportMetric(per(wall[concurrencySlots]), "ms/repair-c4")
	b.ReportMetric(float64(wall[concurrencySlots])/float64(wall[1]), "c4/c1")
	b.ReportMetric(per(lm4), "lm-ms/repair-c4")
	b.ReportMetric(per(engineTime), "engine-ms/repair-c4")
	b.ReportMetric(per(cpu[1]), "cpu-ms/repair-c1")
	b.ReportMetric(per(cpu[concurrencySlots]), "cpu-ms/repair-c4")
	for _, n := range []int{1, concurrencySlots} {
		b.ReportMetric(per(cpuOf[fmt.Sprintf("java-c%d", n)]), fmt.Sprintf("jdtls-cpu-ms/repair-c%d", n))
		b.ReportMetric(per(cpuOf[fmt.Sprintf("llama-server-c%d", n)]), fmt.Sprintf("llama-cpu-ms/repair-c%d", n))
	}
	b.ReportMetric(float64(cpu[concurrencySlots])/(float64(runtime.NumCPU())*float64(wall[1])), "c4-floor")
}

// lockedTimedModel is timedModel for concurrent sessions: the time spent in
// model calls is added under mu.
type lockedTimedModel struct {
	*Model
	spent *time.Duration
	mu    *sync.Mutex
}

func (m lockedTimedModel) Start(ctx context.Context, f lm.FIM) (lm.Session, error) {
	s, err := m.Model.Start(ctx, f)
	if err != nil {
		return nil, err
	}
	ts := lockedTimedSession{s: s, spent: m.spent, mu: m.mu}
	if sp, ok := s.(lm.Speculator); ok {
		return lockedTimedSpeculator{ts, sp}, nil
	}
	return ts, nil
}

type lockedTimedSession struct {
	s     lm.Session
	spent *time.Duration
	mu    *sync.Mutex
}

func (t lockedTimedSession) add(began time.Time) {
	t.mu.Lock()
	*t.spent += time.Since(began)
	t.mu.Unlock()
}

func (t lockedTimedSession) Next(ctx context.Context, g string, k int) ([]lm.Candidate, error) {
	defer t.add(time.Now())
	return t.s.Next(ctx, g, k)
}

type lockedTimedSpeculator struct {
	lockedTimedSession
	sp lm.Speculator
}

func (t lockedTimedSpeculator) Propose(ctx context.Context, g string, o lm.ProposeOptions) ([]lm.Step, error) {
	defer t.add(time.Now())
	return t.sp.Propose(ctx, g, o)
}
