package search

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/search/index"
)

// TestPersistWithDense: a build that defers the lexical analysis (Persist,
// as the command line builds) still hands every unit to the dense store at
// once, and the lexical side gets them when the build ends: both streams
// answer.
func TestPersistWithDense(t *testing.T) {
	root := project(t)
	_, emb, _ := fakeModels(t)
	e, err := New(Config{Root: root, CacheDir: t.TempDir(), Embedder: emb, Persist: true,
		Streams: Streams{Lexical: true, Dense: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	if err := e.Build(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := e.SyncEmbeddings(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if st := e.Status(); st.Units != 6 || st.Embedded != 6 || st.Pending != 0 {
		t.Errorf("status %+v, want 6 units, all embedded", st)
	}
	res, err := e.Search(ctx, Query{Text: "total price with tax", K: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{StreamLexical, StreamDense} {
		if len(res.Streams[name]) == 0 {
			t.Errorf("stream %s found nothing (errors %v)", name, res.Errors)
		}
	}
}

// TestEmbeddingCacheUnwritable: a cache folder where the embedding cache
// cannot be made (read-only, full; here a file in its way) fails no
// search: the dense stream answers from memory, and EmbeddingCacheErr
// names the problem for a warning. Before, New failed ("mkdir ...: not a
// directory") and "search" did nothing, where an unwritable unit cache is
// only a warning.
func TestEmbeddingCacheUnwritable(t *testing.T) {
	root := project(t)
	_, emb, _ := fakeModels(t)
	blocked := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocked, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := New(Config{Root: root, CacheDir: blocked, Embedder: emb, Streams: Streams{Lexical: true, Dense: true}})
	if err != nil {
		t.Fatalf("New: %v; want a search without the cache", err)
	}
	defer e.Close()
	ctx := context.Background()
	if err := e.Build(ctx, nil); err != nil && !errors.Is(err, index.ErrCacheNotSaved) {
		t.Fatal(err)
	}
	if err := e.SyncEmbeddings(ctx, nil); err != nil {
		t.Fatal(err)
	}
	res, err := e.Search(ctx, Query{Text: "total price with tax", K: 3})
	if err != nil || len(res.Streams[StreamDense]) == 0 {
		t.Errorf("dense stream: %v, errors %v", err, res.Errors)
	}
	if err := e.EmbeddingCacheErr(); err == nil || !strings.Contains(err.Error(), blocked) {
		t.Errorf("EmbeddingCacheErr = %v; want it to name %s", err, blocked)
	}
}
