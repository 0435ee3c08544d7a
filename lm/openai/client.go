package openai

// client.go is Client: raw-prompt completions (/v1/completions), embeddings
// (/v1/embeddings), model listing, and llama.cpp's /infill, on top of
// github.com/sashabaranov/go-openai.
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
// connections). go-openai's own request builder is unexported, so a
// RoundTripper-level hook is the only seam that needs no fork.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	goopenai "github.com/sashabaranov/go-openai"
)

// Client talks to one OpenAI-compatible server. It is safe for concurrent
// use; at most Config.MaxConcurrent requests are in flight.
type Client struct {
	cfg  Config
	api  *goopenai.Client
	tr   *doer
	red  redactor
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
	tr := &doer{
		hc: &http.Client{
			Timeout: cfg.Timeout,
			Transport: &http.Transport{
				Proxy:               http.ProxyFromEnvironment,
				DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
				MaxIdleConnsPerHost: cfg.MaxConcurrent,
				IdleConnTimeout:     90 * time.Second,
			},
		},
		sem:     make(chan struct{}, cfg.MaxConcurrent),
		retries: cfg.MaxRetries,
		backoff: cfg.RetryBackoff,
		sleep:   sleepCtx,
	}
	gc := goopenai.DefaultConfig(cfg.APIKey)
	gc.BaseURL = cfg.BaseURL
	gc.HTTPClient = tr
	root := strings.TrimSuffix(cfg.BaseURL, "/v1")
	return &Client{cfg: cfg, api: goopenai.NewClientWithConfig(gc), tr: tr, red: newRedactor(cfg.APIKey), root: root, model: cfg.Model}, nil
}

// String describes the client without its API key (see Config.String).
func (c *Client) String() string { return "openai.Client{" + c.cfg.String() + "}" }

// GoString is String.
func (c *Client) GoString() string { return c.String() }

// Requests returns the number of logical requests sent so far (retries of
// one request count once).
func (c *Client) Requests() int64 { return c.requests.Load() }

// Attempts returns the number of HTTP requests sent so far, retries included.
func (c *Client) Attempts() int64 { return c.tr.attempts.Load() }

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
	cl := &call{extra: extra}
	c.requests.Add(1)
	if _, err := c.api.CreateCompletion(withCall(ctx, cl), req); err != nil {
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
	if err := json.Unmarshal(cl.body, &resp); err != nil {
		return nil, c.protocolErr("completions", c.cfg.BaseURL+"/completions", "decoding the response: "+err.Error())
	}
	out := make([]Choice, 0, len(resp.Choices))
	for _, ch := range resp.Choices {
		pos, has, err := decodeLogprobs(ch.LogProbs)
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
	data, _ := json.Marshal(body)
	cl := &call{}
	c.requests.Add(1)
	req, err := http.NewRequestWithContext(withCall(ctx, cl), http.MethodPost, endpoint, bytes.NewReader(data))
	if err != nil {
		return Choice{}, c.protocolErr("infill", endpoint, err.Error())
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if c.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	resp, err := c.tr.Do(req)
	if err != nil {
		return Choice{}, c.wrap(ctx, "infill", endpoint, err, cl)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return Choice{}, c.statusErr("infill", endpoint, resp.StatusCode, errorMessage(cl.body), cl)
	}
	cp, err := parseInfill(cl.body)
	if err != nil {
		return Choice{}, c.protocolErr("infill", endpoint, err.Error())
	}
	return Choice{Text: cp.Text, Finish: cp.Finish, Positions: cp.Positions, HasLogprobs: cp.HasLogprobs, Tokens: cp.Tokens}, nil
}

// Embed returns one embedding per input (POST /v1/embeddings), in input
// order. llama-server needs --embeddings (and --pooling mean) for this.
func (c *Client) Embed(ctx context.Context, inputs []string) ([][]float32, error) {
	cl := &call{}
	c.requests.Add(1)
	resp, err := c.api.CreateEmbeddings(withCall(ctx, cl), goopenai.EmbeddingRequestStrings{
		Input: inputs,
		Model: goopenai.EmbeddingModel(c.modelName()),
	})
	if err != nil {
		return nil, c.wrap(ctx, "embeddings", c.cfg.BaseURL+"/embeddings", err, cl)
	}
	out := make([][]float32, len(inputs))
	for _, d := range resp.Data {
		if d.Index < 0 || d.Index >= len(out) {
			return nil, c.protocolErr("embeddings", c.cfg.BaseURL+"/embeddings", fmt.Sprintf("embedding index %d out of range", d.Index))
		}
		out[d.Index] = d.Embedding
	}
	for i, v := range out {
		if v == nil {
			return nil, c.protocolErr("embeddings", c.cfg.BaseURL+"/embeddings", fmt.Sprintf("no embedding for input %d", i))
		}
	}
	return out, nil
}

// ModelInfo is one entry of GET /v1/models.
type ModelInfo struct {
	ID      string
	OwnedBy string // "llamacpp" for llama-server, "vllm" for vLLM
}

// Models lists the server's models (GET /v1/models).
func (c *Client) Models(ctx context.Context) ([]ModelInfo, error) {
	cl := &call{}
	c.requests.Add(1)
	list, err := c.api.ListModels(withCall(ctx, cl))
	if err != nil {
		return nil, c.wrap(ctx, "models", c.cfg.BaseURL+"/models", err, cl)
	}
	out := make([]ModelInfo, 0, len(list.Models))
	for _, m := range list.Models {
		out = append(out, ModelInfo{ID: m.ID, OwnedBy: m.OwnedBy})
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

func (c *Client) wrap(ctx context.Context, op, endpoint string, err error, cl *call) error {
	e := &Error{Op: op, URL: safeURL(endpoint), Attempts: cl.attempts}
	var apiErr *goopenai.APIError
	var reqErr *goopenai.RequestError
	switch {
	case ctx.Err() != nil:
		e.cause = ctx.Err()
		e.Message = ctx.Err().Error()
	case errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
		e.cause = context.DeadlineExceeded
		e.Message = fmt.Sprintf("no answer within %s (the request time limit: Config.Timeout, repilot-lsp's --model-timeout)", c.cfg.Timeout)
	case errors.As(err, &apiErr):
		e.Status = apiErr.HTTPStatusCode
		e.Message = apiErr.Message
	case errors.As(err, &reqErr):
		e.Status = reqErr.HTTPStatusCode
		e.Message = errorMessage(reqErr.Body)
	case isUnreachable(err):
		e.Unreachable = true
		e.Message = "cannot connect (" + innerMessage(err) + "): is the model server running at this address?"
	default:
		e.Message = innerMessage(err)
	}
	if e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden {
		e.Message += " (check the API key: REPILOT_API_KEY, OPENAI_API_KEY or the editor setting)"
	}
	e.Message = c.red.clean(e.Message)
	return e
}

func (c *Client) statusErr(op, endpoint string, status int, msg string, cl *call) error {
	return &Error{Op: op, URL: safeURL(endpoint), Status: status, Message: c.red.clean(msg), Attempts: cl.attempts}
}

func (c *Client) protocolErr(op, endpoint, msg string) error {
	return &Error{Op: op, URL: safeURL(endpoint), Message: c.red.clean(msg), Attempts: 1}
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

// innerMessage is err's text without the URL that net/http puts in front
// (the URL may carry a query with credentials; Error.URL has a safe copy).
func innerMessage(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		return oe.Err.Error()
	}
	return err.Error()
}

func isUnreachable(err error) bool {
	if errors.Is(err, syscall.ECONNREFUSED) {
		return true
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return true
	}
	var oe *net.OpError
	return errors.As(err, &oe) && oe.Op == "dial"
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// --- transport ---

// call carries one logical request's extra body fields into the doer and the
// raw response body back out.
type call struct {
	extra    map[string]any
	body     []byte // raw response body of the last attempt
	attempts int
}

type callKey struct{}

func withCall(ctx context.Context, c *call) context.Context {
	return context.WithValue(ctx, callKey{}, c)
}

// doer is go-openai's HTTPDoer: concurrency limit, extra body fields, raw
// body capture, and retries.
type doer struct {
	hc       *http.Client
	sem      chan struct{}
	retries  int
	backoff  time.Duration
	sleep    func(context.Context, time.Duration) error
	attempts atomic.Int64
}

const maxBackoff = 8 * time.Second

// Do sends req, retrying on 429, 5xx and refused or reset connections. The
// response it returns has its body fully read (and kept in the call).
func (d *doer) Do(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	cl, _ := ctx.Value(callKey{}).(*call)
	if cl == nil {
		cl = &call{}
	}
	var body []byte
	if req.Body != nil {
		var err error
		body, err = io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
	}
	if len(cl.extra) > 0 && len(body) > 0 {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(body, &m); err != nil {
			return nil, fmt.Errorf("merging request fields: %w", err)
		}
		for k, v := range cl.extra {
			raw, err := json.Marshal(v)
			if err != nil {
				return nil, fmt.Errorf("merging request field %s: %w", k, err)
			}
			m[k] = raw
		}
		var err error
		if body, err = json.Marshal(m); err != nil {
			return nil, err
		}
	}
	select {
	case d.sem <- struct{}{}:
		defer func() { <-d.sem }()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	for attempt := 0; ; attempt++ {
		r := req.Clone(ctx)
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		cl.attempts++
		d.attempts.Add(1)
		resp, err := d.hc.Do(r)
		var wait time.Duration
		if err == nil {
			data, rerr := io.ReadAll(resp.Body)
			resp.Body.Close()
			if rerr != nil {
				err = rerr
			} else {
				cl.body = data
				resp.Body = io.NopCloser(bytes.NewReader(data))
				if !retryableStatus(resp.StatusCode) || attempt >= d.retries {
					return resp, nil
				}
				wait = retryAfter(resp.Header.Get("Retry-After"))
			}
		}
		if err != nil && (!retryableErr(err) || attempt >= d.retries || ctx.Err() != nil) {
			return nil, err
		}
		if wait <= 0 {
			wait = d.backoff << attempt
			wait += time.Duration(rand.Int64N(int64(wait)/4 + 1)) // jitter
		}
		if wait > maxBackoff {
			wait = maxBackoff
		}
		if err := d.sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

// retryableStatus: rate limits and the statuses of a server that is
// starting, overloaded or behind a failing proxy. A plain 500 is not retried:
// llama.cpp uses it for deterministic failures (see unusableOutput).
func retryableStatus(code int) bool {
	return code == http.StatusTooManyRequests || code == http.StatusBadGateway ||
		code == http.StatusServiceUnavailable || code == http.StatusGatewayTimeout
}

// retryableErr: the request never reached a handler (refused, reset, a
// keep-alive connection closed under us). Timeouts are not retried: the
// server is up but slow, and a retry would only triple the wait.
func retryableErr(err error) bool {
	if isTimeout(err) {
		return false
	}
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// retryAfter parses a Retry-After header (seconds or an HTTP date).
func retryAfter(v string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return time.Until(t)
	}
	return 0
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
