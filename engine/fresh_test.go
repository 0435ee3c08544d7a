package engine

import (
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
