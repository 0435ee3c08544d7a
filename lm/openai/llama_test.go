package openai

// llama_test.go runs the backend against a real llama.cpp llama-server (built
// by scripts/install-llama.sh, started on a free loopback port with the
// random-weight deepseek-coder-vocabulary model of scripts/models): dialect
// and template detection, Next, Propose and their agreement, the sampling
// contract the speculative loop relies on, logit_bias and /infill.

import (
	"context"
	"math"
	"os"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/repilot-lsp/repilot-lsp/lm"
	"github.com/repilot-lsp/repilot-lsp/lm/openai/llamatest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	llamatest.Shutdown()
	closeJDT()
	os.Exit(code)
}

const (
	javaPrefix = "public class Counter {\n    private int count;\n\n    public int next() {\n"
	javaSuffix = "    }\n}\n"
)

func llamaSession(t *testing.T, cfg Config) (*Model, lm.Session) {
	t.Helper()
	srv := llamatest.Shared(t)
	cfg.BaseURL = srv.URL
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := m.Start(ctx, lm.FIM{Prefix: javaPrefix, Suffix: javaSuffix, Indent: "        "})
	if err != nil {
		t.Fatal(err)
	}
	return m, s
}

func TestLlamaNext(t *testing.T) {
	m, s := llamaSession(t, Config{})
	if m.Dialect() != DialectLlamaCpp || m.Template() != "deepseek" {
		t.Fatalf("detected dialect %q, template %q (model %s); want llama.cpp and deepseek", m.Dialect(), m.Template(), m.Name())
	}
	for _, g := range []string{"", "        return"} {
		c, err := s.Next(context.Background(), g, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(c) < 5 || len(c) > 10 {
			t.Fatalf("Next(%q) = %d candidates, want 5..10: %v", g, len(c), c)
		}
		mass := 0.0
		for i, x := range c {
			if x.LogProb > 0 || (i > 0 && x.LogProb > c[i-1].LogProb) {
				t.Errorf("candidates not best-first log-probabilities: %v", c)
			}
			mass += math.Exp(x.LogProb)
		}
		if mass > 1+1e-4 {
			t.Errorf("top-10 mass %.4f > 1", mass)
		}
		t.Logf("Next(%q): top-10 mass %.3f, best %q %.2f", g, mass, c[0].Text, c[0].LogProb)
	}
}

func TestLlamaProposeAgreesWithNext(t *testing.T) {
	_, s := llamaSession(t, Config{})
	sp := s.(lm.Speculator)
	ctx := context.Background()
	opts := lm.ProposeOptions{MaxTokens: 12, K: 8, Temperature: 1, Seed: 11}
	steps, err := sp.Propose(ctx, "", opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) == 0 {
		t.Fatal("no steps")
	}
	again, err := sp.Propose(ctx, "", opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(again) != len(steps) {
		t.Errorf("same seed, %d then %d steps", len(steps), len(again))
	}
	for i := range min(len(again), len(steps)) {
		if again[i].Token != steps[i].Token {
			t.Errorf("same seed, step %d: %q then %q", i, steps[i].Token.Text, again[i].Token.Text)
		}
	}
	// Step 0's distribution is Next's at the same text; later steps agree
	// whenever re-tokenising the accepted text gives the model's own tokens.
	prefix, agree := "", 0
	for i, st := range steps {
		next, err := s.Next(ctx, prefix, 8)
		if err != nil {
			t.Fatal(err)
		}
		same := len(next) == len(st.Top)
		for j := range min(len(next), len(st.Top)) {
			if next[j].Text != st.Top[j].Text || next[j].End != st.Top[j].End || math.Abs(next[j].LogProb-st.Top[j].LogProb) > 1e-2 {
				same = false
			}
		}
		if same {
			agree++
		} else if i == 0 {
			t.Fatalf("step 0 distribution differs from Next's:\n%v\n%v", st.Top, next)
		}
		if st.Chosen < 0 || st.Token.End {
			break
		}
		prefix += st.Token.Text
	}
	t.Logf("%d steps; %d agree with Next on the re-tokenised prefix", len(steps), agree)
}

// TestLlamaSamplingContract checks what repair/speculative.go relies on: with
// the llama.cpp sampler fields, the server's sampled token follows
// exp(logprob/T) renormalised over the top k.
func TestLlamaSamplingContract(t *testing.T) {
	_, s := llamaSession(t, Config{})
	ss := s.(*session)
	const k, temp, n = 5, 0.8, 300
	counts := map[int]int{}
	var top []tokenLP
	for seed := range n {
		sd := seed
		// The session's sampler fields, without its learned bans.
		chs, err := ss.m.Client().CreateCompletion(context.Background(), CompletionRequest{
			Prompt: ss.prompt + "        return", MaxTokens: 1, Logprobs: k, Temperature: temp, Seed: &sd, TopP: 1,
			Extra: ss.samplerFields(k, temp),
		})
		if err != nil {
			t.Fatal(err)
		}
		ch := chs[0]
		if len(ch.Positions) == 0 {
			// llama.cpp reports no position for a token that ends in an
			// incomplete UTF-8 sequence; counted against those below.
			counts[-1]++
			continue
		}
		p := ch.Positions[0]
		if top == nil {
			top = p.Top
		}
		j := sampledIndex(p)
		if j < 0 {
			t.Fatalf("seed %d: sampled id %d outside the top %d: top_k not applied", seed, p.Sampled.ID, k)
		}
		counts[j]++
	}
	w := make([]float64, len(top))
	total := 0.0
	for i, x := range top {
		w[i] = math.Exp(x.LogProb / temp)
		total += w[i]
	}
	stat, partialW := 0.0, 0.0
	for i := range top {
		e := n * w[i] / total
		if !utf8.ValidString(top[i].Text) {
			partialW += w[i]
			if counts[i] != 0 {
				t.Errorf("alternative %d %q has incomplete UTF-8 but was reported", i, top[i].Text)
			}
			continue
		}
		d := float64(counts[i]) - e
		stat += d * d / e
		t.Logf("alternative %d %q: expected %.1f, sampled %d", i, top[i].Text, e, counts[i])
	}
	if e := n * partialW / total; e > 0 {
		d := float64(counts[-1]) - e
		stat += d * d / e
		t.Logf("alternatives with incomplete UTF-8: expected %.1f, sampled %d", e, counts[-1])
	} else if counts[-1] > 0 {
		t.Errorf("%d responses without a position, but no alternative has incomplete UTF-8", counts[-1])
	}
	// df = k-1 = 4; 30 is far beyond the 0.9999 quantile (23.5).
	if stat > 30 {
		t.Errorf("chi-square %.1f: the server does not sample exp(logprob/T) over the top %d", stat, k)
	}
}

func TestLlamaLogitBias(t *testing.T) {
	m, s := llamaSession(t, Config{})
	ss := s.(*session)
	c := m.Client()
	req := CompletionRequest{Prompt: ss.prompt, MaxTokens: 1, Logprobs: 5, Temperature: 0, Extra: ss.samplerFields(5, 0)}
	chs, err := c.CreateCompletion(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	best := chs[0].Positions[0].Sampled.ID
	req.LogitBias = map[int]int{best: -100}
	chs, err = c.CreateCompletion(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	p := chs[0].Positions[0]
	if p.Sampled.ID == best {
		t.Errorf("greedy sample is still the banned token %d", best)
	}
	if p.Top[0].ID != best {
		t.Errorf("top_logprobs should show the distribution before the bias (best %d), got %d first", best, p.Top[0].ID)
	}
}

func TestLlamaInfill(t *testing.T) {
	m, s := llamaSession(t, Config{FIM: FIMInfill})
	if m.Template() != FIMInfill {
		t.Fatalf("template %q", m.Template())
	}
	c, err := s.Next(context.Background(), "        return", 6)
	if err != nil {
		t.Fatal(err)
	}
	if len(c) == 0 {
		t.Fatal("no candidates from /infill")
	}
	steps, err := s.(lm.Speculator).Propose(context.Background(), "        return", lm.ProposeOptions{MaxTokens: 6, K: 6, Temperature: 1, Seed: 3})
	if err != nil || len(steps) == 0 {
		t.Fatalf("Propose via /infill: %v, %d steps", err, len(steps))
	}
}
