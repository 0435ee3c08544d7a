package fuse

import (
	"math"
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
