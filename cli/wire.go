package cli

// wire.go turns the model flags of serve, repair and bench repair, and their
// environment fallbacks (what the editor plugins set), into a
// backend.ModelConfig; they are read here and only here. The backends
// themselves (the per-project engine pool and the models) are package
// backend's.

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/repilot-lsp/repilot-lsp/backend"
	"github.com/repilot-lsp/repilot-lsp/lm/fim"
	"github.com/repilot-lsp/repilot-lsp/lm/openai"
	"github.com/repilot-lsp/repilot-lsp/repair"
)

// buildRepairer returns the repair service of serve and repair: a
// backend.Pool (which implements io.Closer).
func buildRepairer(cfg backend.Config) (repair.Repairer, error) {
	p, err := backend.New(cfg)
	if err != nil {
		return nil, err
	}
	return p, nil
}

// Environment variables read by the model flags when the flag is not given:
// what the editor plugins (editors/vscode, editors/neovim) set for the server
// they start. The API key is read from the variable named by --api-key-env
// (default openai.EnvAPIKey, REPILOT_API_KEY).
const (
	EnvModelBaseURL = "REPILOT_MODEL_BASE_URL" // OpenAI-compatible server, "http://127.0.0.1:8080/v1"
	EnvModelName    = "REPILOT_MODEL_NAME"     // model name sent with each request
	EnvModelFIM     = "REPILOT_MODEL_FIM"      // FIM template name or "infill"
)

// modelFlags are the language-model flags of serve, repair and bench repair.
// Each falls back to an environment variable (read in resolve, so --help never
// prints a configured value).
type modelFlags struct {
	baseURL     string
	name        string
	apiKeyEnv   string
	fim         string
	dialect     string
	timeout     time.Duration
	concurrency int
	retries     int
	noSpeculate bool
	context     string // tokens; a string so that an unset flag falls back to the environment
}

// defaultModelFlags are the model flags' defaults, as addModelFlags
// registers them (a zero modelFlags is refused by resolve: no timeout, no
// request in flight).
func defaultModelFlags() modelFlags {
	return modelFlags{apiKeyEnv: openai.EnvAPIKey, timeout: 60 * time.Second, concurrency: 1, retries: 3}
}

// addModelFlags registers the model flags on fs, bound to f.
func addModelFlags(fs *pflag.FlagSet, f *modelFlags) {
	d := defaultModelFlags()
	fs.StringVar(&f.baseURL, "model-base-url", "", "OpenAI-compatible model server with its version path, e.g. http://127.0.0.1:8080/v1 for llama.cpp's llama-server (env "+EnvModelBaseURL+"; empty: the embedded n-gram model)")
	fs.StringVar(&f.name, "model", "", "model name sent to the server (env "+EnvModelName+"; empty: the first model the server lists)")
	fs.StringVar(&f.apiKeyEnv, "api-key-env", d.apiKeyEnv, "environment variable holding the server's API key (the key is never a flag, never logged; "+openai.EnvOpenAIAPIKey+" is the last fallback)")
	fs.StringVar(&f.fim, "fim-template", "", `fill-in-the-middle prompt template: qwen, deepseek, starcoder, codellama, codestral, none, or "infill" for llama.cpp's /infill (env `+EnvModelFIM+`; empty: guessed from the model name)`)
	fs.StringVar(&f.dialect, "model-dialect", "", "server dialect: llama.cpp, vllm, openai, other (empty: detect from GET /v1/models)")
	fs.DurationVar(&f.timeout, "model-timeout", d.timeout, "time limit of one request to the model server")
	fs.IntVar(&f.concurrency, "model-concurrency", d.concurrency, "requests in flight to the model server at most; repair, serve and bench repair (its openai backend) also draw this many samples at once, so that a server with as many slots (llama-server -np N) can batch them (equal seeds still give equal patches; on a 2-core CPU server 4 was slower than 1)")
	fs.IntVar(&f.retries, "model-retries", d.retries, "retries after HTTP 429/5xx or a refused connection, with backoff (0: none)")
	fs.StringVar(&f.context, "model-context", "", "the model server's context for one request, in tokens (llama-server: -c divided by -np); the prompt keeps the text nearest the hunk that fits it with the hunk's tokens (env "+openai.EnvContextTokens+"; empty: what the server reports, llama-server's /props or vLLM's max_model_len, else "+strconv.Itoa(openai.DefaultContextTokens)+")")
	fs.BoolVar(&f.noSpeculate, "no-speculate", false, "ask the model server token by token (one request per token) instead of speculative guided decoding")
}

// Upper bounds of the model flags. A retry waits up to 8 s (doubling from
// 250 ms, internal/oaihttp), so 10 retries give a server that is down about
// 50 s before a request fails; with --model-retries 1000 each request to a
// server that is down retried until its deadline (the model check's 2
// minutes, a repair's 10 in serve) instead of failing within seconds. 256 requests in flight is past any
// llama-server's slots (-np) and a large vLLM batch.
const (
	maxModelRetries     = 10
	maxModelConcurrency = 256
)

// resolve turns the flags and, for flags left empty, the environment (getenv)
// into a backend.ModelConfig. Every value is checked whether or not a server
// is set (a bad one is never ignored). Errors: a base URL that is
// not an http(s) URL or an unknown FIM template (each naming the flag or the
// variable it came from; the URL without its password), an unknown
// --model-dialect, --model-timeout not
// above 0, --model-concurrency below 1 or above 256, --model-retries below 0
// or above 10 (the HTTP
// client would replace them by its defaults silently); --api-key-env names a variable other than the
// default that is unset (the message names the variable, never a value);
// --fim-template (or $REPILOT_MODEL_FIM) names no template and is not
// "infill" (the message names the flag and lists both); the base URL is
// not an http(s) URL with a host; --model-context (or
// $REPILOT_MODEL_CONTEXT) is not a number of at least 64 tokens.
func (f modelFlags) resolve(getenv func(string) string) (backend.ModelConfig, error) {
	pick := func(flag, env string) string {
		if flag != "" {
			return flag
		}
		return strings.TrimSpace(getenv(env))
	}
	// from names where a setting came from, for its error.
	from := func(flag, flagName, env string) string {
		if flag != "" {
			return flagName
		}
		return "$" + env
	}
	fimName := pick(f.fim, EnvModelFIM)
	if n := strings.ToLower(fimName); n != "" && n != openai.FIMInfill {
		if _, err := fim.ByName(n); err != nil {
			return backend.ModelConfig{}, fmt.Errorf("%s: %w, or %q for llama.cpp's /infill", from(f.fim, "--fim-template", EnvModelFIM), err, openai.FIMInfill)
		}
	}
	switch f.dialect {
	case openai.DialectAuto, openai.DialectLlamaCpp, openai.DialectVLLM, openai.DialectOpenAI, openai.DialectOther:
	default:
		return backend.ModelConfig{}, fmt.Errorf("--model-dialect %q: want %s, %s, %s, %s or empty to detect",
			f.dialect, openai.DialectLlamaCpp, openai.DialectVLLM, openai.DialectOpenAI, openai.DialectOther)
	}
	switch {
	case f.timeout <= 0:
		return backend.ModelConfig{}, fmt.Errorf("--model-timeout %s: want a duration above 0", f.timeout)
	case f.concurrency < 1:
		return backend.ModelConfig{}, fmt.Errorf("--model-concurrency %d: want at least 1", f.concurrency)
	case f.retries < 0:
		return backend.ModelConfig{}, fmt.Errorf("--model-retries %d: want at least 0 (0: no retries)", f.retries)
	case f.retries > maxModelRetries:
		return backend.ModelConfig{}, fmt.Errorf("--model-retries %d: want at most %d (each retry waits up to 8 s: %d would keep a request to a server that is down going for %s)",
			f.retries, maxModelRetries, f.retries, (time.Duration(f.retries) * 8 * time.Second).Round(time.Minute))
	case f.concurrency > maxModelConcurrency:
		return backend.ModelConfig{}, fmt.Errorf("--model-concurrency %d: want at most %d (each is a request in flight and a sample drawn at once)",
			f.concurrency, maxModelConcurrency)
	}
	nctx := 0
	if v := pick(f.context, openai.EnvContextTokens); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 64 {
			return backend.ModelConfig{}, fmt.Errorf("%s %q: want a context of at least 64 tokens (llama-server: -c divided by -np)", from(f.context, "--model-context", openai.EnvContextTokens), v)
		}
		nctx = n
	}
	base := pick(f.baseURL, EnvModelBaseURL)
	if base == "" {
		// The embedded n-gram model: the values above were checked all
		// the same, so that a typo is not ignored until a server is set.
		return backend.ModelConfig{}, nil
	}
	if u, err := url.Parse(strings.TrimRight(base, "/")); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return backend.ModelConfig{}, fmt.Errorf("%s %q: want an http(s) URL with its version path, e.g. http://127.0.0.1:8080/v1 for llama-server",
			from(f.baseURL, "--model-base-url", EnvModelBaseURL), openai.SafeURL(base))
	}
	keyEnv := f.apiKeyEnv
	if keyEnv == "" {
		keyEnv = openai.EnvAPIKey
	}
	key := getenv(keyEnv)
	if key == "" && keyEnv != openai.EnvAPIKey {
		return backend.ModelConfig{}, fmt.Errorf("--api-key-env %s: that environment variable is not set", keyEnv)
	}
	if key == "" {
		key = getenv(openai.EnvOpenAIAPIKey)
	}
	retries := f.retries
	if retries == 0 {
		retries = -1 // openai.Config: negative means never
	}
	return backend.ModelConfig{OpenAI: openai.Config{
		BaseURL:       base,
		Model:         pick(f.name, EnvModelName),
		APIKey:        key,
		FIM:           fimName,
		Dialect:       f.dialect,
		Timeout:       f.timeout,
		MaxConcurrent: f.concurrency,
		MaxRetries:    retries,
		NoSpeculate:   f.noSpeculate,
		ContextTokens: nctx,
	}}, nil
}
