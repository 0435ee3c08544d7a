// Package openai puts any OpenAI-compatible completion server behind
// Repilot's lm.Model: llama.cpp's llama-server, vLLM, Ollama, LM Studio or a
// hosted API. A session turns the FIM context into a raw prompt with the
// model family's template (lm/fim) or uses llama.cpp's /infill, and reads
// next-token distributions from the completion's logprobs.
//
// Two ways to decode:
//
//   - Session.Next (lm.Session), the baseline: one request per token, with
//     max_tokens 1 and logprobs k, on prompt FIM(prefix, suffix) + generated.
//   - Session.Propose (lm.Speculator): one request samples a whole
//     continuation at the requested temperature with top-k logprobs at every
//     position; repair/speculative.go checks its tokens and resamples only
//     where the completion engine prunes.
//
// Both send the prompt Start fitted to the server's context (fit.go): the
// document's text nearest the middle, with room for the tokens generated.
//
// Architecture invariant: this package knows HTTP and the servers' dialects,
// never LSP or the completion engine; the API key never reaches a log or an
// error message.
package openai

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/repilot-lsp/repilot-lsp/lm"
	"github.com/repilot-lsp/repilot-lsp/lm/fim"
)

// Model is an lm.Model backed by an OpenAI-compatible server. It is safe for
// concurrent use.
type Model struct {
	client *Client
	cfg    Config

	mu       sync.Mutex
	prepared bool
	dialect  string
	model    string
	tpl      fim.Template
	infill   bool
	// nctx is the context of one request in tokens (fit.go), decided in
	// prepare; tokenizes says the server counts tokens (llama.cpp's or
	// vLLM's /tokenize), until a count fails.
	nctx      int
	tokenizes bool

	// fitMu guards fits, the cut of recent FIM contexts, and ratio, the
	// bytes per token of the last count (fit.go).
	fitMu sync.Mutex
	fits  map[fitKey]fitCut
	ratio float64

	// bytesMu guards byteTokens: ids of tokens whose text is not valid
	// UTF-8 on its own, learned from logprobs (see banned).
	bytesMu    sync.Mutex
	byteTokens map[int]bool
}

// maxByteTokens bounds the learned ban list (a byte-level BPE vocabulary has
// a few hundred such tokens).
const maxByteTokens = 4096

// learn records the ids of tokens in positions whose text is not valid UTF-8.
func (m *Model) learn(positions []position) {
	m.bytesMu.Lock()
	defer m.bytesMu.Unlock()
	for _, p := range positions {
		for _, t := range append(p.Top, p.Sampled) {
			if t.ID >= 0 && t.Text != "" && !utf8.ValidString(t.Text) && len(m.byteTokens) < maxByteTokens {
				if m.byteTokens == nil {
					m.byteTokens = map[int]bool{}
				}
				m.byteTokens[t.ID] = true
			}
		}
	}
}

// banned returns llama.cpp's logit_bias value banning every learned byte
// token ([[id, false], ...]), or nil. Why this keeps Repilot's
// distribution: candidates drops these tokens from every distribution the
// loop sees, so banning them on the server only removes tokens the loop
// would reject anyway; on the tokens that remain, the server's sampling
// stays proportional to exp(logprob/T), which is all lm.Speculator promises,
// and top_logprobs still report the distribution before the bias. What it
// saves: llama.cpp fails a whole request (HTTP 500) when its output ends
// up with a lone byte (see unusableOutput).
func (m *Model) banned() [][2]any {
	m.bytesMu.Lock()
	defer m.bytesMu.Unlock()
	if len(m.byteTokens) == 0 {
		return nil
	}
	out := make([][2]any, 0, len(m.byteTokens))
	for id := range m.byteTokens {
		out = append(out, [2]any{id, false})
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0].(int) < out[j][0].(int) })
	return out
}

var (
	_ lm.Model      = (*Model)(nil)
	_ lm.Session    = (*session)(nil)
	_ lm.Speculator = (*session)(nil)
)

// New returns a Model for cfg. It does not contact the server: the server
// dialect and, when Config.Model is empty, the model name are found on the
// first Start (GET /v1/models). Errors: a bad base URL, an unknown FIM
// template or dialect.
func New(cfg Config) (*Model, error) {
	c, err := NewClient(cfg)
	if err != nil {
		return nil, err
	}
	m := &Model{client: c, cfg: c.cfg, dialect: c.cfg.Dialect, model: c.cfg.Model}
	switch strings.ToLower(strings.TrimSpace(c.cfg.FIM)) {
	case "":
		// guessed in prepare, once the model name is known
	case FIMInfill:
		m.infill = true
	default:
		if m.tpl, err = fim.ByName(c.cfg.FIM); err != nil {
			return nil, fmt.Errorf("lm/openai: %w", err)
		}
	}
	return m, nil
}

// String is Name: formatting a Model (%v, %+v, %#v) never prints its
// configuration's API key.
func (m *Model) String() string { return m.Name() }

// GoString is String.
func (m *Model) GoString() string { return m.Name() }

// Client returns the underlying client (for embeddings and request counts).
func (m *Model) Client() *Client { return m.client }

// Name identifies the model in reports and memo keys: "<model>@<base URL>"
// (no credentials).
func (m *Model) Name() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	name := m.model
	if name == "" {
		name = "openai"
	}
	return name + "@" + safeURL(m.cfg.BaseURL)
}

// Dialect returns the server dialect in use ("" before the first Start when
// detecting).
func (m *Model) Dialect() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.dialect
}

// Template returns the FIM template name in use ("infill" for /infill; ""
// before the first Start when guessing).
func (m *Model) Template() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.infill {
		return FIMInfill
	}
	return m.tpl.Name
}

// prepare detects the dialect and model name (GET /v1/models) when the
// configuration leaves them open, and guesses the FIM template. A server that
// cannot be reached is an error (and detection is tried again next time); a
// server without /v1/models gets the plain OpenAI dialect.
func (m *Model) prepare(ctx context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.prepared {
		return nil
	}
	var models []ModelInfo
	if m.dialect == DialectAuto || m.model == "" {
		var err error
		models, err = m.client.Models(ctx)
		var e *Error
		switch {
		case err == nil:
			if m.model == "" && len(models) > 0 {
				m.model = models[0].ID
				m.client.setModel(m.model)
			}
			if m.dialect == DialectAuto {
				m.dialect = DialectOpenAI
				for _, mi := range models {
					switch strings.ToLower(mi.OwnedBy) {
					case "llamacpp":
						m.dialect = DialectLlamaCpp
					case "vllm":
						m.dialect = DialectVLLM
					}
				}
			}
		case errors.As(err, &e) && e.Status != 0 && e.Status != 401 && e.Status != 403:
			// No /v1/models here: assume the plain API.
			if m.dialect == DialectAuto {
				m.dialect = DialectOpenAI
			}
		default:
			return err
		}
	}
	if err := m.contextLocked(ctx, models); err != nil {
		return err
	}
	if m.infill && m.dialect != DialectLlamaCpp {
		return fmt.Errorf("lm/openai: FIM %q needs llama.cpp's llama-server, but the server at %s is %q", FIMInfill, safeURL(m.cfg.BaseURL), m.dialect)
	}
	if !m.infill && m.tpl.Name == "" {
		m.tpl, _ = fim.Guess(m.model) // "none" when the family is unknown
	}
	m.prepared = true
	return nil
}

// contextLocked decides m.nctx, the context of one request (Config.ContextTokens,
// fit.go): llama.cpp's GET /props wins over a larger configured value;
// vLLM's max_model_len (from models, the detection's list, else asked) or
// DefaultContextTokens apply when none is configured. A server that does not
// answer these is left to the configured value or the default; only ctx's
// end is an error.
func (m *Model) contextLocked(ctx context.Context, models []ModelInfo) error {
	m.nctx = m.cfg.ContextTokens
	switch m.dialect {
	case DialectLlamaCpp:
		n, err := m.client.ContextSize(ctx)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err == nil && n > 0 && (m.nctx == 0 || n < m.nctx) {
			m.nctx = n
		}
		m.tokenizes = true
	case DialectVLLM:
		m.tokenizes = true // vLLM's /tokenize (Client.TokenizeVLLM)
		if m.nctx == 0 && models == nil {
			models, _ = m.client.Models(ctx)
			if ctx.Err() != nil {
				return ctx.Err()
			}
		}
		for _, mi := range models {
			if m.nctx == 0 && (mi.ID == m.model || len(models) == 1) && mi.MaxModelLen > 0 {
				m.nctx = mi.MaxModelLen
			}
		}
	}
	if m.nctx == 0 {
		m.nctx = DefaultContextTokens
	}
	return nil
}

// ContextTokens returns the context of one request in tokens that prompts
// are fitted to (0 before the first Start).
func (m *Model) ContextTokens() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.nctx
}

// Start opens a session for one FIM context. It contacts the server the
// first time (detection, see New) and, when the context's prompt may not fit
// the server's context, to count its tokens (llama.cpp): the session's
// prompt keeps the text nearest the middle that fits with f.MaxTokens
// generated after it (fit.go). The session implements lm.Speculator
// unless Config.NoSpeculate is set or the dialect is DialectOther.
func (m *Model) Start(ctx context.Context, f lm.FIM) (lm.Session, error) {
	if err := m.prepare(ctx); err != nil {
		return nil, err
	}
	m.mu.Lock()
	s := &session{m: m, fim: f, tpl: m.tpl, infill: m.infill, dialect: m.dialect}
	m.mu.Unlock()
	prompt := s.tpl.Prompt
	if s.infill {
		prompt = func(p, s string) string { return p + s } // the server adds the markers (fitSlack)
	}
	f, err := m.fit(ctx, f, prompt)
	if err != nil {
		return nil, err
	}
	s.fim = f
	if !s.infill {
		s.prompt = s.tpl.Prompt(f.Prefix, f.Suffix)
	}
	if m.cfg.NoSpeculate || s.dialect == DialectOther {
		return plainSession{s}, nil
	}
	return s, nil
}

// session is one FIM context. Next is the token-by-token baseline; Propose
// is the speculative path.
type session struct {
	m       *Model
	fim     lm.FIM
	tpl     fim.Template
	infill  bool
	dialect string
	prompt  string // FIM prompt up to the middle (not used with /infill)
}

// plainSession hides Propose: the baseline, or a server whose sampling
// cannot be controlled.
type plainSession struct{ s *session }

func (p plainSession) Next(ctx context.Context, generated string, k int) ([]lm.Candidate, error) {
	return p.s.Next(ctx, generated, k)
}

// k clamps a requested top-k to what the server allows.
func (s *session) k(k int) int {
	if k <= 0 || k > s.m.cfg.MaxLogprobs {
		return s.m.cfg.MaxLogprobs
	}
	return k
}

// samplerFields are the dialect's extra body fields that make the server
// sample at temperature t from the top k of the model's own distribution,
// with nothing else reshaping it (no top-p, min-p, typical, penalties, DRY,
// XTC, mirostat), and keep the prompt cache warm. The OpenAI dialect sends
// top_p 1 as a standard field instead.
func (s *session) samplerFields(k int, t float64) map[string]any {
	switch s.dialect {
	case DialectLlamaCpp:
		return map[string]any{
			"top_k": k, "top_p": 1.0, "min_p": 0.0, "typical_p": 1.0,
			"repeat_penalty": 1.0, "presence_penalty": 0.0, "frequency_penalty": 0.0,
			"dry_multiplier": 0.0, "xtc_probability": 0.0, "mirostat": 0, "dynatemp_range": 0.0,
			"samplers":     []string{"top_k", "temperature"},
			"cache_prompt": true,
			"n_probs":      k,
		}
	case DialectVLLM:
		return map[string]any{"top_k": -1, "min_p": 0.0, "repetition_penalty": 1.0}
	}
	return nil
}

// complete sends one request for up to maxTokens tokens after generated.
// With llama.cpp it bans the byte tokens learned so far (Model.banned) and
// learns from the answer.
func (s *session) complete(ctx context.Context, generated string, maxTokens, k int, t float64, seed *int) (ch Choice, endpoint string, err error) {
	c := s.m.client
	extra := s.samplerFields(k, t)
	if s.dialect == DialectLlamaCpp {
		if ban := s.m.banned(); ban != nil {
			extra["logit_bias"] = ban
		}
		defer func() {
			if ch.HasLogprobs {
				s.m.learn(ch.Positions)
			}
		}()
	}
	if s.infill {
		ch, err = c.Infill(ctx, InfillRequest{
			Prefix: s.fim.Prefix, Suffix: s.fim.Suffix, Prompt: generated,
			MaxTokens: maxTokens, Probs: k, Temperature: t, Seed: seed, Extra: extra,
		})
		return ch, c.root + "/infill", s.m.contextErr(err)
	}
	req := CompletionRequest{
		Prompt: s.prompt + generated, MaxTokens: maxTokens, Logprobs: k,
		Temperature: t, Seed: seed, Extra: extra,
	}
	if s.dialect != DialectOther {
		req.TopP = 1
	}
	chs, err := c.CreateCompletion(ctx, req)
	if err != nil {
		return Choice{}, "", s.m.contextErr(err)
	}
	return chs[0], c.cfg.BaseURL + "/completions", nil
}

// unusableTries bounds Next's requests at one position when the server
// cannot return the token it generated (see Next).
const unusableTries = 8

// unusableOutput reports llama.cpp's failure to return a completion whose
// text is not valid UTF-8 (a lone byte token): HTTP 500 "The model produced
// output that does not match the expected ... format".
func unusableOutput(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Status == 500 && strings.Contains(e.Message, "does not match the expected")
}

// Next is the baseline: one greedy request with max_tokens 1 and logprobs k
// on FIM(prefix, suffix) + generated; the first position's top_logprobs are
// the distribution. End candidates are the model's end-of-generation tokens
// (see candidates).
//
// llama.cpp cannot return a generated token that is not valid UTF-8 on its
// own: a byte of a multi-byte character gives no position, and a lone
// continuation byte fails the whole request (HTTP 500). The distribution at
// the position does not depend on which token the server generates there,
// so Next then asks again with the server sampling (temperature 1, top k,
// seeded) instead of taking the greedy token, up to unusableTries times.
func (s *session) Next(ctx context.Context, generated string, k int) ([]lm.Candidate, error) {
	k = s.k(k)
	for try := 0; ; try++ {
		t, seed := 0.0, (*int)(nil)
		if try > 0 {
			t, seed = 1, &try
		}
		ch, endpoint, err := s.complete(ctx, generated, 1, k, t, seed)
		retry := s.dialect == DialectLlamaCpp && try+1 < unusableTries
		if err != nil {
			if retry && unusableOutput(err) {
				continue
			}
			return nil, err
		}
		if len(ch.Positions) > 0 {
			cands, _ := s.candidates(ch.Positions[0].Top, k)
			return cands, nil
		}
		if endedSilently(ch) {
			return []lm.Candidate{{End: true}}, nil
		}
		if retry && ch.Finish == "length" {
			continue // an incomplete UTF-8 token: no position reported
		}
		return nil, s.m.client.noLogprobsErr(endpointOp(endpoint), endpoint, ch.Finish)
	}
}

// endedSilently: the server stopped before producing any token and reported
// no position (an end token it does not show in logprobs). The only honest
// reading is that the model ended the middle; its probability is unknown, so
// the End candidate gets LogProb 0.
func endedSilently(ch Choice) bool { return ch.Finish == "stop" && ch.Text == "" }

func endpointOp(endpoint string) string {
	if strings.HasSuffix(endpoint, "/infill") {
		return "infill"
	}
	return "completions"
}

// candidates turns a position's alternatives into lm candidates, best first,
// at most k, and maps each alternative's index to its candidate index (-1:
// dropped). Classification:
//   - a token with empty text is a special token the server does not render
//     (llama.cpp shows control tokens as ""): in a FIM middle these are the
//     end-of-generation tokens (EOS, EOT, FIM pad, file separator), so End;
//   - a token whose text is one of the template's end tokens (servers that
//     render special tokens, such as vLLM): End, with empty Text;
//   - a token whose text is one of the template's FIM markers: dropped;
//   - a token whose text is not valid UTF-8 (one byte of a multi-byte
//     character): dropped. The hunk goes back to the server as JSON text,
//     which cannot carry a partial character, and Java source is text; so
//     characters the tokenizer splits into bytes are out of reach (rare in
//     code; the model still writes such characters with whole tokens);
//   - anything else: text appended as is.
func (s *session) candidates(top []tokenLP, k int) ([]lm.Candidate, []int) {
	out := make([]lm.Candidate, 0, min(len(top), k))
	idx := make([]int, len(top))
	for i, t := range top {
		idx[i] = -1
		if len(out) >= k {
			continue
		}
		c := lm.Candidate{Text: t.Text, LogProb: t.LogProb}
		switch {
		case t.Text == "":
			c.End = true
		case !utf8.ValidString(t.Text):
			continue
		default:
			switch s.tpl.Classify(t.Text) {
			case fim.EndOfMiddle:
				c.End, c.Text = true, ""
			case fim.Drop:
				continue
			}
		}
		idx[i] = len(out)
		out = append(out, c)
	}
	return out, idx
}

// Propose samples up to opts.MaxTokens tokens after generated in one request,
// at opts.Temperature from the top opts.K (llama.cpp: top_k sampler then
// temperature; vLLM and OpenAI: temperature with top_p 1, so any token may be
// drawn, which the lm.Speculator contract allows), with top-k logprobs at
// every position. See lm.Speculator for what the steps promise.
//
// Alignment: llama.cpp reports no position for a token that leaves the text
// with an incomplete UTF-8 sequence and folds it into the next position's
// text. Such a position's alternatives belong to a later position than its
// text suggests, so the steps stop before it (detected by the sampled
// token's text differing from its own alternative's text, or, when the
// sampled token is not among the alternatives, by non-ASCII text).
func (s *session) Propose(ctx context.Context, generated string, opts lm.ProposeOptions) ([]lm.Step, error) {
	k := s.k(opts.K)
	n := max(opts.MaxTokens, 1)
	seed := int(opts.Seed & math.MaxInt32)
	t := max(opts.Temperature, 0)
	ch, endpoint, err := s.complete(ctx, generated, n, k, t, &seed)
	if unusableOutput(err) {
		// The server sampled text it cannot return (see Next): no
		// proposal, only this position's distribution.
		ch, err = Choice{}, nil
	}
	if err != nil {
		return nil, err
	}
	if len(ch.Positions) == 0 {
		if endedSilently(ch) {
			end := lm.Candidate{End: true}
			return []lm.Step{{Top: []lm.Candidate{end}, Chosen: 0, Token: end}}, nil
		}
		if !ch.HasLogprobs && ch.Text != "" {
			return nil, s.m.client.noLogprobsErr(endpointOp(endpoint), endpoint, ch.Finish)
		}
	}
	steps := make([]lm.Step, 0, len(ch.Positions))
	for _, p := range ch.Positions {
		cands, idx := s.candidates(p.Top, k)
		j := sampledIndex(p)
		if j >= 0 && p.Top[j].Text != p.Sampled.Text && p.Sampled.ID >= 0 {
			break // misaligned (see above)
		}
		if j < 0 && !isASCII(p.Sampled.Text) {
			break
		}
		st := lm.Step{Top: cands, Chosen: -1}
		if j >= 0 {
			st.Chosen = idx[j]
		}
		if st.Chosen >= 0 {
			st.Token = cands[st.Chosen]
		} else {
			st.Token = lm.Candidate{Text: p.Sampled.Text, LogProb: p.Sampled.LogProb, End: p.Sampled.Text == ""}
		}
		steps = append(steps, st)
		if st.Chosen < 0 || st.Token.End {
			break
		}
	}
	if len(steps) == 0 {
		// The first position was unusable (the server's token was not valid
		// UTF-8 on its own): give its distribution from Next, with no
		// proposed token, so the caller samples this position itself.
		top, err := s.Next(ctx, generated, k)
		if err != nil || len(top) == 0 {
			return nil, err
		}
		steps = append(steps, lm.Step{Top: top, Chosen: -1})
	}
	return steps, nil
}

// sampledIndex finds the sampled token among the position's alternatives: by
// id when the server reports ids, else by text. -1 when absent.
func sampledIndex(p position) int {
	for j, t := range p.Top {
		if p.Sampled.ID >= 0 {
			if t.ID == p.Sampled.ID {
				return j
			}
		} else if t.Text == p.Sampled.Text {
			return j
		}
	}
	return -1
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
