package repair

// guided.go exports one guided sample (Algorithm 2 with the trie of rejected
// prefixes, the memo of section 4.3 and Algorithm 3, as Options select) for
// callers that generate a middle with the same strict completion engine but
// their own stopping rule and validation, such as inline ghost text
// (package inline). It adds no behaviour: Sample is the repair loop's own
// sample.

import (
	"context"

	"github.com/repilot-lsp/repilot-lsp/engine"
	"github.com/repilot-lsp/repilot-lsp/lm"
)

// GuidedSampler runs guided samples one after another on one model session
// and (when opts.Prune or opts.ActiveComplete) one engine session, sharing
// the trie of rejected prefixes, the texts excluded (Exclude) and, with
// opts.Memo, a memo between samples. It is used by one goroutine at a time.
type GuidedSampler struct {
	s sampler
}

// NewGuidedSampler returns a sampler over model and eng for the hunk
// identified by key (see HunkKey: URI, prefix and suffix); eng may be nil when
// opts selects neither pruning nor active completion. Zero numeric options
// take their defaults (Options.withDefaults).
func NewGuidedSampler(model lm.Session, eng engine.Session, opts Options, key string) *GuidedSampler {
	opts = opts.withDefaults()
	g := &GuidedSampler{s: sampler{opts: opts, model: model, eng: eng, hunkKey: key,
		distKey: HunkKey(key, "", "", "dist"), stats: &Stats{}, tried: &triedTexts{}}}
	if ww, ok := model.(lm.WholeWords); ok {
		g.s.wholeWords = ww.WholeWords()
	}
	if opts.Memo {
		g.s.memo = NewMemo(0)
	}
	return g
}

// Sample runs sample i (its random stream derives from Options.Seed and i)
// to its end. It returns the generated middle and complete=true when the
// model chose its end token and the engine accepted it; complete=false when
// the sample died (every token pruned), reached MaxTokens or got no proposal.
// Errors are the model's, the engine's or ctx's.
func (g *GuidedSampler) Sample(ctx context.Context, i int) (text string, complete bool, err error) {
	c, end, err := g.s.sample(ctx, i)
	if err != nil {
		return "", false, err
	}
	g.s.stats.Samples++
	return c.text, end == endComplete, nil
}

// SetTemperature sets the temperature of the samples that follow (negative:
// 0, greedy). The trie of rejected prefixes and the memo hold facts that do
// not depend on the temperature, so samples at different temperatures share
// them; the shares of the excluded texts are taken at the temperature set
// when Exclude is called.
func (g *GuidedSampler) SetTemperature(t float64) {
	g.s.opts.Temperature = max(t, 0)
}

// Exclude records text, a complete sample's middle as Sample returned it,
// as tried: no later sample of g ends with exactly text, and later samples
// are drawn without replacement, the share of the model's mass that the
// texts tried hold taken out of every draw (exclude.go; the shares use the
// temperature set when Exclude is called). Text's prefixes and extensions
// stay open. A text that is not the last sample's is tried all the same,
// but its end alone loses its weight. So a caller that drops a sample's
// text for its own reasons (its own validation) gets a different text from
// the next sample, or none (the sample dies where nothing untried is
// left), and never the same one.
func (g *GuidedSampler) Exclude(text string) {
	g.s.tried.exclude(text, g.s.opts.Temperature)
}

// Reject adds prefix, a text that no acceptable sample of g's hunk starts
// with, to the trie of rejected prefixes: later samples of g prune every
// token whose text would make the generated text start with it, as they
// prune a prefix found dead (Algorithm 2's trie). The caller vouches for
// the fact (inline ghost text: a name its compile check found unresolvable
// in a position the prefix fixes); the engine is not asked.
func (g *GuidedSampler) Reject(prefix string) {
	if prefix == "" {
		return // would reject every text
	}
	if g.s.dead == nil {
		g.s.dead = &deadPrefixes{}
	}
	g.s.dead.Add(prefix)
}

// Stats returns the counters of the samples so far (LMRequests, EngineCalls,
// Pruned, MemoHits, ActiveChars, Samples).
func (g *GuidedSampler) Stats() Stats { return *g.s.stats }
