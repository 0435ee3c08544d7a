package lm

// speculate.go defines Speculator, the optional interface of a Session that
// can propose a whole continuation in one model call: the tokens the model
// samples for the next positions, each with the top-k distribution it was
// drawn from. The repair loop checks the proposed tokens left to right and
// resamples itself only where it prunes (repair/speculative.go), so a hunk
// costs one model request plus one per rejection instead of one per token.

import "context"

// Step is one position of a proposed continuation.
type Step struct {
	// Top is the model's distribution at this position, exactly as
	// Session.Next would return it for the text before this step (same k,
	// same filtering of control tokens, best first).
	Top []Candidate
	// Chosen is the index in Top of the token the model sampled at this
	// position, or -1 when it sampled a token that is not in Top (outside
	// the top k, or a control token that Next drops).
	Chosen int
	// Token is the sampled token: Top[Chosen] when Chosen >= 0, otherwise
	// what the server reported (Text may then be meaningless).
	Token Candidate
}

// ProposeOptions are the sampling parameters of one proposal.
type ProposeOptions struct {
	// MaxTokens bounds the number of steps (>= 1).
	MaxTokens int
	// K is the number of candidates per step, as for Session.Next.
	K int
	// Temperature is the sampling temperature; 0 means greedy (the most
	// likely token at every position).
	Temperature float64
	// Seed seeds the model's sampler, so equal seeds give equal proposals on
	// a deterministic server.
	Seed uint64
}

// Speculator is implemented by sessions whose model can sample a whole
// continuation per request (lm/openai with llama.cpp, vLLM or OpenAI).
//
// Propose returns the steps after generated, in order. The sampling contract,
// which repair/speculative.go relies on to keep Repilot's distribution: at
// each step, given the steps before it, the token is drawn from a
// distribution whose restriction to Top is proportional to
// exp(LogProb/Temperature) (at Temperature 0: the most likely token of the
// whole vocabulary); tokens outside Top may also be drawn (Chosen = -1).
// The steps stop after the first End token, after the first step with
// Chosen = -1, at MaxTokens, or earlier when the server stops (then the
// caller simply proposes again from where the steps end). Zero steps with a
// nil error means the model proposed nothing.
type Speculator interface {
	Propose(ctx context.Context, generated string, opts ProposeOptions) ([]Step, error)
}
