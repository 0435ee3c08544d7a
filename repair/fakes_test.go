package repair

// fakes_test.go defines a scripted language model, completion engine and
// compiler for the loop's unit tests. They record every call so tests can
// count queries.

import (
	"context"
	"hash/fnv"
	"math"
	"sort"
	"strings"
	"sync"

	"github.com/repilot-lsp/repilot-lsp/engine"
	"github.com/repilot-lsp/repilot-lsp/lm"
)

// fakeModel proposes next tokens from a function of the generated text.
type fakeModel struct {
	next  func(generated string) ([]lm.Candidate, error)
	mu    sync.Mutex
	calls int
	fims  []lm.FIM
	// hook runs before each Next (e.g. to cancel a context).
	hook func(call int)
}

func (m *fakeModel) Name() string { return "fake" }

func (m *fakeModel) Start(ctx context.Context, fim lm.FIM) (lm.Session, error) {
	m.mu.Lock()
	m.fims = append(m.fims, fim)
	m.mu.Unlock()
	return &fakeModelSession{m}, nil
}

type fakeModelSession struct{ m *fakeModel }

func (s *fakeModelSession) Next(ctx context.Context, generated string, k int) ([]lm.Candidate, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.m.mu.Lock()
	s.m.calls++
	call := s.m.calls
	s.m.mu.Unlock()
	if s.m.hook != nil {
		s.m.hook(call)
	}
	d, err := s.m.next(generated)
	if k > 0 && len(d) > k {
		d = d[:k]
	}
	return d, err
}

// table returns a next function from a prefix -> distribution table; missing
// prefixes propose nothing. Probabilities are given, not logs.
func table(t map[string][]tok) func(string) ([]lm.Candidate, error) {
	return func(g string) ([]lm.Candidate, error) {
		var out []lm.Candidate
		for _, c := range t[g] {
			out = append(out, lm.Candidate{Text: c.text, LogProb: math.Log(c.p), End: c.end})
		}
		return out, nil
	}
}

type tok struct {
	text string
	p    float64
	end  bool
}

// hashModel is a deterministic pseudo-random model over a small vocabulary:
// weights come from a hash of (generated, token), and the end token grows
// likelier as the text grows.
func hashModel(generated string) ([]lm.Candidate, error) {
	vocab := []string{"a", "b", "c", "d", " ", "(", ")", "x.", "foo"}
	w := make([]float64, len(vocab)+1)
	total := 0.0
	for i, v := range vocab {
		h := fnv.New32a()
		h.Write([]byte(generated + "\x00" + v))
		w[i] = 0.1 + float64(h.Sum32()%1000)/1000
		total += w[i]
	}
	w[len(vocab)] = 0.05 * float64(len(generated))
	total += w[len(vocab)]
	out := make([]lm.Candidate, 0, len(w))
	for i, x := range w {
		c := lm.Candidate{LogProb: math.Log(x / total)}
		if i < len(vocab) {
			c.Text = vocab[i]
		} else {
			c.Text, c.End = ";", true
		}
		out = append(out, c)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].LogProb > out[j].LogProb })
	return out, nil
}

// fakeEngine decides tokens with a function and completes with another.
type fakeEngine struct {
	check    func(generated, token string) (engine.Outcome, error)
	complete func(generated string) (engine.Completions, error)
	end      func(generated string) (engine.Outcome, error) // CheckEnd; nil: Unknown

	mu        sync.Mutex
	ends      int // CheckEnd calls
	checks    map[[2]string]int
	completes int
	opened    int
	closed    int
	hunks     []engine.Hunk
}

func (e *fakeEngine) Open(ctx context.Context, h engine.Hunk) (engine.Session, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.opened++
	e.hunks = append(e.hunks, h)
	if e.checks == nil {
		e.checks = map[[2]string]int{}
	}
	return &fakeEngineSession{e: e}, nil
}

func (e *fakeEngine) totalChecks() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, c := range e.checks {
		n += c
	}
	return n
}

type fakeEngineSession struct {
	e        *fakeEngine
	requests int64
	checks   int64
}

func (s *fakeEngineSession) Check(ctx context.Context, generated, token string) (engine.Outcome, error) {
	if err := ctx.Err(); err != nil {
		return engine.Unknown, err
	}
	s.e.mu.Lock()
	s.e.checks[[2]string{generated, token}]++
	s.e.mu.Unlock()
	s.requests++
	s.checks++
	if s.e.check == nil {
		return engine.Unknown, nil
	}
	return s.e.check(generated, token)
}

func (s *fakeEngineSession) CheckEnd(ctx context.Context, generated string) (engine.Outcome, error) {
	if err := ctx.Err(); err != nil {
		return engine.Unknown, err
	}
	s.e.mu.Lock()
	s.e.ends++
	s.e.mu.Unlock()
	s.checks++
	if s.e.end == nil {
		return engine.Unknown, nil
	}
	return s.e.end(generated)
}

func (s *fakeEngineSession) Complete(ctx context.Context, generated string) (engine.Completions, error) {
	if err := ctx.Err(); err != nil {
		return engine.Completions{}, err
	}
	s.e.mu.Lock()
	s.e.completes++
	s.e.mu.Unlock()
	s.requests++
	if s.e.complete == nil {
		return engine.Completions{}, nil
	}
	return s.e.complete(generated)
}

func (s *fakeEngineSession) Stats() engine.Stats {
	return engine.Stats{Checks: s.checks, Requests: s.requests}
}

func (s *fakeEngineSession) Close() error {
	s.e.mu.Lock()
	s.e.closed++
	s.e.mu.Unlock()
	return nil
}

// hashEngine prunes a deterministic subset of tokens: a token that would make
// "cc" or "((" appear, a ")" with no open "(", and "d" after "b".
func hashEngine(generated, token string) (engine.Outcome, error) {
	s := generated + token
	switch {
	case strings.Contains(s, "cc"), strings.Contains(s, "(("):
		return engine.Infeasible, nil
	case strings.Count(s, ")") > strings.Count(s, "("):
		return engine.Infeasible, nil
	case strings.HasSuffix(generated, "b") && strings.HasPrefix(token, "d"):
		return engine.Infeasible, nil
	case strings.HasSuffix(generated, "x."):
		return engine.Feasible, nil
	}
	return engine.Unknown, nil
}

// hashComplete knows the members after "x.": "length", "lengthOf".
func hashComplete(generated string) (engine.Completions, error) {
	i := strings.LastIndex(generated, "x.")
	if i < 0 {
		return engine.Completions{}, nil
	}
	partial := generated[i+2:]
	var names []string
	for _, n := range []string{"length", "lengthOf"} {
		if strings.HasPrefix(n, partial) {
			names = append(names, n)
		}
	}
	if len(partial) > 0 && strings.ContainsAny(partial, " ()") {
		return engine.Completions{}, nil
	}
	return engine.Completions{Known: true, Names: names}, nil
}

// fakeCompiler reports errors from a function of the file text.
type fakeCompiler struct {
	errs  func(text string) []engine.CompileError
	fail  func(text string) error // when set and non-nil for a text: CompileErrors' error
	mu    sync.Mutex
	calls int
	texts []string // every text asked about, in order (compiled)
}

// compiled returns the texts CompileErrors was asked about, in order.
func (c *fakeCompiler) compiled() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.texts...)
}

func (c *fakeCompiler) CompileErrors(ctx context.Context, uri, text string) ([]engine.CompileError, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.calls++
	c.texts = append(c.texts, text)
	c.mu.Unlock()
	if c.fail != nil {
		if err := c.fail(text); err != nil {
			return nil, err
		}
	}
	if c.errs == nil {
		return nil, nil
	}
	return c.errs(text), nil
}
