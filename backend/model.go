package backend

// model.go is the choice of language model: the embedded n-gram model
// (trained per root by the Pool) or one OpenAI-compatible server shared by
// every root.

import (
	"context"
	"fmt"
	"time"

	"github.com/repilot-lsp/repilot-lsp/lm"
	"github.com/repilot-lsp/repilot-lsp/lm/openai"
)

// ModelConfig chooses the language model of the repair service: the embedded
// n-gram model (lm/ngram, trained per project) when OpenAI.BaseURL is empty,
// else one lm/openai model for every project (token by token or speculative,
// openai.Config.NoSpeculate).
type ModelConfig struct {
	OpenAI openai.Config
}

// Remote reports whether a model server is configured.
func (c ModelConfig) Remote() bool { return c.OpenAI.BaseURL != "" }

// String describes the choice for logs and progress in words, e.g.
// "model server http://127.0.0.1:8080/v1 (model: the first one it lists;
// prompt: FIM template guessed from the model name; dialect: detected; API
// key: none)". It never includes the API key, nor the URL's user info or
// query, either of which may carry credentials.
func (c ModelConfig) String() string {
	if !c.Remote() {
		return "embedded n-gram model (lm/ngram)"
	}
	o := c.OpenAI
	orElse := func(v, empty string) string {
		if v == "" {
			return empty
		}
		return v
	}
	prompt := "FIM template " + orElse(o.FIM, "guessed from the model name")
	if o.FIM == openai.FIMInfill {
		prompt = "llama.cpp's /infill"
	}
	key := "none"
	if o.APIKey != "" {
		key = "set"
	}
	return fmt.Sprintf("model server %s (model: %s; prompt: %s; dialect: %s; API key: %s)",
		openai.SafeURL(o.BaseURL), orElse(o.Model, "the first one it lists"), prompt, orElse(o.Dialect, "detected"), key)
}

// Server returns the model server's model, or nil for the n-gram model
// (trained per root when backends start). It contacts nothing. Errors: a bad
// openai.Config.
func (c ModelConfig) Server() (*openai.Model, error) {
	if !c.Remote() {
		return nil, nil
	}
	return openai.New(c.OpenAI)
}

// LM is Server as an lm.Model: nil (not a nil *openai.Model) for the n-gram
// model.
func (c ModelConfig) LM() (lm.Model, error) {
	m, err := c.Server()
	if err != nil || m == nil {
		return nil, err
	}
	return m, nil
}

// Label names the server's model and server, as bench repair prints it (""
// for the n-gram model).
func (c ModelConfig) Label() string {
	if !c.Remote() {
		return ""
	}
	m, err := c.Server()
	if err != nil {
		return c.String()
	}
	return m.Name()
}

// CheckModel contacts a configured model server once (openai.Model.Check),
// within ModelCheckTimeout, so that a server that is down, refuses the key
// or returns no logprobs is reported before JDT LS is started; nil for the
// n-gram model.
func CheckModel(ctx context.Context, c ModelConfig) error {
	m, err := c.Server()
	if err != nil || m == nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, ModelCheckTimeout)
	defer cancel()
	if err := m.Check(ctx); err != nil {
		return fmt.Errorf("the model server does not work for Repilot: %w", err)
	}
	return nil
}

// ModelCheckTimeout bounds CheckModel (a cold llama-server loads its model
// on the first request).
const ModelCheckTimeout = 2 * time.Minute
