package search

import (
	"reflect"
	"strings"
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

func TestLoneLeaders(t *testing.T) {
	list := func(name string, w float64, ids ...string) fuse.List {
		return fuse.List{Name: name, Weight: w, IDs: ids}
	}
	// fused: f0 .. f11, then the extra IDs given.
	fusedOf := func(extra ...string) []fuse.Scored {
		var fs []fuse.Scored
		for i := range 12 {
			fs = append(fs, fuse.Scored{ID: string(rune('a' + i))})
		}
		for _, id := range extra {
			fs = append(fs, fuse.Scored{ID: id})
		}
		return fs
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
		name  string
		lists []fuse.List
		at    int
		setOf func(string) string
		extra []string
		want  string // the first 12 IDs joined
	}{
		{"lexical leader the dense list lacks moves to 10", []fuse.List{list(StreamLexical, 1, "x", "a"), list(StreamDense, 1, "a", "b")},
			10, same, []string{"x"}, "abcdefghixjk"},
		{"dense leader the lexical list lacks moves to 10", []fuse.List{list(StreamLexical, 1, "a", "b"), list(StreamDense, 1, "y", "a")},
			10, same, []string{"y"}, "abcdefghiyjk"},
		{"both lone: lexical's at 10, dense's at 11", []fuse.List{list(StreamLexical, 1, "x", "a"), list(StreamDense, 1, "y", "a")},
			10, same, []string{"y", "x"}, "abcdefghixyj"},
		{"held by the other list far down: no move", []fuse.List{list(StreamLexical, 1, "x", "a"), list(StreamDense, 1, "a", "b", "c", "x")},
			10, same, []string{"x"}, "abcdefghijkl"},
		{"already above the place: no move", []fuse.List{list(StreamLexical, 1, "c", "a"), list(StreamDense, 1, "a", "b")},
			10, same, nil, "abcdefghijkl"},
		{"off", []fuse.List{list(StreamLexical, 1, "x", "a"), list(StreamDense, 1, "a", "b")},
			0, same, []string{"x"}, "abcdefghijkl"},
		{"one list only", []fuse.List{list(StreamLexical, 1, "x", "a")},
			10, same, []string{"x"}, "abcdefghijkl"},
		{"a list of weight 0 neither leads nor holds", []fuse.List{list(StreamLexical, 1, "x", "a"), list(StreamDense, 0, "y", "x"), list(StreamAugDense, 1, "a")},
			10, same, []string{"y", "x"}, "abcdefghixjk"},
		{"another place", []fuse.List{list(StreamLexical, 1, "x", "a"), list(StreamDense, 1, "a", "b")},
			3, same, []string{"x"}, "abxcdefghijk"},
		{"overload sets: an overload in the other list holds the set", []fuse.List{list(StreamLexical, 1, "p#C.m", "a"), list(StreamDense, 1, "a", "p#C.m#2")},
			10, OverloadSet, []string{"p#C.m"}, "abcdefghijkl"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := ids(loneLeaders(fusedOf(c.extra...), c.lists, c.at, c.setOf))
			if s := strings.Join(got[:12], ""); s != c.want {
				t.Fatalf("got %s, want %s (%v)", s, c.want, got)
			}
			if len(got) != 12+len(c.extra) {
				t.Fatalf("length %d, want %d", len(got), 12+len(c.extra))
			}
		})
	}
}
