package lexical

import (
	"bytes"
	"context"
	"math"
	"reflect"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/search/tokenize"
	"github.com/repilot-lsp/repilot-lsp/search/units"
)

func corpus() []units.Unit {
	return []units.Unit{
		{ID: "a", Name: "readConfigFile", Code: "def readConfigFile(path): return open(path).read()"},
		{ID: "b", Name: "writeLog", Doc: "Write a message to the log file.", Code: "log.append(msg)"},
		{ID: "c", Name: "parse_http_header", Code: "def parse_http_header(line): key, value = line.split(':')"},
		{ID: "d", Name: "sum", Code: "return a + b"},
	}
}

func backends(t *testing.T) []Index {
	return []Index{NewBM25(tokenize.Default, DefaultWeights)}
}

func ids(hs []Hit) []string {
	var out []string
	for _, h := range hs {
		out = append(out, h.ID)
	}
	return out
}

func TestBackends(t *testing.T) {
	ctx := context.Background()
	cases := []struct{ query, first string }{
		{"read the configuration file", "a"},
		{"parse an HTTP header line", "c"},
		{"logging messages", "b"},
		{"readConfigFile", "a"},
	}
	for _, x := range backends(t) {
		if err := x.Upsert(corpus()); err != nil {
			t.Fatal(err)
		}
		if x.Len() != 4 {
			t.Errorf("%s: Len = %d", x.Name(), x.Len())
		}
		for _, c := range cases {
			hs, err := x.Search(ctx, c.query, 3)
			if err != nil {
				t.Fatal(err)
			}
			if len(hs) == 0 || hs[0].ID != c.first {
				t.Errorf("%s: %q -> %v, want %s first", x.Name(), c.query, ids(hs), c.first)
			}
			for i := 1; i < len(hs); i++ {
				if hs[i].Score > hs[i-1].Score {
					t.Errorf("%s: %q not sorted: %v", x.Name(), c.query, hs)
				}
			}
		}
		if hs, _ := x.Search(ctx, "the of a", 3); len(hs) != 0 {
			t.Errorf("%s: stop words only -> %v", x.Name(), hs)
		}
		// Replace "a" so that it no longer matches; delete "c".
		if err := x.Upsert([]units.Unit{{ID: "a", Name: "nothing", Code: "pass"}}); err != nil {
			t.Fatal(err)
		}
		if err := x.Delete([]string{"c", "missing"}); err != nil {
			t.Fatal(err)
		}
		if x.Len() != 3 {
			t.Errorf("%s: Len after update = %d", x.Name(), x.Len())
		}
		for _, q := range []string{"configuration file read", "http header"} {
			hs, _ := x.Search(ctx, q, 3)
			for _, h := range hs {
				if h.ID == "a" && q[0] == 'c' || h.ID == "c" {
					t.Errorf("%s: %q still finds %s: %v", x.Name(), q, h.ID, hs)
				}
			}
		}
	}
}

// TestBM25Okapi checks the score against the formula computed by hand.
func TestBM25Okapi(t *testing.T) {
	w := Weights{FieldCode: 1}
	x := NewBM25(tokenize.Analyzer{}, w)
	x.Upsert([]units.Unit{
		{ID: "1", Code: "apple apple banana"},
		{ID: "2", Code: "banana cherry"},
		{ID: "3", Code: "cherry cherry cherry date"},
	})
	hs, _ := x.Search(context.Background(), "apple", 5)
	n, df, tf, dl, avgdl := 3.0, 1.0, 2.0, 3.0, 9.0/3
	idf := math.Log(1 + (n-df+0.5)/(df+0.5))
	want := idf * tf * (BM25K1 + 1) / (tf + BM25K1*(1-BM25B+BM25B*dl/avgdl))
	if len(hs) != 1 || hs[0].ID != "1" || math.Abs(hs[0].Score-want) > 1e-5 {
		t.Errorf("got %v, want [1 %f]", hs, want)
	}
}

func TestBM25Compaction(t *testing.T) {
	x := NewBM25(tokenize.Default, DefaultWeights)
	var us []units.Unit
	for i := 0; i < 3000; i++ {
		us = append(us, units.Unit{ID: string(rune('A'+i%26)) + string(rune(i)), Name: "alpha", Code: "beta"})
	}
	x.Upsert(us)
	var del []string
	for _, u := range us[:2000] {
		del = append(del, u.ID)
	}
	x.Delete(del)
	if x.Len() != 1000 || len(x.docs) != 1000 {
		t.Fatalf("Len %d, docs %d: want 1000 after compaction", x.Len(), len(x.docs))
	}
	hs, _ := x.Search(context.Background(), "alpha", 2000)
	if len(hs) != 1000 || hs[0].ID != us[2000].ID {
		t.Errorf("after compaction: %d hits, first %v", len(hs), hs[:1])
	}
}

// TestNameBoostMembers: a constructor gets no name boost (its name is its
// class's) and carries its class name once in the name field; a query that
// names the class favours that class's member over a same-named member of
// another class (ContainerCover); an abbreviated name word ("min") counts
// as covered by the word it stands for ("minimum").
func TestNameBoostMembers(t *testing.T) {
	ctx := context.Background()
	us := []units.Unit{
		{ID: "ctor", Kind: units.Constructor, Name: "BigInteger", Container: "BigInteger", Code: "BigInteger(String val) { this.mag = parse(val); }"},
		{ID: "min", Kind: units.Method, Name: "min", Container: "BigInteger", Code: "BigInteger min(BigInteger val) { return compareTo(val) < 0 ? this : val; }"},
		{ID: "dmin", Kind: units.Method, Name: "min", Container: "BigDecimal", Code: "BigDecimal min(BigDecimal val) { return compareTo(val) <= 0 ? this : val; }"},
	}
	x := NewBM25(tokenize.Default, DefaultWeights)
	if err := x.Upsert(us); err != nil {
		t.Fatal(err)
	}
	if f := fields(&us[0]); f[FieldName] != "BigInteger" {
		t.Errorf("constructor name field %q, want the class name once", f[FieldName])
	}
	hs, err := x.Search(ctx, "Returns the minimum of this BigInteger and val.", 3)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(hs); len(got) != 3 || got[0] != "min" || got[1] != "dmin" {
		t.Errorf("ranking %v, want min, dmin, ctor", got)
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	words := x.queryWords("the minimum of this BigInteger")
	terms := map[string]bool{}
	x.an.Each("the minimum of this BigInteger", func(t string, _ int) { terms[t] = true })
	x.segMu.Lock()
	defer x.segMu.Unlock()
	if c := x.nameCoverage(&x.docs[x.byID["ctor"]], words, terms, nil, nil); c != 0 {
		t.Errorf("constructor coverage %v, want 0 (no name boost)", c)
	}
	if c := x.nameCoverage(&x.docs[x.byID["min"]], words, terms, nil, nil); c != 1 {
		t.Errorf("BigInteger.min coverage %v, want 1 (min = minimum, container covered)", c)
	}
	c := DefaultContainerCover
	want := (1 + c) / (1 + 2*c) // "min" and "big" covered, "decimal" not
	if c := x.nameCoverage(&x.docs[x.byID["dmin"]], words, terms, nil, map[string]float64{}); math.Abs(c-want) > 1e-9 {
		t.Errorf("BigDecimal.min coverage %v, want %v", c, want)
	}
}

// TestBM25NameB checks BM25F with the name field normalised by its own
// length (BM25.NameB): a long body no longer dilutes a name match, and the
// score is the per-field formula of Robertson and Zaragoza (2009, eq. 3.19).
func TestBM25NameB(t *testing.T) {
	us := []units.Unit{
		{ID: "1", Name: "apple", Code: "kiwi"},
		{ID: "2", Name: "apple", Code: "kiwi kiwi kiwi kiwi kiwi kiwi kiwi kiwi"},
		{ID: "3", Name: "banana cherry", Code: "kiwi"},
	}
	w := Weights{FieldName: 1, FieldCode: 1}
	x := NewBM25(tokenize.Analyzer{}, w)
	x.NameBoost = 0
	x.Upsert(us)
	hs, _ := x.Search(context.Background(), "apple", 5)
	n, df, tf, nl, avgnl := 3.0, 2.0, 1.0, 1.0, 4.0/3
	idf := math.Log(1 + (n-df+0.5)/(df+0.5))
	pt := tf / (1 - DefaultNameB + DefaultNameB*nl/avgnl)
	want := idf * (BM25K1 + 1) * pt / (pt + BM25K1)
	if len(hs) != 2 || math.Abs(hs[0].Score-want) > 1e-5 || math.Abs(hs[1].Score-want) > 1e-5 {
		t.Errorf("NameB %v: got %v, want both %f", DefaultNameB, hs, want)
	}
	old := NewBM25(tokenize.Analyzer{}, w)
	old.NameBoost, old.NameB = 0, -1 // the name in the unit's length normalisation
	old.Upsert(us)
	hs, _ = old.Search(context.Background(), "apple", 5)
	if len(hs) != 2 || hs[0].ID != "1" || !(hs[0].Score > hs[1].Score) {
		t.Errorf("NameB -1: got %v, want 1 above 2 (the longer body dilutes)", hs)
	}
}

// TestMatch: Hit.Match is the idf-weighted share of the query's terms the
// unit holds, so a query word that no unit has lowers every unit's match;
// a unit found through a synonym only (Synonyms) holds none of them.
func TestMatch(t *testing.T) {
	ctx := context.Background()
	syn := NewBM25(tokenize.Default, DefaultWeights)
	syn.Upsert(corpus())
	hs, _ := syn.Search(ctx, "read config file", 4)
	found := false
	for _, h := range hs {
		if h.ID == "c" { // parse_http_header: "parse" is a synonym of "read"
			found = true
			if h.Match != 0 {
				t.Errorf("synonym-only hit %+v, want match 0", h)
			}
		}
	}
	if !found {
		t.Errorf("read config file -> %+v, want c through the synonym parse", hs)
	}
	x := NewBM25(tokenize.Default, DefaultWeights)
	x.Synonyms = 0
	x.Upsert(corpus())
	hs, _ = x.Search(ctx, "read config file", 4)
	if len(hs) == 0 || hs[0].ID != "a" || math.Abs(hs[0].Match-1) > 1e-6 {
		t.Fatalf("read config file -> %+v, want a with match 1", hs)
	}
	for _, h := range hs[1:] {
		if h.Match <= 0 || h.Match >= 1 {
			t.Errorf("partial match %+v, want in (0, 1)", h)
		}
	}
	hs, _ = x.Search(ctx, "read config file zebra", 4)
	if len(hs) == 0 || hs[0].ID != "a" || hs[0].Match <= 0.3 || hs[0].Match >= 0.75 {
		t.Errorf("with a word no unit has: %+v, want a with match in (0.3, 0.75)", hs)
	}
}

// TestStateRoundTrip: an index and a doc-mined model read back from their
// saved state answer exactly as the originals.
func TestStateRoundTrip(t *testing.T) {
	us := corpus()
	us = append(us, units.Unit{ID: "e", Name: "resetbuffer", Doc: "Clear the buffer.", Code: "buf.clear()"},
		units.Unit{ID: "f", Name: "flushBuffer", Doc: "Write the buffer out.", Code: "out.write(buf)"})
	a := NewAssoc(tokenize.Default)
	a.Upsert(us)
	x := NewBM25(tokenize.Default, DefaultWeights)
	x.Assoc = a
	x.Upsert(us)
	x.Delete([]string{"d"})
	var bx, ba bytes.Buffer
	if err := x.WriteState(&bx); err != nil {
		t.Fatal(err)
	}
	if err := a.WriteState(&ba); err != nil {
		t.Fatal(err)
	}
	data := bx.String() + ba.String() + "tail"
	y := NewBM25(tokenize.Default, DefaultWeights)
	rest, err := y.ReadState(data)
	if err != nil {
		t.Fatal(err)
	}
	a2 := NewAssoc(tokenize.Default)
	y.Assoc = a2
	if rest, err = a2.ReadState(rest); err != nil || rest != "tail" {
		t.Fatalf("assoc: %v, rest %q", err, rest)
	}
	if y.Len() != x.Len() || a2.Len() != a.Len() {
		t.Fatalf("Len %d/%d, assoc %d/%d", y.Len(), x.Len(), a2.Len(), a.Len())
	}
	ctx := context.Background()
	for _, q := range []string{"read the configuration file", "reset the buffer", "clear buffer", "write log message", "sum"} {
		h1, _ := x.Search(ctx, q, 5)
		h2, _ := y.Search(ctx, q, 5)
		if !reflect.DeepEqual(h1, h2) {
			t.Errorf("%q: %v, read back %v", q, h1, h2)
		}
	}
	// Deleting a unit read back (its term ids still encoded) keeps the
	// document frequencies exact: both indexes answer alike.
	x.Delete([]string{"a"})
	y.Delete([]string{"a"})
	for _, q := range []string{"read the configuration file", "clear buffer", "write log message"} {
		h1, _ := x.Search(ctx, q, 5)
		h2, _ := y.Search(ctx, q, 5)
		if !reflect.DeepEqual(h1, h2) {
			t.Errorf("after a delete, %q: %v, read back %v", q, h1, h2)
		}
	}
	// The copy keeps working: an update after the read.
	y.Upsert([]units.Unit{{ID: "g", Name: "resetCounter", Code: "n = 0"}})
	if hs, _ := y.Search(ctx, "reset counter", 1); len(hs) != 1 || hs[0].ID != "g" {
		t.Errorf("after an upsert: %v", hs)
	}
	// A partly decoded index (some terms' postings decoded by the queries
	// above, others still encoded) writes and reads back the same.
	var by bytes.Buffer
	if err := y.WriteState(&by); err != nil {
		t.Fatal(err)
	}
	z := NewBM25(tokenize.Default, DefaultWeights)
	z.Assoc = a2
	if _, err := z.ReadState(by.String()); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"read the configuration file", "reset counter", "clear buffer", "write log message", "sum"} {
		h1, _ := y.Search(ctx, q, 5)
		h2, _ := z.Search(ctx, q, 5)
		if !reflect.DeepEqual(h1, h2) {
			t.Errorf("second round trip, %q: %v, read back %v", q, h1, h2)
		}
	}
	// The model keeps working too: a unit added after the read expands
	// queries as it would have before.
	a2.Upsert([]units.Unit{{ID: "h", Name: "zapCache", Doc: "Clear the cache.", Code: "c.zap()"}})
	a.Upsert([]units.Unit{{ID: "h", Name: "zapCache", Doc: "Clear the cache.", Code: "c.zap()"}})
	if e1, e2 := a.Expand([]string{"clear"}, nil), a2.Expand([]string{"clear"}, nil); !reflect.DeepEqual(e1, e2) {
		t.Errorf("expansion after an upsert: %v, read back %v", e1, e2)
	}
	// A partly decoded model writes and reads back the same.
	var bb bytes.Buffer
	if err := a2.WriteState(&bb); err != nil {
		t.Fatal(err)
	}
	a3 := NewAssoc(tokenize.Default)
	if _, err := a3.ReadState(bb.String()); err != nil {
		t.Fatal(err)
	}
	for _, w := range [][]string{{"clear"}, {"buffer"}, {"read", "file"}} {
		if e1, e3 := a.Expand(w, []string{"e"}), a3.Expand(w, []string{"e"}); !reflect.DeepEqual(e1, e3) {
			t.Errorf("%v after a second round trip: %v, want %v", w, e3, e1)
		}
		if r1, r3 := a.Reweight(w, []string{"e"}), a3.Reweight(w, []string{"e"}); !reflect.DeepEqual(r1, r3) {
			t.Errorf("%v reweighted after a second round trip: %v, want %v", w, r3, r1)
		}
	}
	// Garbage and every truncation of a state are errors (not panics),
	// and leave the index as it was.
	if _, err := y.ReadState("not a state"); err == nil {
		t.Error("garbage was read as a state")
	}
	for n := 0; n < bx.Len(); n += 1 + n/50 {
		z := NewBM25(tokenize.Default, DefaultWeights)
		if _, err := z.ReadState(bx.String()[:n]); err == nil {
			t.Fatalf("a state cut at %d of %d bytes was read", n, bx.Len())
		}
		if z.Len() != 0 {
			t.Fatalf("a failed read changed the index")
		}
	}
	for n := 0; n < ba.Len(); n += 1 + n/50 {
		if _, err := NewAssoc(tokenize.Default).ReadState(ba.String()[:n]); err == nil {
			t.Fatalf("an assoc state cut at %d of %d bytes was read", n, ba.Len())
		}
	}
}

// TestSynonyms checks BM25.Synonyms and SynonymCover: "change" in a query
// reaches a setter's name (tokenize.Synonyms), which without them loses to
// a unit that repeats the query's other word.
func TestSynonyms(t *testing.T) {
	ctx := context.Background()
	us := []units.Unit{
		{ID: "setter", Name: "setLabel", Signature: "void setLabel(String s)", Code: "{ this.s = s; }"},
		{ID: "other", Name: "labelWidth", Signature: "int labelWidth()", Code: "{ return label.length() * label.width(); }"},
	}
	for _, c := range []struct {
		syn, cover float64
		first      string
	}{{0, 0, "other"}, {0.5, 0, "setter"}, {0.5, 1, "setter"}} {
		x := NewBM25(tokenize.Default, DefaultWeights)
		x.Synonyms, x.SynonymCover = c.syn, c.cover
		if err := x.Upsert(us); err != nil {
			t.Fatal(err)
		}
		hs, err := x.Search(ctx, "change the label", 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(hs) == 0 || hs[0].ID != c.first {
			t.Errorf("synonyms %g, cover %g: %v, want %s first", c.syn, c.cover, ids(hs), c.first)
		}
	}
}
