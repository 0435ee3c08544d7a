// Package llmtest is a fake OpenAI-compatible server for tests: it speaks the
// real wire format of POST /v1/embeddings and POST /v1/chat/completions on an
// httptest server, with replies computed by functions the test supplies, so
// tests exercise the real HTTP client path without a network or a model.
package llmtest

import (
	"encoding/json"
	"fmt"
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
	// ContextTokens, when positive, makes the server a llama-server with
	// that context: GET /v1/models (owned by llamacpp), GET /props (n_ctx),
	// POST /tokenize (a token per 4 bytes of "content", rounded up), and
	// /v1/chat/completions refuses with HTTP 400, in llama-server's words,
	// a request whose messages (counted alike) and max_tokens exceed it.
	// Set it before the first request.
	ContextTokens int
	// ChatTokens is the largest count of a chat request's messages seen
	// (with ContextTokens set).
	ChatTokens int

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
	mux.HandleFunc("/v1/models", s.llama(func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": []any{map[string]any{"id": "fake", "object": "model", "owned_by": "llamacpp"}}})
	}))
	mux.HandleFunc("/props", s.llama(func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"default_generation_settings": map[string]any{"n_ctx": s.ContextTokens}})
	}))
	mux.HandleFunc("/tokenize", s.llama(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Content string `json:"content"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		json.NewEncoder(w).Encode(map[string]any{"tokens": make([]int, tokens(req.Content))})
	}))
	s.Server = httptest.NewServer(mux)
	return s
}

// BaseURL is the URL clients are configured with ("http://127.0.0.1:N/v1").
func (s *Server) BaseURL() string { return s.URL + "/v1" }

// tokens is the fake tokenizer's count: a token per 4 bytes, rounded up.
func tokens(text string) int { return (len(text) + 3) / 4 }

// llama serves h only when ContextTokens is set (else 404, as an OpenAI
// server without llama.cpp's endpoints).
func (s *Server) llama(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.ContextTokens <= 0 {
			http.Error(w, `{"error":{"message":"not found","type":"not_found"}}`, http.StatusNotFound)
			return
		}
		h(w, r)
	}
}

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
	n := tokens(system) + tokens(user)
	s.ChatTokens = max(s.ChatTokens, n)
	s.mu.Unlock()
	if s.ContextTokens > 0 {
		maxTokens, _ := req["max_tokens"].(float64)
		if n+int(maxTokens) > s.ContextTokens {
			w.WriteHeader(http.StatusBadRequest)
			json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": 400, "type": "exceed_context_size_error",
				"message": fmt.Sprintf("request (%d tokens) exceeds the available context size (%d tokens), try increasing it", n+int(maxTokens), s.ContextTokens)}})
			return
		}
	}
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
