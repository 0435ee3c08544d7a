package fuse

import (
	"fmt"
	"math"
	"math/rand"
	"reflect"
	"strings"
	"testing"
)

func TestRRF(t *testing.T) {
	got := RRF([]List{
		{Name: "lex", Weight: 1, IDs: []string{"a", "b", "c"}},
		{Name: "dense", Weight: 1, IDs: []string{"b", "d", "a"}},
		{Name: "off", Weight: 0, IDs: []string{"z"}},
	}, 60)
	// a: 1/61 + 1/63; b: 1/62 + 1/61; c: 1/63; d: 1/62.
	want := []string{"b", "a", "d", "c"}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i, id := range want {
		if got[i].ID != id {
			t.Errorf("rank %d: got %s, want %s (%v)", i+1, got[i].ID, id, got)
		}
	}
	if s := 1.0/62 + 1.0/61; math.Abs(got[0].Score-s) > 1e-12 || got[0].Ranks["dense"] != 1 || got[0].Ranks["lex"] != 2 {
		t.Errorf("b: %+v", got[0])
	}
}

func TestRRFWeightsAndTies(t *testing.T) {
	got := RRF([]List{
		{Name: "x", Weight: 1, IDs: []string{"p", "q", "q"}},
		{Name: "y", Weight: 1, IDs: []string{"q", "p"}},
	}, 0)
	// p and q tie on score; p's best rank equals q's; p came first in list x.
	if got[0].ID != "p" || got[1].ID != "q" || got[1].Score != got[0].Score {
		t.Errorf("ties: %+v", got)
	}
	got = RRF([]List{{Name: "x", Weight: 1, IDs: []string{"p", "q"}}, {Name: "y", Weight: 3, IDs: []string{"q"}}}, 0)
	if got[0].ID != "q" {
		t.Errorf("weights: %+v", got)
	}
}

func TestConvex(t *testing.T) {
	// lex scores 10, 6, 2 -> 1, 0.5, 0; dense 0.9, 0.8, 0.5 -> 1, 0.75, 0.
	lists := []List{
		{Name: "lex", Weight: 0.4, IDs: []string{"a", "b", "c"}, Scores: []float64{10, 6, 2}},
		{Name: "dense", Weight: 0.6, IDs: []string{"d", "b", "a"}, Scores: []float64{0.9, 0.8, 0.5}},
	}
	got := Convex(lists)
	want := map[string]float64{"b": 0.4*0.5 + 0.6*0.75, "d": 0.6, "a": 0.4, "c": 0}
	order := []string{"b", "d", "a", "c"}
	if len(got) != len(order) {
		t.Fatalf("got %v", got)
	}
	for i, id := range order {
		if got[i].ID != id || math.Abs(got[i].Score-want[id]) > 1e-12 {
			t.Errorf("rank %d: got %s %.4f, want %s %.4f", i+1, got[i].ID, got[i].Score, id, want[id])
		}
	}
	if got[0].Ranks["lex"] != 2 || got[0].Ranks["dense"] != 2 {
		t.Errorf("ranks of b: %v", got[0].Ranks)
	}
	// RRF (equal weights) on the same lists sees ranks only: a (ranks 1
	// and 3) edges out b (2 and 2), where Convex puts b, close behind the
	// top in both streams, first and a third.
	eq := []List{{Name: "lex", Weight: 1, IDs: lists[0].IDs}, {Name: "dense", Weight: 1, IDs: lists[1].IDs}}
	if rrf := RRF(eq, 60); rrf[0].ID != "a" || rrf[1].ID != "b" {
		t.Errorf("RRF: %v", rrf)
	}
	// A dense stream that is sure (one score far above the rest) keeps its
	// top hit first against a lexical stream that is not.
	sure := Convex([]List{
		{Name: "lex", Weight: 0.5, IDs: []string{"x", "y", "z"}, Scores: []float64{5.0, 4.9, 1}},
		{Name: "dense", Weight: 0.5, IDs: []string{"y", "x", "z"}, Scores: []float64{0.9, 0.5, 0.45}},
	})
	if sure[0].ID != "y" {
		t.Errorf("confident dense top hit: %v", sure)
	}
	if r := RRF([]List{
		{Name: "lex", Weight: 1, IDs: []string{"x", "y", "z"}},
		{Name: "dense", Weight: 1, IDs: []string{"y", "x", "z"}},
	}, 60); r[0].ID != "x" {
		t.Errorf("RRF tie goes to the first list: %v", r)
	}
}

func TestConvexEdges(t *testing.T) {
	// Equal scores count full weight; zero weight drops a list; an empty
	// list is fine.
	got := Convex([]List{
		{Name: "flat", Weight: 1, IDs: []string{"p", "q"}, Scores: []float64{3, 3}},
		{Name: "off", Weight: 0, IDs: []string{"z"}, Scores: []float64{1}},
		{Name: "none", Weight: 1},
	})
	if len(got) != 2 || got[0].ID != "p" || got[0].Score != 1 || got[1].Score != 1 {
		t.Errorf("flat list: %+v", got)
	}
	defer func() {
		if recover() == nil {
			t.Error("a list without scores did not panic")
		}
	}()
	Convex([]List{{Name: "bad", Weight: 1, IDs: []string{"a"}}})
}

// TestGrouped: a group is listed once, at its best member's rank and
// score, and fusing grouped lists puts a group whose members each lead
// one stream above a unit that is second in both.
func TestGrouped(t *testing.T) {
	key := func(id string) string {
		if i := strings.IndexByte(id, '/'); i >= 0 {
			return id[:i]
		}
		return id
	}
	lex := List{Name: "lex", Weight: 1, IDs: []string{"a/1", "s", "b", "a/2"}, Scores: []float64{9, 8, 7, 6}}
	g := Grouped(lex, key)
	if want := []string{"a", "s", "b"}; !reflect.DeepEqual(g.IDs, want) || !reflect.DeepEqual(g.Scores, []float64{9, 8, 7}) {
		t.Errorf("Grouped: %v %v", g.IDs, g.Scores)
	}
	if lex.IDs[0] != "a/1" || len(lex.IDs) != 4 {
		t.Errorf("Grouped changed its input: %v", lex.IDs)
	}
	dense := List{Name: "dense", Weight: 1, IDs: []string{"a/2", "s", "b"}}
	if units := RRF([]List{lex, dense}, 60); units[0].ID != "s" {
		t.Fatalf("units: %v first, want s (the test's premise)", units[0].ID)
	}
	groups := RRF([]List{Grouped(lex, key), Grouped(dense, key)}, 60)
	if groups[0].ID != "a" || groups[0].Ranks["lex"] != 1 || groups[0].Ranks["dense"] != 1 {
		t.Errorf("groups: %+v first, want a ranked 1 in both", groups[0])
	}
	if d := Grouped(dense, key); d.Scores != nil {
		t.Errorf("a list without scores got %v", d.Scores)
	}
}

// TestFirstInEveryListIsFirst: an ID that every list of positive weight
// ranks first is fused first, by RRF with any k and weights and by
// Convex with any scores (flat lists, ties and a zero-weight list that
// ranks another ID first included). The search's reordering rules may
// move it later (search/README.md, "An ID every stream ranks first").
func TestFirstInEveryListIsFirst(t *testing.T) {
	rng := rand.New(rand.NewSource(17))
	pool := []string{"a", "b", "c", "d", "e", "f", "g"}
	for trial := 0; trial < 500; trial++ {
		top := pool[rng.Intn(len(pool))]
		var lists []List
		for n := 1 + rng.Intn(4); len(lists) < n; {
			ids := []string{top}
			for _, i := range rng.Perm(len(pool))[:1+rng.Intn(len(pool)-1)] {
				if pool[i] != top {
					ids = append(ids, pool[i])
				}
			}
			scores := make([]float64, len(ids))
			s := rng.Float64() * 10
			for i := range scores {
				scores[i] = s
				if rng.Intn(3) > 0 { // some ties, and some flat lists
					s -= rng.Float64()
				}
			}
			lists = append(lists, List{Name: fmt.Sprint("l", len(lists)), Weight: 0.1 + 2*rng.Float64(), IDs: ids, Scores: scores})
		}
		lists = append(lists, List{Name: "off", Weight: 0, IDs: []string{"z", top}, Scores: []float64{2, 1}})
		for name, got := range map[string][]Scored{
			"rrf k=60": RRF(lists, 60), "rrf k=1": RRF(lists, 1), "convex": Convex(lists),
		} {
			if got[0].ID != top {
				t.Fatalf("trial %d, %s: %s first, want %s (every list's first): %+v from %+v", trial, name, got[0].ID, top, got, lists)
			}
		}
	}
}
