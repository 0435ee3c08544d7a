// Package llmtest is a fake OpenAI-compatible server for tests: it speaks the
// real wire format of POST /v1/embeddings and POST /v1/chat/completions on an
// httptest server, with replies computed by functions the test supplies, so
// tests exercise the real HTTP client path without a network or a model.
package llmtest

import (
	"encoding/json"
	"hash/fnv"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"unicode"
)

// Server is a fake OpenAI-compatible server.
type Server struct {
	*httptest.Server
	// Embed maps one input text to its vector (default: BagOfWords(64)).
	Embed func(text string) []float32
	// Chat answers a system and a user message (default: echoes the user
	// message).
	Chat func(system, user string) string
	// FailNext makes the next n requests answer HTTP 503 (overloaded).
	FailNext int
	// MaxInputBytes, when positive, makes /v1/embeddings refuse a request
	// with an input longer than this with HTTP 400, as llama-server does
	// beyond the model's context.
	MaxInputBytes int

	mu          sync.Mutex
	EmbedCalls  int      // requests to /v1/embeddings
	EmbedInputs int      // texts embedded, over all requests
	ChatCalls   int      // requests to /v1/chat/completions
	ChatUsers   []string // user messages received, in order
	Requests    []map[string]any
}

// New starts a server; close it with Close.
func New() *Server {
	s := &Server{Embed: BagOfWords(64), Chat: func(_, user string) string { return user }}
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/embeddings", s.embeddings)
	mux.HandleFunc("/v1/chat/completions", s.chat)
	s.Server = httptest.NewServer(mux)
	return s
}

// BaseURL is the URL clients are configured with ("http://127.0.0.1:N/v1").
func (s *Server) BaseURL() string { return s.URL + "/v1" }

func (s *Server) fail(w http.ResponseWriter) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.FailNext > 0 {
		s.FailNext--
		http.Error(w, `{"error":{"message":"overloaded","type":"server_error"}}`, http.StatusServiceUnavailable)
		return true
	}
	return false
}

func (s *Server) embeddings(w http.ResponseWriter, r *http.Request) {
	if s.fail(w) {
		return
	}
	var req struct {
		Input []string `json:"input"`
		Model string   `json:"model"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	for _, t := range req.Input {
		if s.MaxInputBytes > 0 && len(t) > s.MaxInputBytes {
			w.WriteHeader(http.StatusBadRequest)
			json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": 400, "type": "exceed_context_size_error",
				"message": "input (774 tokens) is larger than the max context size (512 tokens). skipping"}})
			return
		}
	}
	s.mu.Lock()
	s.EmbedCalls++
	s.EmbedInputs += len(req.Input)
	s.mu.Unlock()
	type item struct {
		Object    string    `json:"object"`
		Embedding []float32 `json:"embedding"`
		Index     int       `json:"index"`
	}
	items := make([]item, len(req.Input))
	// Answer in reverse order: clients must use "index", not position.
	for i, t := range req.Input {
		items[len(items)-1-i] = item{"embedding", s.Embed(t), i}
	}
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": items, "model": req.Model})
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	if s.fail(w) {
		return
	}
	var req map[string]any
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var system, user string
	msgs, _ := req["messages"].([]any)
	for _, m := range msgs {
		mm, _ := m.(map[string]any)
		c, _ := mm["content"].(string)
		switch mm["role"] {
		case "system":
			system = c
		case "user":
			user = c
		}
	}
	s.mu.Lock()
	s.ChatCalls++
	s.ChatUsers = append(s.ChatUsers, user)
	s.Requests = append(s.Requests, req)
	s.mu.Unlock()
	reply := s.Chat(system, user)
	json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-test", "object": "chat.completion", "model": req["model"],
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": reply}}},
	})
}

// Counts returns the request counters under the lock.
func (s *Server) Counts() (embedCalls, embedInputs, chatCalls int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.EmbedCalls, s.EmbedInputs, s.ChatCalls
}

// BagOfWords returns an embedding function that hashes lower-cased words
// (split at non-letters and camelCase humps) into dim buckets and
// L2-normalises: texts sharing words get a high cosine. It is a stand-in for
// a real model, good enough to check that the dense streams rank what they
// are given.
func BagOfWords(dim int) func(string) []float32 {
	return func(text string) []float32 {
		v := make([]float32, dim)
		word := []rune{}
		flush := func() {
			if len(word) > 1 {
				h := fnv.New32a()
				h.Write([]byte(strings.ToLower(string(word))))
				v[h.Sum32()%uint32(dim)]++
			}
			word = word[:0]
		}
		var prev rune
		for _, r := range text {
			switch {
			case !unicode.IsLetter(r):
				flush()
			case unicode.IsUpper(r) && unicode.IsLower(prev):
				flush()
				word = append(word, r)
			default:
				word = append(word, r)
			}
			prev = r
		}
		flush()
		var n float64
		for _, x := range v {
			n += float64(x * x)
		}
		if n == 0 {
			v[0] = 1
			return v
		}
		for i := range v {
			v[i] /= float32(math.Sqrt(n))
		}
		return v
	}
}
