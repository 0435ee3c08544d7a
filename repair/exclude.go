package repair

// exclude.go is sampling without replacement for callers of GuidedSampler
// that validate each complete sample themselves (inline ghost text): once
// a text is excluded (GuidedSampler.Exclude), no later sample ends with it,
// and later samples go where the mass left is.
//
// How. Every draw records its step on the sample's path: the text before
// it, the token taken and the log-probabilities of the tokens still
// drawable there (not pruned by then). Excluding the sample's text marks
// its end as tried, and walks the path back from the end: the share of the
// completions through each step's text that is excluded grows by the
// product of the conditional probabilities of the steps below it (at the
// sampler's temperature when Exclude is called, temperature 0 counting as
// 1, as weigh does). A later draw multiplies each token's weight by the
// share of the completions through it that is not excluded (0 for a tried
// end): this is incremental sampling without replacement (Shi, Bieber and
// Sutton, "Incremental Sampling Without Replacement for Sequence Models",
// ICML 2020, the UniqueRandomizer), up to what the shares do not know: the
// tokens pruned after a step was recorded, the top-p cut and the
// temperature of later samples, all of which only shift weights; a tried
// end itself always weighs 0. A greedy sample after an exclusion takes the
// best text not tried. When a draw finds no weight left, the prefix is dead
// (the trie of rejected prefixes takes it, as for a pruned one).
//
// Nothing here runs in the repair loop (sampler.tried is nil there).

import (
	"math"

	"github.com/repilot-lsp/repilot-lsp/lm"
)

// triedTexts is what a GuidedSampler knows of the texts excluded so far and
// the path of its current sample. Used by one goroutine at a time.
type triedTexts struct {
	ends  map[string]bool    // complete texts excluded
	share map[string]float64 // text right after a token -> share of the completions through it excluded, in [0, 1]
	path  []pathStep         // the current sample's draws
}

// pathStep is one draw of the current sample.
type pathStep struct {
	at    string    // the generated text before the draw
	after string    // at plus the token's text (a complete text for the end token)
	end   bool      // the token was the end token
	lp    float64   // the token's log-probability
	alive []float64 // log-probabilities of the tokens not pruned at the draw (the token's included)
}

// triedKey returns the text a token leads to after generated (the key of
// share, or of ends for the end token).
func triedKey(generated string, c lm.Candidate) string { return generated + c.Text }

// discount multiplies the weights of the tokens of dist (indices idx) by
// the share of their completions not excluded, and forgets the path's
// steps at or after generated (the sample went back: redrawLine, or a new
// sample). It returns a slice for the tokens pruned at this draw (all
// false) and whether any weight changed. A nil *triedTexts changes nothing.
func (t *triedTexts) discount(generated string, dist []lm.Candidate, idx []int, weights []float64) ([]bool, bool) {
	if t == nil {
		return nil, false
	}
	n := len(t.path)
	for n > 0 && len(t.path[n-1].at) >= len(generated) {
		n--
	}
	t.path = t.path[:n]
	changed := false
	for j, i := range idx {
		k := triedKey(generated, dist[i])
		f := 0.0
		if dist[i].End {
			if t.ends[k] {
				f = 1
			}
		} else {
			f = t.share[k]
		}
		if f > 0 {
			weights[j] *= max(0, 1-f)
			changed = true
		}
	}
	return make([]bool, len(idx)), changed
}

// step records the draw of idx[j] after generated; pruned marks the tokens
// pruned at it. A nil *triedTexts records nothing.
func (t *triedTexts) step(generated string, dist []lm.Candidate, idx []int, pruned []bool, j int) {
	if t == nil {
		return
	}
	alive := make([]float64, 0, len(idx))
	for n, i := range idx {
		if !pruned[n] {
			alive = append(alive, dist[i].LogProb)
		}
	}
	c := dist[idx[j]]
	t.path = append(t.path, pathStep{at: generated, after: triedKey(generated, c), end: c.End, lp: c.LogProb, alive: alive})
}

// exclude marks text as tried; when the current sample's path ends with
// text, the shares of the path's steps grow by the excluded mass, the
// conditional probabilities taken at temperature.
func (t *triedTexts) exclude(text string, temperature float64) {
	if t.ends[text] {
		return
	}
	if t.ends == nil {
		t.ends, t.share = map[string]bool{}, map[string]float64{}
	}
	t.ends[text] = true
	p := t.path
	if len(p) == 0 || !p[len(p)-1].end || p[len(p)-1].after != text {
		return // not the current sample's text: its end alone is excluded
	}
	if temperature <= 0 {
		temperature = 1
	}
	delta := 1.0 // the newly excluded share of the completions after p[k]
	for k := len(p) - 1; k > 0; k-- {
		delta *= cond(p[k], temperature)
		prev := p[k-1].after
		t.share[prev] = min(1, t.share[prev]+delta)
	}
}

// cond returns the probability of st's token among the tokens alive at its
// draw, at temperature.
func cond(st pathStep, temperature float64) float64 {
	m := st.lp
	for _, lp := range st.alive {
		m = max(m, lp)
	}
	if math.IsInf(m, -1) || math.IsNaN(m) {
		return 0
	}
	total := 0.0
	for _, lp := range st.alive {
		if !math.IsNaN(lp) && !math.IsInf(lp, -1) {
			total += math.Exp((lp - m) / temperature)
		}
	}
	if total <= 0 {
		return 0
	}
	return math.Min(1, math.Exp((st.lp-m)/temperature)/total)
}
