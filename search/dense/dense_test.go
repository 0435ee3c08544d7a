package dense

import (
	"context"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/search/llm"
	"github.com/repilot-lsp/repilot-lsp/search/llm/llmtest"
	"github.com/repilot-lsp/repilot-lsp/search/units"
)

func TestCacheRoundTripAndTornTail(t *testing.T) {
	dir := t.TempDir()
	c, err := OpenCache(dir, "m")
	if err != nil {
		t.Fatal(err)
	}
	k1, k2 := KeyOf("m", "a"), KeyOf("m", "b")
	c.Put(k1, []float32{1, 2, 3})
	c.Put(k2, []float32{4, 5, 6})
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	// Tear the last record.
	f, _ := os.OpenFile(c.path, os.O_RDWR, 0)
	st, _ := f.Stat()
	f.Truncate(st.Size() - 5)
	f.Close()
	c2, err := OpenCache(dir, "m")
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := c2.Get(k1); !ok || !reflect.DeepEqual(v, []float32{1, 2, 3}) {
		t.Errorf("k1 = %v %v", v, ok)
	}
	if _, ok := c2.Get(k2); ok {
		t.Error("torn record loaded")
	}
	c2.Put(k2, []float32{7, 8, 9})
	c2.Close()
	c3, _ := OpenCache(dir, "m")
	if v, ok := c3.Get(k2); !ok || v[0] != 7 || c3.Len() != 2 {
		t.Errorf("after append: %v %v len %d", v, ok, c3.Len())
	}
	c3.Close()
	if other, _ := OpenCache(dir, "other-model"); other.Len() != 0 {
		t.Error("models share a cache file")
	}
	if KeyOf("m", "a") == KeyOf("n", "a") {
		t.Error("key ignores the model")
	}
}

func TestStoreSyncSearchAndCache(t *testing.T) {
	s := llmtest.New()
	defer s.Close()
	emb, _ := llm.NewEmbedder(llm.Config{BaseURL: s.BaseURL(), Model: "bow"})
	dir := t.TempDir()
	us := []units.Unit{
		{ID: "read", Signature: "def read_config_file(path)", Code: "open config file read"},
		{ID: "log", Signature: "def write_log(msg)", Code: "append message log"},
		{ID: "http", Signature: "def parse_header(line)", Code: "split http header line"},
	}
	ctx := context.Background()
	open := func() *Store {
		c, err := OpenCache(dir, emb.Model())
		if err != nil {
			t.Fatal(err)
		}
		return NewStore(emb, c, Options{Batch: 2})
	}
	st := open()
	st.Upsert(us)
	if st.Len() != 0 || st.Pending() != 3 {
		t.Fatalf("before sync: len %d pending %d", st.Len(), st.Pending())
	}
	var last [2]int
	if err := st.Sync(ctx, func(d, n int) { last = [2]int{d, n} }); err != nil {
		t.Fatal(err)
	}
	if st.Len() != 3 || last != [2]int{3, 3} {
		t.Errorf("after sync: len %d progress %v", st.Len(), last)
	}
	q, err := st.EmbedQuery(ctx, "read the config file")
	if err != nil {
		t.Fatal(err)
	}
	if hs := st.Search(q, 2); len(hs) != 2 || hs[0].ID != "read" {
		t.Errorf("search: %+v", hs)
	}
	parts := [][]float32{q, s.Embed("parse http header")}
	hs := st.SearchMax(parts, 3)
	if hs[0].ID != "read" && hs[0].ID != "http" || hs[2].ID != "log" {
		t.Errorf("searchMax: %+v", hs)
	}
	st.Delete([]string{"read"})
	if hs := st.Search(q, 3); len(hs) != 2 || hs[0].ID == "read" {
		t.Errorf("after delete: %+v", hs)
	}
	st.cache.Close()

	// A restart embeds nothing already cached; a changed unit is re-embedded.
	_, before, _ := s.Counts()
	st2 := open()
	us[1].Code = "append message to the log file"
	st2.Upsert(us)
	if st2.Len() != 2 || st2.Pending() != 1 {
		t.Errorf("restart: len %d pending %d", st2.Len(), st2.Pending())
	}
	st2.Sync(ctx, nil)
	if _, after, _ := s.Counts(); after-before != 1 {
		t.Errorf("restart embedded %d texts, want 1", after-before)
	}
}

// TestPrefixesFor: bge's English models get their query instruction (and
// nothing on passages), e5 its two prefixes, others none; the name may
// carry a path, a .gguf suffix or capitals as servers report it.
func TestPrefixesFor(t *testing.T) {
	for _, c := range []struct{ model, q, d string }{
		{"bge-small-en-v1.5", BGEQueryInstruction, ""},
		{"BAAI/bge-base-en-v1.5", BGEQueryInstruction, ""},
		{"/models/bge-small-en-v1.5-f32.gguf", BGEQueryInstruction, ""},
		{"bge-m3", "", ""}, // multilingual, trained without the instruction
		{"e5-small-v2", "query: ", "passage: "},
		{"multilingual-e5-small", "query: ", "passage: "},
		{"all-MiniLM-L6-v2", "", ""},
		{"text-embedding-3-small", "", ""},
	} {
		q, d := PrefixesFor(c.model)
		if q != c.q || d != c.d {
			t.Errorf("PrefixesFor(%q) = %q, %q; want %q, %q", c.model, q, d, c.q, c.d)
		}
	}
}

// newServedStore returns a Store over srv's embeddings (model "m") with a
// fresh cache, closed when the test ends.
func newServedStore(t *testing.T, srv *llmtest.Server, opts Options) *Store {
	t.Helper()
	emb, err := llm.NewEmbedder(llm.Config{BaseURL: srv.BaseURL(), Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := OpenCache(t.TempDir(), "m")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return NewStore(emb, c, opts)
}

// TestQueryPrefixOnlyOnQueries: the store sends the query prefix with
// queries and the document prefix with units, and nothing else.
func TestQueryPrefixOnlyOnQueries(t *testing.T) {
	srv := llmtest.New()
	defer srv.Close()
	var got []string
	embed := srv.Embed
	srv.Embed = func(text string) []float32 { got = append(got, text); return embed(text) }
	s := newServedStore(t, srv, Options{QueryPrefix: "Q: ", DocPrefix: "D: "})
	u := units.Unit{ID: "a", Name: "f", Code: "func f() {}"}
	s.Upsert([]units.Unit{u})
	if err := s.Sync(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.EmbedQuery(context.Background(), "find f"); err != nil {
		t.Fatal(err)
	}
	want := []string{"D: " + TextOf(&u, 2000), "Q: find f"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("embedded %q, want %q", got, want)
	}
}

// TestSyncEmbedsEachTextOnce: units with the same text (here 5 of 7, across
// batch boundaries) cost one embedding, and each gets that text's vector.
func TestSyncEmbedsEachTextOnce(t *testing.T) {
	srv := llmtest.New()
	defer srv.Close()
	s := newServedStore(t, srv, Options{Batch: 2})
	var us []units.Unit
	for i, code := range []string{"return size == 0", "return size == 0", "x++", "return size == 0", "y--", "return size == 0", "return size == 0"} {
		us = append(us, units.Unit{ID: string(rune('a' + i)), Signature: "boolean isEmpty()", Code: code})
	}
	s.Upsert(us)
	var last [2]int
	if err := s.Sync(context.Background(), func(d, n int) { last = [2]int{d, n} }); err != nil {
		t.Fatal(err)
	}
	if _, inputs, _ := srv.Counts(); inputs != 3 {
		t.Errorf("embedded %d texts, want 3 distinct", inputs)
	}
	if s.Len() != 7 || s.Pending() != 0 || last != [2]int{7, 7} {
		t.Errorf("len %d pending %d progress %v", s.Len(), s.Pending(), last)
	}
	want := normalize(srv.Embed(TextOf(&us[0], 2000)))
	for _, i := range []int{0, 1, 3, 5, 6} {
		if !reflect.DeepEqual(s.vecs[us[i].ID], want) {
			t.Errorf("unit %s: vector differs from its text's", us[i].ID)
		}
	}
}

// dimEmbedder returns vectors of dims[call] dimensions on its call-th call
// (the last entry after that): an embedding server whose model changed.
type dimEmbedder struct {
	dims  []int
	calls int
}

func (d *dimEmbedder) Model() string { return "dims" }

func (d *dimEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	n := d.dims[min(d.calls, len(d.dims)-1)]
	d.calls++
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = make([]float32, n)
		out[i][0] = float32(i + 1)
	}
	return out, nil
}

// TestWrongDimensionIsNotCached: a batch with vectors of another dimension
// than the store's is an error naming both, and none of it reaches the disk
// cache. Before, the misfit vectors were cached first, came back at the next
// start, and (map order) could set the store's dimension there, the right
// vectors then failing every Sync.
func TestWrongDimensionIsNotCached(t *testing.T) {
	dir := t.TempDir()
	emb := &dimEmbedder{dims: []int{4, 3}}
	c, err := OpenCache(dir, emb.Model())
	if err != nil {
		t.Fatal(err)
	}
	st := NewStore(emb, c, Options{Batch: 1})
	st.Upsert([]units.Unit{{ID: "a", Code: "alpha"}, {ID: "b", Code: "beta"}})
	syncErr := st.Sync(context.Background(), nil)
	c.Close()
	c2, err := OpenCache(dir, emb.Model())
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if c2.Len() != 1 {
		t.Errorf("the cache holds %d vectors, want only the 4-dimensional one", c2.Len())
	}
	for _, text := range []string{TextOf(&units.Unit{Code: "alpha"}, 2000), TextOf(&units.Unit{Code: "beta"}, 2000)} {
		if v, ok := c2.Get(KeyOf(emb.Model(), text)); ok && len(v) != 4 {
			t.Errorf("cached a %d-dimensional vector", len(v))
		}
	}
	if syncErr == nil || !strings.Contains(syncErr.Error(), "3-dimensional") || !strings.Contains(syncErr.Error(), "earlier ones 4") {
		t.Errorf("sync: %v, want the dimension error", syncErr)
	}
}

// shortEmbedder returns one vector fewer than it was given texts.
type shortEmbedder struct{}

func (shortEmbedder) Model() string { return "short" }
func (shortEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	return make([][]float32, len(texts)-1), nil
}

// TestEmbedderReturningTooFewVectors: an error, not an index panic.
func TestEmbedderReturningTooFewVectors(t *testing.T) {
	c, _ := OpenCache(t.TempDir(), "short")
	defer c.Close()
	st := NewStore(shortEmbedder{}, c, Options{})
	st.Upsert([]units.Unit{{ID: "a", Code: "alpha"}})
	if err := st.Sync(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "0 vectors for 1 texts") {
		t.Errorf("sync: %v", err)
	}
}
