package openai

// config.go defines Config, the settings of an OpenAI-compatible model server
// (base URL, model, API key, FIM template, server dialect, timeouts,
// concurrency, retries), and the rules that keep the API key out of logs and
// errors.

import (
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/repilot-lsp/repilot-lsp/internal/oaihttp"
)

// Environment variables read for the API key when Config.APIKey is empty, in
// this order.
const (
	EnvAPIKey       = "REPILOT_API_KEY"
	EnvOpenAIAPIKey = "OPENAI_API_KEY"
)

// Server dialects: which sampler fields beyond the OpenAI completions API a
// request may carry. The speculative path needs the server to sample from the
// model's tempered distribution without other truncation (see lm.Speculator),
// so each dialect turns off what its server would otherwise apply.
const (
	// DialectAuto asks GET /v1/models once: "owned_by" "llamacpp" or "vllm"
	// selects that dialect; anything else (or an error) selects DialectOpenAI.
	DialectAuto = ""
	// DialectLlamaCpp is llama.cpp's llama-server: top_k, min_p, typical_p,
	// repeat_penalty, samplers, cache_prompt.
	DialectLlamaCpp = "llama.cpp"
	// DialectVLLM is vLLM: top_k, min_p, repetition_penalty.
	DialectVLLM = "vllm"
	// DialectOpenAI sends only the OpenAI completions fields (OpenAI and
	// servers that reject unknown fields).
	DialectOpenAI = "openai"
	// DialectOther is a server whose defaults may truncate the distribution
	// (Ollama, LM Studio): only standard fields, and no speculative proposals,
	// because the server's sampling would not match Repilot's.
	DialectOther = "other"
)

// FIMInfill selects llama.cpp's /infill endpoint instead of a prompt template
// (Config.FIM): the server formats the prompt from the model's own FIM tokens.
const FIMInfill = "infill"

// Config configures a Model. The zero value is not usable: BaseURL is required.
type Config struct {
	// BaseURL is the API root including the version path, such as
	// "http://127.0.0.1:8080/v1" (llama.cpp), "http://localhost:8000/v1"
	// (vLLM) or "https://api.openai.com/v1". /infill is resolved next to
	// the version path ("http://127.0.0.1:8080/infill").
	BaseURL string
	// Model is the model name sent with each request. Empty: the first model
	// listed by GET /v1/models (llama.cpp serves exactly one).
	Model string
	// APIKey is sent as "Authorization: Bearer <key>". Empty: the value of
	// REPILOT_API_KEY, else OPENAI_API_KEY, else none (local servers). It is
	// never logged and never part of an error message.
	APIKey string
	// FIM is the prompt template name (lm/fim: "qwen", "deepseek",
	// "starcoder", "codellama", "codestral", "none") or "infill" for
	// llama.cpp's /infill. Empty: guessed from Model, else "none".
	FIM string
	// Dialect is one of the Dialect constants; empty means detect.
	Dialect string
	// Timeout bounds one HTTP attempt (default 60 s).
	Timeout time.Duration
	// MaxConcurrent bounds requests in flight from this Model (default 4).
	MaxConcurrent int
	// MaxRetries is how often a request is retried after HTTP 429, 502, 503,
	// 504 or a refused/reset connection (default 3; negative: never).
	MaxRetries int
	// RetryBackoff is the first retry delay; it doubles per retry, with
	// jitter, up to 8 s. A Retry-After header wins. Default 250 ms.
	RetryBackoff time.Duration
	// MaxResponseBytes bounds one response body (default
	// $REPILOT_MODEL_MAX_RESPONSE_BYTES, else 32 MiB; see internal/oaihttp).
	MaxResponseBytes int64
	// MaxTokenBytes bounds one generated token's text (default
	// $REPILOT_MODEL_MAX_TOKEN_BYTES, else 1 KiB): a longer token is a
	// protocol error naming the bound, not text to build a hunk from.
	MaxTokenBytes int
	// MaxLogprobs caps the top-k asked per position (default 20, the OpenAI
	// API's limit; llama.cpp accepts more).
	MaxLogprobs int
	// Logf receives a line for each request sent again after the server
	// cut its connection mid-request (nil: the standard logger).
	Logf func(format string, args ...any)
	// NoSpeculate makes sessions implement only lm.Session, not
	// lm.Speculator (the token-by-token baseline).
	NoSpeculate bool
	// ContextTokens is the server's context for one request, in tokens
	// (llama-server: -c divided by -np); the prompt of each session is cut
	// to fit it (fit.go). 0: what the server reports (llama.cpp's GET
	// /props, vLLM's max_model_len), else DefaultContextTokens. A value
	// above what llama.cpp reports gives way to the report. repilot-lsp's
	// --model-context, $REPILOT_MODEL_CONTEXT.
	ContextTokens int
}

// EnvMaxTokenBytes changes DefaultMaxTokenBytes.
const EnvMaxTokenBytes = "REPILOT_MODEL_MAX_TOKEN_BYTES"

// DefaultMaxTokenBytes bounds one token's text: 1 KiB, far above the longest
// piece of any tokenizer in use (runs of spaces, about 100 bytes).
const DefaultMaxTokenBytes = 1024

func (c Config) withDefaults() (Config, error) {
	if strings.TrimSpace(c.BaseURL) == "" {
		return c, fmt.Errorf("lm/openai: no base URL configured (for llama-server: http://127.0.0.1:8080/v1)")
	}
	u, err := url.Parse(strings.TrimRight(c.BaseURL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return c, fmt.Errorf("lm/openai: base URL %q is not an http(s) URL", safeURL(c.BaseURL))
	}
	c.BaseURL = u.String()
	if c.APIKey == "" {
		c.APIKey = os.Getenv(EnvAPIKey)
	}
	if c.APIKey == "" {
		c.APIKey = os.Getenv(EnvOpenAIAPIKey)
	}
	switch c.Dialect {
	case DialectAuto, DialectLlamaCpp, DialectVLLM, DialectOpenAI, DialectOther:
	default:
		return c, fmt.Errorf("lm/openai: unknown server dialect %q (want %s, %s, %s, %s or empty to detect)",
			c.Dialect, DialectLlamaCpp, DialectVLLM, DialectOpenAI, DialectOther)
	}
	d := oaihttp.Options{Timeout: c.Timeout, MaxConcurrent: c.MaxConcurrent, MaxRetries: c.MaxRetries, RetryBackoff: c.RetryBackoff}.WithRetryDefaults()
	c.Timeout, c.MaxConcurrent, c.MaxRetries, c.RetryBackoff = d.Timeout, d.MaxConcurrent, d.MaxRetries, d.RetryBackoff
	if c.ContextTokens < 0 {
		return c, fmt.Errorf("lm/openai: context of %d tokens: want a positive number (0: what the server reports)", c.ContextTokens)
	}
	if c.MaxLogprobs <= 0 {
		c.MaxLogprobs = 20
	}
	if c.MaxTokenBytes <= 0 {
		c.MaxTokenBytes = DefaultMaxTokenBytes
		if v := os.Getenv(EnvMaxTokenBytes); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				return c, fmt.Errorf("lm/openai: $%s=%q: want a positive number of bytes", EnvMaxTokenBytes, v)
			}
			c.MaxTokenBytes = n
		}
	}
	return c, nil
}

// String describes the configuration without the API key.
func (c Config) String() string {
	key := "none"
	if c.APIKey != "" {
		key = "set"
	}
	return fmt.Sprintf("openai.Config{BaseURL: %s, Model: %q, FIM: %q, Dialect: %q, APIKey: %s}",
		safeURL(c.BaseURL), c.Model, c.FIM, c.Dialect, key)
}

// GoString is String, so %#v cannot print the key either.
func (c Config) GoString() string { return c.String() }

// SafeURL returns raw for messages without its user info, query and
// fragment (any may carry credentials). Text that is no URL is returned as
// written unless it holds "@" (possibly "user:password@host"), so that a
// mistyped "127.0.0.1:8080" is shown to its author.
func SafeURL(raw string) string { return safeURL(raw) }

func safeURL(raw string) string { return oaihttp.SafeURL(raw) }
