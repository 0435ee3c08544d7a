package search

import (
	"reflect"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/search/fuse"
)

func TestDenseLeaderFirst(t *testing.T) {
	lex := fuse.List{Name: StreamLexical, Weight: 1, IDs: []string{"a", "b", "c"}, Scores: []float64{9, 8, 7}}
	dense := func(w, s1, s2 float64, ids ...string) fuse.List {
		return fuse.List{Name: StreamDense, Weight: w, IDs: ids, Scores: []float64{s1, s2, 0.5}}
	}
	ids := func(fs []fuse.Scored) []string {
		var out []string
		for _, f := range fs {
			out = append(out, f.ID)
		}
		return out
	}
	same := func(id string) string { return id }
	cases := []struct {
		name   string
		dense  fuse.List
		margin float64
		setOf  func(string) string
		fused  []string // nil: a, b, c
		want   []string
	}{
		{"margin met: the leader moves up", dense(1, 0.80, 0.76, "c", "a", "b"), 0.03, same, nil, []string{"c", "a", "b"}},
		{"exactly the margin", dense(1, 0.75, 0.5, "c", "a", "b"), 0.25, same, nil, []string{"c", "a", "b"}},
		{"margin not met", dense(1, 0.80, 0.78, "c", "a", "b"), 0.03, same, nil, []string{"a", "b", "c"}},
		{"off", dense(1, 0.9, 0.1, "c", "a", "b"), 0, same, nil, []string{"a", "b", "c"}},
		{"dense weight 0", dense(0, 0.9, 0.1, "c", "a", "b"), 0.03, same, nil, []string{"a", "b", "c"}},
		{"leader already first", dense(1, 0.9, 0.1, "a", "c", "b"), 0.03, same, nil, []string{"a", "b", "c"}},
		{"overload sets: the set's representative moves", dense(1, 0.9, 0.1, "p#C.m#2", "a", "b"), 0.03, OverloadSet,
			[]string{"a", "b", "p#C.m"}, []string{"p#C.m", "a", "b"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := c.fused
			if in == nil {
				in = []string{"a", "b", "c"}
			}
			var fused []fuse.Scored
			for i, id := range in {
				fused = append(fused, fuse.Scored{ID: id, Score: float64(len(in) - i)})
			}
			got := ids(denseLeaderFirst(fused, []fuse.List{lex, c.dense}, c.margin, c.setOf))
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
		})
	}
	// The lexical stream's leader never moves by this rule.
	fused := []fuse.Scored{{ID: "b"}, {ID: "a"}}
	lexOnly := []fuse.List{{Name: StreamLexical, Weight: 1, IDs: []string{"a", "b"}, Scores: []float64{10, 1}}}
	if got := ids(denseLeaderFirst(fused, lexOnly, 0.03, same)); !reflect.DeepEqual(got, []string{"b", "a"}) {
		t.Fatalf("lexical leader moved: %v", got)
	}
}
