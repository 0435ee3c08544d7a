package repair

// loop.go is the sampling half of Algorithm 1: one candidate hunk per sample,
// built token by token with GuidedPrune (Algorithm 2), the memo and trie of
// section 4.3, and ActivelyComplete (Algorithm 3).
//
// By default samples run one after another on one model session and one
// engine session: the engine is a single JDT LS process, and running samples
// in order makes the rejected-prefix trie grow the same way on every run, so
// equal seeds give equal patches. Each sample draws from its own random
// stream, derived from Options.Seed and the sample index. With
// Options.Concurrency above 1, samples run at once on their own model
// sessions and are committed in order (pipeline.go: sampleConcurrently),
// which keeps that guarantee.

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/repilot-lsp/repilot-lsp/engine"
	"github.com/repilot-lsp/repilot-lsp/lm"
)

// sampleEnd says how one sample ended.
type sampleEnd int

const (
	endComplete  sampleEnd = iota // the model chose its end token
	endDead                       // every candidate token was pruned: the prefix is dead
	endTruncated                  // MaxTokens, MaxHunkBytes or MaxHunkLines reached without the end token: discarded
	endNothing                    // the model proposed no token
)

// candidate is one sampled hunk before validation.
type candidate struct {
	text    string  // newline-terminated hunk text ("" deletes)
	key     string  // deduplication key (equivKeyer: the same program)
	logProb float64 // sum of sampled tokens' log-probabilities
	tokens  int     // sampled tokens (actively completed text excluded)
	sample  int     // index of the first sample that produced it
	count   int     // samples that produced it
}

// score is the ranking score: the sum of the sampled tokens'
// log-probabilities (the candidate's log-probability under the model).
//
// Chosen over the mean per token by measurement on testdata/bugs with the
// n-gram model. Before the model saw the buggy hunk (lm/ngram 1d6beba; 426
// unique candidates of three temperatures), the sum separated compilable from
// non-compilable candidates better (ROC AUC 0.75 against 0.55) and ranked the
// developer fix, scored by forcing it through the model, higher among the
// samples (mean reciprocal rank 0.19 against 0.13). With the copy-aware model
// (9d0c8c7; 178 candidates, full variant, seed 0): compilable AUC 0.74
// against 0.57, exact-fix AUC 0.85 against 0.54, and, compilable first, the
// exact fixes ranked 1, 2, 1, 1 against 1, 2, 2, 1. Sampled junk is made of
// individually likely tokens, so its mean is high; its length makes its sum
// low. Active completion adds no tokens, so completed identifiers cost
// nothing.
func (c candidate) score() float64 { return c.logProb }

// sampler is the state of one repair's sampling.
type sampler struct {
	opts    Options
	model   lm.Session
	eng     engine.Session // nil unless Prune or ActiveComplete
	memo    *Memo          // nil unless Memo
	hunkKey string         // memo key of engine facts (URI, prefix, suffix)
	distKey string         // memo key of model distributions (+ model name, k)
	dead    *deadPrefixes  // rejected prefixes (kept whenever Prune is on), shared by the samples of a repair
	stats   *Stats
	// wholeWords: the model's identifier tokens are complete names
	// (lm.WholeWords), checked as such.
	wholeWords bool
	// endSeen, endPruned: in the current sample, the model proposed its end
	// token at some step after the first (where it would delete the buggy
	// lines); the end token was drawn and pruned (for the breakdown of
	// truncated samples, Stats.TruncEnd*).
	endSeen, endPruned bool
	// run is the current sample's record of its trie traffic (pipeline.go).
	run sampleTrace
	// tried: the texts excluded by GuidedSampler.Exclude and the current
	// sample's path (exclude.go); nil in the repair loop.
	tried *triedTexts
	// committedDists: with samples running at once, the prefixes whose
	// distributions committed samples recorded (pipeline.go); nil otherwise.
	committedDists *recordedDists
}

// truncated counts a sample that ended at the token or size limit, by why
// its end never came (Stats.TruncEndPruned, TruncEndNotDrawn, TruncNoEnd).
// The candidate it returns holds the text and tokens reached, for the trace
// only (trace.go); a truncated sample is discarded.
func (s *sampler) truncated(d *draft) (candidate, sampleEnd, error) {
	switch {
	case s.endPruned:
		s.stats.TruncEndPruned++
	case s.endSeen:
		s.stats.TruncEndNotDrawn++
	default:
		s.stats.TruncNoEnd++
	}
	return candidate{text: d.generated, tokens: d.tokens, sample: d.i}, endTruncated, nil
}

// sampleStream returns the random stream of sample i: a PCG seeded with the
// repair seed and a mix of the sample index, so streams are independent of
// each other and of the order in which samples run.
func sampleStream(seed int64, i int) *rand.Rand {
	z := uint64(i) + 0x9e3779b97f4a7c15 // splitmix64 finaliser
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	return rand.New(rand.NewPCG(uint64(seed), z))
}

// draft is sample i's text as it grows: what sample and sampleSpeculative
// (speculative.go) keep between tokens.
type draft struct {
	i         int
	generated string
	logProb   float64 // of the tokens drawn into generated
	tokens    int     // tokens drawn, redrawn lines included
	marks     lineMarks
	lastBack  string // the text the last redraw went back to ("\x00": none yet)
}

func newDraft(i int) draft {
	return draft{i: i, marks: lineMarks{0: 0}, lastBack: "\x00"}
}

// cut reports that the sample has reached Options.MaxTokens or the hunk's
// bounds (Options.overHunkBounds): it ends truncated.
func (s *sampler) cut(d *draft) bool {
	return d.tokens >= s.opts.MaxTokens || s.opts.overHunkBounds(d.generated)
}

// take applies GuidedPrune's answer k over dist to d, in both sampling
// loops: redrawLine draws the last line again; k < 0 (every candidate was
// pruned: no feasible program continues the prefix among the tokens the
// model proposes, section 4.3) ends the sample dead and adds the prefix to
// the trie; otherwise token k is appended, and the end token ends the
// sample complete. done reports that the sample ended, with its result.
func (s *sampler) take(d *draft, dist []lm.Candidate, k int) (c candidate, end sampleEnd, done bool) {
	switch {
	case k == redrawLine:
		s.run.redrawn = append(s.run.redrawn, d.generated)
		d.generated, d.logProb = d.marks.redraw(d.generated, &d.lastBack)
		return candidate{}, 0, false
	case k < 0:
		s.markDead(d.generated)
		return candidate{text: d.generated, tokens: d.tokens, sample: d.i}, endDead, true
	}
	tok := dist[k]
	d.generated += tok.Text
	d.logProb += finite(tok.LogProb)
	d.tokens++
	s.stats.Tokens++
	if tok.End {
		return candidate{text: d.generated, logProb: d.logProb, tokens: d.tokens, sample: d.i, count: 1}, endComplete, true
	}
	return candidate{}, 0, false
}

// mark records the token boundary at the end of d's text (after active
// completion), where a redraw may go back to.
func (d *draft) mark() { d.marks[len(d.generated)] = d.logProb }

// sample runs sample i to its end and returns the candidate text when the
// model chose its end token.
func (s *sampler) sample(ctx context.Context, i int) (candidate, sampleEnd, error) {
	if sp, ok := s.model.(lm.Speculator); ok {
		return s.sampleSpeculative(ctx, i, sp) // speculative.go: same distribution, fewer requests
	}
	rng := sampleStream(s.opts.Seed, i)
	d := newDraft(i)
	s.endSeen, s.endPruned = false, false
	for {
		if err := ctx.Err(); err != nil {
			return candidate{}, 0, err
		}
		if s.cut(&d) {
			return s.truncated(&d)
		}
		dist, err := s.next(ctx, d.generated)
		if err != nil {
			return candidate{}, 0, err
		}
		idx, weights := weigh(dist, s.opts.Temperature)
		if len(idx) == 0 {
			return candidate{}, endNothing, nil
		}
		k, err := s.guidedPrune(ctx, rng, d.generated, dist, idx, weights)
		if err != nil {
			return candidate{}, 0, err
		}
		if c, end, done := s.take(&d, dist, k); done {
			return c, end, nil
		}
		if k == redrawLine {
			continue
		}
		if s.opts.ActiveComplete {
			if d.generated, err = s.activelyComplete(ctx, d.generated); err != nil {
				return candidate{}, 0, err
			}
		}
		d.mark()
	}
}

// redrawLine is guidedPruneFrom's answer when it drew the end token and the
// engine pruned it after a non-empty text: the sample draws its last line
// again (lineMarks.back).
//
// Why. The model offers its end where it believes the hunk is complete (the
// n-gram model: at a line end whose brackets fit the buggy hunk's, with a
// probability that is high once the text has the buggy hunk's lines). When
// the engine prunes that end (the file would not parse), the text has gone
// wrong on its last line ("while (lo hi) {", "return a\n" without its ";"),
// and what the model then writes after it is what it gives least mass to:
// on testdata/bugs, with the end check alone, most such samples ran to the
// token limit. Redrawing is rejection of the line: the sample keeps its
// earlier lines and its random stream, and spends its remaining token
// budget on another draw of the line (the tokens drawn and discarded still
// count towards Options.MaxTokens, so a sample that keeps failing still
// stops there). Nothing is added to the trie of rejected prefixes: the line
// is not proven dead, only unlikely to end, and no token is pruned that the
// engine did not prove infeasible.
const redrawLine = -2

// lineMarks maps the length of a sample's generated text at each token
// boundary to the log-probability of the tokens drawn up to there.
type lineMarks map[int]float64

// back returns generated without its last line (the text after the line
// break before its final one) and the log-probability there: the text at the
// last token boundary at or before that line start. An end's own text was
// not appended (guidedPruneFrom pruned it).
func (m lineMarks) back(generated string) (string, float64) {
	cut := strings.LastIndexByte(strings.TrimSuffix(generated, "\n"), '\n') + 1
	for ; cut > 0; cut-- {
		if _, ok := m[cut]; ok {
			break
		}
	}
	for n := range m {
		if n > cut {
			delete(m, n)
		}
	}
	return generated[:cut], m[cut]
}

// redraw returns the text to draw again, and its log-probability, after
// the end drawn after generated was pruned: generated without its last line
// (back), or, when the last redraw went back to that same text (the line
// drawn again ended pruned again), without one more line. last holds the
// text the last redraw went back to.
//
// Why. When the file does not parse after a text whose last line was
// drawn twice, the error is most likely in an earlier line (accepted token
// by token: the engine checks names and types, not statement syntax), and no
// draw of the last line repairs it: on testdata/bugs such samples redrew
// their last line until the token budget was spent (up to 11 times). Going
// back a line is rejection of that line too: nothing is pruned or added to
// the trie.
func (m lineMarks) redraw(generated string, last *string) (string, float64) {
	g, lp := m.back(generated)
	if g != "" && g == *last {
		g, lp = m.back(g)
	}
	*last = g
	return g, lp
}

// next returns the model's distribution after generated, from the memo when
// it has it.
func (s *sampler) next(ctx context.Context, generated string) ([]lm.Candidate, error) {
	if s.memo != nil {
		if d, ok := s.memo.Dist(s.distKey, generated); ok {
			return d, nil
		}
	}
	s.stats.LMRequests++
	d, err := s.model.Next(ctx, generated, s.opts.TopK)
	if err != nil {
		return nil, fmt.Errorf("language model: %w", err)
	}
	if len(d) > s.opts.TopK {
		d = d[:s.opts.TopK]
	}
	if s.memo != nil {
		s.memo.RecordDist(s.distKey, generated, d)
	}
	return d, nil
}

// weigh applies the temperature to dist. It returns the indices into dist of
// every token with a finite log-probability, most likely first, and their
// unnormalised weights p^(1/T) (all > 0). Temperature 0 keeps the weights at
// temperature 1; the caller then takes the most likely surviving token
// (greedy). The top-p cut is not applied here but at every draw (see
// nucleusEnd), so that pruned tokens give their mass back.
func weigh(dist []lm.Candidate, temperature float64) ([]int, []float64) {
	t := temperature
	if t <= 0 {
		t = 1
	}
	maxLP := math.Inf(-1)
	for _, c := range dist {
		if lp := c.LogProb; !math.IsNaN(lp) && lp > maxLP {
			maxLP = lp
		}
	}
	if math.IsInf(maxLP, -1) {
		return nil, nil
	}
	idx := make([]int, 0, len(dist))
	w := make([]float64, len(dist))
	for i, c := range dist {
		if math.IsNaN(c.LogProb) || math.IsInf(c.LogProb, -1) {
			continue
		}
		w[i] = math.Exp((c.LogProb - maxLP) / t)
		if w[i] > 0 {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return w[idx[a]] > w[idx[b]] })
	weights := make([]float64, len(idx))
	for j, i := range idx {
		weights[j] = w[i]
	}
	return idx, weights
}

// nucleusEnd returns how many leading entries of weights (sorted most likely
// first, pruned tokens set to 0) hold the top-p nucleus of the tokens not
// pruned: the fewest whose weight reaches topP of the total left.
//
// The nucleus is recomputed after every pruned draw. With a fixed nucleus,
// infeasible tokens that the model likes (a misspelt member, a member of the
// wrong type) keep their share of the mass, and a feasible fix just below the
// cut can never be drawn; here, pruning them lets it in. Measured on
// testdata/bugs (README, "Sampling"): the fix of inventory-list-size is
// `.size()`, outside the 0.95 nucleus until the likelier infeasible members
// are pruned.
func nucleusEnd(weights []float64, topP float64) int {
	total := 0.0
	for _, w := range weights {
		total += w
	}
	if total <= 0 {
		return 0
	}
	cum := 0.0
	for j, w := range weights {
		if w <= 0 {
			continue
		}
		cum += w
		if cum >= topP*total {
			return j + 1
		}
	}
	return len(weights)
}

// guidedPrune is Algorithm 2: draw a token from the top-p nucleus; while the
// token is infeasible (by the trie of rejected prefixes, the memo, or the
// engine), zero its weight and draw again from the nucleus of the rest,
// renormalised (weights come from weigh, sorted most likely first). It returns the
// index into dist of the chosen token, or -1 when every candidate was pruned,
// or redrawLine when it drew the end token after a non-empty text and the
// end was pruned. Without Prune it is plain sampling.
func (s *sampler) guidedPrune(ctx context.Context, rng *rand.Rand, generated string, dist []lm.Candidate, idx []int, weights []float64) (int, error) {
	k, _, err := s.guidedPruneFrom(ctx, rng, generated, dist, idx, weights, -1)
	return k, err
}

// guidedPruneFrom is guidedPrune whose first draw is proposed (an index into
// dist: the model's own sample, speculative.go) when proposed lies in the
// nucleus, instead of a local draw; every later draw, and the first when
// proposed is -1 or outside the nucleus, is guidedPrune's. took reports that
// the chosen token is proposed, taken as the first draw.
func (s *sampler) guidedPruneFrom(ctx context.Context, rng *rand.Rand, generated string, dist []lm.Candidate, idx []int, weights []float64, proposed int) (k int, took bool, err error) {
	greedy := s.opts.Temperature <= 0
	for _, k := range idx {
		s.endSeen = s.endSeen || (dist[k].End && generated != "")
	}
	// With texts excluded (exclude.go), weights lose the share of the
	// completions tried; a proposal, drawn without that loss, is then not
	// taken as the first draw.
	pruned, discounted := s.tried.discount(generated, dist, idx, weights)
	j := slices.Index(idx, proposed)
	first := proposed >= 0 && !discounted && j >= 0 && j < nucleusEnd(weights, s.opts.TopP)
	for ; ; first = false {
		if !first {
			j = draw(rng, weights, s.opts.TopP, greedy)
		}
		if j < 0 {
			return -1, false, nil
		}
		k := idx[j]
		if !s.opts.Prune {
			s.tried.step(generated, dist, idx, pruned, j)
			return k, first, nil
		}
		ok, err := s.feasible(ctx, generated, dist[k])
		if err != nil {
			return 0, false, err
		}
		if ok {
			s.tried.step(generated, dist, idx, pruned, j)
			return k, first, nil
		}
		if pruned != nil {
			pruned[j] = true
		}
		s.stats.Pruned++
		s.endPruned = s.endPruned || dist[k].End
		if dist[k].End && generated != "" {
			s.stats.LineRedraws++
			return redrawLine, false, nil
		}
		weights[j] = 0
	}
}

// draw picks an index of the top-p nucleus of weights (sorted most likely
// first; see nucleusEnd) with probability proportional to its weight (the
// largest weight when greedy), or -1 when all weights are zero. It uses
// exactly one random number per call unless greedy.
func draw(rng *rand.Rand, weights []float64, topP float64, greedy bool) int {
	weights = weights[:nucleusEnd(weights, topP)]
	total := 0.0
	best := -1
	for j, w := range weights {
		total += w
		if w > 0 && (best < 0 || w > weights[best]) {
			best = j
		}
	}
	if best < 0 {
		return -1
	}
	if greedy {
		return best
	}
	r := rng.Float64() * total
	last := -1
	for j, w := range weights {
		if w <= 0 {
			continue
		}
		last = j
		if r < w {
			return j
		}
		r -= w
	}
	return last // rounding: r landed past the end
}

// feasible decides one token: the trie of rejected prefixes first, then the
// memo's verdicts, then the engine (whose answer the memo records). Unknown
// counts as feasible (the engine is strict). Errors are returned, never read
// as infeasible.
func (s *sampler) feasible(ctx context.Context, generated string, tok lm.Candidate) (bool, error) {
	if s.deadCovers(generated + tok.Text) {
		s.stats.MemoHits++
		return false, nil
	}
	if tok.End {
		// The end token's text (usually none) is appended first, then the
		// hunk ends.
		if tok.Text != "" {
			if ok, err := s.feasible(ctx, generated, lm.Candidate{Text: tok.Text}); !ok || err != nil {
				return false, err
			}
		}
		return s.endFeasible(ctx, generated+tok.Text)
	}
	if tok.Text == "" {
		return true, nil // appends nothing: the partial program is unchanged
	}
	return s.judged(generated, tok.Text, func() (engine.Outcome, error) {
		checked := tok.Text
		if s.wholeWords && endsInName(checked) {
			// A whole identifier: followed by whitespace, which is legal
			// after any complete name and continues none (lm.WholeWords).
			checked += " "
		}
		out, err := s.eng.Check(ctx, generated, checked)
		if err != nil {
			return out, fmt.Errorf("completion engine: checking %q after %q: %w", tok.Text, tail(generated, 40), err)
		}
		return out, nil
	})
}

// endFeasible decides the model's end token after generated: may the hunk
// end here (engine.Session.CheckEnd: the whole file must parse)? The memo
// keeps the verdict under the empty token text, which no other token reaches
// it with (an empty non-end token is feasible without a check).
func (s *sampler) endFeasible(ctx context.Context, generated string) (bool, error) {
	return s.judged(generated, "", func() (engine.Outcome, error) {
		out, err := s.eng.CheckEnd(ctx, generated)
		if err != nil {
			return out, fmt.Errorf("completion engine: checking the end of the hunk after %q: %w", tail(generated, 40), err)
		}
		return out, nil
	})
}

// judged answers whether text may follow generated from the memo's verdict
// (section 4.3), or else from ask, the engine, whose answer it records: true
// unless the engine proved the token infeasible. Errors are ask's.
func (s *sampler) judged(generated, text string, ask func() (engine.Outcome, error)) (bool, error) {
	if s.memo != nil {
		switch s.memo.Verdict(s.hunkKey, generated, text) {
		case accepted:
			s.stats.MemoHits++
			return true, nil
		case rejected:
			s.stats.MemoHits++
			return false, nil
		}
	}
	s.stats.EngineCalls++
	out, err := ask()
	if err != nil {
		return false, err
	}
	ok := out != engine.Infeasible
	if s.memo != nil {
		s.memo.Record(s.hunkKey, generated, text, ok)
	}
	return ok, nil
}

// activelyComplete is Algorithm 3: when the engine knows every name that can
// extend the identifier at the caret, append their longest common prefix
// beyond what is already typed.
func (s *sampler) activelyComplete(ctx context.Context, generated string) (string, error) {
	var (
		c  engine.Completions
		ok bool
	)
	if s.memo != nil {
		if c, ok = s.memo.Completion(s.hunkKey, generated); ok {
			s.stats.MemoHits++
		}
	}
	if !ok {
		s.stats.EngineCalls++
		var err error
		c, err = s.eng.Complete(ctx, generated)
		if err != nil {
			return "", fmt.Errorf("completion engine: completing after %q: %w", tail(generated, 40), err)
		}
		if s.memo != nil {
			s.memo.RecordCompletion(s.hunkKey, generated, c)
		}
	}
	if !c.Known || len(c.Names) == 0 {
		return generated, nil
	}
	partial := trailingIdent(generated)
	common := longestCommonPrefix(c.Names)
	if len(common) <= len(partial) || !strings.HasPrefix(common, partial) {
		return generated, nil
	}
	extra := common[len(partial):]
	s.stats.ActiveChars += int64(len(extra))
	return generated + extra, nil
}

// endsInName reports whether tok ends with an identifier that starts within
// it with a letter, '_' or '$' (not a number literal such as "10").
func endsInName(tok string) bool {
	id := trailingIdent(tok)
	if id == "" {
		return false
	}
	r, _ := utf8.DecodeRuneInString(id)
	return !unicode.IsDigit(r)
}

// trailingIdent returns the Java identifier characters at the end of s (the
// partial identifier the caret is in; "" if none).
func trailingIdent(s string) string {
	i := len(s)
	for i > 0 {
		r, size := utf8.DecodeLastRuneInString(s[:i])
		if r != '_' && r != '$' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			break
		}
		i -= size
	}
	return s[i:]
}

// longestCommonPrefix returns the longest common prefix of names, cut back to
// a whole UTF-8 character.
func longestCommonPrefix(names []string) string {
	if len(names) == 0 {
		return ""
	}
	p := names[0]
	for _, n := range names[1:] {
		j := 0
		for j < len(p) && j < len(n) && p[j] == n[j] {
			j++
		}
		p = p[:j]
	}
	for len(p) > 0 && !utf8.ValidString(p) {
		p = p[:len(p)-1]
	}
	return p
}

func finite(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return x
}

// tail returns the last n bytes of s for error messages.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
