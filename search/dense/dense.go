// Package dense is the dense retrieval stream: every unit is embedded once
// (through an llm.Embedder: any OpenAI-compatible /v1/embeddings), vectors
// are L2-normalised and searched exhaustively by cosine similarity. An exact
// scan of 10,000 384-dimensional vectors is about 4 million multiply-adds,
// a few milliseconds, so no approximate index is needed at workspace scale.
//
// Embedding is slow (a model call per batch), so Upsert only records what
// must be embedded; Sync embeds the pending units in batches, caching each
// vector on disk (Cache). Searches see the units embedded so far.
package dense

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"

	"github.com/repilot-lsp/repilot-lsp/search/llm"
	"github.com/repilot-lsp/repilot-lsp/search/units"
)

// Hit is one ranked unit with its cosine similarity to the query.
type Hit struct {
	ID    string
	Score float64
}

// Options configure a Store.
type Options struct {
	// MaxChars bounds the text embedded per unit (default 2000 bytes, about
	// 500 tokens: more than small embedding models read).
	MaxChars int
	// Batch is the number of texts per embedding request (default 32).
	Batch int
	// QueryPrefix and DocPrefix are prepended to queries and units, for
	// models trained with them (e5: "query: ", "passage: "; bge v1.5: the
	// query instruction BGEQueryInstruction). Empty for all-MiniLM-L6-v2
	// and OpenAI models. PrefixesFor gives a known model's.
	QueryPrefix, DocPrefix string
}

// BGEQueryInstruction is the instruction the English bge v1.5 models
// (BAAI, "C-Pack", Xiao et al. 2023; the model card's "Represent this
// sentence for searching relevant passages: ") put before a short query
// that retrieves longer passages; the passages get none.
const BGEQueryInstruction = "Represent this sentence for searching relevant passages: "

// PrefixesFor returns the query and document prefixes a model was trained
// with, by the model's name as the embedding server knows it (case and a
// path or ".gguf" ignored): bge-*-en-v1.5 and bge-*-en take
// BGEQueryInstruction on queries, e5 models "query: " and "passage: ".
// Other models (all-MiniLM-L6-v2, OpenAI's) get none.
func PrefixesFor(model string) (query, doc string) {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	m = strings.TrimSuffix(m, ".gguf")
	switch {
	case strings.HasPrefix(m, "bge-") && strings.Contains(m, "-en"):
		return BGEQueryInstruction, ""
	case strings.HasPrefix(m, "e5-") || strings.Contains(m, "-e5-"):
		return "query: ", "passage: "
	}
	return "", ""
}

// Store holds the unit vectors of one embedding model.
type Store struct {
	emb   llm.Embedder
	cache *Cache
	opt   Options

	syncMu sync.Mutex // one Sync at a time

	mu      sync.RWMutex
	vecs    map[string][]float32 // embedded units, normalised
	texts   map[string]string    // the text each embedded unit was embedded from
	pending map[string]string    // units waiting to be embedded: id -> text
	dim     int
}

// NewStore returns an empty store embedding with emb and caching in cache
// (which must be the cache of emb.Model()).
func NewStore(emb llm.Embedder, cache *Cache, opt Options) *Store {
	if opt.MaxChars <= 0 {
		opt.MaxChars = 2000
	}
	if opt.Batch <= 0 {
		opt.Batch = 32
	}
	return &Store{emb: emb, cache: cache, opt: opt, vecs: map[string][]float32{},
		texts: map[string]string{}, pending: map[string]string{}}
}

// TextOf is the text embedded for a unit: its signature, doc and code
// (units.Unit.Text), clipped to maxChars bytes on a rune boundary.
func TextOf(u *units.Unit, maxChars int) string {
	t := u.Text()
	if len(t) > maxChars {
		n := maxChars
		for n > 0 && t[n]&0xC0 == 0x80 {
			n--
		}
		t = t[:n]
	}
	return t
}

func (s *Store) key(text string) Key { return KeyOf(s.emb.Model(), text) }

// Upsert records units to embed; units whose text is in the cache are
// available at once.
func (s *Store) Upsert(us []units.Unit) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range us {
		id := us[i].ID
		text := s.opt.DocPrefix + TextOf(&us[i], s.opt.MaxChars)
		if s.texts[id] == text {
			delete(s.pending, id)
			continue
		}
		delete(s.vecs, id)
		delete(s.texts, id)
		if v, ok := s.cache.Get(s.key(text)); ok && s.fits(v) {
			s.vecs[id], s.texts[id] = normalize(v), text
			delete(s.pending, id)
			continue
		}
		s.pending[id] = text
	}
}

// fits says whether v has the store's dimension (setting it on first use).
func (s *Store) fits(v []float32) bool {
	if s.dim == 0 {
		s.dim = len(v)
	}
	return len(v) == s.dim
}

// Delete forgets units.
func (s *Store) Delete(ids []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range ids {
		delete(s.vecs, id)
		delete(s.texts, id)
		delete(s.pending, id)
	}
}

// Len is the number of embedded units; Pending the number waiting.
func (s *Store) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.vecs)
}

// Pending is the number of units waiting to be embedded.
func (s *Store) Pending() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.pending)
}

// Sync embeds every pending unit, a batch at a time, until none is left or
// ctx ends; progress (may be nil) gets the count done and the count that
// was pending when Sync began (plus any added meanwhile). Units with the
// same text (overloads delegating alike, identical bodies in sibling
// classes: about 5% of JDK 17's java.util) are embedded once per batch
// pass: a batch holds distinct texts, and every pending unit with one of
// them takes its vector. The cache file is flushed after each batch.
func (s *Store) Sync(ctx context.Context, progress func(done, total int)) error {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	done := 0
	for {
		s.mu.RLock()
		total := done + len(s.pending)
		texts := make([]string, 0, s.opt.Batch)
		inBatch := make(map[string]bool, s.opt.Batch)
		for _, t := range s.pending {
			if inBatch[t] {
				continue
			}
			inBatch[t] = true
			texts = append(texts, t)
			if len(texts) == s.opt.Batch {
				break
			}
		}
		s.mu.RUnlock()
		if len(texts) == 0 {
			// A cache that cannot be written (a full disk) fails no
			// search: the vectors are in memory (CacheErr). Before, the
			// write error ended Sync, and "search" failed with it,
			// blaming the embeddings server.
			s.cache.Flush()
			return nil
		}
		vs, err := s.emb.Embed(ctx, texts)
		if err != nil {
			s.cache.Flush()
			return err
		}
		if len(vs) != len(texts) {
			return fmt.Errorf("dense: the embedder returned %d vectors for %d texts", len(vs), len(texts))
		}
		s.mu.Lock()
		// Every vector is checked before any is cached: a vector of another
		// dimension cached on disk would come back at the next start, and
		// whichever vector Upsert met first would then set the store's
		// dimension, leaving the others pending, and failing, for good.
		for i := range texts {
			if !s.fits(vs[i]) {
				s.mu.Unlock()
				return fmt.Errorf("dense: the embedding model changed dimension (a %d-dimensional vector, earlier ones %d); nothing of this batch is kept", len(vs[i]), s.dim)
			}
		}
		byText := make(map[string][]float32, len(texts))
		for i, t := range texts {
			if err := s.cache.Put(s.key(t), vs[i]); err != nil {
				s.mu.Unlock()
				return err
			}
			byText[t] = vs[i]
		}
		// Every unit still pending with one of these texts (the unit may have
		// changed or gone while we embedded it: then its text differs).
		n := 0
		for id, t := range s.pending {
			if v, ok := byText[t]; ok {
				delete(s.pending, id)
				s.vecs[id], s.texts[id] = normalize(v), t
				n++
			}
		}
		s.mu.Unlock()
		s.cache.Flush()
		done += n
		if progress != nil {
			progress(done, total)
		}
	}
}

// Warm embeds the texts of us that are not cached yet into the cache,
// without adding the units to the store (a later Upsert of the same text is
// then immediate).
func (s *Store) Warm(ctx context.Context, us []units.Unit) error {
	var texts []string
	seen := map[string]bool{}
	for i := range us {
		t := s.opt.DocPrefix + TextOf(&us[i], s.opt.MaxChars)
		if _, ok := s.cache.Get(s.key(t)); !ok && !seen[t] {
			seen[t] = true
			texts = append(texts, t)
		}
	}
	for start := 0; start < len(texts); start += s.opt.Batch {
		batch := texts[start:min(start+s.opt.Batch, len(texts))]
		vs, err := s.emb.Embed(ctx, batch)
		if err != nil {
			s.cache.Flush()
			return err
		}
		for i, t := range batch {
			if err := s.cache.Put(s.key(t), vs[i]); err != nil {
				return err
			}
		}
	}
	s.cache.Flush() // an error is kept: CacheErr
	return nil
}

// CacheErr returns the first error writing the embedding cache's file
// (Cache.WriteErr), nil if none.
func (s *Store) CacheErr() error { return s.cache.WriteErr() }

// EmbedQuery embeds a query text (with the query prefix), through the cache.
func (s *Store) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	return s.embedOne(ctx, s.opt.QueryPrefix+text)
}

// EmbedCode embeds a piece of code as if it were a unit (with the document
// prefix): generated code is compared with units in their own space.
func (s *Store) EmbedCode(ctx context.Context, code string) ([]float32, error) {
	u := units.Unit{Code: code}
	return s.embedOne(ctx, s.opt.DocPrefix+TextOf(&u, s.opt.MaxChars))
}

func (s *Store) embedOne(ctx context.Context, text string) ([]float32, error) {
	k := s.key(text)
	if v, ok := s.cache.Get(k); ok {
		return normalize(v), nil
	}
	vs, err := s.emb.Embed(ctx, []string{text})
	if err != nil {
		return nil, err
	}
	s.cache.Put(k, vs[0])
	return normalize(vs[0]), nil
}

// Search returns the k units most similar to q (normalised), best first;
// ties by ID.
func (s *Store) Search(q []float32, k int) []Hit {
	return s.SearchMax([][]float32{q}, k)
}

// SearchMax scores each unit by its best cosine over several query vectors
// (RepoRift compares each component function of the generated code with
// the units one by one) and returns the k best.
func (s *Store) SearchMax(qs [][]float32, k int) []Hit {
	s.mu.RLock()
	defer s.mu.RUnlock()
	hits := make([]Hit, 0, len(s.vecs))
	for id, v := range s.vecs {
		best := math.Inf(-1)
		for _, q := range qs {
			if len(q) != len(v) {
				continue
			}
			if d := float64(dot(q, v)); d > best {
				best = d
			}
		}
		if !math.IsInf(best, -1) {
			hits = append(hits, Hit{id, best})
		}
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].ID < hits[j].ID
	})
	if len(hits) > k {
		hits = hits[:k]
	}
	return hits
}

func dot(a, b []float32) float32 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func normalize(v []float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	out := make([]float32, len(v))
	if n == 0 {
		return out
	}
	inv := float32(1 / math.Sqrt(n))
	for i, x := range v {
		out[i] = x * inv
	}
	return out
}
