package search

import (
	"context"
	"testing"
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
