package lexical

// assoc_test.go checks the doc-mined association model: what it learns,
// that excluding a unit equals never having seen it (leave-one-out), and
// that it reaches a BM25 query.

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/search/tokenize"
	"github.com/repilot-lsp/repilot-lsp/search/units"
)

// assocCorpus: docs say "remove", names say "discard"/"pop"; docs say
// "specified" (boilerplate) and the code never does.
func assocCorpus() []units.Unit {
	var us []units.Unit
	for i := 0; i < 4; i++ {
		us = append(us, units.Unit{ID: fmt.Sprintf("d%d", i), Name: fmt.Sprintf("discardItem%d", i),
			Doc: "Remove the specified item from the set.", Code: fmt.Sprintf("items.drop(x%d)", i)})
	}
	us = append(us,
		units.Unit{ID: "p0", Name: "popLast", Doc: "Remove the last element.", Code: "return stack.pop()"},
		units.Unit{ID: "p1", Name: "popFirst", Doc: "Remove the first element.", Code: "return queue.pop()"},
		units.Unit{ID: "s0", Name: "sortKeys", Doc: "Sort the keys in place.", Code: "keys.sort()"},
		units.Unit{ID: "s1", Name: "sortValues", Doc: "Sort the values as specified.", Code: "values.sort()"},
		units.Unit{ID: "n", Name: "undocumented", Code: "pass"},
	)
	for i, name := range []string{"checksum", "encodeBase64", "openSocket", "renderPage", "hashBytes", "quoteString", "splitLines", "joinPaths"} {
		us = append(us, units.Unit{ID: fmt.Sprintf("f%d", i), Name: name, Doc: fmt.Sprintf("Compute thing number %d.", i), Code: name + "()"})
	}
	return us
}

func term(t *testing.T, w string) string {
	t.Helper()
	p, ok := tokenize.Default.Part(w)
	if !ok {
		t.Fatalf("%q is not a term", w)
	}
	return p
}

func TestAssocExpand(t *testing.T) {
	a := NewAssoc(tokenize.Default)
	a.Upsert(assocCorpus())
	if a.Len() != 16 {
		t.Fatalf("Len = %d, want the 16 documented units", a.Len())
	}
	got := a.Expand([]string{term(t, "remove")}, nil)
	if got[term(t, "discard")] <= 0 || got[term(t, "pop")] <= 0 {
		t.Errorf("remove -> %v, want discard and pop", got)
	}
	if got[term(t, "discard")] <= got[term(t, "pop")] {
		t.Errorf("remove -> %v: discard (4 units) should outweigh pop (2)", got)
	}
	if _, ok := got[term(t, "sort")]; ok {
		t.Errorf("remove -> %v: sort never co-occurs with remove", got)
	}
	sum := 0.0
	for _, w := range got {
		sum += w
	}
	if sum > a.Weight+1e-9 {
		t.Errorf("expansions of one word weigh %v > Weight %v", sum, a.Weight)
	}
	if got := a.Expand([]string{term(t, "remove"), term(t, "pop")}, nil); got[term(t, "pop")] != 0 {
		t.Errorf("a query term is not its own expansion: %v", got)
	}
	a.Weight = 0
	if got := a.Expand([]string{term(t, "remove")}, nil); got != nil {
		t.Errorf("Weight 0: %v", got)
	}
}

// TestAssocLeaveOneOut: excluding a unit at query time gives exactly what a
// model that never saw the unit gives, for expansion and reweighting.
func TestAssocLeaveOneOut(t *testing.T) {
	all := assocCorpus()
	full := NewAssoc(tokenize.Default)
	full.Upsert(all)
	queries := [][]string{{term(t, "remove")}, {term(t, "remove"), term(t, "element")},
		{term(t, "sort"), term(t, "specified")}, {term(t, "item")}}
	for _, u := range all {
		var rest []units.Unit
		for _, v := range all {
			if v.ID != u.ID {
				rest = append(rest, v)
			}
		}
		without := NewAssoc(tokenize.Default)
		without.Upsert(rest)
		for _, q := range queries {
			if got, want := full.Expand(q, []string{u.ID}), without.Expand(q, nil); !reflect.DeepEqual(got, want) {
				t.Errorf("Expand(%v) excluding %s = %v, a model without it gives %v", q, u.ID, got, want)
			}
			if got, want := full.Reweight(q, []string{u.ID}), without.Reweight(q, nil); !reflect.DeepEqual(got, want) {
				t.Errorf("Reweight(%v) excluding %s = %v, a model without it gives %v", q, u.ID, got, want)
			}
		}
	}
	// Delete is the same as never adding.
	full.Delete([]string{"p0"})
	var rest []units.Unit
	for _, v := range all {
		if v.ID != "p0" {
			rest = append(rest, v)
		}
	}
	without := NewAssoc(tokenize.Default)
	without.Upsert(rest)
	if got, want := full.Expand(queries[1], nil), without.Expand(queries[1], nil); !reflect.DeepEqual(got, want) {
		t.Errorf("after Delete: %v, want %v", got, want)
	}
}

func TestAssocReweight(t *testing.T) {
	a := NewAssoc(tokenize.Default)
	a.SelfExp = 1
	a.Upsert(assocCorpus())
	w := a.Reweight([]string{term(t, "specified"), term(t, "sort"), term(t, "unseen")}, nil)
	if w[term(t, "specified")] >= 1 {
		t.Errorf("specified (in docs, never in code) -> %v, want < 1", w[term(t, "specified")])
	}
	if w[term(t, "sort")] <= 1 {
		t.Errorf("sort (in docs and in the code they document) -> %v, want > 1", w[term(t, "sort")])
	}
	if _, ok := w[term(t, "unseen")]; ok {
		t.Errorf("a word no doc has keeps its weight (absent from the map): %v", w)
	}
	for k, v := range w {
		if v < a.SelfMin || v > a.SelfMax {
			t.Errorf("%s -> %v outside [%v, %v]", k, v, a.SelfMin, a.SelfMax)
		}
	}
}

// TestBM25Assoc: the expansion reaches an undocumented unit whose name only
// the docs connect to the query's word, and excluding the documented units
// that taught it takes it away again.
func TestBM25Assoc(t *testing.T) {
	x := NewBM25(tokenize.Default, DefaultWeights)
	a := NewAssoc(tokenize.Default)
	x.Assoc = a
	us := assocCorpus()
	target := units.Unit{ID: "t", Name: "discardAll", Code: "for x in xs: items.drop(x)"}
	docless := make([]units.Unit, 0, len(us)+1)
	for _, u := range us {
		docless = append(docless, u.WithoutDoc())
	}
	x.Upsert(append(docless, target))
	a.Upsert(us)
	ctx := context.Background()
	hs, err := x.Search(ctx, "remove everything", 3)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, h := range hs {
		found = found || h.ID == "t" || h.ID[0] == 'd'
	}
	if !found {
		t.Errorf("remove everything -> %v, want a discard unit via the docs' association", ids(hs))
	}
	hs, _ = x.SearchExcluding(ctx, "remove everything", 3, []string{"d0", "d1", "d2", "d3", "p0", "p1"})
	if len(hs) != 0 {
		t.Errorf("with every remove-doc excluded nothing can match: %v", ids(hs))
	}
}
