package engine

// typeindex_real_test.go compares the local names (simple.go, localNames:
// the scope list plus the type index) with JDT LS's own lists at the hunk
// start of every bug fixture, on the real JDT LS.

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/javalex"
	"github.com/repilot-lsp/repilot-lsp/textpos"
)

// agreementPrefixes are identifier prefixes asked at every fixture's hunk
// start besides those of its fix and its file: made-up names the model
// proposes (bench/README.md's traces), JDK and library type prefixes of
// one to three letters, package heads, and lower-case heads that types
// rarely have.
var agreementPrefixes = []string{
	"i", "T", "mid", "isNullOrEmpty", "code", "Str", "Ma", "Co", "Im",
	"ja", "co", "or", "Sp", "Ex", "pos", "result", "Opt", "Ent", "X",
}

// TestTypeIndexAgreesWithJDTLS asks JDT LS, at the hunk start of every
// fixture of testdata/bugs, for the names of a sample of identifier
// prefixes (agreementPrefixes, and up to 3 characters and the whole of
// the first identifiers of the fix and of the end of the prefix), and
// requires every name JDT LS lists that starts with the prefix (the names
// the engine judges by) to be in the local list for that prefix, with at
// least the kinds JDT LS gives it: the local list may prune only what JDT
// LS's list prunes. It also requires that the index was built and the
// local list complete at every fixture whose hunk starts a statement.
func TestTypeIndexAgreesWithJDTLS(t *testing.T) {
	eng, bugs, roots := corpusJDT(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	var n agreement
	for i, b := range bugs {
		s := openFixture(ctx, t, eng, b, roots[i])
		n.compare(ctx, t, eng, s, b.ID, b.FixedHunk, nil)
		s.Close()
	}
	n.report(t)
}

// TestTypeIndexAgreesWithJDTLSOnStaticImports is the same comparison in
// testdata/project's situation fixtures with static imports (single and on
// demand, of methods, fields and a member type), whose names JDT LS lists
// at a simple name with the variables and methods in scope.
func TestTypeIndexAgreesWithJDTLSOnStaticImports(t *testing.T) {
	eng, root := sharedJDT(t)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	var n agreement
	for _, c := range []struct{ file, marker string }{
		{"src/demo/SitForms.java", "List<String> e = /*^*/emptyList();"},
		{"src/demo/SitQualifier.java", "/*^*/out"},
	} {
		h, _ := hunkAt(t, root, c.file, c.marker)
		s, err := eng.Open(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		n.compare(ctx, t, eng, s, c.file, "", []string{"max", "ma", "empty", "em", "emptyList", "out", "ou", "Entry", "En", "sort", "unmodifiable"})
		s.Close()
	}
	n.report(t)
}

// agreement counts one comparison's prefixes and names.
type agreement struct{ asked, names, extra int }

func (n *agreement) report(t *testing.T) {
	fmt.Fprintf(os.Stderr, "%s: %d prefixes asked, %d names JDT LS listed, all in the local lists; %d local names JDT LS did not list\n", t.Name(), n.asked, n.names, n.extra)
	if n.asked == 0 {
		t.Fatal("no prefix was compared")
	}
}

// compare asks JDT LS and localNames at s's hunk start for agreementPrefixes,
// more, and the identifiers of fix and of the end of the prefix (see
// TestTypeIndexAgreesWithJDTLS).
func (n *agreement) compare(ctx context.Context, t *testing.T, eng *JDT, s Session, id, fix string, more []string) {
	t.Helper()
	js := s.(*jdtSession)
	if !js.stmtStart {
		return // no hunk-start lists there
	}
	settle(t, s)
	x := eng.typeIndexFor(ctx, js.h.URI)
	if x == nil {
		t.Fatalf("%s: no type index", id)
	}
	nt, np := x.size()
	fmt.Fprintf(os.Stderr, "%s: type index: %d types, %d packages, built in %v (%s)\n", id, nt, np, x.Took, x.From)
	seen := map[string]bool{}
	var prefixes []string
	add := func(p string) {
		if p != "" && !seen[p] && !anyKeywordPrefix(p) && !isContextual(p) {
			seen[p] = true
			prefixes = append(prefixes, p)
		}
	}
	for _, p := range append(append([]string(nil), agreementPrefixes...), more...) {
		add(p)
	}
	idents := 0
	for _, tok := range codeTokens(javalex.Lex(fix + "\n" + js.h.Prefix[max(0, len(js.h.Prefix)-600):])) {
		if tok.Kind != javalex.Ident || idents >= 8 {
			continue
		}
		idents++
		add(tok.Text)
		for k := 1; k <= 3 && k < len(tok.Text); k++ {
			add(tok.Text[:k])
		}
	}
	for _, p := range prefixes {
		local, err := js.localNames(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if local == nil {
			t.Fatalf("%s: no local list for %q (scope list %v)", id, p, js.scope != nil)
		}
		text := js.h.Prefix + p + ";" + js.suffixAfterCaret()
		m := textpos.New(text)
		caret := len(js.h.Prefix) + len(p)
		l, err := js.request(ctx, "simple-hunk", text, m.Position(caret))
		if err != nil {
			t.Fatalf("%s: %q: %v", id, p, err)
		}
		ml, ok := newSimpleList(l, text, m, len(js.h.Prefix), caret)
		if !ok || l.IsIncomplete {
			t.Logf("%s: %q: JDT LS's answer is not for this text or incomplete; skipped", id, p)
			continue
		}
		n.asked++
		var missing []string
		for _, name := range ml.Names {
			if !strings.HasPrefix(name, p) {
				continue
			}
			n.names++
			lb, listed := local.Kinds[name]
			if jb := ml.Kinds[name]; !listed || lb&jb != jb {
				missing = append(missing, fmt.Sprintf("%s (kinds %b, local %b)", name, jb, lb))
			}
		}
		for _, name := range local.Names {
			if _, ok := ml.Kinds[name]; !ok {
				n.extra++
			}
		}
		sort.Strings(missing)
		if len(missing) > 0 {
			t.Errorf("%s: prefix %q: JDT LS lists %s, which the local list lacks", id, p, strings.Join(missing, ", "))
		}
	}
}
