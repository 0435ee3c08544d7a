package search

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/internal/testtree"
	"github.com/repilot-lsp/repilot-lsp/search/fuse"
	"github.com/repilot-lsp/repilot-lsp/search/llm"
	"github.com/repilot-lsp/repilot-lsp/search/llm/llmtest"
	"github.com/repilot-lsp/repilot-lsp/search/units"
)

// project writes a small mixed Java/Python workspace.
func project(t *testing.T) string {
	t.Helper()
	files := map[string]string{
		"README.md": "# Shop\nAn online shop: carts, prices, invoices.\n",
		"src/main/java/shop/Cart.java": `package shop;
public class Cart {
    /** Adds an item to the cart. */
    public void addItem(Item item) { items.add(item); total += item.price(); }
    /** Computes the total price including tax. */
    public double totalWithTax(double rate) { return total * (1 + rate); }
}`,
		"src/main/java/shop/Invoice.java": `package shop;
public class Invoice {
    public String render(Cart cart) { return "Invoice: " + cart.totalWithTax(0.2); }
}`,
		"tools/report.py": `def write_csv_report(rows, path):
    """Write rows as CSV."""
    with open(path, "w") as f:
        for r in rows:
            f.write(",".join(r))
`,
	}
	return testtree.New(t, files)
}

func names(hs []Hit) []string {
	var out []string
	for _, h := range hs {
		out = append(out, h.Unit.QualifiedName())
	}
	return out
}

func TestOfflineLexical(t *testing.T) {
	root := project(t)
	e, err := New(Config{Root: root, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	if err := e.Build(ctx, nil); err != nil {
		t.Fatal(err)
	}
	res, err := e.Search(ctx, Query{Text: "total price with tax", K: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || res.Hits[0].Unit.QualifiedName() != "Cart.totalWithTax" {
		t.Fatalf("hits %v", names(res.Hits))
	}
	h := res.Hits[0]
	if h.Unit.Path != "src/main/java/shop/Cart.java" || h.Unit.Start.Line != 5 || h.Score <= 0 || h.Score > 1 || h.Ranks[StreamLexical] != 1 {
		t.Errorf("hit %+v", h)
	}
	if _, ok := res.Streams[StreamDense]; ok || len(res.Errors) != 0 || res.Augmented != "" {
		t.Errorf("offline search ran model streams: %+v", res)
	}
	// An edit is searchable at once; a removal disappears.
	if _, err := e.Index().Update(ctx, filepath.Join(root, "tools/report.py"),
		[]byte("def send_invoice_email(to):\n    smtp.send(to)\n")); err != nil {
		t.Fatal(err)
	}
	res, _ = e.Search(ctx, Query{Text: "send invoice by email"})
	if len(res.Hits) == 0 || res.Hits[0].Unit.Name != "send_invoice_email" {
		t.Errorf("after Update: %v", names(res.Hits))
	}
	e.Index().Remove(filepath.Join(root, "tools"))
	res, _ = e.Search(ctx, Query{Text: "send invoice by email"})
	for _, h := range res.Hits {
		if h.Unit.Path == "tools/report.py" {
			t.Errorf("removed file still found: %v", names(res.Hits))
		}
	}
}

// fakeModels answers like a cooperative model: augmentation names the
// invoice renderer, generation writes two functions, reranking reverses.
func fakeModels(t *testing.T) (*llmtest.Server, llm.Embedder, llm.Chat) {
	s := llmtest.New()
	t.Cleanup(s.Close)
	s.Chat = func(system, user string) string {
		switch {
		case strings.Contains(system, "Rewrite the search query"):
			return "Render an invoice for a cart as text: Invoice.render(Cart)."
		case strings.Contains(system, "fenced"):
			return "```java\nString renderInvoice(Cart cart) { return \"Invoice\"; }\nString formatTotal(double total) { return \"\" + total; }\n```"
		case strings.Contains(system, "JSON array"):
			n := strings.Count(user, "\n[")
			var b strings.Builder
			b.WriteString("[")
			for i := n; i >= 1; i-- {
				b.WriteString(" " + strconv.Itoa(i) + ",")
			}
			return strings.TrimSuffix(b.String(), ",") + "]"
		}
		return ""
	}
	emb, _ := llm.NewEmbedder(llm.Config{BaseURL: s.BaseURL(), Model: "bow"})
	chat, _ := llm.NewChat(llm.Config{BaseURL: s.BaseURL(), Model: "chat"})
	return s, emb, chat
}

func TestFullPipeline(t *testing.T) {
	root := project(t)
	s, emb, chat := fakeModels(t)
	cache := t.TempDir()
	tn := DefaultTuning()
	tn.RerankTopN = 3
	e, err := New(Config{Root: root, CacheDir: cache, Embedder: emb, Chat: chat, Tuning: &tn})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := e.Build(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := e.SyncEmbeddings(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if st := e.Status(); st.Units != 6 || st.Embedded != 6 || st.Pending != 0 {
		t.Errorf("status %+v", st)
	}
	res, err := e.Search(ctx, Query{Text: "make a bill for the basket", K: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{StreamLexical, StreamDense, StreamAugLexical, StreamAugDense, StreamGenDense,
		StreamGenParts, StreamGenLexical, StreamFused, StreamRerank} {
		if _, ok := res.Streams[name]; !ok {
			t.Errorf("stream %s missing (errors %v)", name, res.Errors)
		}
	}
	if len(res.Errors) != 0 {
		t.Errorf("errors: %v", res.Errors)
	}
	if !strings.Contains(res.Augmented, "Invoice.render") || !strings.Contains(res.Generated, "renderInvoice") {
		t.Errorf("augmented %q generated %q", res.Augmented, res.Generated)
	}
	// The augmentation prompt carried the README and related symbols.
	if u := s.ChatUsers[0]; !strings.Contains(u, "online shop") || !strings.Contains(u, "Packages:") {
		t.Errorf("augmentation prompt: %q", u)
	}
	// The reranker reversed the top 3 of the fused list.
	fused, re := res.Streams[StreamFused], res.Streams[StreamRerank]
	if len(fused) < 3 || re[0] != fused[2] || re[2] != fused[0] || len(re) != len(fused) {
		t.Errorf("rerank %v of fused %v", re, fused)
	}
	if top := mustUnit(t, e, re[0]); names(res.Hits)[0] != top.QualifiedName() {
		t.Errorf("hits not in reranked order: %v", names(res.Hits))
	}
	if res.Streams[StreamAugLexical][0] != "src/main/java/shop/Invoice.java#Invoice.render" {
		t.Errorf("augmented lexical: %v", res.Streams[StreamAugLexical])
	}
	e.Close()

	// A restart embeds nothing again.
	_, before, _ := s.Counts()
	e2, _ := New(Config{Root: root, CacheDir: cache, Embedder: emb, Streams: Streams{Lexical: true, Dense: true}})
	e2.Build(ctx, nil)
	e2.SyncEmbeddings(ctx, nil)
	if _, after, _ := s.Counts(); after != before {
		t.Errorf("restart embedded %d texts", after-before)
	}
	res, _ = e2.Search(ctx, Query{Text: "cart total"})
	if _, ok := res.Streams[StreamAugLexical]; ok {
		t.Error("augmentation ran while switched off")
	}
	e2.Close()
}

func mustUnit(t *testing.T, e *Engine, id string) units.Unit {
	u, ok := e.Unit(id)
	if !ok {
		t.Fatalf("no unit %s", id)
	}
	return u
}

func TestModelFailureKeepsLexical(t *testing.T) {
	root := project(t)
	s, _, _ := fakeModels(t)
	emb, _ := llm.NewEmbedder(llm.Config{BaseURL: s.BaseURL(), Model: "bow", Retries: -1})
	chat, _ := llm.NewChat(llm.Config{BaseURL: s.BaseURL(), Model: "chat", Retries: -1})
	e, _ := New(Config{Root: root, Embedder: emb, Chat: chat})
	ctx := context.Background()
	e.Build(ctx, nil)
	e.SyncEmbeddings(ctx, nil)
	s.FailNext = 1000
	res, err := e.Search(ctx, Query{Text: "total price with tax"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || res.Hits[0].Unit.Name != "totalWithTax" {
		t.Errorf("hits %v", names(res.Hits))
	}
	for _, name := range []string{StreamDense, "augment", "generate"} {
		if res.Errors[name] == "" {
			t.Errorf("no error recorded for %s: %v", name, res.Errors)
		}
	}
}

func TestStartInBackground(t *testing.T) {
	root := project(t)
	_, emb, _ := fakeModels(t)
	e, _ := New(Config{Root: root, Embedder: emb})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan Status, 100)
	e.Start(ctx, func(st Status) {
		if !st.Indexing && st.Pending == 0 && st.Embedded == st.Units && st.Units > 0 {
			select {
			case done <- st:
			default:
			}
		}
	})
	select {
	case st := <-done:
		if st.Units != 6 {
			t.Errorf("status %+v", st)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("background build did not finish: %+v", e.Status())
	}
	// A didChange-style update is embedded by the background loop.
	e.Index().Update(ctx, "tools/new.py", []byte("def brand_new():\n    pass\n"))
	deadline := time.Now().Add(10 * time.Second)
	for e.Status().Pending != 0 || e.Status().Embedded != 7 {
		if time.Now().After(deadline) {
			t.Fatalf("update not embedded: %+v", e.Status())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestParseStreams(t *testing.T) {
	st, err := ParseStreams("lexical, rerank")
	if err != nil || st != (Streams{Lexical: true, Rerank: true}) {
		t.Errorf("%+v %v", st, err)
	}
	if _, err := ParseStreams("lexical,bogus"); err == nil {
		t.Error("bogus stream accepted")
	}
}

// TestTestPolicy: test code ranks below main code by default, like main
// code when the query names tests or the policy includes it, and not at
// all when excluded.
func TestTestPolicy(t *testing.T) {
	root := testtree.New(t, map[string]string{
		// The test matches the query better than the code it tests.
		"src/test/java/shop/CartTest.java": `package shop;
class CartTest {
    void parseCartTotalPrice() { Cart c = parseCart("total price"); assertEquals(c.totalPrice(), parseTotal()); }
}`,
		"src/main/java/shop/Cart.java": `package shop;
class Cart {
    double totalPrice() { return sum; }
}`,
		"tests/test_prices.py": "def test_total_price():\n    assert total_price([1]) == 1\n",
	})
	ctx := context.Background()
	for _, c := range []struct {
		policy, query TestPolicy
		text          string
		want          string
	}{
		{"", "", "parse cart total price", "Cart.totalPrice CartTest.parseCartTotalPrice test_total_price"},
		{TestsInclude, "", "parse cart total price", "CartTest.parseCartTotalPrice Cart.totalPrice test_total_price"},
		{"", TestsInclude, "parse cart total price", "CartTest.parseCartTotalPrice Cart.totalPrice test_total_price"},
		{"", "", "test of the cart total price parser", "CartTest.parseCartTotalPrice test_total_price Cart.totalPrice"},
		{"", TestsExclude, "parse cart total price", "Cart.totalPrice"},
		{TestsExclude, "", "test parse cart total price", "Cart.totalPrice"},
	} {
		// Cart.totalPrice is a trivial getter; GettersLast (tested on its
		// own) would reorder the first hits this test is about.
		tn := DefaultTuning()
		tn.GettersLast = false
		e, err := New(Config{Root: root, Tests: c.policy, Tuning: &tn})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Build(ctx, nil); err != nil {
			t.Fatal(err)
		}
		res, err := e.Search(ctx, Query{Text: c.text, K: 10, Tests: c.query})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range res.Hits {
			if h.Unit.Kind != units.Class {
				got = append(got, h.Unit.QualifiedName())
			}
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("policy %q/%q, %q: got %v, want %s", c.policy, c.query, c.text, got, c.want)
		}
		e.Close()
	}
	if _, err := New(Config{Root: root, Tests: "sometimes"}); err == nil {
		t.Error("a bad test policy was accepted")
	}
}

// TestOverloadsGrouped: an overload set is one hit listing the others.
func TestOverloadsGrouped(t *testing.T) {
	root := testtree.New(t, map[string]string{
		"src/Printer.java": `class Printer {
    void printLine(String s) { out.write(s); out.newLine(); }
    void printLine(int i) { out.write(String.valueOf(i)); out.newLine(); }
    void printLine() { out.newLine(); }
    void flush() { out.flush(); }
}`,
		"shapes.py": `from typing import overload
@overload
def scale(x: int) -> int: ...
@overload
def scale(x: float) -> float: ...
def scale(x):
    return x * 2
`,
	})
	for _, fuseSets := range []bool{false, true} {
		overloadsGrouped(t, root, fuseSets)
	}
}

func overloadsGrouped(t *testing.T, root string, fuseSets bool) {
	tn := DefaultTuning()
	tn.FuseOverloads = fuseSets
	e, err := New(Config{Root: root, Tuning: &tn})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	if err := e.Build(ctx, nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		query, name string
		overloads   int
	}{
		{"print a line", "Printer.printLine", 2},
		{"scale a number", "scale", 2},
	} {
		res, err := e.Search(ctx, Query{Text: c.query, K: 10})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, h := range res.Hits {
			if h.Unit.QualifiedName() == c.name {
				n++
				if len(h.Overloads) != c.overloads {
					t.Errorf("%q: %s has %d overloads listed, want %d", c.query, h.Unit.ID, len(h.Overloads), c.overloads)
				}
			}
		}
		if n != 1 {
			t.Errorf("%q: %d hits named %s, want 1: %v", c.query, n, c.name, names(res.Hits))
		}
		if len(res.Streams[StreamLexical]) <= len(res.Hits) {
			t.Errorf("%q: the lexical stream should still rank single units: %v", c.query, res.Streams[StreamLexical])
		}
		// The fused ranking holds single units, or with
		// Tuning.FuseOverloads one member per set.
		sets := map[string]bool{}
		twice := false
		for _, id := range res.Streams[StreamFused] {
			twice = twice || sets[OverloadSet(id)]
			sets[OverloadSet(id)] = true
		}
		if twice == fuseSets {
			t.Errorf("%q, FuseOverloads %v: fused stream %v", c.query, fuseSets, res.Streams[StreamFused])
		}
	}
}

// TestPersist: a warm engine reads the analysed lexical index back and
// answers exactly as the cold one; a changed, added or deleted file is
// applied to the snapshot's state (answering as a cold engine on the new
// files does); a damaged snapshot means analysing again.
func TestPersist(t *testing.T) {
	root := project(t)
	cache := t.TempDir()
	ctx := context.Background()
	runIn := func(cache, q string) (*Engine, []Hit) {
		t.Helper()
		e, err := New(Config{Root: root, CacheDir: cache, Persist: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Build(ctx, nil); err != nil {
			t.Fatal(err)
		}
		res, err := e.Search(ctx, Query{Text: q, K: 10})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		return e, res.Hits
	}
	run := func(q string) (*Engine, []Hit) { t.Helper(); return runIn(cache, q) }
	// cold answers q from scratch (a cache of its own) on the files as
	// they are now.
	cold := func(q string) []Hit { t.Helper(); _, h := runIn(t.TempDir(), q); return h }
	first, h1 := run("total price with tax")
	warm, h2 := run("total price with tax")
	if first.snapSaved || !warm.snapSaved || warm.snapUpdated {
		t.Errorf("snapshot used: first %v, warm %v (updated %v); want false, true (false)", first.snapSaved, warm.snapSaved, warm.snapUpdated)
	}
	if len(h1) == 0 || !reflect.DeepEqual(h1, h2) {
		t.Errorf("cold %v\nwarm %v", names(h1), names(h2))
	}
	same := func(what string, e *Engine, got []Hit, q string) {
		t.Helper()
		if !e.snapUpdated {
			t.Errorf("%s: the snapshot was not brought up to date (saved %v)", what, e.snapSaved)
		}
		if want := cold(q); !reflect.DeepEqual(names(got), names(want)) {
			t.Errorf("%s: %v, a cold engine gives %v", what, names(got), names(want))
		}
	}
	// A changed file: its old units leave the state, its new ones enter.
	testtree.Write(t, root, map[string]string{"tools/report.py": "def write_tax_table(rows):\n    return [r.tax for r in rows]\n"})
	changed, h3 := run("tax table")
	if len(h3) == 0 || h3[0].Unit.Name != "write_tax_table" {
		t.Errorf("after a change: hits %v", names(h3))
	}
	same("a changed file", changed, h3, "tax table")
	if again, h := run("tax table"); !again.snapSaved || !reflect.DeepEqual(h, h3) {
		t.Errorf("the run after the change: snapshot used %v, hits %v", again.snapSaved, names(h))
	}
	// An added file, then the same file deleted: each is seen.
	testtree.Write(t, root, map[string]string{"tools/ledger.py": "def reconcile_ledger_entries(entries):\n    return sum(e.amount for e in entries)\n"})
	added, h5 := run("reconcile ledger entries")
	if len(h5) == 0 || h5[0].Unit.Name != "reconcile_ledger_entries" {
		t.Errorf("after adding a file: hits %v", names(h5))
	}
	same("an added file", added, h5, "reconcile ledger entries")
	if again, h6 := run("reconcile ledger entries"); !again.snapSaved || !reflect.DeepEqual(h5, h6) {
		t.Errorf("the run after the addition: snapshot used %v, hits %v", again.snapSaved, names(h6))
	}
	if err := os.Remove(filepath.Join(root, "tools/ledger.py")); err != nil {
		t.Fatal(err)
	}
	deleted, h7 := run("reconcile ledger entries")
	for _, h := range h7 {
		if h.Unit.Name == "reconcile_ledger_entries" {
			t.Errorf("a deleted file's unit is still found: %v", names(h7))
		}
	}
	same("a deleted file", deleted, h7, "reconcile ledger entries")
	// A damaged snapshot is analysed again, not trusted.
	if err := os.WriteFile(filepath.Join(cache, snapshotFile), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	damaged, h4 := run("tax table")
	if damaged.snapSaved || !reflect.DeepEqual(h3, h4) {
		t.Errorf("damaged snapshot: used %v, hits %v", damaged.snapSaved, names(h4))
	}
	if again, _ := run("tax table"); !again.snapSaved {
		t.Error("the snapshot was not rewritten after the damaged one")
	}
	// So is one with a flipped bit inside a string, which decodes as well
	// as the right one: only the checksum tells them apart.
	b, err := os.ReadFile(filepath.Join(cache, snapshotFile))
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.LastIndex(b, []byte("tax"))
	if i < 0 {
		t.Fatal("the snapshot does not hold the term tax")
	}
	b[i] ^= 0x20
	if err := os.WriteFile(filepath.Join(cache, snapshotFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if flipped, h := run("tax table"); flipped.snapSaved || !reflect.DeepEqual(h3, h) {
		t.Errorf("a flipped bit in the snapshot: used %v, hits %v", flipped.snapSaved, names(h))
	}
}

// TestFusionRule checks that Tuning.Fusion picks the rule: the lexical
// stream ranks alpha, beta, gamma and the dense one beta, alpha, gamma,
// with beta far ahead in dense (cosine 1 against 0.1) and close behind in
// lexical. RRF sees two mirrored rank pairs (a tie that goes to the first
// list, lexical: alpha); the convex combination sees the gaps (beta).
func TestFusionRule(t *testing.T) {
	root := testtree.New(t, map[string]string{"zoo.py": `def alpha():
    """Zebra zebra zebra."""
    return 1

def beta():
    """Zebra zebra and a horse."""
    return 2

def gamma(a, b, c, d, e, f, g, h):
    """Zebra, then many more words about lions, tigers, bears, owls, cats, dogs and fish."""
    return a + b + c + d + e + f + g + h
`})
	s := llmtest.New()
	t.Cleanup(s.Close)
	s.Embed = func(text string) []float32 {
		switch {
		case strings.Contains(text, "beta"):
			return []float32{1, 0}
		case strings.Contains(text, "alpha"):
			return []float32{0.1, 0.995}
		case strings.Contains(text, "gamma"):
			return []float32{0, 1}
		}
		return []float32{1, 0} // the query
	}
	emb, _ := llm.NewEmbedder(llm.Config{BaseURL: s.BaseURL(), Model: "fake"})
	ctx := context.Background()
	// The dense stream leads with beta by a cosine margin of 0.9, so
	// Tuning.DenseMargin is off where the fusion rules alone are tested.
	top := func(fusion string, margin float64) (string, *Result) {
		tn := DefaultTuning()
		tn.Fusion = fusion
		tn.DenseMargin = margin
		e, err := New(Config{Root: root, CacheDir: t.TempDir(), Embedder: emb, Tuning: &tn})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		if err := e.Build(ctx, nil); err != nil {
			t.Fatal(err)
		}
		if err := e.SyncEmbeddings(ctx, nil); err != nil {
			t.Fatal(err)
		}
		res, err := e.Search(ctx, Query{Text: "zebra"})
		if err != nil {
			t.Fatal(err)
		}
		return res.Hits[0].Unit.Name, res
	}
	got, res := top(FusionRRF, 0)
	if lex, den := res.Streams[StreamLexical], res.Streams[StreamDense]; len(lex) != 3 || len(den) != 3 ||
		!strings.HasSuffix(lex[0], "alpha") || !strings.HasSuffix(lex[1], "beta") || !strings.HasSuffix(den[0], "beta") ||
		!strings.HasSuffix(den[1], "alpha") {
		t.Fatalf("streams are not the test's premise: lexical %v dense %v", lex, den)
	}
	if got != "alpha" {
		t.Errorf("rrf: top %s, want alpha (%v)", got, res.Streams[StreamFused])
	}
	got, res = top(FusionConvex, 0)
	if got != "beta" {
		t.Errorf("convex: top %s, want beta (%v)", got, res.Streams[StreamFused])
	}
	if h := res.Hits[0]; h.Score <= 0.5 || h.Score > 1 {
		t.Errorf("convex: top score %v, want in (0.5, 1]", h.Score)
	}
	// With the default margin, RRF's winner gives way to the dense leader
	// (cosine 1 against 0.1); a margin above the lead leaves RRF's order.
	if got, res := top(FusionRRF, DefaultDenseMargin); got != "beta" {
		t.Errorf("rrf with dense margin %v: top %s, want beta (%v)", DefaultDenseMargin, got, res.Streams[StreamFused])
	}
	if got, res := top(FusionRRF, 0.95); got != "alpha" {
		t.Errorf("rrf with dense margin 0.95: top %s, want alpha (%v)", got, res.Streams[StreamFused])
	}
}

// TestSearchLoneLeader checks that Search applies Tuning.LoneLeaderAt: the
// lexical stream's first unit, which the dense stream (depth 3) does not
// hold, fuses third by RRF and moves up to second.
func TestSearchLoneLeader(t *testing.T) {
	root := testtree.New(t, map[string]string{"m.py": `
def lone():
    """Zebra zebra zebra."""
    return 0

def first():
    """Zebra zebra and a horse."""
    return 1

def second():
    """Zebra and a horse and a cow."""
    return 2

def third():
    """A horse and a cow and a dog."""
    return 3
`})
	s := llmtest.New()
	t.Cleanup(s.Close)
	s.Embed = func(text string) []float32 {
		switch {
		case strings.Contains(text, "lone"):
			return []float32{0, 1}
		case strings.Contains(text, "first"):
			return []float32{1, 0}
		case strings.Contains(text, "second"):
			return []float32{0.9, 0.43}
		case strings.Contains(text, "third"):
			return []float32{0.8, 0.6}
		}
		return []float32{1, 0} // the query
	}
	emb, _ := llm.NewEmbedder(llm.Config{BaseURL: s.BaseURL(), Model: "fake"})
	ctx := context.Background()
	order := func(at int) (string, *Result) {
		tn := DefaultTuning()
		tn.Depth = 3
		tn.LoneLeaderAt = at
		e, err := New(Config{Root: root, CacheDir: t.TempDir(), Embedder: emb, Tuning: &tn})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		if err := e.Build(ctx, nil); err != nil {
			t.Fatal(err)
		}
		if err := e.SyncEmbeddings(ctx, nil); err != nil {
			t.Fatal(err)
		}
		res, err := e.Search(ctx, Query{Text: "zebra"})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, h := range res.Hits {
			names = append(names, h.Unit.Name)
		}
		return strings.Join(names, " "), res
	}
	got, res := order(0)
	if lex, den := res.Streams[StreamLexical], res.Streams[StreamDense]; len(lex) != 3 || len(den) != 3 ||
		!strings.HasSuffix(lex[0], "lone") || slices.ContainsFunc(den, func(id string) bool { return strings.HasSuffix(id, "lone") }) {
		t.Fatalf("streams are not the test's premise: lexical %v dense %v", lex, den)
	}
	if got != "first second lone" {
		t.Errorf("off: %s, want first second lone", got)
	}
	if got, _ := order(2); got != "first lone second" {
		t.Errorf("at 2: %s, want first lone second", got)
	}
}

// TestMembersFirst checks Tuning.MembersFirst's reordering on hand-made
// fused rankings of a small Java project, and that Search applies it unless
// the query starts with an article.
func TestMembersFirst(t *testing.T) {
	root := testtree.New(t, map[string]string{
		"src/Pool.java": `package p;
/** A pool of worker threads with named threads. */
public class Pool {
    public Pool(int size) { this.size = size; }
    /** Names the pool's threads. */
    public void nameThreads(String pattern) { this.pattern = pattern; }
    public int size() { return size; }
    public static class Builder {
        /** Sets the naming pattern of the threads. */
        public Builder namingPattern(String pattern) { this.pattern = pattern; return this; }
    }
}`,
		"src/Other.java": `package p;
public class Other {
    public void nameThreads(String pattern) { }
}`,
		"tools/pool.py": `class Pool:
    """A pool of worker threads."""
    def __init__(self, size):
        self.size = size
    def resize(self, size):
        self.size = size
`,
	})
	const (
		pool    = "src/Pool.java#Pool"
		ctor    = "src/Pool.java#Pool.Pool"
		name    = "src/Pool.java#Pool.nameThreads"
		size    = "src/Pool.java#Pool.size"
		builder = "src/Pool.java#Pool.Builder"
		pattern = "src/Pool.java#Pool.Builder.namingPattern"
		other   = "src/Other.java#Other"
		oname   = "src/Other.java#Other.nameThreads"
		pyPool  = "tools/pool.py#Pool"
		pyInit  = "tools/pool.py#Pool.__init__"
		pyRes   = "tools/pool.py#Pool.resize"
	)
	ctx := context.Background()
	search := func(e *Engine, q string) *Result {
		t.Helper()
		res, err := e.Search(ctx, Query{Text: q, K: 10})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	for _, members := range []bool{false, true} {
		tn := DefaultTuning()
		tn.MembersFirst = members
		tn.ConstructorsLast, tn.GettersLast = false, false // tested on their own
		e, err := New(Config{Root: root, CacheDir: t.TempDir(), Tuning: &tn})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		if err := e.Build(ctx, nil); err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{pool, ctor, name, size, builder, pattern, other, oname, pyPool, pyInit, pyRes} {
			mustUnit(t, e, id)
		}
		const q = "pool of named worker threads"
		if !members {
			if res := search(e, q); !reflect.DeepEqual(res.Streams[StreamFused], res.Streams[StreamLexical]) {
				t.Errorf("without MembersFirst: fused %v, lexical %v", res.Streams[StreamFused], res.Streams[StreamLexical])
			}
			continue
		}
		for _, c := range []struct {
			in, want []string
			w        int
			ctors    bool
		}{
			// The class goes just below its best member (not the constructor).
			{[]string{pool, ctor, oname, size, name}, []string{ctor, oname, size, pool, name}, 10, false},
			// A member already above the class: nothing moves.
			{[]string{name, pool, size}, []string{name, pool, size}, 10, false},
			// A constructor or __init__ alone is no member; another file's unit neither.
			{[]string{pool, ctor, oname}, []string{pool, ctor, oname}, 10, false},
			{[]string{pyPool, pyInit, pool}, []string{pyPool, pyInit, pool}, 10, false},
			{[]string{pyPool, pyInit, pyRes}, []string{pyInit, pyRes, pyPool}, 10, false},
			{[]string{other, name}, []string{other, name}, 10, false},
			// A nested class is a member, and a class in turn.
			{[]string{pool, oname, builder, pattern}, []string{oname, pattern, pool, builder}, 10, false},
			// Only within the window.
			{[]string{pool, oname, other, name}, []string{pool, oname, other, name}, 3, false},
			{[]string{pool, oname, other, name}, []string{oname, other, name, pool}, 4, false},
			// ConstructorsLast: a constructor or __init__ goes just below the
			// best other member of its class; the class unit is no such member.
			{[]string{ctor, oname, size, name}, []string{ctor, oname, size, name}, 10, false},
			{[]string{ctor, oname, size, name}, []string{oname, size, ctor, name}, 10, true},
			{[]string{name, ctor, size}, []string{name, ctor, size}, 10, true},
			{[]string{ctor, pool, oname}, []string{ctor, pool, oname}, 10, true},
			{[]string{pyInit, pyPool, pyRes}, []string{pyRes, pyPool, pyInit}, 10, true},
			{[]string{ctor, oname, name}, []string{ctor, oname, name}, 2, true},
		} {
			if got := e.membersFirst(c.in, c.w, c.ctors); !reflect.DeepEqual(got, c.want) {
				t.Errorf("membersFirst(%v, %d, %v) = %v, want %v", c.in, c.w, c.ctors, got, c.want)
			}
		}
		res := search(e, q)
		lex, fused := res.Streams[StreamLexical], res.Streams[StreamFused]
		if reflect.DeepEqual(fused, lex) || !reflect.DeepEqual(fused, e.membersFirst(lex, MembersFirstWindow, false)) {
			t.Errorf("%q: fused %v, lexical %v", q, fused, lex)
		}
		// A noun phrase names a thing: the order stays.
		if res := search(e, "a "+q); !reflect.DeepEqual(res.Streams[StreamFused], res.Streams[StreamLexical]) {
			t.Errorf("noun phrase: fused %v, lexical %v", res.Streams[StreamFused], res.Streams[StreamLexical])
		}
	}
}

// TestFuseOverloads: with Tuning.FuseOverloads an overload set ranks in
// each stream where its best member does, so a set whose two members
// each lead one stream comes before a sibling that is second in both,
// and it is represented by the member the units' own fusion ranks best.
func TestFuseOverloads(t *testing.T) {
	const (
		m1  = "A.java#A.m"
		m2  = "A.java#A.m#2"
		sib = "A.java#A.s"
		b   = "B.java#B"
	)
	lists := []fuse.List{
		{Name: StreamLexical, Weight: 1, IDs: []string{m1, sib, b, m2}},
		{Name: StreamDense, Weight: 1, IDs: []string{m2, sib, b}},
	}
	rrf := func(ls []fuse.List) []fuse.Scored { return fuse.RRF(ls, fuse.DefaultK) }
	units := rrf(lists)
	if units[0].ID != sib {
		t.Fatalf("units: %v first, want %s (the test's premise)", units[0].ID, sib)
	}
	got := fuseOverloads(units, lists, rrf)
	var ids []string
	for _, f := range got {
		ids = append(ids, f.ID)
	}
	// m2 (lexical 4, dense 1) outranks m1 (lexical 1 only) among the units.
	if want := []string{m2, sib, b}; !reflect.DeepEqual(ids, want) {
		t.Errorf("fuseOverloads: %v, want %v", ids, want)
	}
	if r := got[0].Ranks; r[StreamLexical] != 1 || r[StreamDense] != 1 {
		t.Errorf("the set's ranks: %v, want 1 in both streams", r)
	}
}

// TestGettersLast: trivial getters (a body that only returns a field) are
// recognised in Java, Go and Python, and within the window they go to its
// end in their order; other units keep theirs.
func TestGettersLast(t *testing.T) {
	root := testtree.New(t, map[string]string{
		"src/Timer.java": `package p;
/** A timer that counts laps. */
public class Timer {
    private long lap;
    /** Returns the time of the last lap. */
    public long getLap() { return lap; }
    public long lapTime() { return this.lap; }
    /** Records a lap time without stopping the timer. */
    public void split() { lap = System.nanoTime(); }
    public long twice() { return lap * 2; }
}`,
		"timer.go": `package p

type Timer struct{ lap int64 }

// Lap returns the time of the last lap.
func (t *Timer) Lap() int64 { return t.lap }

// Split records a lap time.
func (t *Timer) Split() { t.lap++ }
`,
		"timer.py": `class Timer:
    @property
    def lap(self):
        # the last lap
        return self._lap
    def split(self):
        self._lap = 1
        return self._lap
`,
	})
	tn := DefaultTuning()
	tn.GettersLast = true
	e, err := New(Config{Root: root, CacheDir: t.TempDir(), Tuning: &tn})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	if err := e.Build(ctx, nil); err != nil {
		t.Fatal(err)
	}
	const (
		getLap  = "src/Timer.java#Timer.getLap"
		lapTime = "src/Timer.java#Timer.lapTime"
		split   = "src/Timer.java#Timer.split"
		twice   = "src/Timer.java#Timer.twice"
		goLap   = "timer.go#Timer.Lap"
		goSplit = "timer.go#Timer.Split"
		pyLap   = "timer.py#Timer.lap"
		pySplit = "timer.py#Timer.split"
	)
	for id, want := range map[string]bool{getLap: true, lapTime: true, split: false, twice: false,
		goLap: true, goSplit: false, pyLap: true, pySplit: false, "src/Timer.java#Timer": false} {
		u := mustUnit(t, e, id)
		if got := isTrivialGetter(&u); got != want {
			t.Errorf("isTrivialGetter(%s) = %v, want %v (code %q)", id, got, want, u.Code)
		}
	}
	for _, c := range []struct {
		in, want []string
		w        int
	}{
		{[]string{getLap, split, goLap, twice, pySplit}, []string{split, twice, pySplit, getLap, goLap}, 10},
		{[]string{split, twice}, []string{split, twice}, 10},
		// Only within the window: what lies beyond it keeps its place.
		{[]string{getLap, split, twice, pySplit}, []string{split, getLap, twice, pySplit}, 2},
	} {
		if got := e.gettersLast(c.in, c.w); !reflect.DeepEqual(got, c.want) {
			t.Errorf("gettersLast(%v, %d) = %v, want %v", c.in, c.w, got, c.want)
		}
	}
	// In a search: a getter never leads the first page unless the query
	// names a thing.
	res, err := e.Search(ctx, Query{Text: "time of the last lap", K: 10})
	if err != nil {
		t.Fatal(err)
	}
	lex, fused := res.Streams[StreamLexical], res.Streams[StreamFused]
	if u, _ := e.Unit(lex[0]); !isTrivialGetter(&u) {
		t.Fatalf("lexical %v: a getter should lead it (the test's premise)", lex)
	}
	if u, _ := e.Unit(fused[0]); isTrivialGetter(&u) {
		t.Errorf("fused %v: a getter leads", fused)
	}
	res, err = e.Search(ctx, Query{Text: "the time of the last lap", K: 10})
	if err != nil {
		t.Fatal(err)
	}
	if u, _ := e.Unit(res.Streams[StreamFused][0]); !isTrivialGetter(&u) {
		t.Errorf("noun phrase: fused %v, lexical %v", res.Streams[StreamFused], res.Streams[StreamLexical])
	}
}
