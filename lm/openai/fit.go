package openai

// fit.go cuts a session's FIM context to the server's context. A server
// refuses a prompt longer than its context (llama-server: HTTP 400 "request
// (N tokens) exceeds the available context size"), so a repair of any file
// larger than the context failed. The prompt keeps the text nearest the
// middle, cut at line starts (lm.TailLines, lm.HeadLines, which ghost text
// uses for its byte bounds too), and leaves room for the tokens the caller
// generates (lm.FIM.MaxTokens), which each request appends to the prompt.
// Every session of a Model is cut here, at Start: the token-by-token
// baseline, speculative proposals and the concurrent samples of one hunk
// (each its own session on the same FIM, cut alike). Only the model's
// prompt is cut: the completion engine sees the whole document.

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"

	"github.com/repilot-lsp/repilot-lsp/lm"
)

// DefaultContextTokens is the context assumed, in tokens, when
// Config.ContextTokens is 0 and the server reports none (OpenAI's API,
// Ollama, LM Studio): 4096, the smallest that current code models serve by
// default.
const DefaultContextTokens = 4096

// EnvContextTokens is the environment variable of repilot-lsp's
// --model-context (Config.ContextTokens), named in errors.
const EnvContextTokens = "REPILOT_MODEL_CONTEXT"

// Fitting's constants. Without a tokenizer (servers other than llama.cpp and vLLM) a
// prompt of n bytes is taken as n/estimateBytesPerToken tokens: code
// tokenizers make about 3-4 bytes a token of Java, and 2 leaves room for
// dense code and non-ASCII text. defaultGenerationTokens is the room left
// when lm.FIM.MaxTokens is 0. fitSlack covers what the counts do not see:
// the BOS token and /infill's FIM markers the server adds, and generated
// text that the server tokenizes into more tokens than were generated.
const (
	estimateBytesPerToken   = 2
	defaultGenerationTokens = 256
	fitSlack                = 16
	maxFitCache             = 64
)

// ErrContextExceeded is wrapped by the error of a request the server refused
// because its prompt did not fit the server's context (which fitting should
// prevent; it happens when the configured context is larger than the
// server's). It is never retried.
var ErrContextExceeded = errors.New("the prompt exceeds the model server's context")

// promptBudget returns the tokens a prompt may take in a context of nctx
// tokens when maxTokens are generated after it: the context less the
// generation (with a quarter more, for re-tokenized text) and fitSlack, but
// at least a quarter of the context (a server stops a generation at its
// context, with finish_reason "length").
func promptBudget(nctx, maxTokens int) int {
	gen := maxTokens
	if gen <= 0 {
		gen = defaultGenerationTokens
	}
	return max(nctx-gen-gen/4-fitSlack, nctx/4)
}

// fitKey identifies a FIM context and its budget in the fit cache.
type fitKey struct {
	sum    [sha256.Size]byte
	budget int
}

// fitCut is a cached fit: the bytes kept of the prefix (its end) and of the
// suffix (its start).
type fitCut struct{ prefix, suffix int }

// fit returns f with Prefix and Suffix cut so that the session's prompt
// (prompt(prefix, suffix)) takes at most promptBudget tokens of the model's
// context. It counts with the server's tokenizer where it has one (llama.cpp's
// or vLLM's /tokenize), else estimates; it cuts first where the last count's bytes
// per token put the budget, then in proportion to the count, at line
// starts, up to four times, and then by bytes (a token is at least a byte,
// so a prompt of budget bytes fits). usesSuffix is false for a template that
// leaves the suffix out (lm/fim "none"): then the prefix gets the whole
// budget. The result for equal contexts is cached, so the concurrent
// sessions of a hunk cost one count. Errors: only ctx's.
func (m *Model) fit(ctx context.Context, f lm.FIM, prompt func(p, s string) string) (lm.FIM, error) {
	m.mu.Lock()
	nctx := m.nctx
	m.mu.Unlock()
	if nctx <= 0 {
		nctx = DefaultContextTokens
	}
	budget := promptBudget(nctx, f.MaxTokens)
	whole := prompt(f.Prefix, f.Suffix)
	if len(whole) <= budget {
		return f, nil
	}
	h := sha256.New()
	h.Write([]byte(prompt("", ""))) // the prompt's own text (Fit's callers differ in it)
	h.Write([]byte{0})
	h.Write([]byte(f.Prefix))
	h.Write([]byte{0})
	h.Write([]byte(f.Suffix))
	key := fitKey{budget: budget}
	h.Sum(key.sum[:0])
	m.fitMu.Lock()
	cut, ok := m.fits[key]
	m.fitMu.Unlock()
	if ok {
		f.Prefix, f.Suffix = f.Prefix[len(f.Prefix)-cut.prefix:], f.Suffix[:cut.suffix]
		return f, nil
	}
	usesSuffix := strings.Contains(prompt("", "\x00"), "\x00")
	split := func(target int) (int, int) {
		if !usesSuffix {
			return target, len(f.Suffix)
		}
		sb := min(target/4, len(f.Suffix))
		pb := min(target-sb, len(f.Prefix))
		return pb, min(target-pb, len(f.Suffix))
	}
	p, s := f.Prefix, f.Suffix
	text := whole
	m.fitMu.Lock()
	ratio := m.ratio
	m.fitMu.Unlock()
	if target := int(float64(budget)*ratio*0.95) - len(prompt("", "")); ratio > 0 && target < len(whole) {
		// Cut first where the last count's bytes per token say the
		// budget ends: ghost text fits a new context at each keystroke,
		// and a count of the whole document would be most of the work.
		pb, sb := split(target)
		p, s = lm.TailLines(f.Prefix, pb), lm.HeadLines(f.Suffix, sb)
		text = prompt(p, s)
	}
	n, err := m.countTokens(ctx, text)
	m.learnRatio(text, n, err)
	for try := 0; err == nil && n > budget && try < 4; try++ {
		// Shrink the text in proportion to the tokens over, with 5% to
		// spare for the line cuts' and the tokenizer's unevenness.
		kept := len(p)
		if usesSuffix {
			kept += len(s)
		}
		target := int(float64(kept) * float64(budget) / float64(n) * 0.95)
		pb, sb := split(target)
		p, s = lm.TailLines(f.Prefix, pb), lm.HeadLines(f.Suffix, sb)
		text = prompt(p, s)
		n, err = m.countTokens(ctx, text)
		m.learnRatio(text, n, err)
	}
	if err != nil {
		return f, err
	}
	if n > budget {
		pb, sb := split(max(budget-len(prompt("", "")), 0))
		p, s = lm.TailLines(f.Prefix, pb), lm.HeadLines(f.Suffix, sb)
	}
	m.fitMu.Lock()
	if len(m.fits) >= maxFitCache || m.fits == nil {
		m.fits = map[fitKey]fitCut{}
	}
	m.fits[key] = fitCut{prefix: len(p), suffix: len(s)}
	m.fitMu.Unlock()
	f.Prefix, f.Suffix = p, s
	return f, nil
}

// Fit returns the end of head and the start of tail, each cut at line
// starts (lm.TailLines, lm.HeadLines), so that prompt(head, tail) takes at
// most the server's context less maxTokens generated after it (0: 256) and
// fitSlack: the rule Start applies to a FIM context, for a prompt another
// client of the same server builds (search's chat prompts, search/llm, whose
// chat template's tokens the caller adds to maxTokens). The tail gets at
// least a quarter of what is kept when both are long; a prompt without its
// tail (prompt("", "\x00") holds no "\x00") gives head the whole budget. It
// contacts the server the first time (detection, New) and counts with its
// tokenizer where it has one. Errors: detection's (a server that cannot be
// reached), ctx's.
func (m *Model) Fit(ctx context.Context, head, tail string, maxTokens int, prompt func(head, tail string) string) (string, string, error) {
	if err := m.prepare(ctx); err != nil {
		return head, tail, err
	}
	f, err := m.fit(ctx, lm.FIM{Prefix: head, Suffix: tail, MaxTokens: maxTokens}, prompt)
	if err != nil {
		return head, tail, err
	}
	return f.Prefix, f.Suffix, nil
}

// learnRatio keeps the bytes per token of a counted text of at least 1 KiB
// (Model.ratio), for the next fit's first cut.
func (m *Model) learnRatio(text string, n int, err error) {
	if err != nil || n <= 0 || len(text) < 1<<10 {
		return
	}
	m.fitMu.Lock()
	m.ratio = float64(len(text)) / float64(n)
	m.fitMu.Unlock()
}

// countTokens returns the tokens of text: the server's count where it
// tokenizes (llama.cpp's /tokenize, vLLM's), else the estimate. A server
// whose /tokenize fails other than by ctx is estimated from then on.
func (m *Model) countTokens(ctx context.Context, text string) (int, error) {
	m.mu.Lock()
	tok, dialect := m.tokenizes, m.dialect
	m.mu.Unlock()
	if tok {
		tokenize := m.client.Tokenize
		if dialect == DialectVLLM {
			tokenize = m.client.TokenizeVLLM
		}
		n, err := tokenize(ctx, text)
		if err == nil {
			return n, nil
		}
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		m.mu.Lock()
		m.tokenizes = false
		m.mu.Unlock()
	}
	return (len(text) + estimateBytesPerToken - 1) / estimateBytesPerToken, nil
}

// contextExceeded is a request the server refused for its prompt's length:
// the server's own words, and what to set.
type contextExceeded struct {
	err  *Error
	nctx int
}

func (e *contextExceeded) Error() string {
	return fmt.Sprintf("%v (%v: Repilot cut the prompt to fit a context of %d tokens, leaving room for the hunk's tokens; set --model-context or $%s to the server's context for one request, for llama-server its -c divided by its -np)",
		e.err, ErrContextExceeded, e.nctx, EnvContextTokens)
}

// Unwrap gives the server's *Error and ErrContextExceeded.
func (e *contextExceeded) Unwrap() []error { return []error{e.err, ErrContextExceeded} }

// contextErr turns a refusal for the prompt's length (HTTP 400 or 413 whose
// message speaks of the context's size or length: llama.cpp's "exceeds the
// available context size", OpenAI's and vLLM's "maximum context length")
// into an error naming the context and the setting; other errors pass.
func (m *Model) contextErr(err error) error {
	var e *Error
	if !errors.As(err, &e) || (e.Status != 400 && e.Status != 413) {
		return err
	}
	msg := strings.ToLower(e.Message)
	if !strings.Contains(msg, "context size") && !strings.Contains(msg, "context length") && !strings.Contains(msg, "context_length") {
		return err
	}
	m.mu.Lock()
	nctx := m.nctx
	m.mu.Unlock()
	if nctx <= 0 {
		nctx = DefaultContextTokens
	}
	return &contextExceeded{err: e, nctx: nctx}
}
