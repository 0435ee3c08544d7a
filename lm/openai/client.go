package openai

// client.go is Client: raw-prompt completions (/v1/completions), model
// listing, and llama.cpp's /infill, on top of github.com/sashabaranov/go-openai
// and the shared transport internal/oaihttp.
//
// Why a custom HTTPDoer (ClientConfig.HTTPClient) rather than go-openai alone
// or a hand-written client: go-openai builds URLs (OpenAI, Azure), sets the
// auth headers and decodes API errors, which we keep; but its
// CompletionRequest cannot carry the sampler fields a server needs for exact
// speculative sampling (top_k, min_p, samplers, cache_prompt), it drops
// temperature 0 (omitempty), and its response type loses llama.cpp's logprobs
// shape. The doer sits at the one place that sees both bodies: it merges the
// per-call extra fields into the JSON request, keeps a copy of the raw
// response body for logprobs decoding, and owns the transport policy
// (concurrency limit, retries with backoff on 429/5xx and refused
// connections, response size bound): internal/oaihttp.Transport, shared
// with search/llm. go-openai's own request builder is unexported, so a
// RoundTripper-level hook is the only seam that needs no fork.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/repilot-lsp/repilot-lsp/internal/oaihttp"
)

// Client talks to one OpenAI-compatible server. It is safe for concurrent
// use; at most Config.MaxConcurrent requests are in flight.
type Client struct {
	cfg  Config
	api  *goopenai.Client
	tr   *oaihttp.Transport
	red  oaihttp.Redactor
	root string // BaseURL without a trailing /v1: where /infill lives

	requests atomic.Int64 // logical requests (one per Complete/Infill/Embed/...)

	mu    sync.Mutex
	model string // Config.Model, or the detected one (setModel)
}

func (c *Client) modelName() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.model
}

func (c *Client) setModel(name string) {
	c.mu.Lock()
	c.model = name
	c.mu.Unlock()
}

// NewClient validates cfg (see Config) and returns a client. It does not
// contact the server.
func NewClient(cfg Config) (*Client, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	// The config holds "no retry" as 0 (withDefaults); the transport reads
	// 0 as unset and -1 as none.
	retries := cfg.MaxRetries
	if retries == 0 {
		retries = -1
	}
	tr, err := oaihttp.New(oaihttp.Options{Timeout: cfg.Timeout, MaxConcurrent: cfg.MaxConcurrent,
		MaxRetries: retries, RetryBackoff: cfg.RetryBackoff, MaxResponseBytes: cfg.MaxResponseBytes, Logf: cfg.Logf})
	if err != nil {
		return nil, fmt.Errorf("lm/openai: %w", err)
	}
	gc := goopenai.DefaultConfig(cfg.APIKey)
	gc.BaseURL = cfg.BaseURL
	gc.HTTPClient = tr
	root := strings.TrimSuffix(cfg.BaseURL, "/v1")
	return &Client{cfg: cfg, api: goopenai.NewClientWithConfig(gc), tr: tr, red: oaihttp.NewRedactor(cfg.APIKey), root: root, model: cfg.Model}, nil
}

// String describes the client without its API key (see Config.String).
func (c *Client) String() string { return "openai.Client{" + c.cfg.String() + "}" }

// GoString is String.
func (c *Client) GoString() string { return c.String() }

// Requests returns the number of logical requests sent so far (retries of
// one request count once).
func (c *Client) Requests() int64 { return c.requests.Load() }

// Attempts returns the number of HTTP requests sent so far, retries included.
func (c *Client) Attempts() int64 { return c.tr.Attempts() }

// CompletionRequest is a raw-prompt completion (OpenAI "Create completion",
// legacy /v1/completions). Zero fields are left to the server's defaults,
// except Temperature, which is always sent (0 is greedy).
type CompletionRequest struct {
	Prompt      string
	MaxTokens   int
	Logprobs    int // top alternatives per position (OpenAI allows up to 20)
	Temperature float64
	TopP        float64
	N           int
	Seed        *int
	Stop        []string
	// LogitBias maps token ids to a bias added to their logits; -100 bans a
	// token. llama.cpp applies it before sampling but reports top_logprobs
	// before the bias.
	LogitBias map[int]int
	// Extra holds server-specific body fields (top_k, min_p, cache_prompt,
	// ...), merged over the standard ones.
	Extra map[string]any
}

// TokenLogprob is one token with its natural-log probability. ID is -1 when
// the server does not report ids; Text is the token's exact bytes.
type TokenLogprob = tokenLP

// Position is one generated position: the sampled token and the top
// alternatives, best first.
type Position = position

// Choice is one returned completion.
type Choice struct {
	Text        string
	Finish      string // "stop" (end token or stop string), "length", or ""
	Positions   []Position
	HasLogprobs bool // false when the server sent no logprobs for this choice
	// Tokens are the generated token ids, when the server reports them
	// (llama.cpp /infill always; /v1/completions with "verbose": true).
	Tokens []int
}

// cutRetries is how often a completion or infill request is sent again
// after the server cut the connection mid-request: once, logged (Config.Logf).
// A repair sends hundreds of short requests, and one cut (a server restarted
// by its supervisor, a proxy in between dropping a connection) should not
// fail it; a server that cuts the same request twice is dying of it, and
// the error says so (the cut, then what the retry met).
const cutRetries = 1

// CreateCompletion sends a completion request and decodes every choice, with
// logprobs in either the llama.cpp or the OpenAI legacy shape.
func (c *Client) CreateCompletion(ctx context.Context, r CompletionRequest) ([]Choice, error) {
	req := goopenai.CompletionRequest{
		Model:     c.modelName(),
		Prompt:    r.Prompt,
		MaxTokens: r.MaxTokens,
		LogProbs:  r.Logprobs,
		N:         r.N,
		Seed:      r.Seed,
		Stop:      r.Stop,
		TopP:      float32(r.TopP),
	}
	if len(r.LogitBias) > 0 {
		req.LogitBias = make(map[string]int, len(r.LogitBias))
		for id, b := range r.LogitBias {
			req.LogitBias[strconv.Itoa(id)] = b
		}
	}
	extra := map[string]any{"temperature": r.Temperature}
	for k, v := range r.Extra {
		extra[k] = v
	}
	cl := &oaihttp.Call{Extra: extra, CutRetries: cutRetries}
	c.requests.Add(1)
	if _, err := c.api.CreateCompletion(oaihttp.WithCall(ctx, cl), req); err != nil {
		return nil, c.wrap(ctx, "completions", c.cfg.BaseURL+"/completions", err, cl)
	}
	var resp struct {
		Choices []struct {
			Text         string          `json:"text"`
			Index        int             `json:"index"`
			FinishReason *string         `json:"finish_reason"`
			LogProbs     json.RawMessage `json:"logprobs"`
		} `json:"choices"`
		Verbose *struct {
			Tokens []int `json:"tokens"`
		} `json:"__verbose"`
	}
	if err := json.Unmarshal(cl.Body, &resp); err != nil {
		return nil, c.protocolErr("completions", c.cfg.BaseURL+"/completions", "decoding the response: "+err.Error())
	}
	out := make([]Choice, 0, len(resp.Choices))
	for _, ch := range resp.Choices {
		pos, has, err := decodeLogprobs(ch.LogProbs)
		if err == nil {
			err = c.checkTokens(pos)
		}
		if err != nil {
			return nil, c.protocolErr("completions", c.cfg.BaseURL+"/completions", err.Error())
		}
		fin := ""
		if ch.FinishReason != nil {
			fin = *ch.FinishReason
		}
		out = append(out, Choice{Text: ch.Text, Finish: fin, Positions: pos, HasLogprobs: has})
	}
	if resp.Verbose != nil && len(out) == 1 {
		out[0].Tokens = resp.Verbose.Tokens
	}
	if len(out) == 0 {
		return nil, c.protocolErr("completions", c.cfg.BaseURL+"/completions", "the response has no choices")
	}
	return out, nil
}

// InfillRequest is a llama.cpp /infill request: the server builds the FIM
// prompt from the model's own FIM tokens; Prompt is text already generated
// for the middle (appended after the middle marker).
type InfillRequest struct {
	Prefix, Suffix, Prompt string
	MaxTokens              int
	Probs                  int // n_probs: top alternatives per position
	Temperature            float64
	Seed                   *int
	Extra                  map[string]any
}

// Infill sends a llama.cpp /infill request (llama.cpp only).
func (c *Client) Infill(ctx context.Context, r InfillRequest) (Choice, error) {
	body := map[string]any{
		"input_prefix": r.Prefix,
		"input_suffix": r.Suffix,
		"prompt":       r.Prompt,
		"n_predict":    r.MaxTokens,
		"n_probs":      r.Probs,
		"temperature":  r.Temperature,
	}
	if name := c.modelName(); name != "" {
		body["model"] = name
	}
	if r.Seed != nil {
		body["seed"] = *r.Seed
	}
	for k, v := range r.Extra {
		body[k] = v
	}
	endpoint := c.root + "/infill"
	data, err := c.raw(ctx, "infill", endpoint, body)
	if err != nil {
		return Choice{}, err
	}
	cp, err := parseInfill(data)
	if err == nil {
		err = c.checkTokens(cp.Positions)
	}
	if err != nil {
		return Choice{}, c.protocolErr("infill", endpoint, err.Error())
	}
	return Choice{Text: cp.Text, Finish: cp.Finish, Positions: cp.Positions, HasLogprobs: cp.HasLogprobs, Tokens: cp.Tokens}, nil
}

// raw sends one JSON request to a llama.cpp endpoint outside the OpenAI API
// (GET with a nil body, else POST) and returns the response body of a 2xx
// answer; op names the request in errors.
func (c *Client) raw(ctx context.Context, op, endpoint string, body any) ([]byte, error) {
	method, rd := http.MethodGet, io.Reader(nil)
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return nil, c.protocolErr(op, endpoint, err.Error())
		}
		method, rd = http.MethodPost, bytes.NewReader(data)
	}
	cl := &oaihttp.Call{CutRetries: cutRetries}
	c.requests.Add(1)
	req, err := http.NewRequestWithContext(oaihttp.WithCall(ctx, cl), method, endpoint, rd)
	if err != nil {
		return nil, c.protocolErr(op, endpoint, err.Error())
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	if c.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	resp, err := c.tr.Do(req)
	if err != nil {
		return nil, c.wrap(ctx, op, endpoint, err, cl)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return nil, c.statusErr(op, endpoint, resp.StatusCode, errorMessage(cl.Body), cl)
	}
	return cl.Body, nil
}

// Tokenize returns how many tokens the server's tokenizer makes of text
// (llama.cpp's POST /tokenize, special-token markers parsed, no BOS added).
// More tokens than a token per byte of text (plus 64) is a protocol error.
// Servers without the endpoint answer with an *Error (HTTP 404).
func (c *Client) Tokenize(ctx context.Context, text string) (int, error) {
	endpoint := c.root + "/tokenize"
	body, err := c.raw(ctx, "tokenize", endpoint, map[string]any{"content": text})
	if err != nil {
		return 0, err
	}
	var r struct {
		Tokens []json.RawMessage `json:"tokens"`
	}
	if err := json.Unmarshal(body, &r); err != nil || r.Tokens == nil {
		return 0, c.protocolErr("tokenize", endpoint, "the response has no tokens")
	}
	if n := len(r.Tokens); n > len(text)+maxTokenCountSlack {
		return 0, c.protocolErr("tokenize", endpoint, fmt.Sprintf("%d tokens for %d bytes of text", n, len(text)))
	}
	return len(r.Tokens), nil
}

// maxTokenCountSlack bounds a server's token count of a text: no tokenizer
// makes more than a token per byte, plus the special tokens it adds.
const maxTokenCountSlack = 64

// TokenizeVLLM returns how many tokens vLLM's tokenizer makes of text (vLLM's
// POST /tokenize at the server's root, the completion form: {"model",
// "prompt", "add_special_tokens": false}, answered {"count",
// "max_model_len", "tokens"}; vLLM's entrypoints/openai/protocol.py,
// TokenizeCompletionRequest and TokenizeResponse). The count is "count",
// else the length of "tokens"; a count below 0 or above a token per byte of
// text (plus 64) is a protocol error. Servers without the endpoint answer
// with an *Error (HTTP 404).
func (c *Client) TokenizeVLLM(ctx context.Context, text string) (int, error) {
	endpoint := c.root + "/tokenize"
	req := map[string]any{"prompt": text, "add_special_tokens": false}
	if name := c.modelName(); name != "" {
		req["model"] = name
	}
	body, err := c.raw(ctx, "tokenize", endpoint, req)
	if err != nil {
		return 0, err
	}
	var r struct {
		Count  *int64            `json:"count"`
		Tokens []json.RawMessage `json:"tokens"`
	}
	if err := json.Unmarshal(body, &r); err != nil || (r.Count == nil && r.Tokens == nil) {
		return 0, c.protocolErr("tokenize", endpoint, "the response has neither count nor tokens")
	}
	n := int64(len(r.Tokens))
	if r.Count != nil {
		n = *r.Count
	}
	if n < 0 || n > int64(len(text))+maxTokenCountSlack {
		return 0, c.protocolErr("tokenize", endpoint, fmt.Sprintf("a count of %d tokens for %d bytes of text", n, len(text)))
	}
	return int(n), nil
}

// ContextSize returns the context of one request, in tokens, that llama.cpp's
// GET /props reports (default_generation_settings.n_ctx: the context of one
// slot, llama-server's -c divided by -np), or 0 when it reports none.
func (c *Client) ContextSize(ctx context.Context) (int, error) {
	endpoint := c.root + "/props"
	body, err := c.raw(ctx, "props", endpoint, nil)
	if err != nil {
		return 0, err
	}
	var r struct {
		Settings struct {
			NCtx int `json:"n_ctx"`
		} `json:"default_generation_settings"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return 0, c.protocolErr("props", endpoint, "decoding the response: "+err.Error())
	}
	return max(r.Settings.NCtx, 0), nil
}

// checkTokens fails for a token longer than Config.MaxTokenBytes, sampled
// or among the alternatives: no tokenizer has such tokens, and appending one
// to the next prompt would grow it without bound.
func (c *Client) checkTokens(pos []position) error {
	for i, p := range pos {
		for _, t := range append([]tokenLP{p.Sampled}, p.Top...) {
			if len(t.Text) > c.cfg.MaxTokenBytes {
				return fmt.Errorf("the token at position %d is %d bytes long, over the limit of %d bytes (set by $%s or Config.MaxTokenBytes)",
					i, len(t.Text), c.cfg.MaxTokenBytes, EnvMaxTokenBytes)
			}
		}
	}
	return nil
}

// ModelInfo is one entry of GET /v1/models.
type ModelInfo struct {
	ID      string
	OwnedBy string // "llamacpp" for llama-server, "vllm" for vLLM
	// MaxModelLen is vLLM's max_model_len, the model's context in tokens (0:
	// not reported).
	MaxModelLen int
}

// Models lists the server's models (GET /v1/models).
func (c *Client) Models(ctx context.Context) ([]ModelInfo, error) {
	cl := &oaihttp.Call{}
	c.requests.Add(1)
	list, err := c.api.ListModels(oaihttp.WithCall(ctx, cl))
	if err != nil {
		return nil, c.wrap(ctx, "models", c.cfg.BaseURL+"/models", err, cl)
	}
	var lens struct {
		Data []struct {
			MaxModelLen int `json:"max_model_len"`
		} `json:"data"`
	}
	_ = json.Unmarshal(cl.Body, &lens) // optional (vLLM's)
	out := make([]ModelInfo, 0, len(list.Models))
	for i, m := range list.Models {
		mi := ModelInfo{ID: m.ID, OwnedBy: m.OwnedBy}
		if len(lens.Data) == len(list.Models) {
			mi.MaxModelLen = max(lens.Data[i].MaxModelLen, 0)
		}
		out = append(out, mi)
	}
	return out, nil
}

// --- errors ---

// ErrNoLogprobs is wrapped by errors for completions that came back without
// logprobs: the server ignores the logprobs parameter, and Repilot cannot
// work without next-token distributions.
var ErrNoLogprobs = errors.New("the server returned no logprobs")

// Error is a failed request to the model server. Its text never contains the
// API key: server and transport messages are redacted before they are kept.
type Error struct {
	Op       string // "completions", "infill", "embeddings", "models"
	URL      string // endpoint, without user info or query
	Status   int    // HTTP status; 0 when no response came back
	Message  string // what went wrong (redacted)
	Attempts int    // HTTP attempts made (1 + retries)
	// Unreachable is true when no connection could be made (server down,
	// wrong port).
	Unreachable bool
	cause       error // context errors, ErrNoLogprobs: for errors.Is
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "lm/openai: %s %s: ", e.Op, e.URL)
	if e.Status != 0 {
		fmt.Fprintf(&b, "HTTP %d: ", e.Status)
	}
	b.WriteString(e.Message)
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " (after %d attempts)", e.Attempts)
	}
	return b.String()
}

// Unwrap returns the context error or sentinel behind e, if any.
func (e *Error) Unwrap() error { return e.cause }

func (c *Client) wrap(ctx context.Context, op, endpoint string, err error, cl *oaihttp.Call) error {
	e := &Error{Op: op, URL: safeURL(endpoint), Attempts: cl.Attempts}
	var apiErr *goopenai.APIError
	var reqErr *goopenai.RequestError
	var tooLarge *oaihttp.TooLargeError
	switch {
	case ctx.Err() != nil:
		e.cause = ctx.Err()
		e.Message = ctx.Err().Error()
	case errors.As(err, &tooLarge):
		e.Message = tooLarge.Error()
	case errors.Is(err, context.DeadlineExceeded) || oaihttp.IsTimeout(err):
		e.cause = context.DeadlineExceeded
		e.Message = fmt.Sprintf("no answer within %s (the request time limit: Config.Timeout, repilot-lsp's --model-timeout)", c.cfg.Timeout)
	case errors.As(err, &apiErr):
		e.Status = apiErr.HTTPStatusCode
		e.Message = apiErr.Message
	case errors.As(err, &reqErr):
		e.Status = reqErr.HTTPStatusCode
		e.Message = errorMessage(reqErr.Body)
	case oaihttp.IsUnreachable(err):
		e.Unreachable = true
		e.Message = oaihttp.UnreachableMessage(err)
	default:
		e.Message = oaihttp.InnerMessage(err)
	}
	// A cut connection, and a server that died mid-request and was retried
	// (the last attempt's "cannot connect" alone would read as a server
	// never there), in the words search/llm uses too.
	e.Message = oaihttp.Explain(ctx, err, cl, e.Message)
	if e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden {
		e.Message += " (check the API key: REPILOT_API_KEY, OPENAI_API_KEY or the editor setting)"
	}
	e.Message = c.red.Clean(e.Message)
	return e
}

func (c *Client) statusErr(op, endpoint string, status int, msg string, cl *oaihttp.Call) error {
	return &Error{Op: op, URL: safeURL(endpoint), Status: status, Message: c.red.Clean(msg), Attempts: cl.Attempts}
}

func (c *Client) protocolErr(op, endpoint, msg string) error {
	return &Error{Op: op, URL: safeURL(endpoint), Message: c.red.Clean(msg), Attempts: 1}
}

func (c *Client) noLogprobsErr(op, endpoint, finish string) error {
	return &Error{Op: op, URL: safeURL(endpoint), Attempts: 1, cause: ErrNoLogprobs,
		Message: fmt.Sprintf("%s (finish_reason %q) for model %q: Repilot needs next-token log-probabilities; use a server that returns them for raw completions (llama.cpp llama-server, vLLM)", ErrNoLogprobs, finish, c.modelName())}
}

// errorMessage extracts a readable message from an error body: the
// OpenAI-style {"error": {"message": ...}} or the first 300 bytes.
func errorMessage(body []byte) string {
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && len(e.Error) > 0 {
		var obj struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(e.Error, &obj) == nil && obj.Message != "" {
			return obj.Message
		}
		var s string
		if json.Unmarshal(e.Error, &s) == nil && s != "" {
			return s
		}
	}
	s := strings.TrimSpace(string(body))
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	if s == "" {
		s = "(empty body)"
	}
	return s
}
