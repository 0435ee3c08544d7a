package repair

import (
	"context"
	"slices"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/engine"
	"github.com/repilot-lsp/repilot-lsp/lm"
)

// excludeModel: "a" (0.6) or "b" (0.4); after "a" the end (0.7) or "x"
// (0.3), then the end.
var excludeModel = table(map[string][]tok{
	"":   {{"a", 0.6, false}, {"b", 0.4, false}},
	"a":  {{"", 0.7, true}, {"x", 0.3, false}},
	"ax": {{"", 1, true}},
	"b":  {{"", 1, true}},
})

func newExcludeSampler(t *testing.T, temperature float64) *GuidedSampler {
	t.Helper()
	ms, err := (&fakeModel{next: excludeModel}).Start(context.Background(), lm.FIM{})
	if err != nil {
		t.Fatal(err)
	}
	es, err := (&fakeEngine{}).Open(context.Background(), engine.Hunk{})
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Samples: 1, TopK: 20, TopP: 0.95, MaxTokens: 16, Temperature: temperature, Prune: true, Memo: true}
	return NewGuidedSampler(ms, es, opts, "key")
}

// sampleAll runs samples 0.. until one ends without a text (at most n),
// excluding each text: the texts in order.
func sampleAll(t *testing.T, g *GuidedSampler, n int) []string {
	t.Helper()
	var out []string
	for i := range n {
		text, complete, err := g.Sample(context.Background(), i)
		if err != nil {
			t.Fatal(err)
		}
		if !complete {
			break
		}
		out = append(out, text)
		g.Exclude(text)
	}
	return out
}

// TestExcludeGreedy: greedy samples with each text excluded after it come
// in the order of the texts' probabilities (a 0.42, b 0.4, ax 0.18): the
// mass of "a" left after its end is tried (0.18) is below b's, an excluded
// text's extensions stay open, and once every text is tried the next
// sample dies.
func TestExcludeGreedy(t *testing.T) {
	got := sampleAll(t, newExcludeSampler(t, 0), 10)
	if want := []string{"a", "b", "ax"}; !slices.Equal(got, want) {
		t.Fatalf("greedy texts %q, want %q", got, want)
	}
}

// TestExcludeAtTemperature: at temperature every text comes once, none
// twice, the same ones in the same order for the same seed; the first
// sample is the one a sampler without exclusions draws.
func TestExcludeAtTemperature(t *testing.T) {
	g := newExcludeSampler(t, 0.8)
	first, _, err := newExcludeSampler(t, 0.8).Sample(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	got := sampleAll(t, g, 10)
	if len(got) != 3 || got[0] != first {
		t.Fatalf("texts %q, want three, the first %q", got, first)
	}
	if s := slices.Sorted(slices.Values(got)); !slices.Equal(s, []string{"a", "ax", "b"}) {
		t.Fatalf("texts %q, want a, ax and b once each", got)
	}
	if again := sampleAll(t, newExcludeSampler(t, 0.8), 10); !slices.Equal(again, got) {
		t.Fatalf("same seed: %q, then %q", got, again)
	}
}

// TestRejectPrunesPrefix: a prefix given to Reject is never the start of a
// later sample: after the greedy "a" is excluded and "a" rejected as a
// prefix, "ax" (a's extension, otherwise drawn third) never comes; "b"
// does. An empty prefix rejects nothing.
func TestRejectPrunesPrefix(t *testing.T) {
	g := newExcludeSampler(t, 0)
	g.Reject("")
	text, complete, err := g.Sample(context.Background(), 0)
	if err != nil || !complete || text != "a" {
		t.Fatalf("first sample %q %v %v, want a", text, complete, err)
	}
	g.Exclude(text)
	g.Reject("a")
	if got := sampleAll(t, g, 10); !slices.Equal(got, []string{"b"}) {
		t.Fatalf("texts after rejecting the prefix a: %q, want only b", got)
	}
}
