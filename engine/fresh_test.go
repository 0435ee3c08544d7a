package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/jdtls"
	"github.com/repilot-lsp/repilot-lsp/textpos"
)

// TestFirstAnswerAfterOpenIsOnTheOpenedText pins how the shadow documents
// reach JDT LS (shadowDoc, setTextLocked): a session's document is opened by
// its first request, with that request's text; a document that CompileErrors
// opened is closed and opened again with the first request's text, once;
// later requests change it. JDT LS 1.60 answers the first completion after a
// didOpen for the opened text, so the first answer must be asked on it.
func TestFirstAnswerAfterOpenIsOnTheOpenedText(t *testing.T) {
	eng, root := sharedJDT(t)
	ctx := ctxT(t)
	names := filepath.Join(root, "src/demo/Names.java")
	b, err := os.ReadFile(names)
	if err != nil {
		t.Fatal(err)
	}
	// Names.java becomes the compile document: any other one is closed.
	if _, err := eng.CompileErrors(ctx, jdtls.FileURI(names), string(b)); err != nil {
		t.Fatal(err)
	}

	// A document nobody holds: nothing is sent until the first request.
	h, _ := hunkAt(t, root, "src/demo/Greeter.java", "return name;")
	ss, err := eng.Open(ctx, h)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, open := eng.client.Document(h.URI); open {
		t.Fatal("Greeter.java open before any request")
	}
	before := eng.reopened
	if _, err := ss.Check(ctx, "        return name.", "length"); err != nil {
		t.Fatal(err)
	}
	if st := ss.Stats(); st.Requests == 0 {
		t.Fatalf("no request made: %+v", st)
	}
	text, _, open := eng.client.Document(h.URI)
	if !open || text == h.Prefix+h.Suffix {
		t.Fatalf("after the first request: open %v, text the hunk-less file %v", open, text == h.Prefix+h.Suffix)
	}
	if eng.reopened != before {
		t.Fatalf("%d reopens for a document the first request opened, want 0", eng.reopened-before)
	}
	ss.Close()
	if _, _, open := eng.client.Document(h.URI); open {
		t.Fatal("Greeter.java still open after its only session closed")
	}

	// The compile document: reopened once, for the session's first request.
	h, _ = hunkAt(t, root, "src/demo/Names.java", "names.add(n);")
	ss, err = eng.Open(ctx, h)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	for _, gen := range []string{"        names.", "        n."} {
		if _, err := ss.Check(ctx, gen, "length"); err != nil {
			t.Fatal(err)
		}
	}
	if st := ss.Stats(); st.Requests < 2 {
		t.Fatalf("fewer than 2 requests made: %+v", st)
	}
	if got := eng.reopened - before; got != 1 {
		t.Fatalf("%d reopens of the compile document, want 1 (its first request only)", got)
	}
}

// TestMemberListRepeatsOnItsText pins the premise on which a member list
// answered for a site's own text prunes without a second answer
// (jdtSession.confirm): JDT LS answers the same member request on the same
// text with the same names, whether it is a session's first request (which
// opens the document with its text), the same request again at once (what
// the second answer was), or the same text again after the document held
// another. An answer that fails consistent (for another text or caret) is
// unknown to the engine and not compared; every receiver must get at least
// two consistent answers with names.
func TestMemberListRepeatsOnItsText(t *testing.T) {
	eng, root := sharedJDT(t)
	ctx := ctxT(t)
	h, _ := hunkAt(t, root, "src/demo/Main.java", "names.add(g.getName());")
	for _, recv := range []string{"g", "names", "s", "Math", "this", "System.out"} {
		ss, err := eng.Open(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		s := ss.(*jdtSession)
		ask := func(gen string) []string {
			t.Helper()
			text := h.Prefix + gen + s.suffixAfterCaret()
			m := textpos.New(text)
			caret := len(h.Prefix) + len(gen)
			l, err := s.request(ctx, "member", text, m.Position(caret))
			if err != nil {
				t.Fatalf("%s.: %v", recv, err)
			}
			if !consistent(l, text, m, caret) {
				t.Logf("%s.: an answer for another text or caret (unknown to the engine)", recv)
				return nil
			}
			return newMemberList(l).Names
		}
		gen := ind + "Object o = " + recv + "."
		answers := [][]string{ask(gen), ask(gen)}
		ask(ind + "int n = 0;\n" + gen) // another text in between
		answers = append(answers, ask(gen))
		var ref []string
		agreeing := 0
		for i, a := range answers {
			switch {
			case a == nil:
			case ref == nil:
				ref, agreeing = a, 1
			case !slices.Equal(a, ref):
				t.Errorf("%s.: answer %d lists %d names %v, an earlier one %d %v", recv, i+1, len(a), a, len(ref), ref)
			default:
				agreeing++
			}
		}
		if len(ref) == 0 || agreeing < 2 {
			t.Errorf("%s.: %d consistent answers with names, want at least 2 to compare", recv, agreeing)
		}
		ss.Close()
	}
}

// TestCutShortNotificationResyncs: a request whose context ends between the
// didClose and the didOpen with which setTextLocked replaces a fresh
// document leaves the document closed in the server (the close is committed
// whatever the context); the engine's record follows the client's
// (resyncLocked), so the next compile check and the next decision open the
// document again instead of failing on a document that is not open. The
// same holds for a document the client has open while the record says no
// request opened it yet.
func TestCutShortNotificationResyncs(t *testing.T) {
	eng, root := sharedJDT(t)
	ctx := ctxT(t)
	path := filepath.Join(root, "src/demo/Greeter.java")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	uri := jdtls.FileURI(path)
	if _, err := eng.CompileErrors(ctx, uri, string(b)); err != nil {
		t.Fatal(err)
	}
	// The compile document is fresh: a new text closes and reopens it. A
	// context that has ended lets the close through and refuses the open.
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	eng.mu.Lock()
	err = eng.setTextLocked(ended, uri, string(b)+"\n// other text\n")
	eng.mu.Unlock()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("setTextLocked with an ended context: %v", err)
	}
	if _, _, open := eng.client.Document(uri); open {
		t.Fatal("the document is still open: the close was not committed (the test no longer reaches the half-done state)")
	}
	errs, err := eng.CompileErrors(ctx, uri, string(b))
	if err != nil {
		t.Fatalf("compile check after a cut-short reopen: %v", err)
	}
	if len(errs) != 0 {
		t.Errorf("Greeter.java as it stands has errors %v", errs)
	}
	// A session whose record says pending while the client has the
	// document open (a cut-short open committed behind it).
	h, _ := hunkAt(t, root, "src/demo/Main.java", "names.add(g.getName());")
	ss, err := eng.Open(ctx, h)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	if _, err := eng.client.Open(ctx, h.URI, h.Prefix+h.Suffix); err != nil {
		t.Fatal(err)
	}
	out, err := ss.Check(ctx, ind+"names.add(g.", "getName")
	if err != nil {
		t.Fatalf("decision after a committed open the record missed: %v", err)
	}
	if out == Infeasible {
		t.Error("g.getName pruned")
	}
}
