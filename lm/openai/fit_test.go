package openai

// fit_test.go tests fit.go against fakes: the prompt is cut to the server's
// context at line starts, nearest the middle, counted with llama.cpp's
// /tokenize where the server has it (and once per context), and a refusal
// for the context names the context and the setting, without a retry.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/lm"
)

// numbered returns n lines "<tag>NNNN ...\n" of 24 bytes each.
func numbered(tag string, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "%s%04d int x = %04d;\n", tag, i, i)
	}
	return b.String()
}

// checkCut fails unless p is the end of prefix from a line start and s the
// start of suffix up to a line end, each non-empty and each holding the
// line nearest the middle.
func checkCut(t *testing.T, what, prefix, suffix, p, s string) {
	t.Helper()
	if p == "" || !strings.HasSuffix(prefix, p) || (len(p) < len(prefix) && prefix[len(prefix)-len(p)-1] != '\n') {
		t.Errorf("%s: the prompt's prefix (%d bytes) is not the end of the prefix from a line start", what, len(p))
	}
	if s == "" || !strings.HasPrefix(suffix, s) || !strings.HasSuffix(s, "\n") {
		t.Errorf("%s: the prompt's suffix (%d bytes) is not the start of the suffix up to a line end", what, len(s))
	}
}

func TestFitCutsPromptToContext(t *testing.T) {
	f := newFake(t, map[string]http.HandlerFunc{"/v1/completions": jsonReply(llamaCompletion("a", "length", nil, [][][3]any{{{1, "a", -0.1}}}))})
	prefix, suffix := numbered("p", 400), numbered("s", 400) // 9600 bytes each
	const nctx, gen = 512, 64
	m := newTestModel(t, f, Config{Model: "x", Dialect: DialectOpenAI, FIM: "qwen", ContextTokens: nctx})
	s, err := m.Start(context.Background(), lm.FIM{Prefix: prefix, Suffix: suffix, MaxTokens: gen})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Next(context.Background(), "", 3); err != nil {
		t.Fatal(err)
	}
	got, _ := f.last()["prompt"].(string)
	budget := promptBudget(nctx, gen)
	// No tokenizer here: a prompt is taken as a token per 2 bytes.
	if est := (len(got) + 1) / 2; est > budget || est < budget*3/4 {
		t.Fatalf("the prompt is %d bytes (about %d tokens), want at most %d tokens and most of them", len(got), est, budget)
	}
	body, ok := strings.CutPrefix(got, "<|fim_prefix|>")
	p, rest, ok2 := strings.Cut(body, "<|fim_suffix|>")
	sfx, ok3 := strings.CutSuffix(rest, "<|fim_middle|>")
	if !ok || !ok2 || !ok3 {
		t.Fatalf("prompt %q is not the qwen template", got)
	}
	checkCut(t, "qwen", prefix, suffix, p, sfx)
	if len(p) < 2*len(sfx) {
		t.Errorf("prefix %d bytes, suffix %d: want the prefix the larger share", len(p), len(sfx))
	}

	// A template without the suffix gives the prefix the whole budget.
	m = newTestModel(t, f, Config{Model: "x", Dialect: DialectOpenAI, FIM: "none", ContextTokens: nctx})
	s, err = m.Start(context.Background(), lm.FIM{Prefix: prefix, Suffix: suffix, MaxTokens: gen})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Next(context.Background(), "", 3); err != nil {
		t.Fatal(err)
	}
	got, _ = f.last()["prompt"].(string)
	if est := (len(got) + 1) / 2; est > budget || est < budget*3/4 || !strings.HasSuffix(prefix, got) {
		t.Errorf("template none: the prompt is %d bytes of the prefix's end, want about %d tokens", len(got), budget)
	}

	// A small file is sent whole.
	m = newTestModel(t, f, Config{Model: "x", Dialect: DialectOpenAI, FIM: "qwen", ContextTokens: nctx})
	s, _ = m.Start(context.Background(), lm.FIM{Prefix: "class A {\n", Suffix: "}\n", MaxTokens: gen})
	if _, err := s.Next(context.Background(), "", 3); err != nil {
		t.Fatal(err)
	}
	if got := f.last()["prompt"]; got != "<|fim_prefix|>class A {\n<|fim_suffix|>}\n<|fim_middle|>" {
		t.Errorf("small file: prompt %q", got)
	}
}

// fakeTokenizingLlama is llama-server's /v1/models, /props (context nctx)
// and /tokenize (a token per 4 bytes, rounded up), counting tokenizations.
func fakeTokenizingLlama(t *testing.T, nctx int, tokenizes *atomic.Int32, completions http.HandlerFunc) *fake {
	var f *fake
	f = newFake(t, map[string]http.HandlerFunc{
		"/v1/models":      jsonReply(llamaModels),
		"/props":          jsonReply(fmt.Sprintf(`{"default_generation_settings":{"n_ctx":%d,"params":{}},"total_slots":1}`, nctx)),
		"/v1/completions": completions,
		"/infill":         jsonReply(`{"content":" x","stop":true,"completion_probabilities":[{"id":4,"token":" x","bytes":[32,120],"logprob":-0.25,"top_logprobs":[{"id":4,"token":" x","bytes":[32,120],"logprob":-0.25}]}]}`),
		"/tokenize": func(w http.ResponseWriter, r *http.Request) {
			tokenizes.Add(1)
			content, _ := f.last()["content"].(string) // the fake read the body
			toks := make([]int, (len(content)+3)/4)
			jsonReply(fmt.Sprintf(`{"tokens":%s}`, strings.ReplaceAll(fmt.Sprint(toks), " ", ",")))(w, r)
		},
	})
	return f
}

func TestFitCountsWithLlamaTokenizer(t *testing.T) {
	var tokenizes atomic.Int32
	f := fakeTokenizingLlama(t, 300, &tokenizes, jsonReply(llamaCompletion("a", "length", nil, [][][3]any{{{1, "a", -0.1}}})))
	prefix, suffix := numbered("p", 400), numbered("s", 400)
	const gen = 40
	budget := promptBudget(300, gen)
	for _, c := range []struct {
		name    string
		cfg     Config
		wantCtx int
	}{
		{"template", Config{}, 300},
		{"infill", Config{FIM: FIMInfill}, 300},
		{"configured above the server's", Config{ContextTokens: 1000}, 300},
		{"configured below the server's", Config{ContextTokens: 200}, 200},
	} {
		m := newTestModel(t, f, c.cfg)
		fim := lm.FIM{Prefix: prefix, Suffix: suffix, MaxTokens: gen}
		before := tokenizes.Load()
		var prompts []string
		for i := 0; i < 3; i++ { // concurrent samples' sessions: one count
			s, err := m.Start(context.Background(), fim)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if _, err := s.Next(context.Background(), "", 3); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			b := f.last()
			if c.cfg.FIM == FIMInfill {
				p, _ := b["input_prefix"].(string)
				s, _ := b["input_suffix"].(string)
				checkCut(t, c.name, prefix, suffix, p, s)
				prompts = append(prompts, p+s)
			} else {
				p, _ := b["prompt"].(string)
				prompts = append(prompts, p)
			}
		}
		if m.ContextTokens() != c.wantCtx {
			t.Errorf("%s: context %d tokens, want %d", c.name, m.ContextTokens(), c.wantCtx)
		}
		want := promptBudget(c.wantCtx, gen)
		if n := (len(prompts[0]) + 3) / 4; n > want || n < want*3/4 {
			t.Errorf("%s: the prompt is %d tokens by the server's count, want at most %d and most of them", c.name, n, want)
		}
		if c.wantCtx == 300 && len(prompts[0]) <= 2*budget {
			t.Errorf("%s: the prompt is %d bytes: cut by the estimate, not by the server's count", c.name, len(prompts[0]))
		}
		if prompts[1] != prompts[0] || prompts[2] != prompts[0] {
			t.Errorf("%s: sessions on one context got different prompts", c.name)
		}
		if n := tokenizes.Load() - before; n == 0 || n > 5 {
			t.Errorf("%s: %d tokenizations for three sessions on one context, want those of one fit", c.name, n)
		}
		// The next context (a keystroke later) is cut first where the
		// last count put the budget: one count, not one of the whole.
		before = tokenizes.Load()
		if _, err := m.Start(context.Background(), lm.FIM{Prefix: prefix + "x", Suffix: suffix, MaxTokens: gen}); err != nil {
			t.Fatal(err)
		}
		if n := tokenizes.Load() - before; n != 1 {
			t.Errorf("%s: %d tokenizations for the next context, want 1", c.name, n)
		}
	}
}

func TestContextExceededIsReportedNotRetried(t *testing.T) {
	var tokenizes atomic.Int32
	refuse := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"error":{"code":400,"message":"request (3766 tokens) exceeds the available context size (300 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":3766,"n_ctx":300}}`)
	}
	f := fakeTokenizingLlama(t, 300, &tokenizes, refuse)
	m := newTestModel(t, f, Config{})
	s, err := m.Start(context.Background(), lm.FIM{Prefix: "class A {\n", Suffix: "}\n", MaxTokens: 16})
	if err != nil {
		t.Fatal(err)
	}
	before := m.Client().Attempts()
	_, err = s.Next(context.Background(), "", 3)
	var e *Error
	if !errors.Is(err, ErrContextExceeded) || !errors.As(err, &e) || e.Status != 400 {
		t.Fatalf("Next: %v; want ErrContextExceeded and the server's *Error", err)
	}
	for _, want := range []string{"exceeds the available context size", "300 tokens", "--model-context", EnvContextTokens} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if n := m.Client().Attempts() - before; n != 1 {
		t.Errorf("%d attempts, want 1 (a prompt too long is not retried)", n)
	}
	_, err = s.(lm.Speculator).Propose(context.Background(), "", lm.ProposeOptions{MaxTokens: 8, K: 3})
	if !errors.Is(err, ErrContextExceeded) {
		t.Errorf("Propose: %v; want ErrContextExceeded", err)
	}
	// Another 400 is the server's error as it was.
	f.handlers["/v1/completions"] = func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":{"message":"bad prompt"}}`, http.StatusBadRequest)
	}
	if _, err = s.Next(context.Background(), "", 3); err == nil || errors.Is(err, ErrContextExceeded) {
		t.Errorf("another 400: %v", err)
	}
}

// fakeTokenizingVLLM is vLLM's /v1/models (max_model_len nctx) and its
// /tokenize (the completion form; a token per 4 bytes, rounded up, as
// "count"), counting tokenizations; count, when set, replaces the count
// (a hostile server).
func fakeTokenizingVLLM(t *testing.T, nctx int, tokenizes *atomic.Int32, count string) *fake {
	var f *fake
	f = newFake(t, map[string]http.HandlerFunc{
		"/v1/models":      jsonReply(fmt.Sprintf(`{"object":"list","data":[{"id":"qwen-coder","owned_by":"vllm","max_model_len":%d}]}`, nctx)),
		"/v1/completions": jsonReply(llamaCompletion("a", "length", nil, [][][3]any{{{1, "a", -0.1}}})),
		"/tokenize": func(w http.ResponseWriter, r *http.Request) {
			tokenizes.Add(1)
			b := f.last()
			prompt, _ := b["prompt"].(string)
			if b["model"] != "qwen-coder" || b["add_special_tokens"] != false || b["content"] != nil {
				t.Errorf("/tokenize body %v: want vLLM's completion form (model, prompt, add_special_tokens false)", b)
			}
			n := fmt.Sprint((len(prompt) + 3) / 4)
			if count != "" {
				n = count
			}
			jsonReply(fmt.Sprintf(`{"count":%s,"max_model_len":%d,"tokens":[]}`, n, nctx))(w, r)
		},
	})
	return f
}

// TestFitCountsWithVLLMTokenizer: on vLLM the prompt is cut by the server's
// own count (POST /tokenize), not by the estimate of a token per 2 bytes,
// which left half of a vLLM context unused; a count that no tokenizer could
// make (negative, or more tokens than bytes) is not believed.
func TestFitCountsWithVLLMTokenizer(t *testing.T) {
	var tokenizes atomic.Int32
	f := fakeTokenizingVLLM(t, 300, &tokenizes, "")
	prefix, suffix := numbered("p", 400), numbered("s", 400)
	const gen = 40
	m := newTestModel(t, f, Config{FIM: "qwen"})
	s, err := m.Start(context.Background(), lm.FIM{Prefix: prefix, Suffix: suffix, MaxTokens: gen})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Next(context.Background(), "", 3); err != nil {
		t.Fatal(err)
	}
	if m.Dialect() != DialectVLLM || m.ContextTokens() != 300 {
		t.Fatalf("dialect %q, context %d; want vllm, 300", m.Dialect(), m.ContextTokens())
	}
	var prompt string
	for i := f.count() - 1; i >= 0 && prompt == ""; i-- {
		f.mu.Lock()
		if f.paths[i] == "/v1/completions" {
			prompt, _ = f.bodies[i]["prompt"].(string)
		}
		f.mu.Unlock()
	}
	budget := promptBudget(300, gen)
	if n := (len(prompt) + 3) / 4; n > budget || n < budget*3/4 || tokenizes.Load() == 0 {
		t.Errorf("the prompt is %d tokens by vLLM's count (%d counts), want at most %d and most of them", n, tokenizes.Load(), budget)
	}
	for _, bad := range []string{"-5", "99999999999", `"x"`} {
		var n atomic.Int32
		f := fakeTokenizingVLLM(t, 300, &n, bad)
		m := newTestModel(t, f, Config{FIM: "qwen"})
		s, err := m.Start(context.Background(), lm.FIM{Prefix: prefix, Suffix: suffix, MaxTokens: gen})
		if err != nil {
			t.Fatalf("count %s: %v", bad, err)
		}
		if _, err := s.Next(context.Background(), "", 3); err != nil {
			t.Fatal(err)
		}
		// Not believed: the estimate (a token per 2 bytes) cut it.
		if got, _ := f.last()["prompt"].(string); len(got) == 0 || len(got) > 2*budget {
			t.Errorf("count %s: the prompt is %d bytes, want at most %d (the estimate's cut)", bad, len(got), 2*budget)
		}
	}
}

// TestTokenizeCountsAreBounded: a count no tokenizer could make (more tokens
// than bytes) is a protocol error, on llama.cpp's /tokenize as on vLLM's,
// and fitting falls back to the estimate.
func TestTokenizeCountsAreBounded(t *testing.T) {
	f := newFake(t, map[string]http.HandlerFunc{
		"/tokenize": jsonReply(fmt.Sprintf(`{"tokens":[%s0]}`, strings.Repeat("0,", 200))),
	})
	m := newTestModel(t, f, Config{Model: "x", Dialect: DialectLlamaCpp})
	if n, err := m.Client().Tokenize(context.Background(), "short text"); err == nil {
		t.Errorf("llama.cpp: 201 tokens for 10 bytes accepted as %d", n)
	}
	if n, err := m.Client().TokenizeVLLM(context.Background(), "short text"); err == nil {
		t.Errorf("vLLM: 201 tokens for 10 bytes accepted as %d", n)
	}
}
