package search

// query.go runs one search: the streams, their fusion and the reranking.

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/repilot-lsp/repilot-lsp/search/dense"
	"github.com/repilot-lsp/repilot-lsp/search/fuse"
	"github.com/repilot-lsp/repilot-lsp/search/llm"
	"github.com/repilot-lsp/repilot-lsp/search/units"
)

// MaxQueryBytes bounds a query's text, in bytes (after trimming space):
// the editor clips a longer one (a selection, a workspace/symbol query) to
// it, and the command line and "bench search --queries" refuse it
// (CheckQueryLen). A 63 KB query took 0.5-0.7 s on the Python standard
// library with a warm cache, its time growing with its words; 4,000 bytes
// is a page of code, more than any question.
const MaxQueryBytes = 4000

// CheckQueryLen returns an error naming the bound when q, trimmed of
// space, is longer than MaxQueryBytes; nil otherwise.
func CheckQueryLen(q string) error {
	if n := len(strings.TrimSpace(q)); n > MaxQueryBytes {
		return fmt.Errorf("the query is %d bytes, over the limit of %d bytes (search.MaxQueryBytes): search with its key words, or a shorter selection", n, MaxQueryBytes)
	}
	return nil
}

// ClipQuery returns q cut to at most MaxQueryBytes, on a rune boundary: the
// editor's search clips a longer query (a selection) where the command
// line refuses it (CheckQueryLen).
func ClipQuery(q string) string { return units.ClipBytes(q, MaxQueryBytes) }

// Query is one search request.
type Query struct {
	// Text is the query: natural language, or code (a selection).
	Text string
	// K is the number of hits wanted (default 10).
	K int
	// Lang is the language of the code the generation stream writes
	// (default: the workspace's main language).
	Lang string
	// Only, when set, restricts the streams to those it enables (and the
	// configuration allows): workspace/symbol, sent on every keystroke,
	// runs without model calls but embeddings.
	Only *Streams
	// Exclude names units whose doc comments must not inform statistics
	// mined from the repository's docs (the lexical stream's association
	// expansion, lexical.Assoc). The benchmark passes the query's target,
	// whose doc the query was taken from; the editor passes nothing.
	Exclude []string
	// Tests overrides Config.Tests for this query ("": the engine's).
	Tests TestPolicy
}

// Hit is one result.
type Hit struct {
	Unit units.Unit
	// Score is the fused RRF score divided by its maximum (every enabled
	// stream ranking the unit first), in (0, 1]. After reranking, hits are
	// in the reranker's order, which may not follow Score; nor does the
	// reordering of the first hits by Tuning.DenseMargin, MembersFirst and
	// GettersLast.
	Score float64
	// Match is how much of the query the unit contains, comparable across
	// queries (lexical.Hit.Match: the idf-weighted fraction of the query's
	// terms found in the unit, in [0, 1]); 0 when only a dense or model
	// stream found it. Below StrongMatch the hit is weak.
	Match float64
	// Ranks gives the unit's 1-based rank in each stream that found it.
	Ranks map[string]int
	// Overloads are the other members of the unit's overload set: the
	// units of the same file with the same qualified name (Java overloads,
	// Python @typing.overload stubs and their implementation, a property's
	// getter and setter), in file order. A set is one hit, at the rank of
	// its best member (Unit); the streams in Result.Streams still rank
	// single units, and the fused one, with Tuning.FuseOverloads, ranks
	// sets, each by one member. Ranks are then the set's.
	Overloads []units.Unit
}

// HitView is what the command line's "search --json" (cli.SearchHitJSON)
// and the editor's search command (searchfeat.SearchHit) show of a hit,
// each beside where the unit is (a path and range, an LSP Location). Score,
// Match and Ranks are Hit's; Name is the unit's qualified name, Kind its
// kind, Signature its shown signature, Snippet its first 8 lines, and
// Overloads the shown signatures of the other members of its overload set.
type HitView struct {
	Score     float64        `json:"score"`
	Match     float64        `json:"match"`
	Name      string         `json:"name"`
	Kind      string         `json:"kind"`
	Signature string         `json:"signature"`
	Snippet   string         `json:"snippet"`
	Ranks     map[string]int `json:"ranks"`
	Overloads []string       `json:"overloads,omitempty"`
}

// View returns the HitView of h.
func (h *Hit) View() HitView {
	u := &h.Unit
	v := HitView{Score: h.Score, Match: h.Match, Name: u.QualifiedName(), Kind: string(u.Kind),
		Signature: u.ShownSignature(), Snippet: u.Snippet(8), Ranks: h.Ranks}
	for _, o := range h.Overloads {
		v.Overloads = append(v.Overloads, o.ShownSignature())
	}
	return v
}

// StrongMatch is the least Hit.Match of a strong hit. Chosen on the tuning
// corpora only (search/README.md, "Match"): below 0.3 a top hit was right
// about half as often as above it (Success@1 19-26% vs 38-49%, Success@10
// 52-59% vs 80-81%).
const StrongMatch = 0.3

// Strong says whether some hit matches the query strongly (Match at least
// StrongMatch); when none does, the caller should say so ("no strong
// match") rather than present the top hit as the answer.
func (r *Result) Strong() bool {
	for _, h := range r.Hits {
		if h.Match >= StrongMatch {
			return true
		}
	}
	return false
}

// Result is the answer to a Query.
type Result struct {
	Hits []Hit
	// Streams holds each stream's ranking (unit IDs, best first, at most
	// Config.Depth), including "fused" and, when it ran, "rerank".
	Streams map[string][]string
	// Augmented is the rewritten query and Generated the generated code,
	// when those streams ran.
	Augmented, Generated string
	// Errors holds the streams that failed (a model down, say) and why; the
	// other streams still answered.
	Errors map[string]string
	// Timings per step.
	Timings map[string]time.Duration
}

// Search runs the enabled streams for q and fuses them. A failing model
// stream is reported in Result.Errors and skipped; Search itself fails only
// when ctx ends or no stream could answer.
func (e *Engine) Search(ctx context.Context, q Query) (*Result, error) {
	text := strings.TrimSpace(q.Text)
	if text == "" {
		return nil, errors.New("search: empty query")
	}
	if q.K <= 0 {
		q.K = 10
	}
	if q.Tests != "" {
		p, err := ParseTestPolicy(string(q.Tests))
		if err != nil {
			return nil, err
		}
		q.Tests = p
	}
	if q.Lang == "" {
		q.Lang = e.mainLang()
	}
	st := e.cfg.Streams
	if o := q.Only; o != nil {
		st = Streams{st.Lexical && o.Lexical, st.Dense && o.Dense, st.Augment && o.Augment,
			st.Generate && o.Generate, st.Rerank && o.Rerank}
	}
	chat := e.cfg.Chat
	r := &run{e: e, ctx: ctx, exclude: q.Exclude, scores: map[string][]float64{}, res: &Result{Streams: map[string][]string{}, Errors: map[string]string{},
		Timings: map[string]time.Duration{}}}
	start := time.Now()

	// The lexical hits of the query also name the symbols given to the model
	// as repository context, so they run first (they take milliseconds).
	lexIDs := r.lexical(StreamLexical, text)
	if !st.Lexical {
		delete(r.res.Streams, StreamLexical)
	}
	var wg sync.WaitGroup
	if st.Dense && e.dense != nil {
		wg.Add(1)
		go func() { defer wg.Done(); r.denseText(StreamDense, text) }()
	}
	if chat != nil && (st.Augment || st.Generate) {
		rc := e.repoContext(lexIDs, q.Lang)
		wg.Add(1)
		go func() {
			defer wg.Done()
			genFrom := text
			if st.Augment {
				t0 := time.Now()
				aug, err := llm.Augment(ctx, chat, text, rc)
				r.time("augment", t0)
				if err != nil {
					r.fail("augment", err)
				} else {
					r.setAugmented(aug)
					genFrom = aug
					var wg2 sync.WaitGroup
					wg2.Add(1)
					go func() { defer wg2.Done(); r.lexical(StreamAugLexical, aug) }()
					if e.dense != nil {
						wg2.Add(1)
						go func() { defer wg2.Done(); r.denseText(StreamAugDense, aug) }()
					}
					defer wg2.Wait()
				}
			}
			if st.Generate {
				r.generate(genFrom, q.Lang, rc)
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	var lists []fuse.List
	maxScore := 0.0
	k := e.cfg.Tuning.RRFK
	if k <= 0 {
		k = fuse.DefaultK
	}
	convex := e.cfg.Tuning.Fusion == FusionConvex
	for _, name := range []string{StreamLexical, StreamDense, StreamAugLexical, StreamAugDense,
		StreamGenDense, StreamGenParts, StreamGenLexical} {
		ids, ok := r.res.Streams[name]
		if !ok {
			continue
		}
		w := 1.0
		if v, ok := e.cfg.Tuning.StreamWeights[name]; ok {
			w = v
		}
		lists = append(lists, fuse.List{Name: name, Weight: w, IDs: ids, Scores: r.scores[name]})
		switch {
		case w <= 0:
		case convex:
			maxScore += w
		default:
			maxScore += w / (k + 1)
		}
	}
	if len(lists) == 0 {
		if len(r.res.Errors) > 0 {
			return nil, fmt.Errorf("search: every stream failed: %v", r.res.Errors)
		}
		return nil, errors.New("search: no stream enabled")
	}
	fuseLists := func(lists []fuse.List) []fuse.Scored {
		if convex {
			return fuse.Convex(lists)
		}
		return fuse.RRF(lists, k)
	}
	fused := fuseLists(lists)
	setOf := func(id string) string { return id }
	if e.cfg.Tuning.FuseOverloads {
		fused = fuseOverloads(fused, lists, fuseLists)
		setOf = OverloadSet
	}
	fused = denseLeaderFirst(fused, lists, e.cfg.Tuning.DenseMargin, setOf)
	fused = loneLeaders(fused, lists, e.cfg.Tuning.LoneLeaderAt, setOf)
	if len(fused) > e.cfg.Tuning.Depth {
		fused = fused[:e.cfg.Tuning.Depth]
	}
	order := make([]string, len(fused))
	byID := make(map[string]fuse.Scored, len(fused))
	for i, f := range fused {
		order[i] = f.ID
		byID[f.ID] = f
	}
	tests := e.cfg.Tests
	if q.Tests != "" {
		tests = q.Tests
	}
	if e.cfg.Tuning.MembersFirst && !namesThing(text) {
		order = e.membersFirst(order, MembersFirstWindow, e.cfg.Tuning.ConstructorsLast)
	}
	if e.cfg.Tuning.GettersLast && !namesThing(text) {
		order = e.gettersLast(order, MembersFirstWindow)
	}
	order = e.placeTests(order, tests, text)
	r.res.Streams[StreamFused] = order

	if st.Rerank && chat != nil && len(order) > 1 {
		t0 := time.Now()
		if re, err := e.rerank(ctx, text, order); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			r.fail(StreamRerank, err)
		} else {
			order = re
			r.res.Streams[StreamRerank] = re
		}
		r.time(StreamRerank, t0)
	}

	grouped := map[string]bool{}
	for _, id := range order {
		if len(r.res.Hits) == q.K {
			break
		}
		key := OverloadSet(id)
		if grouped[key] {
			continue // a better-ranked member of its overload set is a hit
		}
		u, ok := e.Unit(id)
		if !ok {
			continue // removed while we searched
		}
		grouped[key] = true
		f := byID[id]
		r.res.Hits = append(r.res.Hits, Hit{Unit: u, Score: f.Score / maxScore, Match: r.match[id], Ranks: f.Ranks,
			Overloads: e.overloads(key, id)})
	}
	r.res.Timings["total"] = time.Since(start)
	return r.res, nil
}

// OverloadSet is the ID of the first member of a unit's overload set: the
// ID without its "#k" suffix (units.Unit.ID: "path#Container.Name", "#k"
// appended for the k-th declaration of that name in the file).
func OverloadSet(id string) string {
	i := strings.LastIndexByte(id, '#')
	j := strings.IndexByte(id, '#')
	if i > j && j >= 0 {
		if _, err := strconv.Atoi(id[i+1:]); err == nil {
			return id[:i]
		}
	}
	return id
}

// overloads returns the members of the overload set key other than id.
func (e *Engine) overloads(key, id string) []units.Unit {
	var out []units.Unit
	for k := 1; ; k++ {
		mid := key
		if k > 1 {
			mid = key + "#" + strconv.Itoa(k)
		}
		u, ok := e.Unit(mid)
		if !ok {
			return out
		}
		if mid != id {
			out = append(out, u)
		}
	}
}

// fuseOverloads applies Tuning.FuseOverloads: it fuses the streams'
// rankings of overload sets (fuse.Grouped by OverloadSet) instead of
// units, and represents each set by its member that ranks best in
// unitFused (the units' own fusion of the same lists). Each result's
// Ranks are its set's ranks in the streams.
func fuseOverloads(unitFused []fuse.Scored, lists []fuse.List, fuseLists func([]fuse.List) []fuse.Scored) []fuse.Scored {
	grouped := make([]fuse.List, len(lists))
	for i, l := range lists {
		grouped[i] = fuse.Grouped(l, OverloadSet)
	}
	rep := make(map[string]string, len(unitFused))
	for _, f := range unitFused {
		if key := OverloadSet(f.ID); rep[key] == "" {
			rep[key] = f.ID
		}
	}
	out := fuseLists(grouped)
	for i := range out {
		if id := rep[out[i].ID]; id != "" {
			out[i].ID = id
		}
	}
	return out
}

// MembersFirstWindow is how many fused positions Tuning.MembersFirst looks
// at: the first page of hits (Query.K's default).
const MembersFirstWindow = 10

// membersFirst applies Tuning.MembersFirst to a fused ranking: within the
// first w positions (w <= 0: all), a class unit that no member of its own
// ranks above moves to just below its best-ranked member there (a method,
// function or nested class of the same file whose qualified name extends
// the class's; not a constructor or Python __init__/__new__); the units
// between move up by one. A class with no member in the window stays. The
// window's units stay in it, in another order, so Success@10 cannot change.
// The reason: a class unit holds its members' signatures in its outline and
// its doc sums up what they do, so it matches a question about one member
// about as well as the member does, and the member is the answer to "how do
// I ..." (search/README.md, session 13).
//
// With ctors, a constructor (or Python __init__/__new__) makes way the
// same way for the other members of its class (Tuning.ConstructorsLast).
func (e *Engine) membersFirst(order []string, w int, ctors bool) []string {
	out := append([]string(nil), order...)
	lim := len(out)
	if w > 0 && w < lim {
		lim = w
	}
	// owner is the qualified name of the class whose members a unit makes
	// way for: a class unit's own, or a constructor's class (ctors).
	owner := func(u *units.Unit) (string, bool) {
		switch {
		case u.Kind == units.Class:
			return u.QualifiedName(), true
		case ctors && isConstructor(u) && u.Container != "":
			return u.Container, true
		}
		return "", false
	}
	memberOf := func(m, c *units.Unit) bool {
		qn, _ := owner(c)
		return !isConstructor(m) && m.Path == c.Path && strings.HasPrefix(m.QualifiedName(), qn+".")
	}
	for i := 0; i < lim; i++ {
		c, ok := e.Unit(out[i])
		if !ok {
			continue
		}
		if _, ok := owner(&c); !ok {
			continue
		}
		above := false
		for _, id := range out[:i] {
			if m, ok := e.Unit(id); ok && memberOf(&m, &c) {
				above = true
				break
			}
		}
		if above {
			continue
		}
		for j := i + 1; j < lim; j++ {
			if m, ok := e.Unit(out[j]); ok && memberOf(&m, &c) {
				id := out[i]
				copy(out[i:j], out[i+1:j+1])
				out[j] = id
				i-- // position i holds the next unit now
				break
			}
		}
	}
	return out
}

// trivialGetter matches a method body that only returns a field or a
// variable: "{ return name; }", "{ return this.name; }" (Java), "{ return
// r.name }" (Go).
var trivialGetter = regexp.MustCompile(`^\{\s*return\s+(?:[A-Za-z_]\w*\.)?[A-Za-z_]\w*\s*;?\s*\}$`)

// pyTrivialGetter matches a Python method body that only returns an
// attribute of self.
var pyTrivialGetter = regexp.MustCompile(`^return\s+self\.[A-Za-z_]\w*$`)

// isTrivialGetter says whether u is a method whose whole body returns a
// field (Java, Go) or an attribute of self (Python): an accessor, whose doc
// restates what the field means, so it matches a question about the
// feature about as well as the code that implements it does.
func isTrivialGetter(u *units.Unit) bool {
	if u.Kind != units.Method {
		return false
	}
	switch u.Lang {
	case "java", "go":
		i := strings.IndexByte(u.Code, '{')
		return i >= 0 && trivialGetter.MatchString(strings.TrimSpace(u.Code[i:]))
	case "python":
		var body []string
		inDef := false
		for _, l := range strings.Split(u.Code, "\n") {
			l = strings.TrimSpace(l)
			switch {
			case l == "" || strings.HasPrefix(l, "#"):
			case !inDef:
				// Decorators and the (possibly wrapped) def line.
				if strings.HasSuffix(l, ":") && !strings.HasPrefix(l, "@") {
					inDef = true
				}
			default:
				body = append(body, l)
			}
		}
		return len(body) == 1 && pyTrivialGetter.MatchString(body[0])
	}
	return false
}

// gettersLast applies Tuning.GettersLast: within the first w positions
// (w <= 0: all), trivial getters (isTrivialGetter) move to the window's
// end, in their order; the other units move up. The window's units stay in
// it, so Success@w cannot change.
func (e *Engine) gettersLast(order []string, w int) []string {
	lim := len(order)
	if w > 0 && w < lim {
		lim = w
	}
	out := make([]string, 0, len(order))
	var getters []string
	for _, id := range order[:lim] {
		if u, ok := e.Unit(id); ok && isTrivialGetter(&u) {
			getters = append(getters, id)
		} else {
			out = append(out, id)
		}
	}
	out = append(out, getters...)
	return append(out, order[lim:]...)
}

// namesThing says whether a query is a noun phrase ("a thread-safe date
// format"): it starts with an article, so it names a thing (a class, say)
// rather than asking how to do something ("parse a date").
func namesThing(query string) bool {
	w, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(query)), " ")
	switch w {
	case "a", "an", "the":
		return true
	}
	return false
}

// isConstructor says whether u makes instances of its class: a Java
// constructor, or a Python class's __init__ or __new__.
func isConstructor(u *units.Unit) bool {
	return u.Kind == units.Constructor || u.Lang == "python" && u.Kind == units.Method && (u.Name == "__init__" || u.Name == "__new__")
}

// placeTests applies a test policy to a fused ranking (see TestPolicy).
func (e *Engine) placeTests(order []string, p TestPolicy, query string) []string {
	if p == TestsInclude || p != TestsExclude && namesTests(query) {
		return order
	}
	main := make([]string, 0, len(order))
	var tests []string
	for _, id := range order {
		u, ok := e.Unit(id)
		if ok && units.IsTestPath(u.Path) {
			tests = append(tests, id)
		} else {
			main = append(main, id)
		}
	}
	if p == TestsExclude {
		return main
	}
	return append(main, tests...)
}

// namesTests says whether a query asks for tests by name.
func namesTests(query string) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(query), func(r rune) bool {
		return !('a' <= r && r <= 'z')
	}) {
		switch w {
		case "test", "tests", "testing", "unittest", "unittests":
			return true
		}
	}
	return false
}

// run collects the streams of one search from several goroutines.
type run struct {
	e       *Engine
	ctx     context.Context
	exclude []string
	mu      sync.Mutex
	res     *Result
	match   map[string]float64   // lexical.Hit.Match of the query's lexical hits
	scores  map[string][]float64 // each stream's scores, parallel to res.Streams
}

func (r *run) set(name string, ids []string, scores []float64) {
	r.mu.Lock()
	r.res.Streams[name] = ids
	r.scores[name] = scores
	r.mu.Unlock()
}

func (r *run) fail(name string, err error) {
	r.mu.Lock()
	r.res.Errors[name] = err.Error()
	r.mu.Unlock()
}

func (r *run) time(name string, since time.Time) {
	r.mu.Lock()
	r.res.Timings[name] = time.Since(since)
	r.mu.Unlock()
}

func (r *run) setAugmented(s string) {
	r.mu.Lock()
	r.res.Augmented = s
	r.mu.Unlock()
}

// lexical runs the lexical backend and records the stream; it returns the
// IDs (also when the stream is disabled, for the repository context).
func (r *run) lexical(name, text string) []string {
	t0 := time.Now()
	hs, err := r.e.lex.SearchExcluding(r.ctx, text, r.e.cfg.Tuning.Depth, r.exclude)
	r.time(name, t0)
	if err != nil {
		r.fail(name, err)
		return nil
	}
	if name == StreamLexical {
		hs = proximityBoost(r.e.cfg.Tuning.Analyzer, text, hs, r.e.cfg.Tuning.Proximity, r.e.Unit)
	}
	ids := make([]string, len(hs))
	scores := make([]float64, len(hs))
	for i, h := range hs {
		ids[i], scores[i] = h.ID, h.Score
	}
	r.set(name, ids, scores)
	if name == StreamLexical {
		m := make(map[string]float64, len(hs))
		for _, h := range hs {
			m[h.ID] = h.Match
		}
		r.mu.Lock()
		r.match = m
		r.mu.Unlock()
	}
	return ids
}

func (r *run) denseText(name, text string) {
	t0 := time.Now()
	v, err := r.e.dense.EmbedQuery(r.ctx, text)
	if err != nil {
		r.fail(name, err)
		return
	}
	ids, scores := hitIDs(r.e.dense.Search(v, r.e.cfg.Tuning.Depth))
	r.set(name, ids, scores)
	r.time(name, t0)
}

// generate runs stream 4: code from the model, compared whole (gen-dense),
// function by function (gen-parts) and as a lexical query (gen-lexical).
func (r *run) generate(from, lang string, rc llm.RepoContext) {
	t0 := time.Now()
	rc.Lang = lang
	code, err := llm.Generate(r.ctx, r.e.cfg.Chat, from, rc)
	r.time("generate", t0)
	if err != nil {
		r.fail("generate", err)
		return
	}
	r.mu.Lock()
	r.res.Generated = code
	r.mu.Unlock()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); r.lexical(StreamGenLexical, code) }()
	if d := r.e.dense; d != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t1 := time.Now()
			whole, err := d.EmbedCode(r.ctx, code)
			if err != nil {
				r.fail(StreamGenDense, err)
				return
			}
			ids, scores := hitIDs(d.Search(whole, r.e.cfg.Tuning.Depth))
			r.set(StreamGenDense, ids, scores)
			r.time(StreamGenDense, t1)
			// The component functions, one by one: each unit scores its best
			// match among them. One function is the whole code again: skip.
			parts, _ := units.ExtractLang(r.ctx, lang, "generated", []byte(code))
			var vecs [][]float32
			for _, p := range parts {
				if p.Kind == units.Class {
					continue
				}
				v, err := d.EmbedCode(r.ctx, p.Text())
				if err != nil {
					r.fail(StreamGenParts, err)
					return
				}
				vecs = append(vecs, v)
			}
			if len(vecs) > 1 {
				ids, scores := hitIDs(d.SearchMax(vecs, r.e.cfg.Tuning.Depth))
				r.set(StreamGenParts, ids, scores)
			}
		}()
	}
	wg.Wait()
}

// hitIDs returns the IDs and scores of dense hits.
func hitIDs(hs []dense.Hit) ([]string, []float64) {
	ids := make([]string, len(hs))
	scores := make([]float64, len(hs))
	for i, h := range hs {
		ids[i], scores[i] = h.ID, h.Score
	}
	return ids, scores
}

// rerank asks the chat model to order the top fused candidates; the ones it
// leaves out follow in fused order, then the rest of the fused list.
func (e *Engine) rerank(ctx context.Context, query string, order []string) ([]string, error) {
	n := min(e.cfg.Tuning.RerankTopN, len(order))
	cands := make([]llm.Candidate, n)
	for i, id := range order[:n] {
		u, _ := e.Unit(id)
		cands[i] = llm.Candidate{Path: u.Path, Signature: u.ShownSignature(), Snippet: u.Snippet(15)}
	}
	idx, err := llm.Rerank(ctx, e.cfg.Chat, query, cands)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(order))
	used := make([]bool, n)
	for _, i := range idx {
		out = append(out, order[i])
		used[i] = true
	}
	for i := 0; i < n; i++ {
		if !used[i] {
			out = append(out, order[i])
		}
	}
	return append(out, order[n:]...), nil
}

// repoContext gathers what the model is told about the repository.
func (e *Engine) repoContext(lexIDs []string, lang string) llm.RepoContext {
	e.mu.RLock()
	readme := e.readme
	e.mu.RUnlock()
	rc := llm.RepoContext{Readme: readme, Packages: e.packages(25), Lang: lang}
	seen := map[string]bool{}
	for _, id := range lexIDs {
		if len(rc.Symbols) == 20 {
			break
		}
		if u, ok := e.Unit(id); ok && !seen[u.QualifiedName()] {
			seen[u.QualifiedName()] = true
			rc.Symbols = append(rc.Symbols, u.QualifiedName())
		}
	}
	sort.Strings(rc.Symbols) // rank order could hint at the answer; names are context
	return rc
}
