// Package llm is what semantic search asks of models: embeddings (the dense
// streams) and chat completions (query augmentation, code generation,
// reranking: the RepoRift pipeline, Jain et al. 2024, "RepoRift: ... with
// repository-aware query augmentation"), through any OpenAI-compatible server
// (OpenAI, llama.cpp's llama-server, vLLM, Ollama) with
// github.com/sashabaranov/go-openai.
//
// Architecture invariant: prompts and the parsing of model answers live here
// (prompts.go); the search engine sees only Go values. No test reaches a
// real network: the tests run against an httptest server speaking the
// OpenAI wire format.
package llm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/repilot-lsp/repilot-lsp/internal/oaihttp"
	lmopenai "github.com/repilot-lsp/repilot-lsp/lm/openai"
)

// Embedder turns texts into vectors.
type Embedder interface {
	// Embed returns one vector per text, in order. All vectors have the same
	// length.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// Model names the model; it keys the embedding cache, so two models
	// never share vectors.
	Model() string
}

// Chat answers one prompt.
type Chat interface {
	// Complete returns the assistant's reply to a system and a user message.
	Complete(ctx context.Context, system, user string) (string, error)
	// Model names the model in reports.
	Model() string
}

// Env names read by Config.FromEnv. The API key variables are shared with
// lm/openai (REPILOT_API_KEY, then OPENAI_API_KEY).
const (
	EnvChatURL    = "REPILOT_SEARCH_CHAT_URL"    // e.g. http://127.0.0.1:8080/v1
	EnvChatModel  = "REPILOT_SEARCH_CHAT_MODEL"  // e.g. qwen2.5-coder-7b-instruct
	EnvEmbedURL   = "REPILOT_SEARCH_EMBED_URL"   // e.g. http://127.0.0.1:8081/v1
	EnvEmbedModel = "REPILOT_SEARCH_EMBED_MODEL" // e.g. all-MiniLM-L6-v2
	// EnvChatContext is Config.ContextTokens of the chat server, in
	// tokens (repilot-lsp's --chat-context): hosted APIs report none.
	EnvChatContext = "REPILOT_SEARCH_CHAT_CONTEXT" // e.g. 32768
	EnvAPIKey      = "REPILOT_API_KEY"
	EnvOpenAIKey   = "OPENAI_API_KEY"
)

// Config locates an OpenAI-compatible server for one role.
type Config struct {
	// BaseURL includes the version path: "http://127.0.0.1:8080/v1". Empty
	// means the role is not configured.
	BaseURL string
	Model   string
	// APIKey is sent as a bearer token; empty: REPILOT_API_KEY, then
	// OPENAI_API_KEY, else none (local servers). Never logged.
	APIKey string
	// Timeout bounds one HTTP request (default 120 s).
	Timeout time.Duration
	// Retries after HTTP 429, 502, 503 or 504 or a refused connection
	// (default 2; negative: none).
	Retries int
	// MaxResponseBytes bounds one response body (default
	// $REPILOT_MODEL_MAX_RESPONSE_BYTES, else 32 MiB; see internal/oaihttp).
	MaxResponseBytes int64
	// Logf receives a line for each request sent again after the server
	// cut its connection mid-request (nil: the standard logger).
	Logf func(format string, args ...any)
	// ContextTokens is the chat server's context for one request, in
	// tokens, that chat prompts are fitted to (lm/openai's rule, FitUser);
	// 0: what the server reports (llama-server's /props, vLLM's
	// max_model_len), else lmopenai.DefaultContextTokens.
	ContextTokens int
}

// Retries of a request whose connection the server cut mid-request
// (oaihttp.Call.CutRetries), per endpoint. An embedding batch is cheap and
// its answer the same each time: once, logged. A chat reply takes seconds
// to minutes on a CPU server, and every chat task has a fallback (the query
// as written, no reranking): never; the error names the cut.
const (
	embedCutRetries = 1
	chatCutRetries  = 0
)

// client returns a go-openai client over the shared transport
// (internal/oaihttp: retries with Retry-After on 429/502/503/504 and refused
// connections, at most 4 requests in flight, the response size bound) and
// the redactor of its key.
func (c Config) client() (*openai.Client, oaihttp.Redactor, error) {
	key := c.APIKey
	if key == "" {
		key = os.Getenv(EnvAPIKey)
	}
	if key == "" {
		key = os.Getenv(EnvOpenAIKey)
	}
	cfg := openai.DefaultConfig(key)
	cfg.BaseURL = strings.TrimRight(c.BaseURL, "/")
	t := c.timeLimit()
	retries := c.Retries
	if retries == 0 {
		retries = 2
	}
	tr, err := oaihttp.New(oaihttp.Options{Timeout: t, MaxRetries: retries, MaxResponseBytes: c.MaxResponseBytes, Logf: c.Logf})
	if err != nil {
		return nil, oaihttp.Redactor{}, fmt.Errorf("llm: %w", err)
	}
	cfg.HTTPClient = tr
	return openai.NewClientWithConfig(cfg), oaihttp.NewRedactor(key), nil
}

// timeLimit is Timeout, or its default (120 s).
func (c Config) timeLimit() time.Duration {
	if c.Timeout <= 0 {
		return 120 * time.Second
	}
	return c.Timeout
}

// unparsedReply says whether err is llama-server's HTTP 500 for a reply
// that its chat template's output parser rejected ("The model produced
// output that does not match the expected peg-native format"; seen with
// llama.cpp's default Jinja templates). Retrying repeats the same reply.
func unparsedReply(err error) bool {
	return strings.Contains(err.Error(), "does not match the expected")
}

// OpenAIEmbedder calls POST {BaseURL}/embeddings.
type OpenAIEmbedder struct {
	cfg    Config
	client *openai.Client
	red    oaihttp.Redactor
	// Batch is the number of texts per request (default 32).
	Batch int
}

// NewEmbedder returns an Embedder for cfg; BaseURL and Model are required.
func NewEmbedder(cfg Config) (*OpenAIEmbedder, error) {
	if cfg.BaseURL == "" || cfg.Model == "" {
		return nil, errors.New("llm: an embedding server needs a base URL and a model name")
	}
	client, red, err := cfg.client()
	if err != nil {
		return nil, err
	}
	return &OpenAIEmbedder{cfg: cfg, client: client, red: red, Batch: 32}, nil
}

// Model implements Embedder.
func (e *OpenAIEmbedder) Model() string { return e.cfg.Model }

// Embed implements Embedder. Empty texts are sent as a single space (some
// servers reject empty input).
func (e *OpenAIEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	batch := max(e.Batch, 1)
	for start := 0; start < len(texts); start += batch {
		in := append([]string(nil), texts[start:min(start+batch, len(texts))]...)
		for i, t := range in {
			if strings.TrimSpace(t) == "" {
				in[i] = " "
			}
		}
		vecs, err := e.embedBatch(ctx, in)
		if err != nil && tooLong(err) {
			// Some text exceeds the model's context (llama-server answers 400
			// instead of truncating): embed one by one, cutting the text that
			// is too long until it fits.
			vecs, err = make([][]float32, len(in)), nil
			for i, t := range in {
				for tries := 0; ; tries++ {
					var one [][]float32
					one, err = e.embedBatch(ctx, []string{t})
					if err == nil {
						vecs[i] = one[0]
						break
					}
					if !tooLong(err) || tries == 6 || len(t) < 16 {
						break
					}
					t = clipUTF8(t, len(t)*2/3)
				}
				if err != nil {
					break
				}
			}
		}
		if err != nil {
			return nil, redactedf(e.red, err, "llm: embeddings from %s at %s: %s", e.cfg.Model,
				oaihttp.SafeURL(strings.TrimRight(e.cfg.BaseURL, "/")+"/embeddings"), err)
		}
		for _, v := range vecs {
			if len(v) == 0 || (len(out) > 0 && len(v) != len(out[0])) {
				return nil, fmt.Errorf("llm: embeddings: vectors of unequal or zero length")
			}
			out = append(out, v)
		}
	}
	return out, nil
}

// embedBatch sends one request and returns the vectors in input order. A
// failed request's error is worded by oaihttp.Explain (a cut or refused
// connection named as one) and wraps the transport's or go-openai's.
func (e *OpenAIEmbedder) embedBatch(ctx context.Context, in []string) ([][]float32, error) {
	cl := &oaihttp.Call{CutRetries: embedCutRetries}
	res, err := e.client.CreateEmbeddings(oaihttp.WithCall(ctx, cl), openai.EmbeddingRequestStrings{
		Input: in, Model: openai.EmbeddingModel(e.cfg.Model),
	})
	if err != nil {
		return nil, explained(ctx, e.red, err, cl, e.cfg.timeLimit())
	}
	if len(res.Data) != len(in) {
		return nil, fmt.Errorf("%d inputs, %d vectors", len(in), len(res.Data))
	}
	vecs := make([][]float32, len(in))
	for _, d := range res.Data {
		if d.Index < 0 || d.Index >= len(in) || vecs[d.Index] != nil {
			return nil, fmt.Errorf("bad or repeated index %d", d.Index)
		}
		vecs[d.Index] = d.Embedding
	}
	return vecs, nil
}

// tooLong says whether a server refused an input for its length (HTTP 400
// from llama-server "input (774 tokens) is larger than the max context size",
// OpenAI "maximum context length").
func tooLong(err error) bool {
	var api *openai.APIError
	var req *openai.RequestError
	code := 0
	switch {
	case errors.As(err, &api):
		code = api.HTTPStatusCode
	case errors.As(err, &req):
		code = req.HTTPStatusCode
	}
	if code != 400 && code != 413 && code != 500 {
		return false
	}
	msg := strings.ToLower(err.Error())
	return strings.Contains(msg, "context") || strings.Contains(msg, "too long") || strings.Contains(msg, "too large") ||
		strings.Contains(msg, "larger than")
}

// clipUTF8 cuts s to at most n bytes on a rune boundary.
func clipUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// OpenAIChat calls POST {BaseURL}/chat/completions.
type OpenAIChat struct {
	cfg    Config
	client *openai.Client
	red    oaihttp.Redactor
	// fitter fits prompts to the server's context (FitUser): lm/openai's
	// Model over the same server, used for its Fit only.
	fitter *lmopenai.Model
	// Temperature of every request (default 0: deterministic where the
	// server allows it).
	Temperature float32
	// MaxTokens bounds each reply (default 512).
	MaxTokens int
}

// NewChat returns a Chat for cfg; BaseURL and Model are required.
func NewChat(cfg Config) (*OpenAIChat, error) {
	if cfg.BaseURL == "" || cfg.Model == "" {
		return nil, errors.New("llm: a chat server needs a base URL and a model name")
	}
	client, red, err := cfg.client()
	if err != nil {
		return nil, err
	}
	retries := cfg.Retries
	if retries == 0 {
		retries = 2
	}
	fitter, err := lmopenai.New(lmopenai.Config{BaseURL: cfg.BaseURL, Model: cfg.Model, APIKey: cfg.APIKey, FIM: "none",
		Timeout: cfg.timeLimit(), MaxRetries: retries, ContextTokens: cfg.ContextTokens, MaxResponseBytes: cfg.MaxResponseBytes})
	if err != nil {
		return nil, fmt.Errorf("llm: chat server: %w", err)
	}
	return &OpenAIChat{cfg: cfg, client: client, red: red, fitter: fitter, MaxTokens: 512}, nil
}

// chatTemplateTokens is room for what a server's chat template adds around
// the two messages (role markers, the assistant's header).
const chatTemplateTokens = 64

// Fitter is a Chat that fits a user message to its server's context.
// Augment, Generate and Rerank use it when their Chat has it.
type Fitter interface {
	// FitUser returns the end of head and the start of tail, cut at line
	// starts, so that the system message and the user message join(head,
	// tail) fit the server's context with the reply's tokens.
	FitUser(ctx context.Context, system, head, tail string, join func(head, tail string) string) (string, string, error)
}

// FitUser implements Fitter with lm/openai's fit (lmopenai.Model.Fit: the
// server's context and tokenizer, found as the repair model's are). A fit
// that fails other than by ctx (a server without /v1/models, say) leaves
// head and tail whole: the request then says what is wrong.
func (c *OpenAIChat) FitUser(ctx context.Context, system, head, tail string, join func(head, tail string) string) (string, string, error) {
	h, t, err := c.fitter.Fit(ctx, head, tail, max(c.MaxTokens, 0)+chatTemplateTokens, func(h, t string) string {
		return system + "\n" + join(h, t)
	})
	if err != nil {
		if ctx.Err() != nil {
			return head, tail, ctx.Err()
		}
		return head, tail, nil
	}
	return h, t, nil
}

// Model implements Chat.
func (c *OpenAIChat) Model() string { return c.cfg.Model }

// ContextTokens is the context the chat was configured with
// (Config.ContextTokens; 0: the server's report, else the default).
func (c *OpenAIChat) ContextTokens() int { return c.cfg.ContextTokens }

// Complete implements Chat.
func (c *OpenAIChat) Complete(ctx context.Context, system, user string) (string, error) {
	// go-openai omits a zero temperature (omitempty), and servers then use
	// their own default (llama-server: 0.8): send the smallest positive one.
	temp := c.Temperature
	if temp <= 0 {
		temp = math.SmallestNonzeroFloat32
	}
	seed := 0
	cl := &oaihttp.Call{CutRetries: chatCutRetries}
	res, err := c.client.CreateChatCompletion(oaihttp.WithCall(ctx, cl), openai.ChatCompletionRequest{
		Model: c.cfg.Model,
		Messages: []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleSystem, Content: system},
			{Role: openai.ChatMessageRoleUser, Content: user},
		},
		Temperature: temp,
		Seed:        &seed,
		MaxTokens:   c.MaxTokens,
	})
	if err != nil {
		err = explained(ctx, c.red, err, cl, c.cfg.timeLimit())
		where := oaihttp.SafeURL(strings.TrimRight(c.cfg.BaseURL, "/") + "/chat/completions")
		if unparsedReply(err) {
			return "", redactedf(c.red, err, "llm: chat with %s at %s: %s (llama-server could not parse the model's reply with the "+
				"chat template's reply format; restart it with --no-jinja, or give it the model's own template)", c.cfg.Model, where, err)
		}
		return "", redactedf(c.red, err, "llm: chat with %s at %s: %s", c.cfg.Model, where, err)
	}
	if len(res.Choices) == 0 {
		return "", fmt.Errorf("llm: chat with %s: no choices in the reply", c.cfg.Model)
	}
	return res.Choices[0].Message.Content, nil
}

// redactedError is an error whose text has had the API key removed; errors.Is
// and errors.As still see the cause.
type redactedError struct {
	msg   string
	cause error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.cause }

// explained is err, from a request sent with cl, worded as the shared
// transport words failures (oaihttp.Explain: a cut or refused connection
// named as one, an earlier cut before the last error), without the key.
func explained(ctx context.Context, red oaihttp.Redactor, err error, cl *oaihttp.Call, limit time.Duration) error {
	other := err.Error()
	if ctx.Err() == nil && oaihttp.IsTimeout(err) {
		// net/http's words ("context deadline exceeded (Client.Timeout
		// exceeded while awaiting headers)") name neither the limit nor
		// whose it is.
		other = fmt.Sprintf("no answer within %s (the time limit of one request; timeouts are not retried)", limit)
	}
	return &redactedError{msg: red.Clean(oaihttp.Explain(ctx, err, cl, other)), cause: err}
}

// redactedf formats like fmt.Sprintf, removes the key from the text, and
// keeps cause for errors.Is.
func redactedf(red oaihttp.Redactor, cause error, format string, args ...any) error {
	return &redactedError{msg: red.Clean(fmt.Sprintf(format, args...)), cause: cause}
}
