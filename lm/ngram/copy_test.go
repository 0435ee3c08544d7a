// Tests of the copy component (FIM.Buggy), of the exclusion of the buggy
// hunk, of the end of the middle after a hunk that leaves a block open, and
// of the workspace's identifiers.

package ngram

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/javalex"
	"github.com/repilot-lsp/repilot-lsp/lm"
)

// wishlistFIM is line 25 of the held-out file as the hunk to repair.
func wishlistFIM(t *testing.T, buggy bool) lm.FIM {
	lines := strings.SplitAfter(readFile(t, heldOutFile), "\n")
	fim := lm.FIM{Prefix: strings.Join(lines[:24], ""), Suffix: strings.Join(lines[25:], ""), Indent: "        "}
	if buggy {
		fim.Buggy = lines[24] // "        pricesSeen.remove(product.sku());\n"
	}
	return fim
}

func next(t *testing.T, s lm.Session, gen string, k int) []lm.Candidate {
	t.Helper()
	c, err := s.Next(context.Background(), gen, k)
	if err != nil {
		t.Fatal(err)
	}
	if len(c) == 0 {
		t.Fatalf("no candidates after %q", gen)
	}
	return c
}

func candProb(c []lm.Candidate, text string, end bool) float64 {
	for _, x := range c {
		if x.End == end && (end || x.Text == text) {
			return math.Exp(x.LogProb)
		}
	}
	return 0
}

// TestBuggyCopy: shown the buggy hunk, the model proposes its tokens first
// (the n-gram alone proposes "}" after "...;\n"), returns to it after an
// edit, and does not stutter.
func TestBuggyCopy(t *testing.T) {
	m := jdkModel(t)
	plain, err := m.Start(context.Background(), wishlistFIM(t, false))
	if err != nil {
		t.Fatal(err)
	}
	sess, err := m.Start(context.Background(), wishlistFIM(t, true))
	if err != nil {
		t.Fatal(err)
	}
	c0, c := next(t, plain, "", 10), next(t, sess, "", 10)
	t.Logf("first token without the buggy hunk: %q (%.2f); with it: %q (%.2f)", c0[0].Text, math.Exp(c0[0].LogProb), c[0].Text, math.Exp(c[0].LogProb))
	if c[0].Text != "        pricesSeen" || math.Exp(c[0].LogProb) < 0.5 {
		t.Errorf("first candidate with the buggy hunk = %q (p %.2f), want the hunk's first token with p >= 0.5; all: %v", c[0].Text, math.Exp(c[0].LogProb), c)
	}
	if p0, p := candProb(c0, "        pricesSeen", false), candProb(c, "        pricesSeen", false); p < 5*p0 {
		t.Errorf("P(first buggy token) = %.3f with the hunk, %.3f without: want far more with", p, p0)
	}
	// Copying goes on; no token is repeated.
	c = next(t, sess, "        pricesSeen", 10)
	if c[0].Text != "." {
		t.Errorf("after `pricesSeen`: top %q, want \".\"", c[0].Text)
	}
	if p := candProb(c, " pricesSeen", false); p > 0.01 {
		t.Errorf("after `pricesSeen`: P(pricesSeen again) = %.3f", p)
	}
	// After an edit (name() for sku()), the copy takes up the hunk again
	// where the edit ends: ")" then ";".
	c = next(t, sess, "        pricesSeen.remove(product.name()", 10)
	if c[0].Text != ")" {
		t.Errorf("after `product.name()` for `product.sku()`: top %q, want \")\"; all: %v", c[0].Text, c)
	}
	c = next(t, sess, "        pricesSeen.remove(product.name());", 10)
	if c[0].Text != "\n" {
		t.Errorf("after the edited statement: top %q, want a line break; all: %v", c[0].Text, c)
	}
}

// TestBuggyExcluded: the buggy hunk itself has probability zero (the repair
// loop would discard it), and a one-token edit of it may end.
func TestBuggyExcluded(t *testing.T) {
	m := jdkModel(t)
	fim := wishlistFIM(t, true)
	ls, err := m.Start(context.Background(), fim)
	if err != nil {
		t.Fatal(err)
	}
	s := ls.(*session)
	if s.cp.rest == nil {
		t.Fatal("exclusion not computed")
	}
	if q := s.cp.rest[0]; q < 0.1 || q > 0.9 {
		t.Errorf("P(the buggy hunk, without exclusion) = %.3f, want a sizeable share (copying is the point) but not all", q)
	}
	c := next(t, ls, fim.Buggy, 0)
	if p := candProb(c, "", true); p != 0 {
		t.Errorf("after the whole buggy hunk: P(end) = %g, want 0", p)
	}
	if p := tokenProb(s, fim.Buggy, "", true); p != 0 {
		t.Errorf("after the whole buggy hunk: exact P(end) = %g, want 0", p)
	}
	c = next(t, ls, "        pricesSeen.remove(product.name());\n", 0)
	if p := candProb(c, "", true); p < 0.5 {
		t.Errorf("after a one-token edit of the buggy hunk: P(end) = %.3f, want >= 0.5", p)
	}
	// Along the buggy hunk, the exclusion moves mass, it adds none.
	toks := lexStream(fim.Buggy)
	gen := ""
	for i := 0; i <= len(toks); i++ {
		st := s.analyse(gen)
		d := s.prepare(st, gen)
		if d.exact != i {
			t.Fatalf("after %q: exact prefix %d, want %d", gen, d.exact, i)
		}
		// Σ' = (Σ - Q_i)/(1 - Q_i): 1 when Σ is (Σ falls short of 1 by
		// the mass of <s> and of classes the file has no token of).
		before, after := sumAll(s, &d, false), sumAll(s, &d, true)
		q := s.cp.rest[i]
		if want := (before - q) / (1 - q); math.Abs(after-want) > 1e-9 || before < 1-1e-3 || before > 1+1e-9 {
			t.Errorf("after %q: total %.9f, after the exclusion %.9f, want %.9f", gen, before, after, want)
		}
		if i < len(toks) {
			gen += st.lay.render(toks[i].Text, toks[i].Kind)
		}
	}
}

// sumAll sums the distribution over every proposable token and the end.
func sumAll(s *session, d *ctxDist, exclude bool) float64 {
	next := uint32(endID)
	if d.exact >= 0 && d.exact < len(s.cp.ids) {
		next = s.cp.ids[d.exact]
	}
	f := func(p float64, id uint32) float64 {
		if exclude {
			return s.cp.applyExclusion(d.exact, p, id == next)
		}
		return p
	}
	sum := f(d.endP(), endID)
	for w := range s.m.vocab {
		if proposable(uint32(w)) {
			sum += f(s.probOf(d, uint32(w)), uint32(w))
		}
	}
	for i := range s.localText {
		r := uint32(len(s.m.vocab) + i)
		sum += f(s.probOf(d, r), r)
	}
	return sum
}

// loopFIM is a loop whose condition is the buggy hunk.
var loopFIM = lm.FIM{
	Prefix: "class A {\n    int f(int lo, int hi) {\n",
	Suffix: "            lo++;\n        }\n        return lo;\n    }\n}\n",
	Indent: "        ",
	Buggy:  "        while (lo < hi) {\n",
}

// TestNextIsExactWithBuggy is TestNextIsExact with the copy component
// (mutations included) and the exclusion at work.
func TestNextIsExactWithBuggy(t *testing.T) {
	m := jdkModel(t)
	for _, tc := range []struct {
		fim  lm.FIM
		gens []string
	}{
		{wishlistFIM(t, true), []string{"", "        pricesSeen", "        pricesSeen.remove(", "        pricesSeen.remove(product.name",
			"        pricesSeen.remove(product.sku());\n", "        pricesSeen.remove(product.name());\n", "        products.remove(product);\n"}},
		{loopFIM, []string{"        while (lo", "        while (lo <=", "        while (lo <= hi) {\n", "        while (lo < hi) {\n"}},
	} {
		ls, err := m.Start(context.Background(), tc.fim)
		if err != nil {
			t.Fatal(err)
		}
		s := ls.(*session)
		for _, gen := range tc.gens {
			const k = 25
			got := next(t, ls, gen, k)
			want := bruteNext(s, gen, k)
			if len(got) != len(want) {
				t.Fatalf("after %q: %d candidates, brute force %d", gen, len(got), len(want))
			}
			for i := range got {
				if wp := math.Log(want[i].p); math.Abs(got[i].LogProb-wp) > 1e-9 {
					t.Errorf("after %q: candidate %d %q logprob %.6f, brute force %.6f (id %d)", gen, i, got[i].Text, got[i].LogProb, wp, want[i].id)
				}
			}
		}
	}
}

// TestMutation: a copied operator may be replaced by another of its family
// ("<" by "<="), and the copy takes up the buggy hunk again after it.
func TestMutation(t *testing.T) {
	m := jdkModel(t)
	plain := loopFIM
	plain.Buggy = ""
	p0 := candProb(next(t, mustStart(t, m, plain), "        while (lo", 40), " <=", false)
	sess := mustStart(t, m, loopFIM)
	c := next(t, sess, "        while (lo", 40)
	p := candProb(c, " <=", false)
	t.Logf("P(<= after `while (lo`) = %.4f with the buggy hunk, %.4f without", p, p0)
	// Copying "<" takes most of the mass; without mutations "<=" would get
	// the model's share of an edit (about a tenth) of its 0.006.
	if c[0].Text != " <" || p < 0.01 || p < p0 {
		t.Errorf("after `while (lo`: top %q, P(<=) = %.4f (without the buggy hunk %.4f): want \" <\" first and \" <=\" at least 0.01", c[0].Text, p, p0)
	}
	if c := next(t, sess, "        while (lo <=", 10); c[0].Text != " hi" {
		t.Errorf("after `while (lo <=`: top %q, want \" hi\"", c[0].Text)
	}
}

func mustStart(t *testing.T, m *Model, fim lm.FIM) lm.Session {
	t.Helper()
	s, err := m.Start(context.Background(), fim)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestEndAfterOpenBlock: a buggy hunk that opens a block closed in the
// suffix ("while (lo < hi) {") may be replaced by one that opens it too,
// and by nothing that leaves it unopened, opens another, or closes a
// bracket of the prefix.
func TestEndAfterOpenBlock(t *testing.T) {
	m := jdkModel(t)
	fim := loopFIM
	sess, err := m.Start(context.Background(), fim)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := endOf(next(t, sess, "        while (lo <= hi) {\n", 0)); !ok {
		t.Error("end not offered after a replacement that opens the same block")
	}
	for _, gen := range []string{"        lo = hi;\n", "        while (lo <= hi) {\n            if (lo > 0) {\n",
		"        }\n        while (lo <= hi) {\n", "        while (lo) < hi) {\n"} {
		if _, ok := endOf(next(t, sess, gen, 0)); ok {
			t.Errorf("end offered after %q (brackets differ from the buggy hunk's)", gen)
		}
	}
	// Without a buggy hunk (an insertion), a hunk closes what it opens.
	fim.Buggy = ""
	sess, err = m.Start(context.Background(), fim)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := endOf(next(t, sess, "        while (lo <= hi) {\n", 0)); ok {
		t.Error("end offered after an insertion that leaves a block open")
	}
	// Not told what the middle replaces, a hunk may close a block of the
	// prefix; an insertion (FIM.Insert) may not: the suffix closes it.
	if _, ok := endOf(next(t, sess, "        }\n", 0)); !ok {
		t.Error("end not offered after closing a prefix block without FIM.Insert")
	}
	fim.Insert = true
	sess = mustStart(t, m, fim)
	if _, ok := endOf(next(t, sess, "        }\n", 0)); ok {
		t.Error("end offered after an insertion that closes a block of the prefix")
	}
	if _, ok := endOf(next(t, sess, "        lo = hi;\n", 0)); !ok {
		t.Error("end not offered after a balanced insertion")
	}
	// A closer always matches the innermost bracket the hunk opened.
	for _, c := range next(t, sess, "        f(a[i", 40) {
		if tx := strings.TrimSpace(c.Text); tx == ")" || tx == "}" {
			t.Errorf("offered %q inside %q", c.Text, "f(a[i")
		}
	}
	// ... and is never offered a closer of the prefix's blocks, after which
	// it could not end.
	for _, c := range next(t, sess, "", 40) {
		if tx := strings.TrimSpace(c.Text); tx == "}" || tx == ")" {
			t.Errorf("insertion offered %q at its start", c.Text)
		}
	}
}

// TestWorkspaceIdentifiers: an identifier seen once in the workspace (a
// record component declared in another file) is in the vocabulary and is
// proposed after '.'.
func TestWorkspaceIdentifiers(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"Discount.java": "package p;\n\npublic record Discount(String code, int zqPercentOff) {\n}\n",
		"Cart.java": "package p;\n\npublic class Cart {\n    private Discount discount;\n    private int subtotal;\n\n" +
			"    public int total() {\n        int off = subtotal * discount.percentage / 100;\n        return subtotal - off;\n    }\n}\n",
		"Receipt.java": "package p;\n\nclass Receipt {\n    String line(Discount d) {\n        return d.code() + \" \" + d.code().length();\n    }\n}\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m, err := Train(context.Background(), Sources{Roots: []string{dir}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m.ids["zqPercentOff"]; !ok {
		t.Fatal("a workspace identifier seen once is not in the vocabulary")
	}
	if _, ok := m.ids[`" "`]; ok {
		t.Error("a string literal seen once is in the vocabulary (only identifiers are kept)")
	}
	cart := files["Cart.java"]
	at := strings.Index(cart, "        int off")
	end := at + strings.Index(cart[at:], "\n") + 1
	for _, buggy := range []string{"", cart[at:end]} {
		sess, err := m.Start(context.Background(), lm.FIM{Prefix: cart[:at], Suffix: cart[end:], Indent: "        ", Buggy: buggy})
		if err != nil {
			t.Fatal(err)
		}
		c := next(t, sess, "        int off = subtotal * discount.", 20)
		if !slices.ContainsFunc(c, func(x lm.Candidate) bool { return x.Text == "zqPercentOff" }) {
			t.Errorf("buggy hunk %q: zqPercentOff not among the candidates after `discount.`: %v", buggy, c)
		}
	}
}

// TestDeterminismWithBuggy: equal FIM contexts give equal answers, in
// fresh sessions and in one that has seen other texts first (the forward
// states it caches must not change them).
func TestDeterminismWithBuggy(t *testing.T) {
	m := jdkModel(t)
	for _, fim := range []lm.FIM{wishlistFIM(t, true), loopFIM} {
		a, b := decode(t, m, fim), decode(t, m, fim)
		if !equalDecodes(a, b) {
			t.Errorf("two sessions on %q gave different distributions", fim.Buggy)
		}
		s := mustStart(t, m, fim)
		for _, gen := range []string{"        x", "        while (lo <= hi) {\n", fim.Buggy} {
			next(t, s, gen, 10)
		}
		fresh := mustStart(t, m, fim)
		for _, gen := range []string{"", "        while (lo", "        pricesSeen.remove(product.name"} {
			if x, y := next(t, s, gen, 10), next(t, fresh, gen, 10); !slices.Equal(x, y) {
				t.Errorf("after %q: a used session answers %v, a fresh one %v", gen, x, y)
			}
		}
	}
}

// TestLiteralMutation: a copied char literal may become another delimiter
// (the fix of expense-csv-delimiter, "';'" to "','"), a number its
// neighbour; the "<" and ">" of type arguments are not mutated into
// comparisons.
func TestLiteralMutation(t *testing.T) {
	m := jdkModel(t)
	fim := lm.FIM{
		Prefix: "class A {\n    java.util.List<String> f(String line) {\n",
		Buggy:  "        java.util.List<String> f = split(line, ';', 4);\n",
		Suffix: "        return f;\n    }\n}\n",
		Indent: "        ",
	}
	plain := fim
	plain.Buggy = ""
	const at = "        java.util.List<String> f = split(line,"
	otherChars := func(c []lm.Candidate) float64 {
		sum := 0.0
		for _, x := range c {
			if tx := strings.TrimSpace(x.Text); strings.HasPrefix(tx, "'") && tx != "';'" {
				sum += math.Exp(x.LogProb)
			}
		}
		return sum
	}
	p0 := otherChars(next(t, mustStart(t, m, plain), at, 40))
	sess := mustStart(t, m, fim)
	c := next(t, sess, at, 40)
	p := otherChars(c)
	t.Logf("P(a char literal other than ';' after %q) = %.4f with the buggy hunk, %.4f without", at, p, p0)
	// A copy of "';'" takes most of the mass, and mutation about a tenth
	// of it; without the buggy hunk the n-gram rarely writes a char literal.
	if c[0].Text != " ';'" || p < 0.05 || p < 5*p0 {
		t.Errorf("top %q, P(other char literal) = %.4f (without the buggy hunk %.4f): want \" ';'\" first and at least 0.05", c[0].Text, p, p0)
	}
	if fam := literalFamily(streamTok{Text: "4", Kind: javalex.Number}); !slices.Contains(fam, "3") || !slices.Contains(fam, "5") || slices.Contains(fam, "4") {
		t.Errorf("family of 4: %q", fam)
	}
	if fam := literalFamily(streamTok{Text: "0x1F", Kind: javalex.Number}); fam != nil {
		t.Errorf("family of 0x1F: %q, want none", fam)
	}
	c = next(t, sess, "        java.util.List<String", 40)
	for _, op := range []string{" ==", " !=", " <=", " >="} {
		if p := candProb(c, op, false); p > 1e-3 {
			t.Errorf("after `List<String`: P(%q) = %.4f; type arguments must not mutate into comparisons", op, p)
		}
	}
}

func TestTypeArgBrackets(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want string // the token texts marked, space-separated
	}{
		{"List<String> f = new ArrayList<>();", "< > < >"},
		{"Map<String, List<Integer>> m;", "< < >>"},
		{"x = Foo.<T>bar(a < b, c > d);", "< >"},
		{"if (a < b && c > d) {", ""},
		{"for (int i = 0; i < n; i++) {", ""},
		{"boolean b = A < B;", ""},
		{"Class<? extends Number[]> c;", "< >"},
	} {
		toks := lexStream(tc.src)
		var got []string
		for j, marked := range typeArgBrackets(toks) {
			if marked {
				got = append(got, toks[j].Text)
			}
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%q: marked %q, want %q", tc.src, strings.Join(got, " "), tc.want)
		}
	}
}
