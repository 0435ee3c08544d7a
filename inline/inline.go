// Package inline is ghost text that is guaranteed to compile: given an
// editor's document text and a caret, it proposes the rest of the statement or
// line (or the body of the block the caret opens), generated token by token by
// a language model guided by the strict completion engine exactly as the
// repair loop's samples are (Repilot, Algorithms 2 and 3; repair.GuidedSampler),
// and shows it only when the shadow JDT LS finds that inserting it introduces
// no compile error (Introduced defines the comparison).
//
// Offering is cheap: suggestions are cached by (document, prefix, suffix), so
// typing through a shown suggestion is answered from the cache with no model
// or engine call; and a newer request for a document cancels the one in
// flight.
//
// Architecture invariant: inline knows no LSP. It speaks in document text and
// byte offsets; the proxy converts positions (proxy/feature/inlinefeat).
package inline

import (
	"context"
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/repilot-lsp/repilot-lsp/engine"
	"github.com/repilot-lsp/repilot-lsp/lm"
	"github.com/repilot-lsp/repilot-lsp/repair"
	"github.com/repilot-lsp/repilot-lsp/textpos"
)

// Backends are what one project's suggestions use: the model, the completion
// engine (nil for unguided generation) and the compiler of the guarantee (nil
// for unchecked suggestions).
type Backends struct {
	Model    lm.Model
	Engine   engine.Engine
	Compiler engine.Compiler
}

// Acquire runs fn with the backends of the project root, held exclusively for
// the call (the shadow JDT LS edits one copy of a file at a time). It returns
// fn's error, or its own when the backends cannot be started or ctx ends
// while waiting for them.
type Acquire func(ctx context.Context, root string, fn func(Backends) error) error

// Trigger is how a request was triggered (LSP 3.18
// InlineCompletionTriggerKind).
type Trigger int

const (
	// Automatic: while typing; cheap, may return nothing (one greedy sample).
	Automatic Trigger = iota
	// Invoked: the user asked; tries harder (Options.InvokedSamples
	// samples, within Options.InvokedBudget).
	Invoked
)

// Options tune suggestions. The zero value of each field means its default.
type Options struct {
	// AutomaticSamples: samples tried on an automatic trigger; default 1
	// (greedy). With AutomaticBudget, a sample starts only while the budget
	// (counted from the request's start) has time left for it and its
	// compile check; and a sample that ends without a candidate, with a
	// repeated one or with one that does not parse (syntax.go) does not
	// count, up to maxAutomaticAttempts samples in all (twice this many
	// when more). The samples of a request are drawn without replacement:
	// none ends with a text an earlier one ended with (repair.GuidedSampler.Exclude).
	AutomaticSamples int
	InvokedSamples   int     // samples tried on an invoked trigger; default 4 (the first greedy)
	MaxTokens        int     // tokens per suggestion; default 48
	TopK             int     // candidates asked of the model per token; default 20
	Temperature      float64 // temperature of the samples after the first; default 0.8
	// AutomaticTemperature: the temperature of an automatic request's
	// samples after the first; default Temperature.
	AutomaticTemperature float64
	CacheSize            int           // cached suggestion suffixes; default 4096
	CheckTimeout         time.Duration // bound on one compile check; default 10 s
	// AutomaticBudget bounds a whole automatic request, generation and
	// compile checks together, counted from its start (deadline.go):
	// sampling ends early enough for a check to finish (by the recent
	// checks' durations), the engine's decisions near the end of sampling
	// answer unknown instead of waiting for JDT LS, a check that cannot
	// finish in time is not started (and one cut by the deadline fails), and
	// no sample starts without time left. What does not fit shows nothing.
	// 0 means no bound.
	AutomaticBudget time.Duration
	// InvokedBudget bounds the work of an invoked request as AutomaticBudget
	// bounds an automatic one (a longer bound: invoked requests try harder),
	// counted from the moment the request holds the project's backends:
	// the wait for them (the shadow JDT LS's start on a project's first
	// request, another request of the project) is not counted, so an
	// explicit ask made while the engine starts is answered once it is up.
	// Every sample counts toward InvokedSamples, as without a budget (under
	// AutomaticBudget a sample without a text to check does not count:
	// with that rule, invoked requests under load 24-30 sampled on until
	// the budget ran out, p50 3.0 s against 1.2 s without a budget, and
	// showed no more). 0 means no bound.
	InvokedBudget time.Duration
	// Unguided generates without the engine and shows without the check (the
	// benchmark's baseline row); never for editors.
	Unguided bool
	// WholeFileCheck compile-checks the whole file even where the reduced
	// unit (reduce.go: the other bodies stubbed) gives the same verdict;
	// for comparisons (bench inline --whole-file-check).
	WholeFileCheck bool
}

func (o Options) withDefaults() Options {
	if o.AutomaticSamples <= 0 {
		o.AutomaticSamples = 1
	}
	if o.InvokedSamples <= 0 {
		o.InvokedSamples = 4
	}
	if o.MaxTokens <= 0 {
		o.MaxTokens = 48
	}
	if o.TopK <= 0 {
		o.TopK = 20
	}
	if o.Temperature <= 0 {
		o.Temperature = 0.8
	}
	if o.AutomaticTemperature <= 0 {
		o.AutomaticTemperature = o.Temperature
	}
	if o.CacheSize <= 0 {
		o.CacheSize = 4096
	}
	if o.CheckTimeout <= 0 {
		o.CheckTimeout = 10 * time.Second
	}
	return o
}

// Request asks for a suggestion at a caret.
type Request struct {
	URI    string // the document's file:// URI
	Root   string // the project root (absolute)
	Text   string // the document's current text (the editor's buffer)
	Offset int    // the caret, a byte offset into Text
	Trigger
}

// Suggestion is text to insert at Offset (nothing is replaced).
type Suggestion struct {
	Text   string
	Offset int
	// Cached: served from the cache with no model, engine or compiler call
	// (the same document text was checked before).
	Cached bool
	// Rechecked: the text came from the cache but the document changed
	// elsewhere, so it was compile-checked again (no model or engine call).
	Rechecked bool
	Stats     Stats
}

// Stats counts the work behind one answer.
type Stats struct {
	Samples       int           // guided samples run
	Rejected      int           // completed samples that failed the guarantee (the compiler's answer)
	ModelCalls    int64         // model requests (Next or Propose)
	EngineCalls   int64         // engine Check/CheckEnd/Complete calls
	CompileChecks int           // JDT LS compile checks
	ReducedChecks int           // guarantees (one or two of the checks each) made on the reduced unit (reduce.go)
	GenerateTime  time.Duration // sampling wall time
	CheckTime     time.Duration // compile-check wall time
	OverBudget    int           // requests whose sampling ran out of their budget (AutomaticBudget, InvokedBudget; no check was reached)
	// Under a budget: engine decisions answered unknown because the
	// sampling time was ending (deadline.go); compile checks not started
	// because they could not finish in time; checks cut by the deadline.
	LateUnknown   int64
	ChecksSkipped int
	ChecksCut     int

	// How the samples that yielded no candidate to check ended (each
	// sample counts once; Rejected counts the checked ones that failed):
	Dead      int // a token was pruned with nothing left to draw (or the model proposed none)
	Truncated int // MaxTokens reached without the end token
	Blank     int // ended with only whitespace
	Repeated  int // ended with a text already checked for this request
	// Unparsable: completed samples dropped before the compile check
	// because the file with them inserted has a syntax error on the
	// caret's line that a local parse finds (syntax.go).
	Unparsable int
	// Fed: prefixes that later samples may not start with, read from a
	// rejected sample's errors (an unresolvable name; feedback.go).
	Fed int
	// RejectedElsewhere: of Rejected, the samples whose inserted lines had
	// no error: every error that failed them lies outside the insertion
	// (Introduced's rule (b)), an error the file as it stands lacks. On
	// JDK modules extracted into a plain project these are mostly errors
	// of the rest of the file (a package that conflicts with a JDK
	// module's, "must override or implement a supertype method") that JDT
	// LS does not report while the caret's line has a syntax error, so any
	// text that completes the line fails with them (bench/README.md,
	// "Ghost text", session 15).
	RejectedElsewhere int
}

// Service answers suggestion requests. It is safe for concurrent use.
type Service struct {
	acquire Acquire
	opts    Options
	checks  checkTimes                   // recent compile checks' durations (the budget's estimate)
	cache   *lru.Cache[cacheKey, cached] // (uri, prefix, suffix) -> text to insert
	olds    *lru.Cache[cacheKey, []engine.CompileError]

	mu      sync.Mutex
	totals  Stats                 // summed over every request
	running map[string]*flight    // uri -> request in flight
	shown   map[string]shownEntry // uri -> the last suggestion shown
	seq     uint64
}

type flight struct {
	cancel context.CancelCauseFunc
	seq    uint64
}

// shownEntry is the last suggestion shown for a document.
type shownEntry struct{ prefix, suffix, text string }

// cached is a cache entry: the text to insert and the suggestion it is the
// rest of.
type cached struct {
	rest   string
	origin shownEntry
}

// cacheKey identifies a document state at a caret.
type cacheKey string

func keyOf(uri, prefix, suffix string) cacheKey {
	return newKeyHash(uri, prefix, suffix).key("")
}

// keyHash is a cache key's hash with everything but the prefix's last bytes
// written: SHA-256 of the URI and suffix, each after its length, then the
// prefix (last, so it needs no length). store's keys differ only in the
// prefix's end, so the document (up to 1 MiB) is hashed once for all of
// them instead of once a key (with a copy of the prefix each).
type keyHash struct{ state []byte }

func newKeyHash(uri, prefix, suffix string) keyHash {
	h := sha256.New()
	for _, s := range []string{uri, suffix} {
		fmt.Fprintf(h, "%d:", len(s))
		io.WriteString(h, s)
	}
	io.WriteString(h, prefix)
	state, err := h.(encoding.BinaryMarshaler).MarshalBinary()
	if err != nil {
		panic(err) // crypto/sha256's digest always marshals
	}
	return keyHash{state}
}

// key returns the key of the prefix followed by more.
func (k keyHash) key(more string) cacheKey {
	h := sha256.New()
	if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(k.state); err != nil {
		panic(err) // a state MarshalBinary wrote
	}
	io.WriteString(h, more)
	return cacheKey(hex.EncodeToString(h.Sum(nil)[:16]))
}

// NewService returns a Service over acquire's backends.
func NewService(acquire Acquire, opts Options) *Service {
	opts = opts.withDefaults()
	c, _ := lru.New[cacheKey, cached](opts.CacheSize)
	o, _ := lru.New[cacheKey, []engine.CompileError](64)
	return &Service{acquire: acquire, opts: opts, cache: c, olds: o, running: map[string]*flight{}, shown: map[string]shownEntry{}}
}

// ErrSuperseded is the error of a request cancelled by a newer request for the
// same document.
var ErrSuperseded = errors.New("superseded by a newer inline completion request for the same document")

// Suggest returns a suggestion at req's caret, or nil when there is none to
// show (the model proposed nothing, or every sample failed the guarantee).
// A newer Suggest for the same URI cancels this one (its error then wraps
// ErrSuperseded); ctx cancels it too. Errors: a caret outside the text or
// inside a UTF-8 sequence, a model, engine or compiler failure, ctx's error.
//
// A lone "\r" ends a line (LSP 3.17 "Text Documents", JLS 3.4), while the
// rest of this package splits lines at "\n": a document with lone "\r"s is
// suggested for as the same text with each written "\n" (the same offsets,
// the same lines for the shadow JDT LS), and the suggestion written with
// "\r" where the caret's line ends with one.
func (s *Service) Suggest(ctx context.Context, req Request) (*Suggestion, error) {
	if !hasLoneCR(req.Text) || req.Offset < 0 || req.Offset > len(req.Text) {
		return s.suggest(ctx, req)
	}
	end := lineEndAt(req.Text[:req.Offset], req.Text[req.Offset:])
	req.Text = loneCRAsLF(req.Text)
	sug, err := s.suggest(ctx, req)
	if sug != nil && end == "\r" {
		out := *sug
		out.Text = textpos.WithLineEnd(sug.Text, end)
		sug = &out
	}
	return sug, err
}

// hasLoneCR reports whether text holds a "\r" that no "\n" follows.
func hasLoneCR(text string) bool {
	for i := strings.IndexByte(text, '\r'); i >= 0; {
		if i+1 == len(text) || text[i+1] != '\n' {
			return true
		}
		j := strings.IndexByte(text[i+1:], '\r')
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}

// loneCRAsLF returns text with each lone "\r" written "\n" (byte for byte:
// offsets stay).
func loneCRAsLF(text string) string {
	b := []byte(text)
	for i, c := range b {
		if c == '\r' && (i+1 == len(b) || b[i+1] != '\n') {
			b[i] = '\n'
		}
	}
	return string(b)
}

func (s *Service) suggest(ctx context.Context, req Request) (*Suggestion, error) {
	if req.Offset < 0 || req.Offset > len(req.Text) || (req.Offset < len(req.Text) && !utf8.RuneStart(req.Text[req.Offset])) {
		return nil, fmt.Errorf("inline: caret offset %d is not a character boundary of the %d-byte document", req.Offset, len(req.Text))
	}
	prefix, suffix := req.Text[:req.Offset], req.Text[req.Offset:]
	if c, ok := s.cache.Get(keyOf(req.URI, prefix, suffix)); ok {
		s.noteShown(req.URI, c.origin)
		return &Suggestion{Text: c.rest, Offset: req.Offset, Cached: true}, nil
	}

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	s.mu.Lock()
	if f := s.running[req.URI]; f != nil {
		f.cancel(ErrSuperseded)
	}
	s.seq++
	me := &flight{cancel: cancel, seq: s.seq}
	s.running[req.URI] = me
	last, hasLast := s.shown[req.URI]
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		if s.running[req.URI] == me {
			delete(s.running, req.URI)
		}
		s.mu.Unlock()
	}()

	var sug *Suggestion
	start := time.Now()
	var deadline time.Time // the automatic budget's (an invoked one's is set once the backends are held); zero: none
	if req.Trigger == Automatic && s.opts.AutomaticBudget > 0 {
		// One deadline for the whole request (deadline.go), the wait for the
		// backends included (their start, or another request of the same
		// project, such as a repair, may take a minute; a start goes on
		// without this request). unwindReserve is left for what follows
		// the work (closing the engine's session, caching).
		deadline = start.Add(s.opts.AutomaticBudget - min(unwindReserve, s.opts.AutomaticBudget/10))
		var cancelBudget context.CancelFunc
		ctx, cancelBudget = context.WithDeadlineCause(ctx, deadline, errBudget)
		defer cancelBudget()
	}
	err := s.acquire(ctx, req.Root, func(b Backends) error {
		ctx, deadline := ctx, deadline
		if req.Trigger == Invoked && s.opts.InvokedBudget > 0 {
			// The invoked budget counts from here: the backends are held.
			deadline = time.Now().Add(s.opts.InvokedBudget - min(unwindReserve, s.opts.InvokedBudget/10))
			var cancelBudget context.CancelFunc
			ctx, cancelBudget = context.WithDeadlineCause(ctx, deadline, errBudget)
			defer cancelBudget()
		}
		if rest, ok := typedThrough(last, hasLast, prefix, suffix); ok && !s.opts.Unguided && b.Compiler != nil {
			st := Stats{}
			ok, _, _, err := s.guarantee(ctx, deadline, b, req.URI, prefix, suffix, rest, &st, nil)
			s.addTotals(st)
			if err != nil {
				return err
			}
			if ok {
				sug = &Suggestion{Text: rest, Offset: req.Offset, Rechecked: true, Stats: st}
				return nil
			}
		}
		var err error
		sug, err = s.generate(ctx, deadline, b, req, prefix, suffix)
		if err != nil && outOfBudget(ctx) {
			// The budget ran out in a step that does not check it itself
			// (the model's start, the engine's open): nothing to show.
			s.addTotals(Stats{OverBudget: 1})
			sug, err = nil, nil
		}
		return err
	})
	if err != nil && outOfBudget(ctx) {
		// The budget ran out while waiting for the backends: nothing to
		// show, as when it runs out in generation.
		s.addTotals(Stats{OverBudget: 1})
		return nil, nil
	}
	if err != nil {
		if c := context.Cause(ctx); c != nil && ctx.Err() != nil {
			return nil, fmt.Errorf("inline: %w", c)
		}
		return nil, err
	}
	if sug != nil {
		s.store(req.URI, prefix, suffix, sug.Text)
	}
	return sug, nil
}

// typedThrough reports whether the caret sits inside the last suggestion
// shown for the document after the user typed its first characters, with the
// document changed elsewhere (an unchanged document is an exact cache hit):
// the caret line's text before the caret is the shown one's plus typed (a
// prefix of the suggestion), and the line's text after the caret is the same.
// It returns the rest of the suggestion.
func typedThrough(last shownEntry, ok bool, prefix, suffix string) (string, bool) {
	if !ok || last.text == "" {
		return "", false
	}
	lastLine := last.prefix[strings.LastIndexByte(last.prefix, '\n')+1:]
	line := prefix[strings.LastIndexByte(prefix, '\n')+1:]
	if !strings.HasPrefix(line, lastLine) {
		return "", false
	}
	typed := line[len(lastLine):]
	if typed == "" || len(typed) >= len(last.text) || !strings.HasPrefix(last.text, typed) {
		return "", false
	}
	if firstLine(suffix) != firstLine(last.suffix) {
		return "", false
	}
	return last.text[len(typed):], true
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// store caches text at (prefix, suffix) and, for typing through it, the rest
// of text after each of its leading characters.
func (s *Service) store(uri, prefix, suffix, text string) {
	origin := shownEntry{prefix: prefix, suffix: suffix, text: text}
	s.noteShown(uri, origin)
	kh := newKeyHash(uri, prefix, suffix)
	s.cache.Add(kh.key(""), cached{rest: text, origin: origin})
	for i := 1; i < len(text); i++ {
		if utf8.RuneStart(text[i]) {
			s.cache.Add(kh.key(text[:i]), cached{rest: text[i:], origin: origin})
		}
	}
}

func (s *Service) noteShown(uri string, e shownEntry) {
	s.mu.Lock()
	s.shown[uri] = e
	s.mu.Unlock()
}

// Totals returns the work of every request so far, summed (for benchmarks:
// where the time goes).
func (s *Service) Totals() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.totals
}

func (s *Service) addTotals(st Stats) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := &s.totals
	t.Samples += st.Samples
	t.Rejected += st.Rejected
	t.ModelCalls += st.ModelCalls
	t.EngineCalls += st.EngineCalls
	t.CompileChecks += st.CompileChecks
	t.ReducedChecks += st.ReducedChecks
	t.GenerateTime += st.GenerateTime
	t.CheckTime += st.CheckTime
	t.OverBudget += st.OverBudget
	t.LateUnknown += st.LateUnknown
	t.ChecksSkipped += st.ChecksSkipped
	t.ChecksCut += st.ChecksCut
	t.Dead += st.Dead
	t.Truncated += st.Truncated
	t.Blank += st.Blank
	t.Repeated += st.Repeated
	t.Unparsable += st.Unparsable
	t.Fed += st.Fed
	t.RejectedElsewhere += st.RejectedElsewhere
}

// Forget drops what the service remembers of a document (on didClose).
func (s *Service) Forget(uri string) {
	s.mu.Lock()
	delete(s.shown, uri)
	if f := s.running[uri]; f != nil {
		f.cancel(context.Canceled)
	}
	s.mu.Unlock()
}

// generate samples suggestions at the caret and returns the first that
// passes the guarantee, all before deadline when it is not zero (the
// request's budget's; deadline.go).
func (s *Service) generate(ctx context.Context, deadline time.Time, b Backends, req Request, prefix, suffix string) (*Suggestion, error) {
	o := s.opts
	samples := o.AutomaticSamples
	if req.Trigger == Invoked {
		samples = o.InvokedSamples
	}
	// deadline: the request's budget's (Suggest; ctx ends then too), or
	// zero. Under it, a sample must end a compile check's time before it
	// (by the recent checks' durations, estimated again before each
	// sample), so that its check can finish in time.
	budgeted := !deadline.IsZero()
	sampleEnd := func() time.Time {
		if o.Unguided || b.Compiler == nil {
			return deadline
		}
		return deadline.Add(-s.checks.estimate())
	}
	temperature := o.Temperature
	if req.Trigger == Automatic {
		temperature = o.AutomaticTemperature
	}
	// Token healing (heal.go): with the caret right after an identifier's
	// characters, the model, the engine and the stop rule start at the
	// identifier's start (mprefix), and the samples write its typed part
	// again first; the suggestion is what follows that part.
	heal := partialIdent(prefix)
	mprefix := prefix[:len(prefix)-len(heal)]
	rule := newStopRule(mprefix, suffix)
	rule.heal = heal
	lineEnd := lineEndAt(prefix, suffix)
	caretLine := mprefix[strings.LastIndexByte(mprefix, '\n')+1:] // the caret line's text before the model's split
	sug := &Suggestion{Offset: req.Offset}
	st := &sug.Stats
	var late atomic.Int64
	defer func() {
		st.LateUnknown = late.Load()
		s.addTotals(*st)
	}()
	if budgeted && !time.Now().Before(sampleEnd()) {
		st.OverBudget++
		return nil, nil // no time for a sample and its check
	}
	ms, err := b.Model.Start(ctx, lm.FIM{Prefix: modelPrefix(mprefix), Suffix: modelSuffix(suffix), Indent: indentOf(prefix), MaxTokens: o.MaxTokens})
	if err != nil {
		return nil, fmt.Errorf("language model %s: %w", b.Model.Name(), err)
	}
	ropts := repair.Options{Samples: 1, TopK: o.TopK, TopP: 0.95, MaxTokens: o.MaxTokens,
		Temperature: 0, Prune: true, Memo: true, ActiveComplete: true}
	var es engine.Session
	if o.Unguided || b.Engine == nil {
		ropts.Prune, ropts.Memo, ropts.ActiveComplete = false, false, false
	} else {
		es, err = b.Engine.Open(ctx, engine.Hunk{URI: req.URI, Prefix: mprefix, Suffix: suffix})
		if err != nil {
			return nil, fmt.Errorf("completion engine: %w", err)
		}
		defer es.Close()
	}
	var lateEs *lateSession
	if budgeted && es != nil {
		lateEs = &lateSession{Session: es, late: &late}
		es = lateEs
	}
	key := repair.HunkKey(req.URI, mprefix, suffix)
	tried := map[string]bool{}
	var syntax *syntaxFilter
	if !o.Unguided && b.Compiler != nil {
		syntax = newSyntaxFilter(req.URI, prefix, suffix)
		defer syntax.close()
	}
	// The first sample is greedy, the others at temperature; all run on
	// one sampler, so they share its trie of rejected prefixes, its memo
	// and the texts already tried (GuidedSampler.Exclude): a later sample
	// never ends with a text an earlier one ended with.
	session, lastAsked := wrap(ms, rule, &st.ModelCalls)
	g := repair.NewGuidedSampler(session, es, ropts, key)
	// Under AutomaticBudget, a sample that ends without a candidate, with a blank
	// or repeated one, or with one that does not parse (syntax.go) does not
	// count toward samples: the next one differs (no sample ends with a
	// text tried before, and a dead sample's prefix is pruned). The budget
	// bounds the time; attempts are bounded by maxAutomaticAttempts (or
	// twice samples, when more). Otherwise (no budget, or an invoked
	// request under InvokedBudget) every sample counts.
	attempts := samples
	if budgeted && req.Trigger == Automatic {
		attempts = max(2*samples, maxAutomaticAttempts)
	}
	checked := 0
	for i := 0; i < attempts && checked < samples; i++ {
		gctx, end := ctx, time.Time{} // the sample's context and end
		if budgeted {
			if end = sampleEnd(); i > 0 && time.Until(end) < minSampleTime {
				break // no time left for another sample and its check
			}
			if lateEs != nil {
				lateEs.end = end.Add(-engineTail)
			}
		}
		t0 := time.Now()
		before := g.Stats()
		cancel := context.CancelFunc(func() {})
		if budgeted {
			gctx, cancel = context.WithDeadlineCause(ctx, end, errBudget)
		}
		raw, complete, err := g.Sample(gctx, i)
		text := raw
		cancel()
		st.GenerateTime += time.Since(t0)
		after := g.Stats()
		st.EngineCalls += after.EngineCalls - before.EngineCalls
		st.Samples++
		if err != nil {
			if outOfBudget(gctx) && (ctx.Err() == nil || outOfBudget(ctx)) {
				st.OverBudget++
				return nil, nil // the budget ran out: nothing to show
			}
			return nil, err
		}
		if i == 0 {
			g.SetTemperature(temperature) // before Exclude: its shares are at the later samples' temperature
		}
		if complete {
			// Whatever becomes of it (shown, or dropped below), no later
			// sample ends with this text again.
			g.Exclude(text)
		}
		text = rule.finish(text)
		rest, healed := strings.CutPrefix(text, heal)
		if traceSamples {
			shown := strconv.Quote(text)
			if !complete {
				shown = "nothing, last asked after " + strconv.Quote(lastAsked())
			}
			fmt.Fprintf(os.Stderr, "inline trace: sample %d: %s complete=%v, %v, %d engine calls, %d late unknown\n",
				i, shown, complete, time.Since(t0).Round(time.Millisecond), after.EngineCalls-before.EngineCalls, late.Load())
		}
		switch {
		case !complete && truncations(after) > truncations(before):
			st.Truncated++
			continue
		case !complete || !healed:
			st.Dead++
			continue
		case strings.TrimSpace(rest) == "":
			st.Blank++
			continue
		case tried[rest]:
			st.Repeated++
			continue
		}
		// The model writes "\n" (or, rarely, "\r\n"); the suggestion gets
		// the document's line ends, so that it is checked as it will be
		// inserted and accepting it leaves no mixed line ends.
		text = textpos.WithLineEnd(rest, lineEnd)
		tried[text] = true
		if syntax.cannotParse(ctx, text) {
			// Fails the check's rule (a) without a check: the next
			// sample gets the time (syntax.go).
			st.Unparsable++
			if traceSamples {
				fmt.Fprintf(os.Stderr, "inline trace: %q does not parse: not checked\n", text)
			}
			continue
		}
		checked++
		if o.Unguided || b.Compiler == nil {
			sug.Text = text
			return sug, nil
		}
		cutBefore := st.ChecksSkipped + st.ChecksCut
		ok, inserted, elsewhere, err := s.guarantee(ctx, deadline, b, req.URI, prefix, suffix, text, st, syntax)
		if err != nil {
			return nil, err
		}
		if traceSamples {
			fmt.Fprintf(os.Stderr, "inline trace: check of %q: %v (skipped %d, cut %d)\n", text, ok, st.ChecksSkipped, st.ChecksCut)
		}
		if ok {
			sug.Text = text
			return sug, nil
		}
		if st.ChecksSkipped+st.ChecksCut > cutBefore {
			return nil, nil // the deadline came before the check's answer
		}
		st.Rejected++
		if elsewhere {
			st.RejectedElsewhere++
		}
		// A name the check found unresolvable where the sample's text
		// fixes it as an expression fails in every continuation: later
		// samples do not start with the text up to it (feedback.go).
		for _, p := range UnresolvedPrefixes(caretLine, raw, spanOf(prefix, "").From, inserted) {
			g.Reject(p)
			st.Fed++
			if traceSamples {
				fmt.Fprintf(os.Stderr, "inline trace: no later sample starts with %q\n", p)
			}
		}
	}
	return nil, nil
}

// maxAutomaticAttempts bounds the samples of an automatic request under
// AutomaticBudget (Options.AutomaticSamples counts only those that reach a
// check; the budget bounds the time). Chosen over 4 (twice serve's 2
// samples) on java.logging/ (bench inline, README "Ghost text"): with the
// samples drawn without replacement, a request whose first samples do not
// parse or die has further texts to try, and a sample costs a few
// milliseconds when the engine's answers are in the memo.
const maxAutomaticAttempts = 16

// traceSamples: with $REPILOT_INLINE_TRACE set, every sample's text and
// end and every check's verdict go to stderr (for bench inline -v).
var traceSamples = os.Getenv("REPILOT_INLINE_TRACE") != ""

// truncations returns the samples of st that reached the token limit.
func truncations(st repair.Stats) int {
	return st.TruncEndPruned + st.TruncEndNotDrawn + st.TruncNoEnd
}

// guarantee checks text inserted between prefix and suffix (Introduced): the
// new text is compile-checked first; the file as it stands only when the new
// text has errors outside the inserted lines (cached per text). A text the
// compiler cannot parse (engine.ErrUnparsable) or check in time fails. With a
// deadline (the request's budget's, ctx's too), a check is not started when
// the time left is under the recent checks' median (checkTimes.median), and
// one cut by the deadline fails: the text is then not shown. inserted are the new text's errors on
// the inserted lines; elsewhere reports a failure for errors outside them
// only (Stats.RejectedElsewhere).
func (s *Service) guarantee(ctx context.Context, deadline time.Time, b Backends, uri, prefix, suffix, text string, st *Stats, syntax *syntaxFilter) (ok bool, inserted []engine.CompileError, elsewhere bool, err error) {
	t0 := time.Now()
	defer func() { st.CheckTime += time.Since(t0) }()
	compile := func(full string) ([]engine.CompileError, bool, error) {
		if !deadline.IsZero() && time.Until(deadline) < s.checks.median() {
			st.ChecksSkipped++
			return nil, false, nil // unlikely to finish before the deadline: not started
		}
		cctx, cancel := context.WithTimeout(ctx, s.opts.CheckTimeout)
		defer cancel()
		st.CompileChecks++
		c0 := time.Now()
		errs, err := b.Compiler.CompileErrors(cctx, uri, full)
		if err != nil {
			if outOfBudget(ctx) {
				st.ChecksCut++
				return nil, false, nil // cut by the deadline: fails
			}
			if ctx.Err() != nil {
				return nil, false, ctx.Err()
			}
			if errors.Is(err, engine.ErrUnparsable) || errors.Is(err, context.DeadlineExceeded) {
				return nil, false, nil
			}
			return nil, false, fmt.Errorf("compile check: %w", err)
		}
		s.checks.add(time.Since(c0))
		return errs, true, nil
	}
	newText, oldText := prefix+text+suffix, prefix+suffix
	if !s.opts.WholeFileCheck {
		if nr, or, red := syntax.reduced(text); red {
			// The same verdict from a unit with the other bodies stubbed
			// (reduce.go), at a fraction of JDT LS's time.
			newText, oldText = nr, or
			st.ReducedChecks++
		}
	}
	newErrs, ok, err := compile(newText)
	if !ok || err != nil {
		return false, nil, false, err
	}
	span := spanOf(prefix, text)
	for _, e := range newErrs {
		if e.Line >= span.From && e.Line <= span.To {
			inserted = append(inserted, e)
		}
	}
	var old []engine.CompileError
	if needOld(newErrs, span) {
		k := keyOf(uri, oldText, "old")
		var cached bool
		if old, cached = s.olds.Get(k); !cached {
			old, ok, err = compile(oldText)
			if !ok || err != nil {
				return false, inserted, false, err
			}
			s.olds.Add(k, old)
		}
	}
	intro := Introduced(newErrs, old, span)
	if traceSamples && len(intro) > 0 {
		var on []string // the errors on the inserted lines, for the breakdown of rejections (bench/README.md)
		for _, e := range inserted {
			on = append(on, e.Message)
		}
		fmt.Fprintf(os.Stderr, "inline trace: %q introduces %q, on the inserted lines %q\n", text, intro, on)
	}
	return len(intro) == 0, inserted, len(intro) > 0 && len(inserted) == 0, nil
}

// The model's context is the document's text nearest the caret: at most
// modelPrefixBytes before it and modelSuffixBytes after it, cut at line
// starts. A model's start is proportional to its context (the n-gram model
// lexes all of it and counts it into its per-file cache): on a generated
// 1 MiB file it was most of an automatic request's CPU time and ran outside
// the request's deadline (BenchmarkLargeDocument). Most Java files are
// smaller (under 64 KiB for all but a few dozen of the JDK's java.base);
// the engine, the stop rule and the check always see the whole document.
const (
	modelPrefixBytes = 64 << 10
	modelSuffixBytes = 16 << 10
)

// modelPrefix returns the end of prefix the model sees: all of it when it is
// at most modelPrefixBytes, else its last lines within that many bytes
// (lm.TailLines: a cut inside one long line falls between characters).
func modelPrefix(prefix string) string { return lm.TailLines(prefix, modelPrefixBytes) }

// modelSuffix returns the start of suffix the model sees: all of it when it
// is at most modelSuffixBytes, else its first lines within that many bytes
// (lm.HeadLines).
func modelSuffix(suffix string) string { return lm.HeadLines(suffix, modelSuffixBytes) }

// lineEndAt returns the line terminator of the caret's line in the document
// prefix+suffix: that of the line's own end, else (the last line) that of
// the line before; "\r\n" or a lone "\r" when it is that (LSP 3.17 "Text
// Documents"), else "\n" (also for a document of one line).
func lineEndAt(prefix, suffix string) string {
	if i := strings.IndexAny(suffix, "\r\n"); i >= 0 {
		switch {
		case suffix[i] == '\r' && strings.HasPrefix(suffix[i+1:], "\n"):
			return "\r\n"
		case suffix[i] == '\r':
			return "\r"
		case i == 0 && strings.HasSuffix(prefix, "\r"):
			return "\r\n" // the caret between "\r" and "\n"
		}
		return "\n"
	}
	if j := strings.LastIndexAny(prefix, "\r\n"); j >= 0 {
		switch {
		case prefix[j] == '\r':
			return "\r"
		case j > 0 && prefix[j-1] == '\r':
			return "\r\n"
		}
	}
	return "\n"
}

// indentOf returns the leading whitespace of the caret's line.
func indentOf(prefix string) string {
	line := prefix[strings.LastIndexAny(prefix, "\r\n")+1:]
	return line[:len(line)-len(strings.TrimLeft(line, " \t"))]
}
