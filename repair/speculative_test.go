package repair

// speculative_test.go checks speculative guided decoding against the exact
// distribution of the token-by-token loop: a small model and engine are
// enumerated exactly (every hunk's probability under nucleus sampling,
// GuidedPrune and active completion), and many samples of both loops are
// compared with it by a chi-square test. A server that breaks the sampling
// contract must fail the same test (the test has power). It also checks the
// request counts that make the speculative loop fast.

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/engine"
	"github.com/repilot-lsp/repilot-lsp/lm"
)

// specVocab: four text tokens, a rare one outside the top 4, and the end
// token (text ";").
var specVocab = []string{"a", "b", "c", "d", "x"}

// specDist is the model's full distribution after g, best first: weights
// from a hash of (g, token); the end token grows likelier with length.
func specDist(g string) []lm.Candidate {
	w := make([]float64, len(specVocab)+1)
	total := 0.0
	for i, v := range specVocab {
		h := fnv.New32a()
		h.Write([]byte(g + "\x00" + v))
		w[i] = 0.2 + float64(h.Sum32()%1000)/1000
		if v == "x" {
			w[i] *= 0.15
		}
		total += w[i]
	}
	w[len(specVocab)] = 0.1 + 0.2*float64(len(g))
	total += w[len(specVocab)]
	out := make([]lm.Candidate, 0, len(w))
	for i, x := range w {
		c := lm.Candidate{LogProb: math.Log(x / total)}
		if i < len(specVocab) {
			c.Text = specVocab[i]
		} else {
			c.Text, c.End = ";", true
		}
		out = append(out, c)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].LogProb > out[j].LogProb })
	return out
}

// specFeasible never prunes "b" or the end token, so some candidate always
// survives and no prefix dies (a dead prefix would make later samples depend
// on earlier ones through the trie, and the exact enumeration below would not
// apply).
func specFeasible(g, tok string) bool {
	if tok == "b" || tok == ";" || tok == "" {
		return true
	}
	h := fnv.New32a()
	h.Write([]byte(g + "\x01" + tok))
	return h.Sum32()%3 != 0
}

// specEndFeasible: the hunk may end (after the end token's ";") only when
// it holds an even number of "d"s, so the end check prunes in both loops.
func specEndFeasible(g string) bool {
	return strings.Count(g, "d")%2 == 0
}

// specComplete: an identifier ending in "c" is completed with "a".
func specComplete(g string) engine.Completions {
	p := trailingIdent(g)
	if strings.HasSuffix(p, "c") {
		return engine.Completions{Known: true, Names: []string{p + "a"}}
	}
	return engine.Completions{}
}

type specEngine struct{ checks int }

func (e *specEngine) Check(_ context.Context, g, tok string) (engine.Outcome, error) {
	e.checks++
	if specFeasible(g, tok) {
		return engine.Unknown, nil
	}
	return engine.Infeasible, nil
}
func (e *specEngine) CheckEnd(_ context.Context, g string) (engine.Outcome, error) {
	e.checks++
	if specEndFeasible(g) {
		return engine.Unknown, nil
	}
	return engine.Infeasible, nil
}
func (e *specEngine) Complete(_ context.Context, g string) (engine.Completions, error) {
	return specComplete(g), nil
}
func (e *specEngine) Stats() engine.Stats { return engine.Stats{} }
func (e *specEngine) Close() error        { return nil }

// specServer is a fake model server. mode "topk" samples like llama.cpp with
// top_k then temperature; "full" samples the whole vocabulary at the
// temperature (OpenAI), so it may propose tokens outside the top k; "wrong"
// ignores the temperature (breaks lm.Speculator's contract).
type specServer struct {
	mode      string
	proposals int
	nexts     int
}

func (s *specServer) Next(_ context.Context, g string, k int) ([]lm.Candidate, error) {
	s.nexts++
	d := specDist(g)
	return d[:min(k, len(d))], nil
}

func (s *specServer) Propose(_ context.Context, g string, o lm.ProposeOptions) ([]lm.Step, error) {
	s.proposals++
	rng := rand.New(rand.NewPCG(o.Seed, 12345))
	var steps []lm.Step
	for n := 0; n < o.MaxTokens; n++ {
		full := specDist(g)
		top := full[:min(o.K, len(full))]
		pool := top
		if s.mode != "topk" {
			pool = full
		}
		t := o.Temperature
		if s.mode == "wrong" {
			t = 1
		}
		x := 0 // greedy: the most likely
		if t > 0 {
			w := make([]float64, len(pool))
			total := 0.0
			for i, c := range pool {
				w[i] = math.Exp(c.LogProb / t)
				total += w[i]
			}
			r := rng.Float64() * total
			for x = 0; x < len(w)-1 && r >= w[x]; x++ {
				r -= w[x]
			}
		}
		st := lm.Step{Top: top, Chosen: -1, Token: pool[x]}
		if x < len(top) {
			st.Chosen = x
		}
		steps = append(steps, st)
		if st.Chosen < 0 || st.Token.End {
			break
		}
		g += st.Token.Text
	}
	return steps, nil
}

// nextOnly hides Propose: the token-by-token loop.
type nextOnly struct{ s *specServer }

func (n nextOnly) Next(ctx context.Context, g string, k int) ([]lm.Candidate, error) {
	return n.s.Next(ctx, g, k)
}

// exactDist enumerates the token-by-token loop's outcome distribution.
func exactDist(o Options) map[string]float64 {
	out := map[string]float64{}
	var walk func(g string, tokens int, p float64)
	walk = func(g string, tokens int, p float64) {
		if tokens >= o.MaxTokens {
			out["<truncated>"] += p
			return
		}
		d := specDist(g)[:o.TopK]
		idx, w0 := weigh(d, o.Temperature)
		// prune is GuidedPrune's recursion: draw from the nucleus of what
		// is left; an infeasible draw is dropped and the nucleus recomputed.
		var prune func(w []float64, p float64)
		prune = func(w []float64, p float64) {
			end := nucleusEnd(w, o.TopP)
			var keep []int
			sum := 0.0
			for j := 0; j < end; j++ {
				if w[j] > 0 {
					keep = append(keep, j)
					sum += w[j]
				}
			}
			if len(keep) == 0 {
				out["<dead>"] += p
				return
			}
			if o.Temperature <= 0 { // greedy: the most likely left
				keep, sum = keep[:1], w[keep[0]]
			}
			for _, j := range keep {
				q := p * w[j] / sum
				tok := d[idx[j]]
				if o.Prune && (!specFeasible(g, tok.Text) || tok.End && !specEndFeasible(g+tok.Text)) {
					w2 := slices.Clone(w)
					w2[j] = 0
					prune(w2, q)
					continue
				}
				g2 := g + tok.Text
				if tok.End {
					out[g2] += q
					continue
				}
				if o.ActiveComplete {
					if c := specComplete(g2); c.Known {
						g2 += longestCommonPrefix(c.Names)[len(trailingIdent(g2)):]
					}
				}
				walk(g2, tokens+1, q)
			}
		}
		prune(w0, p)
	}
	walk("", 0, 1)
	return out
}

// runSamples draws n samples with one sampler and tallies outcomes.
func runSamples(t *testing.T, o Options, sess lm.Session, n int) (map[string]int, Stats) {
	t.Helper()
	st := &Stats{}
	s := &sampler{opts: o, model: sess, eng: &specEngine{}, stats: st, hunkKey: "h", distKey: "d"}
	if o.Memo {
		s.memo = NewMemo(0)
	}
	counts := map[string]int{}
	for i := 0; i < n; i++ {
		c, end, err := s.sample(context.Background(), i)
		if err != nil {
			t.Fatal(err)
		}
		switch end {
		case endComplete:
			counts[c.text]++
		case endTruncated:
			counts["<truncated>"]++
		default:
			t.Fatalf("sample %d ended with %v; the fixture never kills a prefix", i, end)
		}
	}
	return counts, *st
}

// chiSquare compares counts with the exact distribution, pooling outcomes
// expected fewer than 10 times into one bin. It returns the statistic and a
// threshold about 8 standard deviations above its mean.
func chiSquare(t *testing.T, counts map[string]int, exact map[string]float64, n int) (float64, float64) {
	t.Helper()
	for k, c := range counts {
		if exact[k] == 0 {
			t.Fatalf("outcome %q sampled %d times has probability 0", k, c)
		}
	}
	stat, bins := 0.0, 0
	rareP, rareN := 0.0, 0
	for k, p := range exact {
		e := p * float64(n)
		if e < 10 {
			rareP += p
			rareN += counts[k]
			continue
		}
		d := float64(counts[k]) - e
		stat += d * d / e
		bins++
	}
	if rareP > 0 {
		e := rareP * float64(n)
		d := float64(rareN) - e
		stat += d * d / e
		bins++
	}
	df := float64(bins - 1)
	return stat, df + 8*math.Sqrt(2*df)
}

func TestSpeculativeMatchesTokenByTokenDistribution(t *testing.T) {
	if testing.Short() {
		t.Skip("statistical test")
	}
	const n = 20000
	cases := []struct {
		name, mode string
		o          Options
	}{
		{"llama.cpp top-k, nucleus, prune, active", "topk", Options{TopK: 4, Temperature: 0.7, TopP: 0.9, MaxTokens: 4, Prune: true, ActiveComplete: true}},
		{"OpenAI full vocabulary, memo", "full", Options{TopK: 4, Temperature: 1, TopP: 1, MaxTokens: 4, Prune: true, Memo: true}},
		{"no pruning", "topk", Options{TopK: 4, Temperature: 1.3, TopP: 0.8, MaxTokens: 4}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			exact := exactDist(c.o)
			if len(exact) < 10 {
				t.Fatalf("fixture too small: %d outcomes", len(exact))
			}
			srv := &specServer{mode: c.mode}
			plain, _ := runSamples(t, c.o, nextOnly{srv}, n)
			ps, pth := chiSquare(t, plain, exact, n)
			spec, st := runSamples(t, c.o, srv, n)
			ss, sth := chiSquare(t, spec, exact, n)
			t.Logf("%d outcomes; chi-square token-by-token %.1f, speculative %.1f (threshold %.1f); proposals %d, accepted %d, rejected %d, cuts %d, active completions %d",
				len(exact), ps, ss, sth, st.Proposals, st.SpecAccepted, st.SpecRejected, st.SpecCuts, st.ActiveChars)
			if ps > pth {
				t.Errorf("token-by-token loop does not match the exact distribution: chi-square %.1f > %.1f", ps, pth)
			}
			if ss > sth {
				t.Errorf("speculative loop does not match the exact distribution: chi-square %.1f > %.1f", ss, sth)
			}
			if st.Proposals > n+st.SpecRejected+st.SpecCuts {
				t.Errorf("proposals %d > samples %d + rejections %d + cuts %d", st.Proposals, n, st.SpecRejected, st.SpecCuts)
			}
			if c.o.ActiveComplete && (st.ActiveChars == 0 || st.SpecCuts >= st.ActiveChars) {
				// Each completion (one character here) either keeps the
				// proposal or cuts it; cuts also count proposals that ran out.
				t.Errorf("fixture should keep proposals through active completion: %d cuts for %d completions", st.SpecCuts, st.ActiveChars)
			}
			if st.SpecAccepted == 0 || st.SpecRejected == 0 {
				t.Errorf("fixture should exercise both accepted and rejected proposals: %+v", st)
			}
		})
	}

	// Power: a server that ignores the temperature breaks the contract, and
	// the same test must see it.
	o := Options{TopK: 4, Temperature: 0.4, TopP: 1, MaxTokens: 4, Prune: true}
	exact := exactDist(o)
	spec, _ := runSamples(t, o, &specServer{mode: "wrong"}, n)
	s, th := chiSquare(t, spec, exact, n)
	t.Logf("server at the wrong temperature: chi-square %.1f (threshold %.1f)", s, th)
	if s <= th {
		t.Errorf("a server sampling at the wrong temperature passed the test (chi-square %.1f <= %.1f): the test has no power", s, th)
	}
}

func TestSpeculativeGreedyEqualsTokenByToken(t *testing.T) {
	o := Options{TopK: 4, Temperature: 0, TopP: 1, MaxTokens: 6, Prune: true, ActiveComplete: true}
	srv := &specServer{mode: "full"}
	plain, _ := runSamples(t, o, nextOnly{srv}, 5)
	spec, st := runSamples(t, o, srv, 5)
	if fmt.Sprint(plain) != fmt.Sprint(spec) || len(plain) != 1 {
		t.Errorf("greedy: token-by-token %v, speculative %v; want the same single hunk", plain, spec)
	}
	if st.Proposals == 0 {
		t.Error("speculative path not taken")
	}
}

func TestSpeculativeRequestCounts(t *testing.T) {
	const n = 200
	// An engine that prunes and no active completion: a hunk costs one
	// request plus at most one per rejected proposal.
	o := Options{TopK: 4, Temperature: 1, TopP: 0.95, MaxTokens: 8, Prune: true}
	srv := &specServer{mode: "topk"}
	_, st := runSamples(t, o, srv, n)
	if st.LMRequests != int64(srv.proposals) || st.Proposals != st.LMRequests {
		t.Fatalf("LMRequests %d, Proposals %d, server saw %d", st.LMRequests, st.Proposals, srv.proposals)
	}
	if st.LMRequests > int64(n)+st.SpecRejected || st.SpecCuts != 0 {
		t.Errorf("requests %d > samples %d + rejections %d, or cuts %d != 0 (each proposal covers the rest of the budget; no active completion here)", st.LMRequests, n, st.SpecRejected, st.SpecCuts)
	}
	// Token by token, every sampled token costs a request.
	plainSrv := &specServer{mode: "topk"}
	_, pst := runSamples(t, o, nextOnly{plainSrv}, n)
	t.Logf("token-by-token: %d requests for %d samples; speculative: %d (%d rejections)", pst.LMRequests, n, st.LMRequests, st.SpecRejected)
	if st.LMRequests*2 > pst.LMRequests {
		t.Errorf("speculative requests %d not well below token-by-token %d", st.LMRequests, pst.LMRequests)
	}

	// Without pruning, one request per hunk.
	o.Prune, o.TopP = false, 1
	srv = &specServer{mode: "topk"}
	_, st = runSamples(t, o, srv, n)
	if st.LMRequests != n || st.SpecRejected != 0 {
		t.Errorf("no pruning: %d requests, %d rejections for %d samples; want one request per sample", st.LMRequests, st.SpecRejected, n)
	}

	// With the memo, later samples reuse recorded distributions.
	o.Prune, o.Memo = true, true
	srv = &specServer{mode: "topk"}
	_, st = runSamples(t, o, srv, n)
	if st.LMRequests >= n {
		t.Errorf("memo: %d requests for %d samples; recorded proposals should answer some positions", st.LMRequests, n)
	}
	// A request after memo-answered positions is the sample's first, or is
	// charged to the rejection that discarded the proposal before them:
	// never a cut (the server here never stops short).
	if st.SpecCuts != 0 || st.LMRequests > int64(n)+st.SpecRejected {
		t.Errorf("memo: %d requests, %d rejections, %d cuts for %d samples; want no cut and requests <= samples + rejections", st.LMRequests, st.SpecRejected, st.SpecCuts, n)
	}
}

func TestSpeculativeDeadPrefixAndNothing(t *testing.T) {
	// Every token infeasible: the sample dies and its prefix joins the trie.
	o := Options{TopK: 2, Temperature: 1, TopP: 1, MaxTokens: 4, Prune: true}
	st := &Stats{}
	srv := &specServer{mode: "topk"}
	s := &sampler{opts: o, model: srv, eng: &rejectAll{}, stats: st}
	_, end, err := s.sample(context.Background(), 0)
	if err != nil || end != endDead || !s.dead.Covers("") {
		t.Errorf("all pruned: end %v err %v trie covers empty prefix %v", end, err, s.dead.Covers(""))
	}
	// A model that proposes nothing.
	s = &sampler{opts: o, model: emptySpec{}, stats: &Stats{}}
	if _, end, err := s.sample(context.Background(), 0); err != nil || end != endNothing {
		t.Errorf("empty proposal: end %v err %v", end, err)
	}
}

type rejectAll struct{ specEngine }

func (rejectAll) Check(context.Context, string, string) (engine.Outcome, error) {
	return engine.Infeasible, nil
}

type emptySpec struct{}

func (emptySpec) Next(context.Context, string, int) ([]lm.Candidate, error) { return nil, nil }
func (emptySpec) Propose(context.Context, string, lm.ProposeOptions) ([]lm.Step, error) {
	return nil, nil
}

// scriptedSpec proposes fixed token texts after given prefixes (each step's
// token the likelier of two, so the loop takes it) and records every
// proposal's prefix.
type scriptedSpec struct {
	script map[string][]string // prefix -> proposed texts; "<end>" is the end token
	asked  []string
}

func (s *scriptedSpec) Next(context.Context, string, int) ([]lm.Candidate, error) {
	return nil, fmt.Errorf("scriptedSpec: Next called")
}

func (s *scriptedSpec) Propose(_ context.Context, g string, o lm.ProposeOptions) ([]lm.Step, error) {
	s.asked = append(s.asked, g)
	var steps []lm.Step
	for _, text := range s.script[g] {
		if len(steps) == o.MaxTokens {
			break
		}
		tok := lm.Candidate{Text: text, LogProb: math.Log(0.9)}
		if text == "<end>" {
			tok = lm.Candidate{Text: ";", LogProb: math.Log(0.9), End: true}
		}
		steps = append(steps, lm.Step{Top: []lm.Candidate{tok, {Text: "zz", LogProb: math.Log(0.1)}}, Chosen: 0, Token: tok})
	}
	return steps, nil
}

// TestSpeculativeKeepsProposalThroughActiveCompletion: after "x." active
// completion appends "length" (hashComplete). A proposal whose next tokens
// spell exactly "length" is kept (one request per hunk); one whose tokens
// cross the end of "length", differ from it, or run out inside it is cut and
// proposed again from "x.length".
func TestSpeculativeKeepsProposalThroughActiveCompletion(t *testing.T) {
	after := []string{"()", "<end>"}
	cases := []struct {
		name     string
		proposal []string
		asked    []string // prefixes of the proposals
		cuts     int64
	}{
		{"spelled by two tokens", []string{"x.", "len", "gth", "()", "<end>"}, []string{""}, 0},
		{"spelled by one token", []string{"x.", "length", "()", "<end>"}, []string{""}, 0},
		{"token crosses the end", []string{"x.", "leng", "thOf", "()", "<end>"}, []string{"", "x.length"}, 1},
		{"different text", []string{"x.", "size", "()", "<end>"}, []string{"", "x.length"}, 1},
		{"proposal ends inside", []string{"x.", "len"}, []string{"", "x.length"}, 1},
		{"proposal ends at the boundary", []string{"x.", "length"}, []string{"", "x.length"}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := &scriptedSpec{script: map[string][]string{"": c.proposal, "x.length": after}}
			st := &Stats{}
			eng := &fakeEngine{complete: hashComplete}
			es, _ := eng.Open(context.Background(), engine.Hunk{})
			o := Options{TopK: 4, Temperature: 1, TopP: 1, MaxTokens: 8, ActiveComplete: true}
			s := &sampler{opts: o, model: srv, eng: es, stats: st}
			cand, end, err := s.sample(context.Background(), 0)
			if err != nil || end != endComplete || cand.text != "x.length();" {
				t.Fatalf("sample: %q end %v err %v; want x.length(); complete", cand.text, end, err)
			}
			if !slices.Equal(srv.asked, c.asked) || st.Proposals != int64(len(c.asked)) || st.SpecCuts != c.cuts || st.SpecRejected != 0 {
				t.Errorf("proposals from %q (%d), cuts %d, rejections %d; want from %q, cuts %d, no rejection",
					srv.asked, st.Proposals, st.SpecCuts, st.SpecRejected, c.asked, c.cuts)
			}
			if cand.tokens != 3 || st.ActiveChars != int64(len("length")) {
				t.Errorf("tokens %d, active chars %d; want 3 sampled tokens (x., (), end) and 6 completed characters", cand.tokens, st.ActiveChars)
			}
		})
	}
}

func TestSkipSpelled(t *testing.T) {
	steps := func(texts ...string) []lm.Step {
		var out []lm.Step
		for _, x := range texts {
			tok := lm.Candidate{Text: x}
			out = append(out, lm.Step{Top: []lm.Candidate{tok}, Chosen: 0, Token: tok})
		}
		return out
	}
	texts := func(st []lm.Step) []string {
		var out []string
		for _, s := range st {
			out = append(out, s.Token.Text)
		}
		return out
	}
	cases := []struct {
		pending []lm.Step
		text    string
		want    []string // nil: cut
	}{
		{steps("ab", "c", "d"), "abc", []string{"d"}},
		{steps("ab", "", "c", "", "d"), "abc", []string{"", "d"}}, // the empty token after the boundary is the next position
		{steps("abc", "d"), "abc", []string{"d"}},
		{steps("abcd"), "abc", nil},
		{steps("a", "bd"), "abc", nil},
		{steps("ab"), "abc", nil},
		{steps("abc"), "abc", nil},
		{nil, "abc", nil},
	}
	for _, c := range cases {
		if got := texts(skipSpelled(c.pending, c.text)); !slices.Equal(got, c.want) {
			t.Errorf("skipSpelled(%q, %q) = %q, want %q", texts(c.pending), c.text, got, c.want)
		}
	}
	end := steps("ab", "c", "d")
	end[1].Token.End = true
	if got := skipSpelled(end, "abc"); got != nil {
		t.Errorf("an end token inside the text kept %d steps", len(got))
	}
	outside := steps("ab", "c", "d")
	outside[1].Chosen = -1
	if got := skipSpelled(outside, "abc"); got != nil {
		t.Errorf("a token outside the top k kept %d steps", len(got))
	}
}
