package dense

import (
	"context"
	"reflect"
	"sync"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/search/llm"
	"github.com/repilot-lsp/repilot-lsp/search/llm/llmtest"
	"github.com/repilot-lsp/repilot-lsp/search/units"
)

// TestCacheSharedByTwoProcesses: two caches open on one file (two "search"
// runs on one project, each its own file descriptor) keep each other's
// vectors: a reopened cache holds every vector either wrote, each with its
// own value. Before, each wrote from where its own load ended: the second
// overwrote the first's records (here: k1 lost).
func TestCacheSharedByTwoProcesses(t *testing.T) {
	dir := t.TempDir()
	open := func() *Cache {
		c, err := OpenCache(dir, "m")
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	k1, k2, k3 := KeyOf("m", "a"), KeyOf("m", "b"), KeyOf("m", "c")
	c1, c2 := open(), open()
	c1.Put(k1, []float32{1, 1})
	if err := c1.Flush(); err != nil {
		t.Fatal(err)
	}
	c2.Put(k2, []float32{2, 2})
	if err := c2.Flush(); err != nil {
		t.Fatal(err)
	}
	c1.Put(k3, []float32{3, 3})
	c3 := open() // a third run starting meanwhile must not cut c1's record
	c1.Close()
	c2.Close()
	c3.Close()
	// Many vectors from two writers at once, flushed in small batches.
	c4, c5 := open(), open()
	var wg sync.WaitGroup
	for w, c := range []*Cache{c4, c5} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				c.Put(KeyOf("m", string(rune('A'+w))+string(rune(i))), []float32{float32(w), float32(i)})
				if i%7 == 0 {
					c.Flush()
				}
			}
			c.Close()
		}()
	}
	wg.Wait()
	c := open()
	defer c.Close()
	for k, want := range map[Key][]float32{k1: {1, 1}, k2: {2, 2}, k3: {3, 3}} {
		if got, ok := c.Get(k); !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("vector %x: %v (%v), want %v", k[:4], got, ok, want)
		}
	}
	if n := c.Len(); n != 3+400 {
		t.Errorf("%d vectors after two concurrent writers, want %d", n, 3+400)
	}
}

// TestCacheWriteFailureFailsNoSearch: an embedding cache whose file cannot
// be written (a full disk; here its descriptor closed underneath) fails no
// Sync: the vectors are searched from memory, and the error is kept for a
// warning (CacheErr). Before, the write error ended Sync, and "search"
// failed with "embedding the project: ...", blaming the embeddings server.
func TestCacheWriteFailureFailsNoSearch(t *testing.T) {
	s := llmtest.New()
	defer s.Close()
	emb, _ := llm.NewEmbedder(llm.Config{BaseURL: s.BaseURL(), Model: "bow"})
	c, err := OpenCache(t.TempDir(), emb.Model())
	if err != nil {
		t.Fatal(err)
	}
	c.f.Close() // every write now fails, as on a full disk
	st := NewStore(emb, c, Options{Batch: 2})
	st.Upsert([]units.Unit{
		{ID: "read", Signature: "def read_config_file(path)", Code: "open config file read"},
		{ID: "log", Signature: "def write_log(msg)", Code: "append message log"},
		{ID: "http", Signature: "def parse_header(line)", Code: "split http header line"},
	})
	if err := st.Sync(context.Background(), nil); err != nil {
		t.Fatalf("Sync: %v; want the search to go on without the cache", err)
	}
	if st.Len() != 3 {
		t.Errorf("%d vectors in memory, want 3", st.Len())
	}
	if st.CacheErr() == nil {
		t.Error("the write error was not kept")
	}
}
