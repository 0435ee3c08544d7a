package llm

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/search/llm/llmtest"
)

func TestEmbedderOrderBatchRetry(t *testing.T) {
	s := llmtest.New()
	defer s.Close()
	e, err := NewEmbedder(Config{BaseURL: s.BaseURL(), Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	e.Batch = 2
	s.FailNext = 1 // the first request fails with HTTP 503 and is retried
	texts := []string{"alpha", "beta", "", "alpha"}
	vs, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 4 || !reflect.DeepEqual(vs[0], vs[3]) || reflect.DeepEqual(vs[0], vs[1]) {
		t.Errorf("vectors not in input order: %v", vs)
	}
	if calls, inputs, _ := s.Counts(); calls != 2 || inputs != 4 {
		t.Errorf("calls %d inputs %d, want 2 batches of 2", calls, inputs)
	}
	if _, err := NewEmbedder(Config{BaseURL: s.BaseURL()}); err == nil {
		t.Error("no model accepted")
	}
}

func TestEmbedderBadServer(t *testing.T) {
	s := llmtest.New()
	defer s.Close()
	s.Embed = func(t string) []float32 {
		if t == "short" {
			return []float32{1}
		}
		return []float32{1, 2}
	}
	e, _ := NewEmbedder(Config{BaseURL: s.BaseURL(), Model: "m", Retries: -1})
	if _, err := e.Embed(context.Background(), []string{"a", "short"}); err == nil {
		t.Error("vectors of unequal length accepted")
	}
	s.FailNext = 5
	if _, err := e.Embed(context.Background(), []string{"a"}); err == nil {
		t.Error("HTTP 503 without retries succeeded")
	}
}

func TestChatTasks(t *testing.T) {
	s := llmtest.New()
	defer s.Close()
	s.Chat = func(system, user string) string {
		switch {
		case strings.Contains(system, "Rewrite the search query"):
			return "<think>hmm</think>Rewritten query: Read the config file into a map."
		case strings.Contains(system, "fenced"):
			return "Here:\n```python\ndef read_config(path):\n    return {}\n```\nand\n```python\ndef helper():\n    pass\n```"
		case strings.Contains(system, "JSON array"):
			return "Ranking: [3, 1, 3, 9, 2]"
		}
		return ""
	}
	c, err := NewChat(Config{BaseURL: s.BaseURL(), Model: "chat"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rc := RepoContext{Readme: "A config tool.", Packages: []string{"conf"}, Symbols: []string{"conf.load"}, Lang: "python"}
	aug, err := Augment(ctx, c, "read config", rc)
	if err != nil || aug != "Read the config file into a map." {
		t.Errorf("Augment = %q, %v", aug, err)
	}
	if u := s.ChatUsers[0]; !strings.Contains(u, "A config tool.") || !strings.Contains(u, "conf.load") || !strings.Contains(u, "read config") {
		t.Errorf("augmentation prompt lacks repository context: %q", u)
	}
	if temp, ok := s.Requests[0]["temperature"].(float64); !ok || temp > 1e-6 {
		t.Errorf("temperature sent: %v (want ~0, present)", s.Requests[0]["temperature"])
	}
	code, err := Generate(ctx, c, aug, rc)
	if err != nil || code != "def read_config(path):\n    return {}\n\ndef helper():\n    pass" {
		t.Errorf("Generate = %q, %v", code, err)
	}
	order, err := Rerank(ctx, c, "q", []Candidate{{Path: "a"}, {Path: "b"}, {Path: "c"}})
	if err != nil || !reflect.DeepEqual(order, []int{2, 0, 1}) {
		t.Errorf("Rerank = %v, %v", order, err)
	}
}

func TestParseRankingAndExtractCode(t *testing.T) {
	if got := ParseRanking("2, 2, 1 and 7", 3); !reflect.DeepEqual(got, []int{1, 0}) {
		t.Errorf("ParseRanking = %v", got)
	}
	if got := ParseRanking("nothing", 3); len(got) != 0 {
		t.Errorf("ParseRanking = %v", got)
	}
	if got := ExtractCode("int f() { return 1; }"); got != "int f() { return 1; }" {
		t.Errorf("bare code: %q", got)
	}
	if got := ExtractCode("```java\nclass A {}\n"); got != "class A {}" {
		t.Errorf("unterminated fence: %q", got)
	}
}

func TestEmbedderCutsTooLongInputs(t *testing.T) {
	s := llmtest.New()
	defer s.Close()
	s.MaxInputBytes = 100
	e, _ := NewEmbedder(Config{BaseURL: s.BaseURL(), Model: "m"})
	long := strings.Repeat("alpha beta ", 30) // 330 bytes
	vs, err := e.Embed(context.Background(), []string{"short", long})
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 2 || !reflect.DeepEqual(vs[0], s.Embed("short")) {
		t.Errorf("vectors %v", vs)
	}
	if reflect.DeepEqual(vs[1], s.Embed("short")) || len(vs[1]) != 64 {
		t.Errorf("long input vector %v", vs[1])
	}
	s.MaxInputBytes = 1 // nothing fits: the error comes back
	if _, err := e.Embed(context.Background(), []string{long}); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("err = %v", err)
	}
}

// llama-server answers HTTP 500 when its chat template's reply parser
// rejects the model's text; the same request would fail the same way, so
// the client does not retry it and says what to change on the server.
func TestChatUnparsedReplyNotRetried(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, `{"error":{"code":500,"message":"The model produced output that does not match the expected peg-native format","type":"server_error"}}`)
	}))
	defer srv.Close()
	c, err := NewChat(Config{BaseURL: srv.URL + "/v1", Model: "m", Retries: 2})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Complete(context.Background(), "s", "u")
	if err == nil || !strings.Contains(err.Error(), "--no-jinja") {
		t.Errorf("error %v: want the --no-jinja hint", err)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("%d requests, want 1 (not retried)", n)
	}
}
