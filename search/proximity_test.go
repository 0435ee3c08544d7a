package search

import (
	"fmt"
	"strings"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/search/lexical"
	"github.com/repilot-lsp/repilot-lsp/search/tokenize"
	"github.com/repilot-lsp/repilot-lsp/search/units"
)

func TestQueryPairs(t *testing.T) {
	an := tokenize.Default
	got := queryPairs(an, "print the stack trace of a throwable")
	var s []string
	for _, p := range got {
		s = append(s, p[0][0]+"+"+p[1][0])
	}
	want := "print+stack stack+trace trace+throwabl"
	if strings.Join(s, " ") != want {
		t.Errorf("pairs = %v, want %s", s, want)
	}
	if p := queryPairs(an, "trace"); len(p) != 0 {
		t.Errorf("one word: pairs %v, want none", p)
	}
	// Two words with a term in common make no pair ("list lists").
	if p := queryPairs(an, "lists list"); len(p) != 0 {
		t.Errorf("same stem: pairs %v, want none", p)
	}
}

func TestPhraseShare(t *testing.T) {
	an := tokenize.Default
	pairs := queryPairs(an, "stack trace as a string")
	for _, c := range []struct {
		text string
		want float64
	}{
		{"getStackTraceAsString", 1},                                // parts of one identifier
		{"Gets the stack trace from a Throwable as a String.", 0.5}, // stack trace; not trace ... string
		{"The trace of the stack, and a string.", 0.5},              // either order; stop words do not count
		{"stack frames; trace lines; long string", 0},
		{"", 0},
	} {
		got := phraseShare(an, pairs, c.text)
		if got != c.want {
			t.Errorf("phraseShare(%q) = %v, want %v", c.text, got, c.want)
		}
	}
	if got := phraseShare(an, nil, "stack trace"); got != 0 {
		t.Errorf("no pairs: %v, want 0", got)
	}
}

func TestProximityBoost(t *testing.T) {
	an := tokenize.Default
	us := map[string]units.Unit{
		"a": {ID: "a", Name: "printAll", Doc: "Prints the stack of frames, then the trace."},
		"b": {ID: "b", Name: "getStackTrace", Doc: "Gets the stack trace from a Throwable."},
		"c": {ID: "c", Name: "other", Doc: "stack trace"},
	}
	get := func(id string) (units.Unit, bool) { u, ok := us[id]; return u, ok }
	hs := []lexical.Hit{{ID: "a", Score: 2}, {ID: "b", Score: 1.9}, {ID: "gone", Score: 1.5}}
	got := proximityBoost(an, "the stack trace", hs, 0.2, get)
	if got[0].ID != "b" || got[1].ID != "a" || got[2].ID != "gone" {
		t.Errorf("order %v, want b, a, gone", got)
	}
	if got[0].Score != 1.9*1.2 || got[1].Score != 2 {
		t.Errorf("scores %v, want b 1.9×1.2, a unchanged", got)
	}
	if hs[0].ID != "a" || hs[1].Score != 1.9 {
		t.Errorf("the input was modified: %v", hs)
	}
	if off := proximityBoost(an, "the stack trace", hs, 0, get); off[0].ID != "a" || off[1].ID != "b" {
		t.Errorf("weight 0 reordered: %v", off)
	}

	// Only the first ProximityDepth hits are rescored.
	long := make([]lexical.Hit, ProximityDepth+1)
	for i := range long {
		long[i] = lexical.Hit{ID: "a", Score: float64(100 - i)}
	}
	long[ProximityDepth] = lexical.Hit{ID: "c", Score: 1}
	got = proximityBoost(an, "stack trace", long, 0.2, get)
	if last := got[ProximityDepth]; last.ID != "c" || last.Score != 1 {
		t.Errorf("hit past the depth: %v, want c with score 1", last)
	}
}

// BenchmarkProximityBoost rescores 30 hits whose docs are about 2 KB, a
// long javadoc's size.
func BenchmarkProximityBoost(b *testing.B) {
	an := tokenize.Default
	us := map[string]units.Unit{}
	var hs []lexical.Hit
	for i := range ProximityDepth {
		id := fmt.Sprint("u", i)
		doc := strings.Repeat(fmt.Sprintf("Returns the element at the specified position %d in this list, or throws. ", i), 25)
		us[id] = units.Unit{ID: id, Name: fmt.Sprint("getElement", i), Signature: "public E get(int index)", Doc: doc}
		hs = append(hs, lexical.Hit{ID: id, Score: float64(100 - i)})
	}
	get := func(id string) (units.Unit, bool) { u, ok := us[id]; return u, ok }
	b.ResetTimer()
	for range b.N {
		proximityBoost(an, "get the element at a position of a list", hs, 0.2, get)
	}
}
