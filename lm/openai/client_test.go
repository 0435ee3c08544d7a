package openai

// client_test.go tests the client and sessions against httptest fakes that
// answer in llama.cpp's and OpenAI's legacy logprobs shapes: request bodies
// (prompt, sampler fields, logit_bias, n, seed, stop), decoding, retries,
// API-key redaction, and the errors for a server that is down or returns no
// logprobs.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/lm"
)

// fake is a scripted server: each request to a path is answered by the
// handler for that path; bodies are recorded.
type fake struct {
	t        *testing.T
	mu       sync.Mutex
	bodies   []map[string]any
	paths    []string
	auth     []string
	handlers map[string]http.HandlerFunc
	srv      *httptest.Server
}

func newFake(t *testing.T, handlers map[string]http.HandlerFunc) *fake {
	f := &fake{t: t, handlers: handlers}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		var m map[string]any
		_ = json.Unmarshal(data, &m)
		f.mu.Lock()
		f.bodies = append(f.bodies, m)
		f.paths = append(f.paths, r.URL.Path)
		f.auth = append(f.auth, r.Header.Get("Authorization"))
		h := f.handlers[r.URL.Path]
		f.mu.Unlock()
		if h == nil {
			http.Error(w, `{"error":{"message":"not found","type":"not_found"}}`, http.StatusNotFound)
			return
		}
		h(w, r)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fake) last() map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.bodies) == 0 {
		f.t.Fatal("no request reached the fake server")
	}
	return f.bodies[len(f.bodies)-1]
}

func (f *fake) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.bodies)
}

func jsonReply(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, body)
	}
}

// llamaModels is llama-server's GET /v1/models.
const llamaModels = `{"object":"list","data":[{"id":"deepseek-coder-1.3b-base.Q8_0.gguf","object":"model","created":1,"owned_by":"llamacpp"}]}`

// llamaCompletion builds a llama.cpp /v1/completions body; positions are
// lists of [id, token, logprob] alternatives, the first one sampled unless
// sampled[i] says otherwise.
func llamaCompletion(text, finish string, sampled []int, positions [][][3]any) string {
	var content []map[string]any
	for i, alts := range positions {
		var top []map[string]any
		for _, a := range alts {
			top = append(top, map[string]any{"id": a[0], "token": a[1], "bytes": bytesOf(a[1].(string)), "logprob": a[2]})
		}
		s := alts[0]
		if i < len(sampled) && sampled[i] >= 0 {
			s = alts[sampled[i]]
		}
		content = append(content, map[string]any{"id": s[0], "token": s[1], "bytes": bytesOf(s[1].(string)), "logprob": s[2], "top_logprobs": top})
	}
	b, _ := json.Marshal(map[string]any{
		"choices": []any{map[string]any{"text": text, "index": 0, "finish_reason": finish,
			"logprobs": map[string]any{"content": content}}},
		"object": "text_completion", "model": "m",
	})
	return string(b)
}

func bytesOf(s string) []int {
	out := make([]int, len(s))
	for i := 0; i < len(s); i++ {
		out[i] = int(s[i])
	}
	return out
}

func newTestModel(t *testing.T, f *fake, cfg Config) *Model {
	t.Helper()
	cfg.BaseURL = f.srv.URL + "/v1"
	if cfg.RetryBackoff == 0 {
		cfg.RetryBackoff = time.Millisecond
	}
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestNextLlamaCppShape(t *testing.T) {
	f := newFake(t, map[string]http.HandlerFunc{
		"/v1/models": jsonReply(llamaModels),
		"/v1/completions": jsonReply(llamaCompletion(" return", "length", nil, [][][3]any{{
			{1, " return", -0.5}, {32014, "", -1.5}, {32016, "<｜fim▁begin｜>", -2.0}, {7, " x", -3.0}, {8, "\xe2\x80", -4.0},
		}})),
	})
	m := newTestModel(t, f, Config{})
	s, err := m.Start(context.Background(), lm.FIM{Prefix: "int f() {\n", Suffix: "\n}\n"})
	if err != nil {
		t.Fatal(err)
	}
	if m.Dialect() != DialectLlamaCpp || m.Template() != "deepseek" {
		t.Fatalf("detected dialect %q template %q; want llama.cpp, deepseek (from owned_by and the model id)", m.Dialect(), m.Template())
	}
	got, err := s.Next(context.Background(), "  int y =", 5)
	if err != nil {
		t.Fatal(err)
	}
	want := []lm.Candidate{
		{Text: " return", LogProb: -0.5},
		{Text: "", LogProb: -1.5, End: true}, // llama.cpp renders EOS as ""
		{Text: " x", LogProb: -3.0},
		// FIM marker and the partial UTF-8 piece "\xe2\x80" dropped
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Next = %v\nwant   %v", got, want)
	}
	b := f.last()
	if p := b["prompt"]; p != "<｜fim▁begin｜>int f() {\n<｜fim▁hole｜>\n}\n<｜fim▁end｜>  int y =" {
		t.Errorf("prompt = %q", p)
	}
	for k, v := range map[string]any{"max_tokens": 1.0, "logprobs": 5.0, "temperature": 0.0, "top_k": 5.0, "n_probs": 5.0, "cache_prompt": true, "top_p": 1.0, "min_p": 0.0} {
		if b[k] != v {
			t.Errorf("request %s = %v, want %v", k, b[k], v)
		}
	}
	if fmt.Sprint(b["samplers"]) != "[top_k temperature]" {
		t.Errorf("samplers = %v", b["samplers"])
	}
	if b["model"] != "deepseek-coder-1.3b-base.Q8_0.gguf" {
		t.Errorf("model = %v, want the detected model id", b["model"])
	}
}

func TestNextLegacyShape(t *testing.T) {
	legacy := `{"choices":[{"text":" a","index":0,"finish_reason":"length","logprobs":{
		"tokens":[" a"],"token_logprobs":[-0.1],
		"top_logprobs":[{" b":-2.5," a":-0.1,"<|endoftext|>":-1.0,"<|fim_middle|>":-3.0,"":-4.0}],
		"text_offset":[0]}}]}`
	f := newFake(t, map[string]http.HandlerFunc{
		"/v1/models":      jsonReply(`{"object":"list","data":[{"id":"Qwen2.5-Coder-7B","owned_by":"vllm"}]}`),
		"/v1/completions": jsonReply(legacy),
	})
	m := newTestModel(t, f, Config{Model: "Qwen2.5-Coder-7B"})
	s, err := m.Start(context.Background(), lm.FIM{Prefix: "P", Suffix: "S"})
	if err != nil {
		t.Fatal(err)
	}
	if m.Dialect() != DialectVLLM || m.Template() != "qwen" {
		t.Fatalf("dialect %q template %q", m.Dialect(), m.Template())
	}
	got, err := s.Next(context.Background(), "", 20)
	if err != nil {
		t.Fatal(err)
	}
	want := []lm.Candidate{{Text: " a", LogProb: -0.1}, {End: true, LogProb: -1.0}, {Text: " b", LogProb: -2.5}, {End: true, LogProb: -4}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Next = %v\nwant   %v", got, want)
	}
	b := f.last()
	if b["prompt"] != "<|fim_prefix|>P<|fim_suffix|>S<|fim_middle|>" || b["top_k"] != -1.0 || b["cache_prompt"] != nil {
		t.Errorf("vLLM request: prompt %q top_k %v cache_prompt %v", b["prompt"], b["top_k"], b["cache_prompt"])
	}
}

func TestOpenAIDialectSendsOnlyStandardFields(t *testing.T) {
	f := newFake(t, map[string]http.HandlerFunc{
		"/v1/completions": jsonReply(llamaCompletion("x", "length", nil, [][][3]any{{{1, "x", -0.1}}})),
	})
	m := newTestModel(t, f, Config{Model: "gpt-3.5-turbo-instruct", Dialect: DialectOpenAI, FIM: "none"})
	s, err := m.Start(context.Background(), lm.FIM{Prefix: "P", Suffix: "S"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Next(context.Background(), "", 3); err != nil {
		t.Fatal(err)
	}
	b := f.last()
	for k := range b {
		switch k {
		case "model", "prompt", "max_tokens", "logprobs", "temperature", "top_p", "stream":
		default:
			t.Errorf("OpenAI dialect sent non-standard field %q", k)
		}
	}
	if f.count() != 1 {
		t.Errorf("requests = %d, want 1 (no /v1/models when dialect and model are configured)", f.count())
	}
}

func TestProposeSteps(t *testing.T) {
	// Three positions: sampled " x" (alt 0), sampled " =" (alt 1), then EOS.
	body := llamaCompletion(" x =", "stop", []int{0, 1, 0}, [][][3]any{
		{{5, " x", -0.2}, {6, " y", -1.9}},
		{{7, ";", -0.4}, {8, " =", -1.2}, {9, "<｜fim▁hole｜>", -3}},
		{{32014, "", -0.3}, {10, " 1", -1.4}},
		{{11, "never", -0.1}}, // after EOS: must not become a step
	})
	f := newFake(t, map[string]http.HandlerFunc{"/v1/completions": jsonReply(body)})
	m := newTestModel(t, f, Config{Model: "deepseek-coder", Dialect: DialectLlamaCpp})
	s, err := m.Start(context.Background(), lm.FIM{Prefix: "P", Suffix: "S"})
	if err != nil {
		t.Fatal(err)
	}
	sp, ok := s.(lm.Speculator)
	if !ok {
		t.Fatal("llama.cpp session does not implement lm.Speculator")
	}
	steps, err := sp.Propose(context.Background(), "g", lm.ProposeOptions{MaxTokens: 16, K: 4, Temperature: 0.7, Seed: 1<<40 + 42})
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 3 {
		t.Fatalf("steps = %d, want 3 (stop after the End token): %+v", len(steps), steps)
	}
	if steps[0].Chosen != 0 || steps[0].Token.Text != " x" || steps[1].Chosen != 1 || steps[1].Token.Text != " =" ||
		len(steps[1].Top) != 2 || !steps[2].Token.End || steps[2].Chosen != 0 {
		t.Errorf("steps = %+v", steps)
	}
	b := f.last()
	if b["max_tokens"] != 16.0 || b["temperature"] != 0.7 || b["top_k"] != 4.0 || b["seed"] != 42.0 || b["prompt"] != "<｜fim▁begin｜>P<｜fim▁hole｜>S<｜fim▁end｜>g" {
		t.Errorf("Propose request: %v", b)
	}

	// NoSpeculate hides Propose.
	m2 := newTestModel(t, f, Config{Model: "deepseek-coder", Dialect: DialectLlamaCpp, NoSpeculate: true})
	s2, _ := m2.Start(context.Background(), lm.FIM{})
	if _, ok := s2.(lm.Speculator); ok {
		t.Error("NoSpeculate session implements lm.Speculator")
	}
}

func TestProposeStopsAtMisalignedOrOutsideTop(t *testing.T) {
	// Position 1's sampled text differs from its own alternative's text: the
	// server folded a partial UTF-8 token into it, so its alternatives are
	// for a later position. Steps stop before it.
	content := `{"choices":[{"text":"ab","finish_reason":"length","logprobs":{"content":[
	 {"id":1,"token":"a","bytes":[97],"logprob":-0.1,"top_logprobs":[{"id":1,"token":"a","bytes":[97],"logprob":-0.1}]},
	 {"id":3,"token":"é","bytes":[195,169],"logprob":-0.1,"top_logprobs":[{"id":3,"token":"","bytes":[169],"logprob":-0.1}]}
	]}}]}`
	f := newFake(t, map[string]http.HandlerFunc{"/v1/completions": jsonReply(content)})
	m := newTestModel(t, f, Config{Model: "x", Dialect: DialectLlamaCpp, FIM: "none"})
	s, _ := m.Start(context.Background(), lm.FIM{})
	steps, err := s.(lm.Speculator).Propose(context.Background(), "", lm.ProposeOptions{MaxTokens: 4, K: 2, Temperature: 1})
	if err != nil || len(steps) != 1 {
		t.Fatalf("steps = %+v, %v; want just the first", steps, err)
	}

	// A sampled token outside the top-k ends the steps with Chosen -1.
	outside := `{"choices":[{"text":"zq","finish_reason":"length","logprobs":{"content":[
	 {"id":99,"token":"z","bytes":[122],"logprob":-7,"top_logprobs":[{"id":1,"token":"a","bytes":[97],"logprob":-0.1}]},
	 {"id":2,"token":"q","bytes":[113],"logprob":-0.1,"top_logprobs":[{"id":2,"token":"q","bytes":[113],"logprob":-0.1}]}
	]}}]}`
	f.handlers["/v1/completions"] = jsonReply(outside)
	steps, err = s.(lm.Speculator).Propose(context.Background(), "", lm.ProposeOptions{MaxTokens: 4, K: 2, Temperature: 1})
	if err != nil || len(steps) != 1 || steps[0].Chosen != -1 || steps[0].Token.Text != "z" {
		t.Fatalf("steps = %+v, %v; want one step with Chosen -1", steps, err)
	}
}

func TestCreateCompletionLogitBiasNSeedStop(t *testing.T) {
	two := `{"choices":[
	  {"text":"a","index":0,"finish_reason":"stop","logprobs":{"tokens":["a"],"token_logprobs":[-0.5],"top_logprobs":[{"a":-0.5}]}},
	  {"text":"b","index":1,"finish_reason":"length","logprobs":null}]}`
	f := newFake(t, map[string]http.HandlerFunc{"/v1/completions": jsonReply(two)})
	c, err := NewClient(Config{BaseURL: f.srv.URL + "/v1", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	seed := 7
	chs, err := c.CreateCompletion(context.Background(), CompletionRequest{
		Prompt: "p", MaxTokens: 3, Logprobs: 2, N: 2, Seed: &seed, Stop: []string{"\n\n"},
		LogitBias: map[int]int{32014: -100, 5: 3}, Temperature: 0.2,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(chs) != 2 || chs[0].Text != "a" || chs[0].Finish != "stop" || !chs[0].HasLogprobs ||
		chs[0].Positions[0].Sampled.LogProb != -0.5 || chs[1].HasLogprobs {
		t.Errorf("choices = %+v", chs)
	}
	b := f.last()
	if fmt.Sprint(b["logit_bias"]) != "map[32014:-100 5:3]" || b["n"] != 2.0 || b["seed"] != 7.0 ||
		fmt.Sprint(b["stop"]) != "[\n\n]" || b["temperature"] != 0.2 {
		t.Errorf("request = %v", b)
	}
}

func TestRetriesOn429And5xx(t *testing.T) {
	var n atomic.Int32
	f := newFake(t, map[string]http.HandlerFunc{"/v1/completions": func(w http.ResponseWriter, r *http.Request) {
		switch n.Add(1) {
		case 1:
			w.Header().Set("Retry-After", "2")
			http.Error(w, `{"error":{"message":"slow down"}}`, http.StatusTooManyRequests)
		case 2:
			http.Error(w, `{"error":{"message":"loading model"}}`, http.StatusServiceUnavailable)
		default:
			jsonReply(llamaCompletion("a", "length", nil, [][][3]any{{{1, "a", -0.1}}}))(w, r)
		}
	}})
	m := newTestModel(t, f, Config{Model: "x", Dialect: DialectLlamaCpp, FIM: "none", RetryBackoff: 100 * time.Millisecond})
	var waits []time.Duration
	m.client.tr.Sleep = func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
	s, _ := m.Start(context.Background(), lm.FIM{}) // asks GET /props (404 here) once
	req0, att0 := m.Client().Requests(), m.Client().Attempts()
	if _, err := s.Next(context.Background(), "", 1); err != nil {
		t.Fatal(err)
	}
	if len(waits) != 2 || waits[0] != 2*time.Second || waits[1] < 200*time.Millisecond || waits[1] > 250*time.Millisecond {
		t.Errorf("waits = %v; want [2s (Retry-After), ~200ms (doubled backoff)]", waits)
	}
	if m.Client().Requests()-req0 != 1 || m.Client().Attempts()-att0 != 3 {
		t.Errorf("requests %d attempts %d; want 1 and 3", m.Client().Requests()-req0, m.Client().Attempts()-att0)
	}

	// 400 is not retried, and a persistent 503 gives up after MaxRetries.
	n.Store(100)
	f.handlers["/v1/completions"] = func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":{"message":"bad prompt"}}`, http.StatusBadRequest)
	}
	before := m.Client().Attempts()
	_, err := s.Next(context.Background(), "", 1)
	var e *Error
	if !errors.As(err, &e) || e.Status != 400 || m.Client().Attempts()-before != 1 || !strings.Contains(err.Error(), "bad prompt") {
		t.Errorf("400: err %v after %d attempts", err, m.Client().Attempts()-before)
	}
	f.handlers["/v1/completions"] = func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":{"message":"busy"}}`, http.StatusServiceUnavailable)
	}
	_, err = s.Next(context.Background(), "", 1)
	if !errors.As(err, &e) || e.Status != 503 || e.Attempts != 4 || !strings.Contains(err.Error(), "after 4 attempts") {
		t.Errorf("503: %v (attempts %d), want 1+3 attempts", err, e.Attempts)
	}
}

// TestNoRetriesMeansOneAttempt: MaxRetries < 0 asks for no retry, so a 503
// ends the request after its one attempt (it took 1+3 when the transport
// read the config's 0 as "unset").
func TestNoRetriesMeansOneAttempt(t *testing.T) {
	f := newFake(t, map[string]http.HandlerFunc{"/v1/completions": func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":{"message":"busy"}}`, http.StatusServiceUnavailable)
	}})
	m := newTestModel(t, f, Config{Model: "x", Dialect: DialectLlamaCpp, FIM: "none", MaxRetries: -1, RetryBackoff: time.Millisecond})
	s, _ := m.Start(context.Background(), lm.FIM{}) // asks GET /props (404 here) once
	before := m.Client().Attempts()
	_, err := s.Next(context.Background(), "", 1)
	var e *Error
	if !errors.As(err, &e) || e.Status != 503 || m.Client().Attempts()-before != 1 {
		t.Errorf("503 with MaxRetries -1: %v after %d attempts, want 1", err, m.Client().Attempts()-before)
	}
}

func TestAPIKeyNeverInErrorsOrStrings(t *testing.T) {
	const key = "sk-test-SECRET-0123456789"
	echo := func(status int) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			msg := fmt.Sprintf(`{"error":{"message":"invalid key %s (header %s)"}}`, key, r.Header.Get("Authorization"))
			http.Error(w, msg, status)
		}
	}
	f := newFake(t, map[string]http.HandlerFunc{"/v1/completions": echo(401), "/v1/embeddings": echo(500), "/infill": echo(500)})
	t.Setenv(EnvAPIKey, key)
	t.Setenv(EnvOpenAIAPIKey, "sk-other-key-should-not-be-used")
	m := newTestModel(t, f, Config{Model: "x", Dialect: DialectLlamaCpp, FIM: "none", MaxRetries: -1})
	s, _ := m.Start(context.Background(), lm.FIM{})
	_, err := s.Next(context.Background(), "", 1)
	if err == nil {
		t.Fatal("want an error for 401")
	}
	if f.auth[len(f.auth)-1] != "Bearer "+key {
		t.Fatalf("server saw Authorization %q; want the REPILOT_API_KEY key", f.auth[len(f.auth)-1])
	}
	m3 := newTestModel(t, f, Config{Model: "x", Dialect: DialectLlamaCpp, FIM: FIMInfill, MaxRetries: -1})
	s3, _ := m3.Start(context.Background(), lm.FIM{})
	_, err3 := s3.Next(context.Background(), "", 1)
	for _, e := range []error{err, err3} {
		if e == nil || strings.Contains(e.Error(), key) || strings.Contains(e.Error(), "SECRET") {
			t.Errorf("error leaks the key: %v", e)
		}
		if e != nil && !strings.Contains(e.Error(), "[REDACTED]") {
			t.Errorf("error %q: want the echoed key replaced by [REDACTED]", e)
		}
	}
	if !strings.Contains(err.Error(), "check the API key") {
		t.Errorf("401 error %q should point at the API key settings", err)
	}
	cfg := m.client.cfg
	for _, s := range []string{cfg.String(), fmt.Sprintf("%v", cfg), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg), m.Name(),
		fmt.Sprintf("%v %+v %#v", m, m, m), fmt.Sprintf("%v %+v %#v", m.Client(), m.Client(), m.Client()), fmt.Sprint(s)} {
		if strings.Contains(s, key) {
			t.Errorf("formatted config leaks the key: %s", s)
		}
	}
	// Credentials in the URL never show either.
	m4, err := New(Config{BaseURL: "http://user:pw-" + key + "@127.0.0.1:1/v1?api_key=" + key, Model: "x", Dialect: DialectLlamaCpp, FIM: "none", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	s4, _ := m4.Start(context.Background(), lm.FIM{})
	_, err = s4.Next(context.Background(), "", 1)
	if err == nil || strings.Contains(err.Error(), key) || strings.Contains(m4.Name(), key) {
		t.Errorf("URL credentials leak: %v / %s", err, m4.Name())
	}
}

func TestOpenAIKeyFallback(t *testing.T) {
	f := newFake(t, map[string]http.HandlerFunc{"/v1/completions": jsonReply(llamaCompletion("a", "length", nil, [][][3]any{{{1, "a", -0.1}}}))})
	t.Setenv(EnvAPIKey, "")
	t.Setenv(EnvOpenAIAPIKey, "sk-openai-fallback")
	m := newTestModel(t, f, Config{Model: "x", Dialect: DialectOpenAI, FIM: "none"})
	s, _ := m.Start(context.Background(), lm.FIM{})
	if _, err := s.Next(context.Background(), "", 1); err != nil {
		t.Fatal(err)
	}
	if f.auth[0] != "Bearer sk-openai-fallback" {
		t.Errorf("Authorization = %q; want OPENAI_API_KEY when REPILOT_API_KEY is empty", f.auth[0])
	}
	t.Setenv(EnvOpenAIAPIKey, "")
	m2 := newTestModel(t, f, Config{Model: "x", Dialect: DialectOpenAI, FIM: "none"})
	s2, _ := m2.Start(context.Background(), lm.FIM{})
	s2.Next(context.Background(), "", 1)
	if f.auth[1] != "" {
		t.Errorf("Authorization = %q; want none without a key", f.auth[1])
	}
}

func TestServerDown(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens here now
	m, err := New(Config{BaseURL: "http://" + addr + "/v1", RetryBackoff: time.Millisecond, MaxRetries: 2})
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Start(context.Background(), lm.FIM{})
	var e *Error
	if !errors.As(err, &e) || !e.Unreachable || e.Attempts != 3 {
		t.Fatalf("Start against a closed port: %v (%+v); want Unreachable after 3 attempts", err, e)
	}
	if !strings.Contains(err.Error(), "is the model server running") || !strings.Contains(err.Error(), addr) {
		t.Errorf("message %q should say the server is not reachable at %s", err, addr)
	}
}

func TestNoLogprobsIsAnError(t *testing.T) {
	f := newFake(t, map[string]http.HandlerFunc{
		"/v1/completions": jsonReply(`{"choices":[{"text":" foo","index":0,"finish_reason":"length","logprobs":null}]}`),
	})
	m := newTestModel(t, f, Config{Model: "llama3", Dialect: DialectOther, FIM: "none"})
	s, _ := m.Start(context.Background(), lm.FIM{})
	if _, ok := s.(lm.Speculator); ok {
		t.Error("DialectOther session must not speculate")
	}
	_, err := s.Next(context.Background(), "", 5)
	if !errors.Is(err, ErrNoLogprobs) || !strings.Contains(err.Error(), "llama3") {
		t.Errorf("err = %v; want ErrNoLogprobs naming the model", err)
	}
	// A server that stops at once and hides its end token: End, not an error.
	f.handlers["/v1/completions"] = jsonReply(`{"choices":[{"text":"","index":0,"finish_reason":"stop","logprobs":null}]}`)
	got, err := s.Next(context.Background(), "", 5)
	if err != nil || len(got) != 1 || !got[0].End {
		t.Errorf("silent stop: %v, %v; want one End candidate", got, err)
	}
}

func TestInfillEndpoint(t *testing.T) {
	native := `{"content":" x","stop":true,"stop_type":"limit","completion_probabilities":[
	  {"id":4,"token":" x","bytes":[32,120],"logprob":-0.25,"top_logprobs":[{"id":4,"token":" x","bytes":[32,120],"logprob":-0.25},{"id":0,"token":"","bytes":[],"logprob":-2}]}]}`
	f := newFake(t, map[string]http.HandlerFunc{"/infill": jsonReply(native)})
	m := newTestModel(t, f, Config{Model: "x", Dialect: DialectLlamaCpp, FIM: "infill"})
	s, err := m.Start(context.Background(), lm.FIM{Prefix: "class A {", Suffix: "}"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Next(context.Background(), "int", 2)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint([]lm.Candidate{{Text: " x", LogProb: -0.25}, {End: true, LogProb: -2}}) {
		t.Errorf("Next = %v", got)
	}
	b := f.last()
	if f.paths[len(f.paths)-1] != "/infill" || b["input_prefix"] != "class A {" || b["input_suffix"] != "}" ||
		b["prompt"] != "int" || b["n_probs"] != 2.0 || b["n_predict"] != 1.0 {
		t.Errorf("infill request %s %v", f.paths[len(f.paths)-1], b)
	}
	// /infill against a non-llama.cpp server is a configuration error.
	m2 := newTestModel(t, f, Config{Model: "x", Dialect: DialectVLLM, FIM: "infill"})
	if _, err := m2.Start(context.Background(), lm.FIM{}); err == nil {
		t.Error("infill with vLLM: want an error")
	}
}

func TestConcurrencyLimitAndCancel(t *testing.T) {
	var inFlight, peak atomic.Int32
	release := make(chan struct{})
	f := newFake(t, map[string]http.HandlerFunc{"/v1/completions": func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		<-release
		inFlight.Add(-1)
		jsonReply(llamaCompletion("a", "length", nil, [][][3]any{{{1, "a", -0.1}}}))(w, r)
	}})
	m := newTestModel(t, f, Config{Model: "x", Dialect: DialectLlamaCpp, FIM: "none", MaxConcurrent: 2})
	s, _ := m.Start(context.Background(), lm.FIM{})
	var wg sync.WaitGroup
	for i := 0; i < 5; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); s.Next(context.Background(), "", 1) }()
	}
	time.Sleep(200 * time.Millisecond)
	close(release)
	wg.Wait()
	if p := peak.Load(); p != 2 {
		t.Errorf("peak concurrent requests = %d, want 2 (MaxConcurrent)", p)
	}

	// Cancellation reaches the caller as context.Canceled.
	block := make(chan struct{})
	defer close(block)
	f.handlers["/v1/completions"] = func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	_, err := s.Next(ctx, "", 1)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestDecodeLogprobsEdgeCases(t *testing.T) {
	// llama.cpp writes the lowest float for log(0); legacy may have nulls.
	pos, has, err := decodeLogprobs(json.RawMessage(`{"content":[{"id":1,"token":"a","logprob":-3.4028234663852886e38,"top_logprobs":[]}]}`))
	if err != nil || !has || !math.IsInf(pos[0].Sampled.LogProb, -1) {
		t.Errorf("lowest float: %+v %v %v", pos, has, err)
	}
	pos, has, err = decodeLogprobs(json.RawMessage(`{"tokens":["a"],"token_logprobs":[null],"top_logprobs":[null]}`))
	if err != nil || !has || len(pos) != 1 || !math.IsInf(pos[0].Sampled.LogProb, -1) || len(pos[0].Top) != 0 {
		t.Errorf("legacy nulls: %+v %v %v", pos, has, err)
	}
	if _, has, _ := decodeLogprobs(json.RawMessage(`null`)); has {
		t.Error("null logprobs must report HasLogprobs false")
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []Config{{}, {BaseURL: "localhost:8080"}, {BaseURL: "http://x/v1", FIM: "gpt"}, {BaseURL: "http://x/v1", Dialect: "tgi"}} {
		if _, err := New(c); err == nil {
			t.Errorf("New(%v): want an error", c)
		}
	}
}

func TestNextResamplesWhenOutputUnusable(t *testing.T) {
	// llama.cpp fails a request whose generated text is a lone byte (HTTP
	// 500). The position's distribution does not depend on the generated
	// token, so Next asks again with the server sampling under other seeds.
	var calls []map[string]any
	unusable := `{"error":{"code":500,"message":"The model produced output that does not match the expected Content-only format","type":"server_error"}}`
	f := newFake(t, nil)
	f.handlers = map[string]http.HandlerFunc{"/v1/completions": func(w http.ResponseWriter, r *http.Request) {
		b := f.last()
		calls = append(calls, b)
		if b["seed"] == 2.0 {
			jsonReply(llamaCompletion("x", "length", []int{2}, [][][3]any{{{77, "\xe4", -0.3}, {5, "x", -1.1}, {6, "y", -1.5}}}))(w, r)
			return
		}
		http.Error(w, unusable, http.StatusInternalServerError)
	}}
	m := newTestModel(t, f, Config{Model: "x", Dialect: DialectLlamaCpp, FIM: "none"})
	s, _ := m.Start(context.Background(), lm.FIM{})
	got, err := s.Next(context.Background(), "", 3)
	if err != nil {
		t.Fatal(err)
	}
	// The partial-UTF-8 token is dropped: the hunk is text.
	if fmt.Sprint(got) != fmt.Sprint([]lm.Candidate{{Text: "x", LogProb: -1.1}, {Text: "y", LogProb: -1.5}}) {
		t.Errorf("Next = %v", got)
	}
	if len(calls) != 3 || calls[0]["temperature"] != 0.0 || calls[1]["temperature"] != 1.0 || calls[1]["seed"] != 1.0 {
		t.Errorf("requests (want greedy, then sampled with seeds 1, 2; a 500 is not retried as is): %v", calls)
	}

	// A proposal that fails this way gives this position's distribution
	// with no proposed token.
	calls = nil
	steps, err := s.(lm.Speculator).Propose(context.Background(), "", lm.ProposeOptions{MaxTokens: 4, K: 3, Temperature: 1, Seed: 9})
	if err != nil || len(steps) != 1 || steps[0].Chosen != -1 || len(steps[0].Top) != 2 {
		t.Errorf("Propose = %+v, %v; want one step with Next's distribution and Chosen -1", steps, err)
	}

	// Other servers: no such retry.
	calls = nil
	m2 := newTestModel(t, f, Config{Model: "x", Dialect: DialectOpenAI, FIM: "none"})
	s2, _ := m2.Start(context.Background(), lm.FIM{})
	if _, err := s2.Next(context.Background(), "", 3); err == nil || len(calls) != 1 {
		t.Errorf("OpenAI dialect: err %v after %d requests; want the 500 after one", err, len(calls))
	}
}

func TestLlamaCppBansLearnedByteTokens(t *testing.T) {
	body := llamaCompletion("x", "length", nil, [][][3]any{{{5, "x", -0.2}, {77, "\xe4", -1.0}, {78, "\x80", -2.0}}})
	f := newFake(t, map[string]http.HandlerFunc{"/v1/completions": jsonReply(body)})
	m := newTestModel(t, f, Config{Model: "x", Dialect: DialectLlamaCpp, FIM: "none"})
	s, _ := m.Start(context.Background(), lm.FIM{})
	if _, err := s.Next(context.Background(), "", 3); err != nil {
		t.Fatal(err)
	}
	if b := f.last(); b["logit_bias"] != nil {
		t.Errorf("first request bans %v; nothing is known yet", b["logit_bias"])
	}
	if _, err := s.(lm.Speculator).Propose(context.Background(), "", lm.ProposeOptions{MaxTokens: 2, K: 3, Temperature: 1}); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(f.last()["logit_bias"]); got != "[[77 false] [78 false]]" {
		t.Errorf("logit_bias = %s; want the two byte tokens banned", got)
	}
}

// SafeURL drops credentials and shows a mistyped address as written.
func TestSafeURL(t *testing.T) {
	for raw, want := range map[string]string{
		"http://user:secret@127.0.0.1:8080/v1?key=x": "http://127.0.0.1:8080/v1",
		"127.0.0.1:9":             "127.0.0.1:9", // no scheme: url.Parse fails; nothing secret in it
		"user:secret@127.0.0.1:9": "(unparsable URL)",
		"localhost:8080/v1":       "localhost:8080/v1",
	} {
		if got := SafeURL(raw); got != want {
			t.Errorf("SafeURL(%q) = %q, want %q", raw, got, want)
		}
	}
}
