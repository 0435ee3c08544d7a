package llm

import (
	"context"
	"fmt"
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

// TestChatPromptsFitTheContext: against a llama-server of 1024 tokens, a
// long query (augmentation, generation) and a long candidate list
// (reranking) are cut to the server's context, by lm/openai's fit with the
// server's tokenizer, instead of being refused with HTTP 400. What is kept
// is the query's start, the repository context's end (the symbols), and the
// best candidates.
func TestChatPromptsFitTheContext(t *testing.T) {
	s := llmtest.New()
	defer s.Close()
	s.ContextTokens = 1024
	s.Chat = func(system, user string) string {
		if strings.Contains(system, "JSON array") {
			return "[2, 1]"
		}
		return "```java\nint x;\n```"
	}
	c, err := NewChat(Config{BaseURL: s.BaseURL(), Model: "chat", Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	c.MaxTokens = 256
	ctx := context.Background()
	var long strings.Builder
	for i := 0; long.Len() < 200<<10; i++ {
		fmt.Fprintf(&long, "word%d ", i)
	}
	query := long.String() + "THE-END"
	rc := RepoContext{Readme: strings.Repeat("readme line\n", 200), Symbols: []string{"pkg.Symbol"}, Lang: "java"}
	if _, err := Augment(ctx, c, query, rc); err != nil {
		t.Errorf("Augment with a 200 KiB query: %v", err)
	}
	if _, err := Generate(ctx, c, query, rc); err != nil {
		t.Errorf("Generate with a 200 KiB query: %v", err)
	}
	var cands []Candidate
	for i := 0; i < 500; i++ {
		cands = append(cands, Candidate{Path: fmt.Sprintf("p/F%d.java", i), Signature: "void m()", Snippet: strings.Repeat("x = x + 1;\n", 50)})
	}
	order, err := Rerank(ctx, c, "find the thing", cands)
	if err != nil || !reflect.DeepEqual(order, []int{1, 0}) {
		t.Errorf("Rerank of 500 candidates = %v, %v", order, err)
	}
	if s.ChatTokens+c.MaxTokens > s.ContextTokens || s.ChatTokens < s.ContextTokens/2 {
		t.Errorf("the largest prompt was %d tokens; want at most %d less the reply's %d, and most of it", s.ChatTokens, s.ContextTokens, c.MaxTokens)
	}
	users := s.ChatUsers
	if len(users) != 3 || !strings.Contains(users[0], "Search query: word0 word1 ") || strings.Contains(users[0], "THE-END") || !strings.Contains(users[0], "pkg.Symbol") ||
		!strings.Contains(users[2], "find the thing") || !strings.Contains(users[2], "[1] p/F0.java") || strings.Contains(users[2], "p/F499.java") {
		t.Errorf("fitted prompts keep the wrong parts (%d prompts): %.300q ... %.300q", len(users), users[0], users[len(users)-1])
	}
}
