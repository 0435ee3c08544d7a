package cli

// wire_test.go tests the model wiring without JDT LS: flags and environment
// fallbacks (modelFlags.resolve), the start-up check against a fake
// OpenAI-compatible server, the API key staying out of every message, and
// bench's backend list.

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/backend"
	"github.com/repilot-lsp/repilot-lsp/lm/openai"
	"github.com/repilot-lsp/repilot-lsp/repair"
)

// envOf is a getenv over a map.
func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestModelFlagsResolve(t *testing.T) {
	defaults := modelFlags{apiKeyEnv: openai.EnvAPIKey, timeout: time.Minute, concurrency: 1, retries: 3}

	cfg, err := defaults.resolve(envOf(nil))
	if err != nil || cfg.Remote() {
		t.Fatalf("no flags, no env: %+v %v; want the n-gram model", cfg, err)
	}

	// The editor plugins' variables.
	env := map[string]string{EnvModelBaseURL: "http://127.0.0.1:8080/v1", EnvModelName: "qwen2.5-coder",
		EnvModelFIM: "qwen", openai.EnvAPIKey: "sk-editor-secret"}
	cfg, err = defaults.resolve(envOf(env))
	if err != nil {
		t.Fatal(err)
	}
	o := cfg.OpenAI
	if o.BaseURL != env[EnvModelBaseURL] || o.Model != "qwen2.5-coder" || o.FIM != "qwen" || o.APIKey != "sk-editor-secret" ||
		o.Timeout != time.Minute || o.MaxConcurrent != 1 || o.MaxRetries != 3 {
		t.Errorf("env fallback: %s %+v", cfg, o.Timeout)
	}
	if s := cfg.String(); strings.Contains(s, "sk-editor-secret") || !strings.Contains(s, "API key: set") {
		t.Errorf("String() = %q: must say the key is set without printing it", s)
	}
	if s, want := cfg.String(), "model server http://127.0.0.1:8080/v1 (model: qwen2.5-coder; prompt: FIM template qwen; dialect: detected; API key: set)"; s != want {
		t.Errorf("String() = %q, want %q", s, want)
	}
	creds := backend.ModelConfig{OpenAI: openai.Config{BaseURL: "http://user:pw@h:1/v1?token=t1"}}
	if s := creds.String(); strings.Contains(s, "pw") || strings.Contains(s, "t1") || !strings.Contains(s, "model server http://h:1/v1 (model: the first one it lists;") {
		t.Errorf("String() = %q: want the URL without user info and query, the defaults in words", s)
	}

	// Flags win over the environment; --api-key-env names another variable.
	f := defaults
	f.baseURL, f.name, f.fim, f.apiKeyEnv, f.retries, f.noSpeculate = "http://h:1/v1", "m", "infill", "MY_KEY", 0, true
	env["MY_KEY"] = "sk-mine"
	cfg, err = f.resolve(envOf(env))
	if err != nil {
		t.Fatal(err)
	}
	o = cfg.OpenAI
	if o.BaseURL != "http://h:1/v1" || o.Model != "m" || o.FIM != "infill" || o.APIKey != "sk-mine" || o.MaxRetries >= 0 || !o.NoSpeculate {
		t.Errorf("flags: %s retries %d speculate %v", cfg, o.MaxRetries, !o.NoSpeculate)
	}

	// The server's context: the flag wins over the environment; not a
	// number, or under 64 tokens, is an error naming where it came from.
	env[openai.EnvContextTokens] = "2048"
	if cfg, err = f.resolve(envOf(env)); err != nil || cfg.OpenAI.ContextTokens != 2048 {
		t.Errorf("$%s=2048: context %d, %v", openai.EnvContextTokens, cfg.OpenAI.ContextTokens, err)
	}
	fc := f
	fc.context = "512"
	if cfg, err = fc.resolve(envOf(env)); err != nil || cfg.OpenAI.ContextTokens != 512 {
		t.Errorf("--model-context 512: context %d, %v", cfg.OpenAI.ContextTokens, err)
	}
	fc.context = "8k"
	if _, err := fc.resolve(envOf(env)); err == nil || !strings.Contains(err.Error(), "--model-context") {
		t.Errorf("--model-context 8k: %v, want an error naming the flag", err)
	}
	env[openai.EnvContextTokens] = "10"
	if _, err := f.resolve(envOf(env)); err == nil || !strings.Contains(err.Error(), "$"+openai.EnvContextTokens) {
		t.Errorf("$%s=10: %v, want an error naming the variable", openai.EnvContextTokens, err)
	}
	delete(env, openai.EnvContextTokens)

	// A named key variable that is unset is an error naming the variable.
	delete(env, "MY_KEY")
	if _, err := f.resolve(envOf(env)); err == nil || !strings.Contains(err.Error(), "MY_KEY") {
		t.Errorf("unset --api-key-env variable: %v", err)
	}
	// OPENAI_API_KEY is the last fallback.
	cfg, _ = defaults.resolve(envOf(map[string]string{EnvModelBaseURL: "http://h/v1", openai.EnvOpenAIAPIKey: "sk-oa"}))
	if cfg.OpenAI.APIKey != "sk-oa" {
		t.Errorf("OPENAI_API_KEY fallback: %s", cfg)
	}
}

// fakeLlama is a minimal llama-server: /v1/models and /v1/completions with
// llama.cpp's logprobs shape (or none, when noLogprobs is set). It records the
// Authorization headers it saw.
type fakeLlama struct {
	*httptest.Server
	mu         sync.Mutex
	auth       []string
	noLogprobs bool
}

func newFakeLlama(t *testing.T) *fakeLlama {
	f := &fakeLlama{}
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/models", func(w http.ResponseWriter, r *http.Request) {
		f.record(r)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"object":"list","data":[{"id":"fake.gguf","object":"model","created":1,"owned_by":"llamacpp"}]}`))
	})
	mux.HandleFunc("/v1/completions", func(w http.ResponseWriter, r *http.Request) {
		f.record(r)
		w.Header().Set("Content-Type", "application/json")
		var lp any
		if !f.noLogprobs {
			tok := map[string]any{"id": 16, "token": "1", "bytes": []int{'1'}, "logprob": -0.1}
			tok["top_logprobs"] = []any{map[string]any{"id": 16, "token": "1", "bytes": []int{'1'}, "logprob": -0.1}}
			lp = map[string]any{"content": []any{tok}}
		}
		json.NewEncoder(w).Encode(map[string]any{"object": "text_completion",
			"choices": []any{map[string]any{"text": "1", "index": 0, "finish_reason": "length", "logprobs": lp}}})
	})
	f.Server = httptest.NewServer(mux)
	t.Cleanup(f.Close)
	return f
}

func (f *fakeLlama) record(r *http.Request) {
	f.mu.Lock()
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	f.mu.Unlock()
}

func TestCheckModelAgainstFakeServer(t *testing.T) {
	f := newFakeLlama(t)
	flags := modelFlags{baseURL: f.URL + "/v1", apiKeyEnv: "FAKE_KEY", timeout: 5 * time.Second, concurrency: 1, retries: 0}
	cfg, err := flags.resolve(envOf(map[string]string{"FAKE_KEY": "sk-fake-secret"}))
	if err != nil {
		t.Fatal(err)
	}
	if err := backend.CheckModel(context.Background(), cfg); err != nil {
		t.Fatalf("working server: %v", err)
	}
	f.mu.Lock()
	auth := f.auth
	f.mu.Unlock()
	if len(auth) != 2 || auth[0] != "Bearer sk-fake-secret" || auth[1] != "Bearer sk-fake-secret" {
		t.Errorf("Authorization headers %q: want the key from $FAKE_KEY on both requests", auth)
	}

	f.noLogprobs = true
	err = backend.CheckModel(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), "no logprobs") || strings.Contains(err.Error(), "sk-fake-secret") {
		t.Errorf("server without logprobs: %v", err)
	}
	if cfg, err := (backend.ModelConfig{}).Server(); cfg != nil || err != nil {
		t.Errorf("n-gram config builds %v, %v; want no server model", cfg, err)
	}
	if err := backend.CheckModel(context.Background(), backend.ModelConfig{}); err != nil {
		t.Errorf("n-gram model check: %v", err)
	}
	// The pool trains an n-gram model when LM is nil: it must be a nil
	// interface, not a nil *openai.Model.
	if m, err := (backend.ModelConfig{}).LM(); m != nil || err != nil {
		t.Errorf("n-gram config: LM() = %#v, %v; want a nil lm.Model", m, err)
	}
	if m, err := cfg.LM(); m == nil || err != nil {
		t.Errorf("server config: LM() = %v, %v", m, err)
	}
}

// TestRepairFailsFastWhenServerDown runs the repair command with the editor
// plugins' variables pointing at a closed port: it must fail before any JDT
// LS is started, say the server is not reachable, and never print the key.
func TestRepairFailsFastWhenServerDown(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	t.Setenv(EnvModelBaseURL, "http://"+addr+"/v1")
	t.Setenv(openai.EnvAPIKey, "sk-never-printed")
	started := false
	old := newRepairer
	newRepairer = func(c backend.Config) (repair.Repairer, error) { started = true; return old(c) }
	defer func() { newRepairer = old }()

	root := writeProject(t)
	var out, errb bytes.Buffer
	f := repairFlags{project: root, file: "src/A.java", lines: "3", sampling: samplingFlags{samples: 1, maxTokens: 8, temperature: 1, topP: 1}, keep: 1, variant: "full",
		model: modelFlags{apiKeyEnv: openai.EnvAPIKey, timeout: 5 * time.Second, concurrency: 1}}
	began := time.Now()
	err = runRepair(context.Background(), f, nil, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "is the model server running") || !strings.Contains(err.Error(), addr) {
		t.Fatalf("err = %v; want a clear 'server not reachable' error naming %s", err, addr)
	}
	if started {
		t.Error("the repair service (JDT LS) was built although the model server is down")
	}
	if time.Since(began) > 10*time.Second {
		t.Errorf("took %s to report a closed port", time.Since(began))
	}
	for _, s := range []string{err.Error(), out.String(), errb.String()} {
		if strings.Contains(s, "sk-never-printed") {
			t.Errorf("the API key was printed: %q", s)
		}
	}
	if !strings.Contains(errb.String(), "API key: set") {
		t.Errorf("progress should name the model configuration (key: set): %q", errb.String())
	}
}

func TestBenchBackends(t *testing.T) {
	remote := backend.ModelConfig{OpenAI: openai.Config{BaseURL: "http://h/v1"}}
	for _, tc := range []struct {
		names []string
		model backend.ModelConfig
		want  string
		err   string
	}{
		{nil, backend.ModelConfig{}, "ngram", ""},
		{nil, remote, "ngram,openai", ""},
		{[]string{"openai"}, remote, "openai", ""},
		{[]string{"ngram", "OpenAI", "ngram"}, remote, "ngram,openai", ""},
		{[]string{"openai"}, backend.ModelConfig{}, "", "--model-base-url"},
		{[]string{"gpt"}, remote, "", "unknown backend"},
	} {
		got, err := benchBackends(tc.names, tc.model)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%v: err %v, want %q", tc.names, err, tc.err)
			}
			continue
		}
		if err != nil || strings.Join(got, ",") != tc.want {
			t.Errorf("%v (remote %v): %v %v, want %s", tc.names, tc.model.Remote(), got, err, tc.want)
		}
	}
}
