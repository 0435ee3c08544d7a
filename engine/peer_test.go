package engine

// peer_test.go drives a session's decisions against a fake shadow server
// (fakePeer) that answers completion requests from fixed name lists the
// way JDT LS does: members after a dot, and at a simple name the variables
// and methods in scope always, types only once a prefix is typed. It pins
// which decisions cost a request and that none of the request-saving paths
// turns an unknown into a prune.

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/repilot-lsp/repilot-lsp/javalex"
	"github.com/repilot-lsp/repilot-lsp/jdtls"
	"github.com/repilot-lsp/repilot-lsp/textpos"
)

// fakeName is one name a fakePeer lists: its LSP CompletionItemKind and
// label ("n : int" for a variable, "f(int x) : int" for a method).
type fakeName struct {
	name  string
	kind  int
	label string
}

// fakePeer answers completion requests on the text it was last given.
type fakePeer struct {
	mu      sync.Mutex
	text    string
	scope   []fakeName            // variables and methods visible anywhere
	types   []fakeName            // types: listed only for a typed prefix
	members map[string][]fakeName // receiver name -> members
	// afterLess: members listed instead when "<" comes right before the
	// receiver (as a compiler might read "List<names." as a type context).
	afterLess map[string][]fakeName
	// emptyFor: idents (typed prefixes) answered with an empty list, as
	// JDT LS answers a name nothing extends.
	asked []string // "member:recv", "simple:<prefix>", one per request
	// scopeIncomplete: the list for an empty identifier at a simple name
	// is marked isIncomplete.
	scopeIncomplete bool
}

func (f *fakePeer) Err() error { return nil }

func (f *fakePeer) Change(ctx context.Context, uri, text string) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.text = text
	return 1, nil
}

func (f *fakePeer) Completion(ctx context.Context, uri string, pos textpos.Position) (*jdtls.CompletionList, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m := textpos.New(f.text)
	caret, err := m.Offset(pos)
	if err != nil {
		return nil, err
	}
	start := caret
	for start > 0 && javalex.IsIdentPart(rune(f.text[start-1])) {
		start--
	}
	prefix := f.text[start:caret]
	j := start
	for j > 0 && (f.text[j-1] == ' ' || f.text[j-1] == '\n') {
		j--
	}
	var names []fakeName
	if j > 0 && f.text[j-1] == '.' {
		k := j - 1
		r := k
		for r > 0 && javalex.IsIdentPart(rune(f.text[r-1])) {
			r--
		}
		recv := f.text[r:k]
		f.asked = append(f.asked, "member:"+recv)
		names = f.members[recv]
		b := r
		for b > 0 && f.text[b-1] == ' ' {
			b--
		}
		if l, ok := f.afterLess[recv]; ok && b > 0 && f.text[b-1] == '<' {
			names = l
		}
	} else {
		f.asked = append(f.asked, "simple:"+prefix)
		names = append(names, f.scope...)
		if prefix != "" {
			names = append(names, f.types...)
		}
	}
	l := &jdtls.CompletionList{IsIncomplete: f.scopeIncomplete && prefix == "" && !(j > 0 && f.text[j-1] == '.')}
	for _, n := range names {
		if !strings.HasPrefix(strings.ToLower(n.name), strings.ToLower(prefix)) {
			continue
		}
		l.Items = append(l.Items, jdtls.CompletionItem{Name: n.name, Kind: n.kind, Label: n.label,
			Edit: &jdtls.TextEdit{Range: jdtls.Range{Start: m.Position(start), End: pos}, NewText: n.name}})
	}
	return l, nil
}

// requests returns the requests asked since the last call.
func (f *fakePeer) requests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.asked
	f.asked = nil
	return out
}

// fakeFile is a Java file whose hunk is the line "<<HUNK>>" of run(): ids
// (int[]), lo, hi (int), names (Names) and count() are in scope.
const fakeFile = `package demo;

class Search {
    int[] ids;
    Names names;

    int count() { return ids.length; }

    int run() {
        int lo = 0;
        int hi = ids.length - 1;
<<HUNK>>
        return lo;
    }
}
`

func newFakePeer() *fakePeer {
	return &fakePeer{
		scope: []fakeName{
			{"ids", 5, "ids : int[]"}, {"names", 5, "names : Names"},
			{"lo", 6, "lo : int"}, {"hi", 6, "hi : int"},
			{"count", 2, "count() : int"}, {"run", 2, "run() : int"},
		},
		types: []fakeName{
			{"Names", 7, "Names - demo"}, {"Search", 7, "Search - demo"},
			{"Arrays", 7, "Arrays - java.util"}, {"Math", 7, "Math - java.lang"},
		},
		members: map[string][]fakeName{
			"names":  {{"add", 2, "add(String s) : void"}, {"size", 2, "size() : int"}},
			"Arrays": {{"fill", 2, "fill(int[] a, int v) : void"}, {"sort", 2, "sort(int[] a) : void"}},
		},
	}
}

// fakeSession opens a session of a JDT engine whose peer is f on fakeFile's
// hunk (an insertion at the marker line).
func fakeSession(t *testing.T, f *fakePeer) *jdtSession {
	t.Helper()
	i := strings.Index(fakeFile, "<<HUNK>>\n")
	h := Hunk{URI: "file:///demo/Search.java", Prefix: fakeFile[:i], Suffix: fakeFile[i+len("<<HUNK>>\n"):]}
	sites, _ := lru.New[string, *memberList](DefaultSiteCacheSize)
	e := &JDT{peer: f, cfg: jdtConfig{siteCache: DefaultSiteCacheSize, requestTimeout: DefaultRequestTimeout},
		open: map[string]*shadowDoc{}, sites: sites}
	win := newLexWindow(h.Prefix)
	s := &jdtSession{e: e, h: h, id: "fake", win: win, syntax: syntaxJudge{h: h}, stmtStart: atStatementBoundary(win)}
	if !s.stmtStart {
		t.Fatal("the fake hunk should start at a statement boundary")
	}
	return s
}

func checkAll(t *testing.T, s *jdtSession, cases []checkCase) {
	t.Helper()
	for _, c := range cases {
		got, err := s.Check(context.Background(), c.generated, c.token)
		if err != nil {
			t.Fatalf("Check(%q, %q): %v", c.generated, c.token, err)
		}
		if got != c.want {
			t.Errorf("Check(%q, %q) = %v, want %v", c.generated, c.token, got, c.want)
		}
	}
}

// TestScopeListProvesNamesInScope: names of variables and methods in scope
// at the hunk start are proven from one list (the scope list) fetched once
// per hunk, whatever the samples; the per-identifier list is asked only for
// names the scope list lacks (types, undefined names).
func TestScopeListProvesNamesInScope(t *testing.T) {
	f := newFakePeer()
	s := fakeSession(t, f)
	checkAll(t, s, []checkCase{
		{ind + "int mid = lo + ", "hi", Feasible}, // an operand: prefixes are judged
		{ind + "int mid = lo + hi", ";", Feasible},
		{ind + "lo = count", "(", Feasible}, // a method is called
		{ind + "hi = ids", "[", Feasible},   // an array is indexed
		{ind + "while (lo < hi", ")", Feasible},
		{ind + "lo = names", ".", Feasible}, // a variable before "." (checkQualifier)
	})
	if got := f.requests(); len(got) != 1 || got[0] != "simple:" {
		t.Errorf("requests %v, want the scope list alone", got)
	}
	// Not proven by the scope list: a follower the list's kinds rule out
	// goes to the per-identifier list, which decides it.
	checkAll(t, s, []checkCase{{ind + "lo = hi", "(", Infeasible}})
	if got := f.requests(); len(got) == 0 || got[0] != "simple:hi" {
		t.Errorf("requests %v, want the list for hi", got)
	}
	// A type is not in the scope list: asked for by its name.
	checkAll(t, s, []checkCase{{ind + "lo = 1 + ", "Arrays", Feasible}})
	if got := f.requests(); len(got) != 1 || got[0] != "simple:Arrays" {
		t.Errorf("requests %v, want the list for Arrays", got)
	}
}

// TestScopeListCompletesNothingForAName: Complete (Algorithm 3) at a name
// the scope list holds exactly has nothing to add and asks nothing; at a
// proper prefix it asks for the full list, which may extend it.
func TestScopeListCompletesNothingForAName(t *testing.T) {
	f := newFakePeer()
	s := fakeSession(t, f)
	ctx := context.Background()
	c, err := s.Complete(ctx, ind+"lo = 1 + count")
	if err != nil || c.Known {
		t.Errorf("Complete(count) = %+v, %v; want unknown", c, err)
	}
	if got := f.requests(); len(got) != 1 || got[0] != "simple:" {
		t.Errorf("requests %v, want the scope list alone", got)
	}
	c, err = s.Complete(ctx, ind+"lo = 1 + cou")
	if err != nil || !c.Known || len(c.Names) != 1 || c.Names[0] != "count" {
		t.Errorf("Complete(cou) = %+v, %v; want [count]", c, err)
	}
	if got := f.requests(); len(got) != 1 || got[0] != "simple:cou" {
		t.Errorf("requests %v, want the list for cou", got)
	}
}

// TestEmptyNameAtHunkStartTwoAnswers: an undefined name at the hunk start is
// pruned on two empty answers for it, with the scope list as the witness
// that JDT LS answers there (no probe by its initial); later samples naming
// it are pruned from the verified answer without a request. With no scope
// list (JDT LS listed nothing at the hunk start) it stays unknown.
func TestEmptyNameAtHunkStartTwoAnswers(t *testing.T) {
	f := newFakePeer()
	s := fakeSession(t, f)
	checkAll(t, s, []checkCase{{ind + "lo = 1 + ", "priorCount", Infeasible}})
	want := []string{"simple:", "simple:priorCount", "simple:priorCount"}
	if got := f.requests(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("requests %v, want %v", got, want)
	}
	checkAll(t, s, []checkCase{
		{ind + "hi = priorCount", ";", Infeasible},
		{ind + "int x = 2 * ", "priorCount", Infeasible},
	})
	if got := f.requests(); len(got) != 0 {
		t.Errorf("requests %v for a name already refuted twice, want none", got)
	}

	// No scope list: JDT LS answers nothing at all here.
	g := newFakePeer()
	g.scope, g.types = nil, nil
	s2 := fakeSession(t, g)
	checkAll(t, s2, []checkCase{{ind + "lo = 1 + ", "priorCount", Unknown}})
	// (the probe by the first two characters was asked instead, and listed
	// nothing too)
	if got := g.requests(); !slices.Contains(got, "simple:pr") || slices.Contains(got, "simple:p") {
		t.Errorf("requests %v, want the probe simple:pr and none by the initial", got)
	}
	// A one-letter name keeps its old rule (no second witness): unknown.
	s3 := fakeSession(t, newFakePeer())
	checkAll(t, s3, []checkCase{{ind + "lo = 1 + ", "q", Unknown}})
}

// TestEmptyTypedMemberListCachedPerText: a member list JDT LS answers empty
// for a receiver keyed by its type is unknown, and the same text is not
// asked again; another text of the same receiver still asks.
func TestEmptyTypedMemberListCachedPerText(t *testing.T) {
	f := newFakePeer()
	f.members["Arrays"] = nil // JDT LS resolves nothing here
	s := fakeSession(t, f)
	checkAll(t, s, []checkCase{
		{ind + "Arrays.", "fill", Unknown},
		{ind + "Arrays.", "sort", Unknown},
		{ind + "Arrays.", "zzz", Unknown},
	})
	var members int
	for _, r := range f.requests() {
		if r == "member:Arrays" {
			members++
		}
	}
	if members != 1 {
		t.Errorf("%d member requests for one text, want 1", members)
	}
	checkAll(t, s, []checkCase{{ind + "lo = 1;\n" + ind + "Arrays.", "fill", Unknown}})
	if got := f.requests(); len(got) != 1 || got[0] != "member:Arrays" {
		t.Errorf("requests %v, want one member list for the new text", got)
	}
}

// TestReceiverNameKeyedWithoutRequest: a receiver the hunk's scope list
// does not type (here a type name) costs no request for its name: its
// member list is keyed by the name (typekey.go), asked once for two texts
// in one context. A prune on the list at the text that asked for it rests
// on that one answer; at the other text, on a second answer asked there.
// (The README's example once asked "String" 12 times in one sample for its
// type.)
func TestReceiverNameKeyedWithoutRequest(t *testing.T) {
	f := newFakePeer()
	f.members["String"] = []fakeName{{"format", 2, "format(String f, Object... a) : String"}, {"valueOf", 2, "valueOf(int i) : String"}}
	s := fakeSession(t, f)
	checkAll(t, s, []checkCase{
		{ind + "lo = String.", "format", Feasible},
		{ind + "lo = String.", "valueOf", Feasible},
		{ind + "lo = String.", "len", Infeasible}, // on the text's own list
		{ind + "hi = 1;\n" + ind + "lo = String.", "format", Feasible},
	})
	want := []string{"simple:", "member:String"}
	if got := f.requests(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("requests %v, want %v (the scope list, one member list)", got, want)
	}
	checkAll(t, s, []checkCase{{ind + "hi = 1;\n" + ind + "lo = String.", "len", Infeasible}})
	if got := f.requests(); strings.Join(got, ",") != "member:String" {
		t.Errorf("requests %v, want the second answer at the other text", got)
	}
}

// TestReceiverTypeFromScopeList: a receiver that is a variable in the scope
// list is keyed by the type there (typekey.go) without a request for its
// name; two texts reaching "names." in one context share one member list.
func TestReceiverTypeFromScopeList(t *testing.T) {
	f := newFakePeer()
	s := fakeSession(t, f)
	checkAll(t, s, []checkCase{
		{ind + "lo = 1;\n" + ind + "names.", "add", Feasible},
		{ind + "hi = 2;\n" + ind + "names.", "size", Feasible},
		{ind + "hi = 2;\n" + ind + "names.", "sizeOf", Infeasible},
	})
	got := f.requests()
	want := []string{"simple:", "member:names", "member:names"} // the list, then its second answer for the prune
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("requests %v, want %v", got, want)
	}
	// A receiver the scope list lacks (a type) costs no request for its
	// name: its list is keyed by the name.
	checkAll(t, s, []checkCase{{ind + "Arrays.", "fill", Feasible}})
	if got := f.requests(); strings.Join(got, ",") != "member:Arrays" {
		t.Errorf("requests %v, want member:Arrays alone", got)
	}
}

// TestTypeKeySharedAcrossOperators: a receiver after any operator that
// makes it an operand ("=", "+", "%", "==", ...) shares one member list
// (typekey.go, beforeClass): the samples' many spellings of "x op names."
// cost one list and one confirming answer.
func TestTypeKeySharedAcrossOperators(t *testing.T) {
	f := newFakePeer()
	s := fakeSession(t, f)
	checkAll(t, s, []checkCase{
		{ind + "lo = names.", "size", Feasible},
		{ind + "lo = (hi + 1) % names.", "size", Feasible},
		{ind + "hi = lo * names.", "add", Feasible},
		{ind + "boolean b = lo == names.", "size", Feasible},
		{ind + "lo += names.", "sizeOf", Infeasible}, // pruned on two answers
		{ind + "lo -= 2 - names.", "length", Infeasible},
	})
	want := []string{"simple:", "member:names", "member:names"} // the list, then its second answer for the first prune
	if got := f.requests(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("requests %v, want %v", got, want)
	}
}

// TestTypeKeyNotSharedOutsideOperands: where the token before the receiver
// may make it a type or package ("<", a type argument list's start), and in
// a case label (where a compiler may list constants only), the receiver's
// list is not taken from the operand context: here the fake server lists a
// member after "<" that it does not list after "=", and the engine must not
// prune it from the "=" list.
func TestTypeKeyNotSharedOutsideOperands(t *testing.T) {
	f := newFakePeer()
	f.afterLess = map[string][]fakeName{"names": {{"Entry", 7, "Entry - demo.Names"}}}
	s := fakeSession(t, f)
	checkAll(t, s, []checkCase{
		{ind + "lo = names.", "size", Feasible},
		{ind + "lo = names.", "Entry", Infeasible}, // not a member in an operand
		{ind + "boolean b = lo < names.", "Entry", Feasible},
	})
	if got := f.requests(); strings.Count(strings.Join(got, ","), "member:names") != 2 {
		t.Errorf("requests %v, want a list of its own after \"<\"", got)
	}
	checkAll(t, s, []checkCase{{ind + "switch (lo) {\n" + ind + "case 1 + names.", "size", Feasible}})
	if got := f.requests(); len(got) != 1 || got[0] != "member:names" {
		t.Errorf("requests %v, want a list of its own in a case label", got)
	}
}

// TestWithWarmUp: StartJDT warms up by default, and WithWarmUp(false) (the
// repair command's choice) turns it off.
func TestWithWarmUp(t *testing.T) {
	if NewJDT(nil).cfg.noWarmUp {
		t.Error("the warm-up is off by default")
	}
	if !NewJDT(nil, WithWarmUp(false)).cfg.noWarmUp {
		t.Error("WithWarmUp(false) left the warm-up on")
	}
	if NewJDT(nil, WithWarmUp(false), WithWarmUp(true)).cfg.noWarmUp {
		t.Error("WithWarmUp(true) after false left the warm-up off")
	}
}

// TestTypeKeyFieldChainsAndThis: the member list after a chain of fields of
// a receiver keyed by its type ("names.head."), and after "this.", is
// shared by every text that reaches it in one context (typekey.go,
// fieldChain), as the list after "names." is: one request and one
// confirming answer, where keying by the text asked once per text.
func TestTypeKeyFieldChainsAndThis(t *testing.T) {
	f := newFakePeer()
	f.members["names"] = append(f.members["names"], fakeName{"head", 5, "head : Node"})
	f.members["head"] = []fakeName{{"next", 5, "next : Node"}, {"value", 5, "value : int"}}
	f.members["this"] = []fakeName{{"ids", 5, "ids : int[]"}, {"count", 2, "count() : int"}}
	s := fakeSession(t, f)
	checkAll(t, s, []checkCase{
		{ind + "lo = names.head.", "value", Feasible},
		{ind + "hi = 1;\n" + ind + "lo = names.head.", "value", Feasible},
		{ind + "lo = 2 * names.head.", "next", Feasible},
		{ind + "lo = names.head.", "size", Infeasible}, // on two answers
		{ind + "hi = 1;\n" + ind + "lo = names.head.", "size", Infeasible},
		{ind + "lo = this.", "count", Feasible},
		{ind + "hi = 1;\n" + ind + "lo = this.", "ids", Feasible},
		{ind + "lo = this.", "size", Infeasible},
		{ind + "hi = lo + this.", "size", Infeasible},
	})
	want := []string{"simple:", "member:head", "member:head", "member:this", "member:this"}
	if got := f.requests(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("requests %v, want %v", got, want)
	}
	// A head the generated text may declare is keyed by its text: each
	// text asks. A chain through a call without arguments (or with
	// literal ones) is shared as a field chain is.
	checkAll(t, s, []checkCase{
		{ind + "Names names = null;\n" + ind + "lo = names.head.", "value", Feasible},
		{ind + "Names names = null;\n" + ind + "hi = names.head.", "value", Feasible},
		{ind + "lo = names.get().head.", "value", Feasible},
		{ind + "hi = names.get().head.", "value", Feasible},
	})
	if got := f.requests(); strings.Count(strings.Join(got, ","), "member:head") != 3 {
		t.Errorf("requests %v, want 3 member lists of head (one per declaring text, one for the call chain)", got)
	}
	// A call with an argument that is no literal is keyed by its text.
	checkAll(t, s, []checkCase{
		{ind + "lo = names.get(lo).head.", "value", Feasible},
		{ind + "hi = names.get(lo).head.", "value", Feasible},
	})
	if got := f.requests(); strings.Count(strings.Join(got, ","), "member:head") != 2 {
		t.Errorf("requests %v, want 2 member lists of head (one per text)", got)
	}
}

// TestTypeKeyNewDocumentVersionAsksAgain: the shared lists are keyed by the
// hunk's document text (hunkID): a session on the same file after an edit
// outside the hunk (here the class gains a field) finds none of the lists
// an earlier session cached and asks again, while a session on the same
// text asks nothing.
func TestTypeKeyNewDocumentVersionAsksAgain(t *testing.T) {
	f := newFakePeer()
	f.members["this"] = []fakeName{{"ids", 5, "ids : int[]"}, {"count", 2, "count() : int"}}
	sites, _ := lru.New[string, *memberList](DefaultSiteCacheSize)
	e := &JDT{peer: f, cfg: jdtConfig{siteCache: DefaultSiteCacheSize, requestTimeout: DefaultRequestTimeout},
		open: map[string]*shadowDoc{}, sites: sites}
	open := func(file string) *jdtSession {
		i := strings.Index(file, "<<HUNK>>\n")
		h := Hunk{URI: "file:///demo/Search.java", Prefix: file[:i], Suffix: file[i+len("<<HUNK>>\n"):]}
		win := newLexWindow(h.Prefix)
		return &jdtSession{e: e, h: h, id: hunkID(h), win: win, syntax: syntaxJudge{h: h}, stmtStart: atStatementBoundary(win)}
	}
	cases := []checkCase{
		{ind + "lo = this.", "count", Feasible},
		{ind + "lo = this.", "size", Infeasible},
		{ind + "lo = names.", "size", Feasible},
	}
	checkAll(t, open(fakeFile), cases)
	want := []string{"member:this", "simple:", "member:names"} // "size" pruned on this text's own list
	if got := f.requests(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("first session: requests %v, want %v", got, want)
	}
	checkAll(t, open(fakeFile), cases)
	if got := f.requests(); len(got) != 0 {
		t.Errorf("same text: requests %v, want none", got)
	}
	edited := strings.Replace(fakeFile, "    Names names;\n", "    Names names;\n    int extra;\n", 1)
	checkAll(t, open(edited), cases)
	if got := f.requests(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("edited document: requests %v, want %v", got, want)
	}
}

// TestNoMembersWithoutRequest: a receiver JDT LS can only answer with an
// empty member list (unknown) costs no member request: a variable of a
// primitive type at the hunk start (lo), a call or field chain on it, and
// null. Where the generated text may have declared the name, or the name
// is not listed at the hunk start (name, priorCount), the list is asked
// for.
func TestNoMembersWithoutRequest(t *testing.T) {
	f := newFakePeer()
	f.members["lo"] = []fakeName{{"bogus", 2, "bogus() : int"}} // never asked for
	f.members["name"] = []fakeName{{"bogus", 2, "bogus() : int"}}
	f.members["priorCount"] = []fakeName{{"bogus", 2, "bogus() : int"}}
	s := fakeSession(t, f)
	checkAll(t, s, []checkCase{
		{ind + "hi = lo.", "bogus", Unknown},
		{ind + "hi = 1 + lo.", "size", Unknown},
		{ind + "hi = lo.x.", "y", Unknown},
		{ind + "hi = lo.get().", "bogus", Unknown},
		{ind + "hi = null.get().", "bogus", Unknown},
	})
	want := []string{"simple:"}
	if got := f.requests(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("requests %v, want %v", got, want)
	}
	// Declared by the generated text, or not in the scope list: its list
	// decides (keyed by its name, with no request for the name).
	checkAll(t, s, []checkCase{
		{ind + "Names lo = names;\n" + ind + "hi = lo.", "bogus", Feasible},
		{ind + "hi = name.", "bogus", Feasible},
		{ind + "hi = priorCount.", "bogus", Feasible},
	})
	want = []string{"member:lo", "member:name", "member:priorCount"}
	if got := f.requests(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("requests %v, want %v", got, want)
	}
}

// TestPruneOnOwnAnswerConfirmsSharedList: which prunes ask a second answer
// (jdtSession.confirm). A member list JDT LS answered for this very text
// prunes on that answer ("names." then "sizeOf": one request). A list
// shared by the type key from another receiver's site is confirmed at this
// site first: here the scope list labels "more" with the type of "names"
// (as a wrong label would), the server lists "extra" for more, and the
// shared list, which lacks it, must not prune it. A simple name still
// prunes on two answers.
func TestPruneOnOwnAnswerConfirmsSharedList(t *testing.T) {
	f := newFakePeer()
	f.scope = append(f.scope, fakeName{"more", 6, "more : Names"})
	f.members["more"] = []fakeName{{"add", 2, "add(String s) : void"}, {"extra", 2, "extra() : int"}}
	s := fakeSession(t, f)
	checkAll(t, s, []checkCase{
		{ind + "lo = names.", "size", Feasible},
		{ind + "lo = names.", "sizeOf", Infeasible},
	})
	want := []string{"simple:", "member:names"}
	if got := f.requests(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("requests %v, want %v: a prune on this text's own list asks nothing more", got, want)
	}
	checkAll(t, s, []checkCase{{ind + "lo = more.", "extra", Feasible}})
	if got := f.requests(); strings.Join(got, ",") != "member:more" {
		t.Errorf("requests %v, want the second answer at more's site", got)
	}
	checkAll(t, s, []checkCase{{ind + "lo = 1 + ", "priorCount", Infeasible}})
	if got := f.requests(); strings.Count(strings.Join(got, ","), "simple:priorCount") != 2 {
		t.Errorf("requests %v, want two answers for the simple name", got)
	}
}

// TestOneLetterNameNotAsked: a one-character simple name that neither the
// scope list nor the file's types prove is unknown without a request
// (minNameQuery: the list for one character holds every type with that
// initial), where the list for it used to prune "i <" with no i in scope;
// a longer name is still asked for and pruned, and a one-letter name in
// scope is still proven by the scope list.
func TestOneLetterNameNotAsked(t *testing.T) {
	f := newFakePeer()
	f.types = append(f.types, fakeName{"Integer", 7, "Integer - java.lang"}, fakeName{"Iterator", 7, "Iterator - java.util"})
	s := fakeSession(t, f)
	checkAll(t, s, []checkCase{
		{ind + "while (", "i", Unknown},
		{ind + "while (i", " <", Unknown},
		{ind + "while (i", ")", Unknown},
		{ind + "lo = i", ".", Unknown},
		{ind + "lo = ", "q", Unknown},
	})
	if got := f.requests(); len(got) != 1 || got[0] != "simple:" {
		t.Errorf("requests %v, want the scope list alone", got)
	}
	if c, err := s.Complete(context.Background(), ind+"lo = q"); err != nil || c.Known {
		t.Errorf("Complete(q) = %+v, %v; want unknown", c, err)
	}
	if got := f.requests(); len(got) != 0 {
		t.Errorf("Complete asked %v, want nothing", got)
	}
	// Two characters are asked for, and prune on two answers.
	checkAll(t, s, []checkCase{{ind + "while (it", " <", Infeasible}})
	if got := f.requests(); strings.Join(got, ",") != "simple:it,simple:it" {
		t.Errorf("requests %v, want simple:it twice", got)
	}
	// A one-letter variable in scope is proven without a request.
	g := newFakePeer()
	g.scope = append(g.scope, fakeName{"i", 6, "i : int"})
	s2 := fakeSession(t, g)
	checkAll(t, s2, []checkCase{{ind + "while (", "i", Unknown}, {ind + "while (i", " <", Feasible}, {ind + "while (i", ")", Feasible}})
	if got := g.requests(); len(got) != 1 || got[0] != "simple:" {
		t.Errorf("requests %v, want the scope list alone", got)
	}
}

// TestTypeKeyCallChainLiteralArgs: the member list after a chain through
// calls whose arguments are all literals is keyed by the literals' types
// (typekey.go, fieldChain): "on(';')." and "on('/')." share one list, a
// prune there at another site rests on a second answer asked at that site,
// and "on(\"x\")." (a String, another overload) asks for its own.
func TestTypeKeyCallChainLiteralArgs(t *testing.T) {
	f := newFakePeer()
	f.members[""] = []fakeName{{"trim", 2, "trim() : Splitter"}, {"limit", 2, "limit(int n) : Splitter"}}
	s := fakeSession(t, f)
	checkAll(t, s, []checkCase{
		{ind + "names = Arrays.on(';').", "trim", Feasible},
		{ind + "hi = 1;\n" + ind + "names = Arrays.on('/').", "limit", Feasible},
		{ind + "names = Arrays.on(';').trim().limit(4).", "trim", Feasible},
		{ind + "names = Arrays.on(';').trim().limit(5).", "limit", Feasible},
	})
	want := []string{"simple:", "member:", "member:"}
	if got := f.requests(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("requests %v, want %v", got, want)
	}
	checkAll(t, s, []checkCase{{ind + "names = Arrays.on('-').", "trimx", Infeasible}})
	if got := f.requests(); strings.Join(got, ",") != "member:" {
		t.Errorf("requests %v for a prune on a shared list, want its second answer", got)
	}
	checkAll(t, s, []checkCase{{ind + "names = Arrays.on(\"x\").", "trim", Feasible}})
	if got := f.requests(); strings.Join(got, ",") != "member:" {
		t.Errorf("requests %v for a String argument, want its own list", got)
	}
}
