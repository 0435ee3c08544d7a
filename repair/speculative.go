package repair

// speculative.go is speculative guided decoding: the sampling half of
// Algorithm 1 (loop.go) for a model session that implements lm.Speculator.
// Instead of one model request per token, one request samples a whole hunk
// (with the top-k distribution at every position); the loop walks the
// proposed tokens left to right through the same GuidedPrune, memo, trie and
// active completion as the token-by-token loop, and asks the model again only
// where it did not take the proposed token. A hunk costs one request plus at
// most one per position where the loop resampled locally (a pruned token, a
// token outside the nucleus) or active completion appended text that the
// proposal does not spell (see "Active completion" below).
//
// Why the distribution is the same as loop.go's. At one position, let D be
// the model's top-k there, r the distribution the token-by-token loop draws
// from first (weights w(x) = p(x)^(1/T) on the top-p nucleus A of D, zero
// elsewhere), and G(y | S) the probability that GuidedPrune, having already
// dropped the infeasible tokens S, returns y (it draws from the nucleus of
// D without S, drops an infeasible draw and goes on; loop.go). The
// token-by-token loop returns y with probability
//
//	G(y) = G(y | {}) = r(y)[y feasible] + sum over infeasible x in A of r(x) G(y | {x}).
//
// The server samples the proposed token x from some q whose restriction to D
// is proportional to p^(1/T) (lm.Speculator's contract: llama.cpp's top_k then
// temperature sampler, or OpenAI's plain temperature sampling); so q(x) =
// c*r(x) on A for the constant c = q(A) <= 1. This loop (guidedPruneFrom in
// loop.go: x is GuidedPrune's first draw) takes x when x is in A and
// feasible. If x is in A and infeasible, it goes on with GuidedPrune
// having dropped x; if x is outside A (where r is 0), it runs GuidedPrune
// from the start. So
//
//	P(y) = c*r(y)[y feasible] + c * sum over infeasible x in A of r(x) G(y | {x}) + (1 - c) G(y)
//	     = c*G(y) + (1 - c)*G(y) = G(y),
//
// exactly the token-by-token loop's probability, position by position; by
// induction over positions, whole hunks (and dead, truncated, empty samples)
// have the same distribution. A rejection discards the rest of the proposal,
// which was sampled conditioned on the rejected token, and the next request
// starts from the accepted text on the same prompt prefix, so the server's
// prompt cache keeps the work. At temperature 0 both loops are greedy: the
// server proposes the most likely token, and a rejection falls back to the
// most likely feasible one, as loop.go does.
//
// Active completion. When active completion appends text X after a taken
// token, the token-by-token loop asks the model next after generated+X. If
// the proposal's next tokens t1..tm spell exactly X (their texts concatenated
// equal X, so X ends on a token boundary, none of them the end token), the
// loop drops t1..tm and goes on with step m+1 of the proposal. That step is
// the model's top-k after the prefix generated+X, and its token was sampled
// from q given that prefix: an autoregressive model conditions only on the
// prefix, and the server draws each token afresh given the tokens before it,
// so knowing that t1..tm came out as X (which is all the loop looked at to
// keep the step) says nothing more about step m+1. The argument above
// therefore applies to it unchanged (up to the tokenisation caveat below, as
// for every proposed step). Any other case (a token that crosses
// the end of X or differs from it, the end token, a token outside the top k,
// or a proposal that ends before spelling all of X) discards the rest of the
// proposal and asks again from generated+X, as before; nothing is ever kept
// past a position where the texts disagree. The dropped tokens are not
// counted as sampled tokens (active completion adds none, in both loops), so
// a proposal that spent some of its budget on them can run out before
// Options.MaxTokens; the loop then simply proposes again (counted as a cut).
//
// What differs is only where the randomness comes from (the server's seeded
// sampler for accepted proposals, the sample's own stream for resamples), so
// equal seeds still give equal patches on a deterministic server, but not the
// same patches as the token-by-token loop with that seed. One caveat shared
// with every text-prompt client: within a proposal the model conditions on its
// own tokens, while a new request re-tokenises the text; the two agree except
// where the tokenizer would split the same text differently.

import (
	"context"
	"fmt"
	"strings"

	"github.com/repilot-lsp/repilot-lsp/lm"
)

// sampleSpeculative is sample (loop.go) for a session that can propose whole
// continuations. Same contract and results in distribution; see the file
// comment.
func (s *sampler) sampleSpeculative(ctx context.Context, i int, sp lm.Speculator) (candidate, sampleEnd, error) {
	rng := sampleStream(s.opts.Seed, i)
	d := newDraft(i)
	var (
		pending  []lm.Step // the current proposal's steps after d.generated
		requests int       // proposals made for this sample
		// rejected: the last proposal was discarded at a rejected token.
		// The next request, whenever it comes (memo-answered positions may
		// come first), is charged to that rejection, not counted as a cut.
		rejected bool
	)
	s.endSeen, s.endPruned = false, false
	for {
		if err := ctx.Err(); err != nil {
			return candidate{}, 0, err
		}
		if s.cut(&d) {
			return s.truncated(&d)
		}
		var (
			dist     []lm.Candidate
			proposed = -1    // index in dist of the model's own sample here
			fromStep = false // dist came with a proposed token
		)
		if len(pending) == 0 {
			if s.memo != nil {
				if md, ok := s.memoDist(d.generated); ok {
					dist = md // known distribution: draw locally, no request
				}
			}
			if dist == nil {
				if requests > 0 {
					if !rejected {
						s.stats.SpecCuts++ // a short proposal, or active completion it does not spell
					}
				}
				rejected = false
				steps, err := sp.Propose(ctx, d.generated, lm.ProposeOptions{
					MaxTokens:   s.opts.MaxTokens - d.tokens,
					K:           s.opts.TopK,
					Temperature: s.opts.Temperature,
					Seed:        proposalSeed(s.opts.Seed, i, requests),
				})
				requests++
				s.stats.LMRequests++
				s.stats.Proposals++
				if err != nil {
					return candidate{}, 0, fmt.Errorf("language model: %w", err)
				}
				if len(steps) == 0 {
					return candidate{}, endNothing, nil
				}
				s.recordProposal(d.generated, steps)
				pending = steps
			}
		}
		if dist == nil {
			st := pending[0]
			pending = pending[1:]
			dist, proposed, fromStep = st.Top, st.Chosen, true
			if len(dist) > s.opts.TopK {
				dist = dist[:s.opts.TopK]
			}
			if proposed >= len(dist) {
				proposed = -1
			}
		}
		idx, weights := weigh(dist, s.opts.Temperature)
		if len(idx) == 0 {
			return candidate{}, endNothing, nil
		}
		// GuidedPrune with the proposed token as its first draw.
		k, took, err := s.guidedPruneFrom(ctx, rng, d.generated, dist, idx, weights, proposed)
		if err != nil {
			return candidate{}, 0, err
		}
		if took {
			s.stats.SpecAccepted++
		} else {
			if fromStep {
				s.stats.SpecRejected++
				rejected = true
			}
			pending = nil // sampled after a token we did not take
		}
		if c, end, done := s.take(&d, dist, k); done {
			return c, end, nil
		}
		if k == redrawLine {
			pending = nil // it continued the line we dropped
			continue
		}
		if s.opts.ActiveComplete {
			before := d.generated
			if d.generated, err = s.activelyComplete(ctx, d.generated); err != nil {
				return candidate{}, 0, err
			}
			if d.generated != before {
				// Keep the proposal when its next tokens spell the
				// completed text; otherwise it continues a text we no
				// longer have (see the file comment).
				pending = skipSpelled(pending, d.generated[len(before):])
			}
		}
		d.mark()
	}
}

// skipSpelled returns the steps of pending after those whose sampled tokens
// spell exactly text, ending on a token boundary, or nil when they do not
// (a token crosses the end of text, differs from it, is the end token or
// lies outside its step's top k, or pending ends first). text is not empty.
func skipSpelled(pending []lm.Step, text string) []lm.Step {
	spelled := ""
	for n, st := range pending {
		if spelled == text {
			return pending[n:]
		}
		if st.Chosen < 0 || st.Token.End || !strings.HasPrefix(text, spelled+st.Token.Text) {
			return nil
		}
		spelled += st.Token.Text
	}
	return nil // pending spells at most text: nothing left to keep
}

// Proposal span. Every proposal asks for the rest of the sample's token
// budget (Options.MaxTokens less the tokens taken), so a sample costs one
// request plus one per rejection (issue 4's bound) plus one per text that
// active completion appends and the proposal does not spell; a proposal is
// re-asked for no other reason unless it runs out first (the server returned
// fewer tokens than asked, or active completion used some of them). The
// tokens after a rejection are wasted server work: with a small model or a
// short budget that costs less than the requests it saves. The span changes only the
// cost, never the distribution (see the file comment).

// recordProposal stores the proposal's distributions in the memo under the
// prefixes they belong to, as next() stores Next's answers; later samples
// passing through those prefixes draw locally.
func (s *sampler) recordProposal(generated string, steps []lm.Step) {
	if s.memo == nil {
		return
	}
	prefix := generated
	for _, st := range steps {
		top := st.Top
		if len(top) > s.opts.TopK {
			top = top[:s.opts.TopK]
		}
		s.recordDist(prefix, top)
		if st.Chosen < 0 || st.Token.End {
			return
		}
		prefix += st.Token.Text
	}
}

// proposalSeed is the server-side seed of request n of sample i: a splitmix64
// mix of the repair seed, the sample and the request, so proposals are
// reproducible and independent of each other.
func proposalSeed(seed int64, i, n int) uint64 {
	z := uint64(seed) ^ (uint64(i)<<32 | uint64(n)) + 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
