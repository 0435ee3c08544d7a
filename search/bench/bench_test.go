package bench

import (
	"math"
	"strings"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/search"
	"github.com/repilot-lsp/repilot-lsp/search/units"
)

func fn(id, lang, name, doc string, kind units.Kind) units.Unit {
	return units.Unit{ID: id, Path: "p/" + id, Lang: lang, Name: name, Doc: doc, Kind: kind, Code: "a\nb\nc"}
}

func TestSelectFilters(t *testing.T) {
	us := []units.Unit{
		fn("keep", "java", "parse", "Parses the input text. More.", units.Method),
		fn("short-doc", "java", "f", "Does it.", units.Method),
		fn("no-doc", "java", "g", "", units.Method),
		fn("class", "java", "C", "A class that does things.", units.Class),
		fn("ctor", "java", "C", "Creates a new thing here.", units.Constructor),
		fn("ext", "java", "toString", "Returns a string form.", units.Method),
		fn("dunder", "python", "__repr__", "Return the repr string.", units.Method),
		fn("test", "python", "test_parse", "Check that parsing works.", units.Function),
		fn("dup1", "java", "size", "Returns the number of elements.", units.Method),
		fn("dup2", "java", "size", "Returns the number of elements.", units.Method),
		fn("go", "go", "Load", "Load reads the config file.", units.Function),
	}
	short := fn("short-code", "java", "h", "Computes the total sum.", units.Method)
	short.Code = "int h() { return 1; }"
	us = append(us, short)
	inTests := fn("in-tests", "java", "k", "Handles the special case.", units.Method)
	inTests.Path = "src/test/java/K.java"
	us = append(us, inTests)

	items, eligible := Select(us, 0)
	got := map[string]string{}
	for _, it := range items {
		got[it.Target.ID] = it.Query
	}
	want := map[string]string{"keep": "Parses the input text.", "go": "reads the config file."}
	if len(got) != len(want) || got["keep"] != want["keep"] || got["go"] != want["go"] {
		t.Errorf("selected %v, want %v", got, want)
	}
	if eligible != 4 { // keep, dup1, dup2, go
		t.Errorf("eligible = %d, want 4", eligible)
	}
	// Sampling is deterministic and a prefix of the full order.
	one, _ := Select(us, 1)
	if len(one) != 1 || one[0].Target.ID != items[0].Target.ID {
		t.Errorf("sample %v of %v", one, items)
	}
}

func TestScore(t *testing.T) {
	rs := []QueryResult{
		{Ranks: map[string]int{"lexical": 1, "fused": 2}},
		{Ranks: map[string]int{"lexical": 7, "fused": 0}},
		{Ranks: map[string]int{"lexical": 0}},
	}
	ss := Score(rs)
	if len(ss) != 2 || ss[0].Stream != "lexical" || ss[1].Stream != "fused" {
		t.Fatalf("%+v", ss)
	}
	l, f := ss[0], ss[1]
	if l.Queries != 3 || math.Abs(l.Success1-1.0/3) > 1e-9 || math.Abs(l.Success-2.0/3) > 1e-9 ||
		math.Abs(l.MRR-(1+1.0/7)/3) > 1e-9 || math.Abs(l.Success5-1.0/3) > 1e-9 {
		t.Errorf("lexical %+v", l)
	}
	if f.Queries != 2 || f.Success1 != 0 || f.Success != 0.5 || f.MRR != 0.25 {
		t.Errorf("fused %+v", f)
	}
}

// TestWriteTextSaysWhenOneStreamRan: with only the lexical stream, the
// fused row is the lexical list in search's result order, and the table
// says so; with a second stream it does not.
func TestWriteTextSaysWhenOneStreamRan(t *testing.T) {
	rep := &Report{Streams: []StreamScore{{Stream: search.StreamLexical, Queries: 3}, {Stream: search.StreamFused, Queries: 3}}}
	var b strings.Builder
	rep.WriteText(&b)
	if !strings.Contains(b.String(), "one stream ran: fused differs from lexical only by the result order") {
		t.Errorf("no note for a lone lexical stream:\n%s", b.String())
	}
	rep.Streams = append(rep.Streams, StreamScore{Stream: search.StreamDense, Queries: 3})
	b.Reset()
	rep.WriteText(&b)
	if strings.Contains(b.String(), "one stream ran") {
		t.Errorf("note with two streams:\n%s", b.String())
	}
}
