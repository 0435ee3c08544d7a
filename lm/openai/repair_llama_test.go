package openai

// repair_llama_test.go runs whole repairs through a real llama-server and a
// real JDT LS completion engine (one of each per test binary): the
// token-by-token baseline and speculative guided decoding on the same bug,
// and a benchmark comparing their time and model requests per sample.

import (
	"context"
	"os"
	"path/filepath"
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
		if m.Client().Requests() != st.LMRequests+1 { // +1: GET /v1/models
			t.Errorf("speculate=%v: server saw %d requests, loop counted %d (+1 detection)", speculate, m.Client().Requests(), st.LMRequests)
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
