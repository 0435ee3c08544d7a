package engine

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/jdtls"
	"github.com/repilot-lsp/repilot-lsp/textpos"
)

// TestArrayMembersWithoutRequest: after "ids." (ids an int[] field in the
// scope list, asked twice) the members of an array type are judged without
// a member request, in every context, and prune: a made-up member, a
// length that is called. Algorithm 3 completes nothing from that list. A
// receiver whose name a package or type also has, or with no type index,
// or of a non-array type, is asked of JDT LS as before.
func TestArrayMembersWithoutRequest(t *testing.T) {
	f := newFakePeer()
	f.members["ids"] = []fakeName{{"length", 5, "length : int"}, {"clone", 2, "clone() : int[]"}}
	s := fakeSession(t, f)
	s.e.indexOf = func(ctx context.Context, uri string) (*typeIndex, error) { return fakeIndex, nil }
	checkAll(t, s, []checkCase{
		{ind + "lo = ids.", "length", Feasible},
		{ind + "lo = ids.", "lenght", Infeasible},
		{ind + "lo = ids.", "finalize", Feasible}, // listed: java.lang's code may call it
		{ind + "lo = ids.length", "(", Infeasible},
		{ind + "lo = ids.clone", "(", Feasible},
		{ind + "ids.", "hashCode", Feasible},
		{ind + "ids.", "size", Infeasible},
		{ind + "foo(lo, ids.", "size", Infeasible},
		{ind + "foo((int) ids.", "size", Infeasible},
	})
	if got, want := f.requests(), []string{"simple:", "simple:"}; !slices.Equal(got, want) {
		t.Errorf("requests %v, want %v: the scope list twice, no member list", got, want)
	}
	c, err := s.Complete(context.Background(), ind+"lo = ids.le")
	if err != nil || c.Known {
		t.Errorf("Complete after ids.le = %+v, %v; want nothing known (a local list never completes)", c, err)
	}
	checkAll(t, s, []checkCase{{ind + "lo = names.", "sizeOf", Infeasible}})
	if got := f.requests(); !slices.Equal(got, []string{"member:names"}) {
		t.Errorf("requests %v, want names's list asked (not an array)", got)
	}

	// A package or type named as the variable: "x." may start its name.
	for _, idx := range []*typeIndex{
		{Parts: []*nameSet{{Types: []string{"Names"}, Packages: []string{"ids"}}}},
		{Parts: []*nameSet{{Types: []string{"ids"}}}},
		nil,
	} {
		f := newFakePeer()
		f.members["ids"] = []fakeName{{"length", 5, "length : int"}}
		s := fakeSession(t, f)
		s.e.indexOf = func(ctx context.Context, uri string) (*typeIndex, error) {
			if idx == nil {
				return nil, context.Canceled
			}
			return idx, nil
		}
		checkAll(t, s, []checkCase{{ind + "lo = ids.", "lenght", Infeasible}})
		if got := f.requests(); !slices.Contains(got, "member:ids") {
			t.Errorf("index %v: requests %v, want ids's list asked", idx, got)
		}
	}
}

// TestArrayMembersAgreeWithJDTLS: JDT LS's member list after an array
// variable, in the contexts a type key separates (a statement's start, an
// operand, a call's argument, a cast, a return), lists only names of
// arrayMemberNames, for arrays of primitives, of objects, of two
// dimensions and a varargs parameter: the local list is a superset of its
// answer (and so prunes nothing JDT LS's own answer kept). Keywords JDT
// LS lists after a dot ("new" after "c[0].") are never pruned (verdict,
// afterDotKeywords) and are not compared.
func TestArrayMembersAgreeWithJDTLS(t *testing.T) {
	eng, root := sharedJDT(t)
	h, _ := hunkAt(t, root, "src/demo/Main.java", "names.add(g.getName());")
	ss, err := eng.Open(ctxT(t), h)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	s := ss.(*jdtSession)
	decl := ind + "int[] a = null; String[] b = null; double[][] c = null;\n"
	answered := 0
	for _, recv := range []string{"a", "b", "c", "c[0]"} {
		for _, place := range []string{"", "Object o = ", "int n = 1 + ", "System.out.println(", "foo(1, ", "Object o = (Object) ", "if (", "return "} {
			gen := decl + ind + place + recv + "."
			text := h.Prefix + gen + s.suffixAfterCaret()
			m := textpos.New(text)
			caret := len(h.Prefix) + len(gen)
			l, err := s.request(ctxT(t), "member", text, m.Position(caret))
			if err != nil {
				t.Fatalf("%q: %v", gen, err)
			}
			if !consistent(l, text, m, caret) {
				t.Logf("%q: not consistent (unknown to the engine)", gen)
				continue
			}
			answered++
			for _, n := range newMemberList(l).Names {
				if _, ok := arrayMemberNames[n]; !ok && !slices.Contains(afterDotKeywords, n) {
					t.Errorf("%q: JDT LS lists %q, which arrayMemberNames lacks", gen, n)
				}
			}
		}
	}
	if answered < 16 {
		t.Errorf("only %d of 32 answers were consistent", answered)
	}
}

// TestWarmFileLeavesNothingOpen: WarmFile on a project file (text with an
// edit the disk lacks) asks its completions and closes the document again,
// so that a session opens it with its own text, and keeps the project's
// type index.
func TestWarmFileLeavesNothingOpen(t *testing.T) {
	eng, root := sharedJDT(t)
	path := filepath.Join(root, "src/demo/Main.java")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	uri := jdtls.FileURI(path)
	if err := eng.WarmFile(ctxT(t), path, string(b)+"\n// edited\n"); err != nil {
		t.Fatal(err)
	}
	if _, _, open := eng.Client().Document(uri); open {
		t.Errorf("%s is still open after WarmFile", uri)
	}
	eng.indexMu.Lock()
	n := len(eng.indexes)
	eng.indexMu.Unlock()
	if n == 0 {
		t.Errorf("no type index kept after WarmFile")
	}
}
