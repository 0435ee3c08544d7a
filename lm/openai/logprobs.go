package openai

// logprobs.go decodes the per-position log-probabilities of a completion from
// the raw response body, in the three shapes servers send:
//
//   - llama.cpp /v1/completions: choices[0].logprobs = {"content": [{id, token,
//     bytes, logprob, top_logprobs: [{id, token, bytes, logprob}]}]}
//   - OpenAI legacy completions (OpenAI, vLLM, ...): choices[0].logprobs =
//     {"tokens": [...], "token_logprobs": [...], "top_logprobs": [{text: lp}]}
//   - llama.cpp /infill and /completion (native): {"content": ..., "stop_type":
//     "eos"|"limit"|"word", "completion_probabilities": [same elements as
//     "content" above]}
//
// go-openai's CompletionChoice.LogProbs only knows the legacy shape, so the
// llama.cpp shapes come back empty there; this file reads the body itself.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
)

// tokenLP is one token with its log-probability. ID is -1 when the server
// does not report token ids (legacy shape).
type tokenLP struct {
	ID      int
	Text    string // exact bytes of the token's piece (may be a partial UTF-8 sequence)
	LogProb float64
}

// position is one generated position: the sampled token and the top
// alternatives, best first.
type position struct {
	Sampled tokenLP
	Top     []tokenLP
}

// completion is the decoded part of a completion response that Repilot uses.
type completion struct {
	Text      string
	Finish    string // "stop", "length", or "" when unknown
	Positions []position
	// HasLogprobs is false when the server sent no logprobs at all (it
	// ignores the parameter): distinct from an empty list.
	HasLogprobs bool
	Tokens      []int // generated token ids (llama.cpp native responses)
}

// llamaToken is an element of llama.cpp's logprobs "content" array, and of
// its "top_logprobs" arrays.
type llamaToken struct {
	ID          *int         `json:"id"`
	Token       string       `json:"token"`
	Bytes       []int        `json:"bytes"`
	LogProb     *float64     `json:"logprob"`
	TopLogprobs []llamaToken `json:"top_logprobs"`
}

func (t llamaToken) decode() tokenLP {
	out := tokenLP{ID: -1, Text: t.Token, LogProb: math.Inf(-1)}
	if t.ID != nil {
		out.ID = *t.ID
	}
	if t.Bytes != nil {
		// token has invalid UTF-8 cut off; bytes is the exact piece.
		b := make([]byte, len(t.Bytes))
		for i, v := range t.Bytes {
			b[i] = byte(v)
		}
		out.Text = string(b)
	}
	if t.LogProb != nil {
		out.LogProb = cleanLogProb(*t.LogProb)
	}
	return out
}

// cleanLogProb maps llama.cpp's stand-in for log(0) (the lowest float32,
// because JSON has no -Inf) to -Inf.
func cleanLogProb(lp float64) float64 {
	if lp <= -3e38 || math.IsNaN(lp) {
		return math.Inf(-1)
	}
	return lp
}

// legacyLogprobs is OpenAI's completions logprobs object.
type legacyLogprobs struct {
	Tokens        []string              `json:"tokens"`
	TokenLogprobs []*float64            `json:"token_logprobs"`
	TopLogprobs   []map[string]*float64 `json:"top_logprobs"`
}

// decodeLogprobs decodes a choices[].logprobs value of either shape.
func decodeLogprobs(raw json.RawMessage) ([]position, bool, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, false, nil
	}
	var probe struct {
		Content *json.RawMessage `json:"content"`
		Tokens  *json.RawMessage `json:"tokens"`
	}
	if err := json.Unmarshal(raw, &probe); err != nil {
		return nil, false, fmt.Errorf("logprobs: %w", err)
	}
	switch {
	case probe.Content != nil:
		var content []llamaToken
		if err := json.Unmarshal(*probe.Content, &content); err != nil {
			return nil, false, fmt.Errorf("logprobs.content: %w", err)
		}
		return decodeLlama(content), true, nil
	case probe.Tokens != nil:
		var lp legacyLogprobs
		if err := json.Unmarshal(raw, &lp); err != nil {
			return nil, false, fmt.Errorf("logprobs: %w", err)
		}
		return decodeLegacy(lp), true, nil
	}
	return nil, false, nil
}

func decodeLlama(content []llamaToken) []position {
	out := make([]position, 0, len(content))
	for _, c := range content {
		p := position{Sampled: c.decode(), Top: make([]tokenLP, 0, len(c.TopLogprobs))}
		for _, t := range c.TopLogprobs {
			p.Top = append(p.Top, t.decode())
		}
		sortTop(p.Top)
		out = append(out, p)
	}
	return out
}

func decodeLegacy(lp legacyLogprobs) []position {
	out := make([]position, 0, len(lp.Tokens))
	for i, tok := range lp.Tokens {
		p := position{Sampled: tokenLP{ID: -1, Text: tok, LogProb: math.Inf(-1)}}
		if i < len(lp.TokenLogprobs) && lp.TokenLogprobs[i] != nil {
			p.Sampled.LogProb = cleanLogProb(*lp.TokenLogprobs[i])
		}
		if i < len(lp.TopLogprobs) {
			for text, v := range lp.TopLogprobs[i] {
				t := tokenLP{ID: -1, Text: text, LogProb: math.Inf(-1)}
				if v != nil {
					t.LogProb = cleanLogProb(*v)
				}
				p.Top = append(p.Top, t)
			}
		}
		sortTop(p.Top)
		out = append(out, p)
	}
	return out
}

// sortTop orders alternatives best first; ties by text then id, so a map's
// random iteration order never shows.
func sortTop(top []tokenLP) {
	sort.SliceStable(top, func(a, b int) bool {
		if top[a].LogProb != top[b].LogProb {
			return top[a].LogProb > top[b].LogProb
		}
		if top[a].Text != top[b].Text {
			return top[a].Text < top[b].Text
		}
		return top[a].ID < top[b].ID
	})
}

// parseCompletion decodes a /v1/completions response body (first choice).
func parseCompletion(body []byte) (completion, error) {
	var r struct {
		Choices []struct {
			Text         string          `json:"text"`
			FinishReason *string         `json:"finish_reason"`
			LogProbs     json.RawMessage `json:"logprobs"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return completion{}, fmt.Errorf("decoding completion response: %w", err)
	}
	if len(r.Choices) == 0 {
		return completion{}, fmt.Errorf("completion response has no choices")
	}
	ch := r.Choices[0]
	c := completion{Text: ch.Text}
	if ch.FinishReason != nil {
		c.Finish = *ch.FinishReason
	}
	var err error
	c.Positions, c.HasLogprobs, err = decodeLogprobs(ch.LogProbs)
	return c, err
}

// parseInfill decodes a llama.cpp native response (/infill, /completion).
func parseInfill(body []byte) (completion, error) {
	var r struct {
		Content  string          `json:"content"`
		Tokens   []int           `json:"tokens"`
		StopType string          `json:"stop_type"`
		Probs    json.RawMessage `json:"completion_probabilities"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return completion{}, fmt.Errorf("decoding infill response: %w", err)
	}
	c := completion{Text: r.Content, Tokens: r.Tokens}
	switch r.StopType {
	case "eos", "word":
		c.Finish = "stop"
	case "limit":
		c.Finish = "length"
	}
	if len(bytes.TrimSpace(r.Probs)) > 0 && !bytes.Equal(bytes.TrimSpace(r.Probs), []byte("null")) {
		var content []llamaToken
		if err := json.Unmarshal(r.Probs, &content); err != nil {
			return completion{}, fmt.Errorf("completion_probabilities: %w", err)
		}
		c.Positions, c.HasLogprobs = decodeLlama(content), true
	}
	return c, nil
}
