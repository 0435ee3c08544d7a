// This file defines the copy component: the buggy hunk (FIM.Buggy) as a
// copy process mixed into the next-token distribution, so that sampled
// hunks are mostly near-copies of the buggy lines with model-driven edits.

package ngram

import (
	"slices"
	"strconv"

	"github.com/repilot-lsp/repilot-lsp/javalex"
)

// Copy component. AlphaRepair (Xia and Zhang, FSE 2022) and Repilot (Wei,
// Xia and Zhang, FSE 2023) show the model the buggy line because most fixes
// are small edits of it: an LLM then mostly copies it and changes a token or
// two. An n-gram model with three tokens of context cannot see the line, so
// the session mixes in a copy process, in the spirit of pointer networks and
// copy mechanisms (Vinyals et al. 2015; Gu et al., CopyNet, 2016) and of
// pair hidden Markov models for alignment (Durbin et al. 1998, ch. 4).
//
// The process. A hidden pointer j into the buggy hunk's tokens B (stream
// tokens, NEWLINE included; j = len(B) is its end) and a mode, copying or
// editing, generate the hunk token by token:
//
//   - With probability Λ(mode) the next token is copied: the pointer jumps
//     to j' >= j (j' = j almost always; a skip of s tokens has probability
//     copySkip·(1-copySkipDecay)·copySkipDecay^(s-1), and from the start of a
//     line the start of the next line, deleting the line, copyLineSkip),
//     writes B[j'] (END for j' = len(B)), moves to j'+1 and to copying mode.
//   - Otherwise the model (n-gram and caches) writes a token t and the mode
//     becomes editing. The pointer then moves on with probability σ(t, B[j])
//     (t replaced B[j]: copySubSame when t has B[j]'s role, an identifier for
//     an identifier, an operator for an operator, else copySubOther) and
//     stays otherwise (t was inserted).
//
// A copy must also make sense where it lands: each target j' is weighted by
// f(j') = u·p/(p + copyPlausible), p the model's probability of B[j'] here,
// u = 1 when the training data has B[j'] after the last generated token (for
// an identifier or a literal: when the n-gram model gives its kind some
// mass there) and u = copyUnseen when it never has, and what a target loses
// goes to the model. f is about 1 for a token that may follow, and small for one that
// cannot: after the engine pruned "percentage" in "discount.percentage /
// 100", skipping to "/" would write "discount./" (the n-gram's backoff alone
// gives "/" after "." as much as any unseen name, hence u). A copy straight
// on always has u = 1 (the buggy file is in the training data), but a
// buggy token the model finds very unnatural (a typo such as "lenght") is
// copied less and rewritten more, as buggy code is less natural than fixed
// code (Ray et al., "On the 'Naturalness' of Buggy Code", ICSE 2016).
// Tokens the model cannot write at all (a literal found nowhere else) have
// f = 1: the model knows nothing about them.
//
// Mutation. A copy of an operator (or of true/false, or of a number or char
// literal: literalFamily) may instead write
// another member of its family, with probability copyMutate, the member
// chosen by the model: P_model(t)/Σ P_model(family members but B[j]).
// Replacing "<" by "<=", "||" by "&&" or ">" by ">=" is the most common
// one-token fix (the operator mutations of mutation testing, and of
// template-based repair tools such as TBar and PraPR); the model alone
// gives "<=" a thousandth after "while (lo", as it cannot know the line is
// wrong, whereas the family makes it one choice among five. The mutated
// token moves the pointer on, and the process to editing mode.
//
// Λ(copying) is 1 - copyEdits/(len(B)+1): a fix is a small number of edits
// of the buggy hunk whatever its length, so the chance of an edit at each
// token shrinks with the hunk. Λ(editing) = copyResume: edits come in short
// bursts ("percentOff()" for "percentage" is three tokens).
//
// Prediction. The posterior over (pointer, mode) given the generated tokens
// is computed by the forward algorithm, where a token's probability under
// the model is that of the n-gram and cache mixture. A token the copy
// explains (B[j]) makes the pointer advance; one only the model explains
// (an inserted "(") keeps or moves it according to σ; a repeated token ("while
// while") is explained by neither, so the posterior does not jump back. Then
//
//	P(w | G) = Σ_{j,mode} α(j, mode)·[Λ(mode)·Σ_j' J(j'|j)·f(j')·[B[j'] = w]
//	           + (1 - Λ(mode)·Σ_j' J(j'|j)·f(j'))·P_model(w | G)],
//
// where P_model is the n-gram and cache mixture with its end-of-middle
// candidate. The copy's END counts only where the model may end the hunk
// (see endProb); elsewhere its mass goes to the model.
//
// Not the buggy hunk. The repair loop discards a candidate equal to the
// buggy hunk, so probability spent on reproducing it is wasted samples (a
// third to a half of them, with a one-line hunk). The session conditions
// the distribution on "the hunk is not B": with Q_i the probability, from
// the exact prefix B[0:i], of continuing with exactly B[i:] and ending
// (computed once per session along B), the distribution after G = B[0:i] is
//
//	P'(B[i]) = P(B[i])·(1 - Q_{i+1})/(1 - Q_i),  P'(w) = P(w)/(1 - Q_i) otherwise,
//
// which sums to one and gives the sequence B probability zero: Bayes' rule
// for the event "not B" (see applyExclusion).
//
// The constants were set on the repository's bug fixtures (testdata/bugs
// and example/) by looking at sampled hunks, not at their fixes' scores
// alone: few stuttered or garbled copies, about one edit per sample.
const (
	copyEdits         = 1.0  // expected edits of the buggy hunk per sample
	copyMinLambda     = 0.6  // Λ(copying) for very short hunks
	copyMaxLambda     = 0.97 // Λ(copying) for very long hunks
	copyResume        = 0.8  // Λ(editing)
	copySkip          = 0.02 // a copy skips one or more tokens (deletes them)
	copySkipDecay     = 0.3  // ... more than one with this ratio per token
	copyMaxSkip       = 12   // longest token skip considered
	copyLineSkip      = 0.03 // a copy at a line start deletes the whole line
	copySubSame       = 0.9  // σ when the model's token has B[j]'s role
	copySubOther      = 0.3  // σ otherwise
	copyMutate        = 0.1  // a copy of an operator or literal writes another of its family
	copyPlausible     = 1e-4 // f(j') = u·p/(p + copyPlausible)
	copyUnseen        = 0.02 // u for a bigram the training data never had
	copyKindSeen      = 0.01 // an identifier or literal "may follow" with at least this P_KN for its kind
	copyMinModelProb  = 1e-12
	copyMaxCachedFwds = 1 << 16
)

// Token roles for σ.
const (
	roleOther = iota
	roleIdent
	roleLiteral
	roleKeyword
	roleOperator  // infix, prefix and assignment operators
	roleSeparator // brackets, ; , . :: @ ... ->
	roleNewline
)

func tokenRole(t streamTok) int {
	switch {
	case t.isNewline():
		return roleNewline
	case t.Kind == javalex.Ident:
		return roleIdent
	case t.Kind == javalex.Number || t.Kind == javalex.String || t.Kind == javalex.Char || t.Kind == javalex.TextBlock,
		t.Text == "true" || t.Text == "false" || t.Text == "null":
		return roleLiteral
	case t.Kind == javalex.Keyword:
		return roleKeyword
	case t.Kind == javalex.Operator:
		switch t.Text {
		case "(", ")", "{", "}", "[", "]", ";", ",", ".", "::", "@", "...", "->":
			return roleSeparator
		}
		return roleOperator
	}
	return roleOther
}

// mutationFamilies are the operator families of the mutation branch.
var mutationFamilies = [][]string{
	{"<", "<=", ">", ">=", "==", "!="},
	{"&&", "||"},
	{"+", "-", "*", "/", "%"},
	{"&", "|", "^"},
	{"<<", ">>", ">>>"},
	{"+=", "-=", "*=", "/=", "%="},
	{"&=", "|=", "^=", "<<=", ">>=", ">>>="},
	{"++", "--"},
	{"true", "false"},
}

// Literal families. A copy of a number or char literal may write another
// literal of its kind (mutation testing's constant replacement; the
// off-by-one "n - 1" for "n", a delimiter ',' for ';'), chosen by the
// model among these texts as among an operator's family. Only texts in the
// model's vocabulary take part.
var (
	// charFamily: the char literals Java code compares and splits on most.
	charFamily = []string{`' '`, `','`, `'.'`, `';'`, `':'`, `'\n'`, `'\t'`, `'/'`, `'\\'`, `'-'`, `'_'`, `'='`, `'|'`,
		`'"'`, `'\''`, `'('`, `')'`, `'['`, `']'`, `'{'`, `'}'`, `'<'`, `'>'`, `'+'`, `'*'`, `'#'`, `'@'`, `'&'`, `'0'`, `'9'`, `'a'`, `'z'`, `'A'`, `'Z'`}
	// numberFamily: small decimal constants; a decimal int also gets its
	// neighbours.
	numberFamily = []string{"0", "1", "2", "3", "4", "5", "8", "10", "16", "100", "1000"}
)

// literalFamily returns the texts a copy of literal t may mutate to (not t
// itself): charFamily for a char literal; for a decimal int literal,
// numberFamily and the literal plus and minus one; none for other numbers.
func literalFamily(t streamTok) []string {
	var fam []string
	switch t.Kind {
	case javalex.Char:
		fam = charFamily
	case javalex.Number:
		v, err := strconv.Atoi(t.Text)
		if err != nil || v < 0 {
			return nil // hex, long, float, ...: left alone
		}
		fam = append(slices.Clone(numberFamily), strconv.Itoa(v+1))
		if v > 0 {
			fam = append(fam, strconv.Itoa(v-1))
		}
	}
	out := make([]string, 0, len(fam))
	for _, f := range fam {
		if f != t.Text && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// typeArgBrackets marks the "<" and ">" (">>", ">>>") tokens of toks that
// delimit type arguments or parameters ("List<String>", "new HashMap<>()",
// "Map<K, List<V>>", "Foo.<T>bar()"), so that mutation does not rewrite them
// as comparisons ("List<String == f"). A "<" counts when it follows a
// capitalised identifier or a "." and what follows up to its matching
// closer is only type syntax (identifiers, primitive types, "," "." "?"
// "&" "[]" extends super, nested brackets). Lowercase names before "<"
// ("i < n") are comparisons; a lowercase generic class is missed, which
// only leaves its brackets mutable, as before.
func typeArgBrackets(toks []streamTok) []bool {
	out := make([]bool, len(toks))
	for j := 1; j < len(toks); j++ {
		if toks[j].Text != "<" {
			continue
		}
		prev := toks[j-1]
		capital := prev.Kind == javalex.Ident && prev.Text != "" && prev.Text[0] >= 'A' && prev.Text[0] <= 'Z'
		if !capital && prev.Text != "." {
			continue
		}
		depth, closers := 1, []int{j}
	scan:
		for k := j + 1; k < len(toks) && depth > 0; k++ {
			t := toks[k]
			switch {
			case t.Text == "<":
				depth++
				closers = append(closers, k)
			case t.Text == ">" || t.Text == ">>" || t.Text == ">>>":
				depth -= len(t.Text)
				closers = append(closers, k)
				if depth < 0 {
					break scan
				}
			case t.Kind == javalex.Ident, t.Kind == javalex.Keyword && typeKeyword(t.Text),
				t.Text == "," || t.Text == "." || t.Text == "?" || t.Text == "&" || t.Text == "[" || t.Text == "]":
			default:
				break scan
			}
		}
		if depth == 0 {
			for _, k := range closers {
				out[k] = true
			}
		}
	}
	return out
}

// typeKeyword reports whether keyword kw may appear inside type arguments.
func typeKeyword(kw string) bool {
	switch kw {
	case "extends", "super", "boolean", "byte", "char", "short", "int", "long", "float", "double":
		return true
	}
	return false
}

// familyOf maps an operator to the other members of its family.
var familyOf = func() map[string][]string {
	out := map[string][]string{}
	for _, fam := range mutationFamilies {
		for _, a := range fam {
			for _, b := range fam {
				if a != b {
					out[a] = append(out[a], b)
				}
			}
		}
	}
	return out
}()

// Modes of the copy process.
const (
	modeCopy = iota
	modeEdit
)

// copyModel is the buggy hunk of one session and the forward variables of
// the generated texts seen so far.
type copyModel struct {
	toks   []streamTok // B: the buggy hunk's stream tokens
	ids    []uint32    // their cache ids (vocabulary id or session-local id)
	roles  []int
	family [][]uint32 // family[j]: cache ids of the other members of B[j]'s family (mutation)
	nextLn []int      // nextLn[j]: for a line start j, the next line start (or -1)
	norm   []float64  // norm[j]: total jump weight from j
	lambda [2]float64 // Λ per mode
	// rest[i] = Q_i: from the exact prefix B[0:i], the probability of
	// writing exactly B[i:] and then END (rest[len(B)+1] = 1). Nil when
	// not computed, or when some Q_i is too close to 1 to condition on.
	rest []float64
	fwd  map[string]*fwdEntry // by the generated tokens' texts, each preceded by a NUL byte
}

// fwdEntry is the forward state after some generated tokens.
type fwdEntry struct {
	alpha [2][]float64 // alpha[mode][j], normalised
	model *modelCtx    // the model's context after these tokens (nil until known)
}

// newCopyModel returns the copy model of the buggy tokens toks, whose cache
// ids are ids; idOf gives the cache id of a token text (operators are in
// every vocabulary; ok is false for one that is not).
func newCopyModel(toks []streamTok, ids []uint32, idOf func(text string) (uint32, bool)) *copyModel {
	n := len(toks)
	c := &copyModel{toks: toks, ids: ids, roles: make([]int, n), family: make([][]uint32, n), nextLn: make([]int, n+1),
		norm: make([]float64, n+1), fwd: map[string]*fwdEntry{}}
	typeArg := typeArgBrackets(toks)
	for j, t := range toks {
		c.roles[j] = tokenRole(t)
		fam := familyOf[t.Text]
		if typeArg[j] {
			fam = nil // "List<String>": not the comparison operators
		}
		if t.Kind == javalex.Number || t.Kind == javalex.Char {
			fam = literalFamily(t)
		}
		for _, m := range fam {
			if r, ok := idOf(m); ok {
				c.family[j] = append(c.family[j], r)
			}
		}
	}
	lineStart := 0
	for j := range c.nextLn {
		c.nextLn[j] = -1
	}
	for j := 1; j <= n; j++ {
		if toks[j-1].isNewline() {
			c.nextLn[lineStart] = j
			lineStart = j
		}
	}
	for j := 0; j <= n; j++ {
		c.jumps(j, func(_ int, w float64) { c.norm[j] += w })
	}
	lam := 1 - copyEdits/float64(n+1)
	c.lambda = [2]float64{min(copyMaxLambda, max(copyMinLambda, lam)), copyResume}
	start := &fwdEntry{}
	for m := range start.alpha {
		start.alpha[m] = make([]float64, n+1)
	}
	start.alpha[modeCopy][0] = 1
	c.fwd[""] = start
	return c
}

// jumps calls fn for each pointer j' a copy from j may jump to, with its
// unnormalised weight (see norm).
func (c *copyModel) jumps(j int, fn func(j2 int, w float64)) {
	n := len(c.toks)
	fn(j, 1-copySkip)
	w := copySkip * (1 - copySkipDecay)
	for s := 1; s <= copyMaxSkip && j+s <= n; s++ {
		x := w
		if j+s == c.nextLn[j] {
			x += copyLineSkip
		}
		fn(j+s, x)
		w *= copySkipDecay
	}
	if l := c.nextLn[j]; l > j+copyMaxSkip {
		fn(l, copyLineSkip)
	}
}

// plausibility returns f(j') for the targets of a copy, given the model's
// probability of each token of B at this point (prob; nil for f = 1).
type plausibility func(j int) float64

// copyShare splits the mass a of a state at pointer j with Λ lam: fn gets
// the mass of each copy target j', mut the mass of mutating B[j] (0 when it
// has no family), and the rest, returned, goes to the model.
func (c *copyModel) copyShare(j int, a, lam float64, f plausibility, fn func(j2 int, x float64)) (mut, model float64) {
	n := len(c.toks)
	cp := a * lam / c.norm[j]
	model = a * (1 - lam)
	c.jumps(j, func(j2 int, w float64) {
		x := cp * w
		if f != nil && j2 < n {
			fx := f(j2)
			model += x * (1 - fx)
			x *= fx
		}
		if j2 == j && j < n && len(c.family[j]) > 0 {
			mut = x * copyMutate
			x -= mut
		}
		fn(j2, x)
	})
	return mut, model
}

// mutation returns the probability that a mutation of B[j] writes token
// r, given the model's probabilities pm of the family's members here.
func (c *copyModel) mutation(j int, r uint32, pm func(uint32) float64) float64 {
	var z, pr float64
	for _, x := range c.family[j] {
		p := pm(x)
		z += p
		if x == r {
			pr = p
		}
	}
	if z == 0 {
		return 0
	}
	return pr / z
}

// step advances the forward variables by generated token t, whose cache id
// is r (noRaw: unknown) and whose probability under the model (n-gram and
// caches) is pm(r); f is the plausibility of the copy targets before t.
func (c *copyModel) step(prev *fwdEntry, t streamTok, r uint32, pm func(uint32) float64, f plausibility) *fwdEntry {
	n := len(c.toks)
	pt := copyMinModelProb
	if r != noRaw {
		pt = max(pm(r), copyMinModelProb)
	}
	role := tokenRole(t)
	next := &fwdEntry{}
	for m := range next.alpha {
		next.alpha[m] = make([]float64, n+1)
	}
	for m := range prev.alpha {
		for j, a := range prev.alpha[m] {
			if a == 0 {
				continue
			}
			mut, model := c.copyShare(j, a, c.lambda[m], f, func(j2 int, x float64) {
				if j2 < n && c.toks[j2].Text == t.Text {
					next.alpha[modeCopy][j2+1] += x
				}
			})
			if mut > 0 && r != noRaw {
				next.alpha[modeEdit][j+1] += mut * c.mutation(j, r, pm)
			}
			e := model * pt
			if j == n {
				next.alpha[modeEdit][j] += e
				continue
			}
			sigma := copySubOther
			if role == c.roles[j] {
				sigma = copySubSame
			}
			next.alpha[modeEdit][j+1] += e * sigma
			next.alpha[modeEdit][j] += e * (1 - sigma)
		}
	}
	var z float64
	for m := range next.alpha {
		for _, a := range next.alpha[m] {
			z += a
		}
	}
	for m := range next.alpha {
		for j := range next.alpha[m] {
			next.alpha[m][j] /= z
		}
	}
	return next
}

// predict returns the copy component's mass per pointer target j' (index
// len(B) = END), the mass of mutating each B[j] (index j), and their total,
// for the forward state e.
func (c *copyModel) predict(e *fwdEntry, f plausibility) (mass, mut []float64, total float64) {
	mass = make([]float64, len(c.toks)+1)
	mut = make([]float64, len(c.toks)+1)
	for m := range e.alpha {
		for j, a := range e.alpha[m] {
			if a == 0 {
				continue
			}
			mu, _ := c.copyShare(j, a, c.lambda[m], f, func(j2 int, x float64) { mass[j2] += x })
			mut[j] += mu
		}
	}
	for j := range mass {
		total += mass[j] + mut[j]
	}
	return mass, mut, total
}

// exactPrefix returns i when g equals B[0:i] token for token, else -1.
func (c *copyModel) exactPrefix(g []streamTok) int {
	if len(g) > len(c.toks) {
		return -1
	}
	for i, t := range g {
		if c.toks[i].Text != t.Text {
			return -1
		}
	}
	return len(g)
}

// applyExclusion conditions the probability x of the token written by
// choice "copy B[i]" (isNext) or any other choice on "the hunk is not B",
// for a generated text equal to B[0:i] (see the Copy component comment).
func (c *copyModel) applyExclusion(i int, x float64, isNext bool) float64 {
	if c.rest == nil || i < 0 {
		return x
	}
	if isNext {
		return x * (1 - c.rest[i+1]) / (1 - c.rest[i])
	}
	return x / (1 - c.rest[i])
}
