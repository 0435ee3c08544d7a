package engine

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/jdtls"
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
