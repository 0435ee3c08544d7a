package proxy

// mirror_test.go checks the document mirror's change application,
// table-driven.

import (
	"errors"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
)

func rng(sl, sc, el, ec uint32) *protocol.Range {
	return &protocol.Range{Start: protocol.Position{Line: sl, Character: sc}, End: protocol.Position{Line: el, Character: ec}}
}

func TestApplyChanges(t *testing.T) {
	cases := []struct {
		name    string
		text    string
		changes []contentChange
		want    string
		err     string
	}{
		{"full", "a\nb\n", []contentChange{{Text: "x"}}, "x", ""},
		{"insert", "ab\ncd\n", []contentChange{{Range: rng(1, 1, 1, 1), Text: "Z"}}, "ab\ncZd\n", ""},
		{"replace across lines", "ab\ncd\nef\n", []contentChange{{Range: rng(0, 1, 2, 1), Text: "-"}}, "a-f\n", ""},
		// "😀" is two UTF-16 code units and four UTF-8 bytes.
		{"utf16", "s = \"😀x\";\n", []contentChange{{Range: rng(0, 7, 0, 8), Text: "y"}}, "s = \"😀y\";\n", ""},
		{"in order", "abc", []contentChange{{Range: rng(0, 0, 0, 1), Text: ""}, {Range: rng(0, 0, 0, 1), Text: "X"}}, "Xc", ""},
		{"then full", "abc", []contentChange{{Range: rng(0, 0, 0, 1), Text: ""}, {Text: "new"}}, "new", ""},
		{"append at end", "a\n", []contentChange{{Range: rng(1, 0, 1, 0), Text: "b"}}, "a\nb", ""},
		{"char past line end clamps", "ab\ncd", []contentChange{{Range: rng(0, 9, 0, 9), Text: "!"}}, "ab!\ncd", ""},
		{"line past end", "ab\n", []contentChange{{Range: rng(5, 0, 5, 0), Text: "x"}}, "", "beyond end"},
		{"end before start", "abcd", []contentChange{{Range: rng(0, 3, 0, 1), Text: "x"}}, "", "before start"},
		// LSP 3.17 "Text Documents": a lone "\r" ends a line, as "\n" and "\r\n" do.
		{"lone CR", "ab\rcd\ref", []contentChange{{Range: rng(2, 1, 2, 1), Text: "X"}}, "ab\rcd\reXf", ""},
		{"lone CR then joined to LF", "a\rb", []contentChange{{Range: rng(1, 0, 1, 0), Text: "\n"}, {Range: rng(1, 0, 1, 1), Text: "B"}}, "a\r\nB", ""},
		{"huge character clamps", "ab\ncd", []contentChange{{Range: rng(1, 4294967295, 1, 4294967295), Text: "!"}}, "ab\ncd!", ""},
		{"huge line", "ab\n", []contentChange{{Range: rng(4294967295, 0, 4294967295, 0), Text: "x"}}, "", "beyond end"},
	}
	for _, c := range cases {
		got, err := applyChanges(c.text, c.changes, 0)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: err %v, want %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s: %q, %v; want %q", c.name, got, err, c.want)
		}
	}
}

func TestMirrorDropsDocumentsItCannotFollow(t *testing.T) {
	m := newMirror()
	if err := m.apply("textDocument/didOpen", []byte(`{"textDocument":{"uri":"file:///a.java","languageId":"java","version":1,"text":"x"}}`)); err != nil {
		t.Fatal(err)
	}
	if err := m.apply("textDocument/didChange", []byte(`{"textDocument":{"uri":"file:///a.java","version":2},"contentChanges":[{"range":{"start":{"line":9,"character":0},"end":{"line":9,"character":0}},"text":"y"}]}`)); err == nil {
		t.Error("a change past the end was accepted")
	}
	if _, ok := m.get("file:///a.java"); ok {
		t.Error("the document is still mirrored after a change that did not fit")
	}
	m.apply("textDocument/didOpen", []byte(`{"textDocument":{"uri":"file:///a.java","languageId":"java","version":1,"text":"x"}}`))
	m.apply("textDocument/didClose", []byte(`{"textDocument":{"uri":"file:///a.java"}}`))
	if _, ok := m.get("file:///a.java"); ok {
		t.Error("the document is still mirrored after didClose")
	}
}

// TestManyChangesInOneDidChange: an editor's "replace all" sends one
// didChange with a change per match, each on the text the previous ones
// left. 6,667 changes on a 1 MB document took 22 s on the read loop (the
// line index of the whole text was built again, and the text copied, for
// each change; load 6 on 2 cores), blocking every editor message
// meanwhile; a textpos.Buffer now updates both in place. The bound leaves
// room for a loaded machine; the result is checked against the changes
// applied one call each (a fresh index each).
func TestManyChangesInOneDidChange(t *testing.T) {
	text := strings.Repeat(strings.Repeat("x", 49)+"\n", 20000) // 1,000,000 bytes
	var cs []contentChange
	for i := 0; i < 5000; i++ {
		l := uint32(i * 3)
		switch i % 3 {
		case 0: // one character
			cs = append(cs, contentChange{Range: rng(l, 0, l, 1), Text: "y"})
		case 1: // a line break inserted, a line joined below
			cs = append(cs, contentChange{Range: rng(l, 5, l, 5), Text: "\n"}, contentChange{Range: rng(l+2, 49, l+3, 0), Text: ""})
		default: // across lines, with an emoji (two UTF-16 units)
			cs = append(cs, contentChange{Range: rng(l, 48, l+1, 2), Text: "😀z"})
		}
	}
	t0 := time.Now()
	got, err := applyChanges(text, cs, 0)
	took := time.Since(t0)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d changes on a %d-byte text took %v", len(cs), len(text), took)
	if took > 4*time.Second {
		t.Errorf("%d changes on a %d-byte text took %v", len(cs), len(text), took)
	}
	want := text
	for i, c := range cs[:300] {
		if want, err = applyChanges(want, []contentChange{c}, 0); err != nil {
			t.Fatalf("change %d alone: %v", i, err)
		}
	}
	if part, err := applyChanges(text, cs[:300], 0); err != nil || part != want {
		t.Errorf("300 changes at once differ from one by one (%v)", err)
	}
	_ = got
}

// TestMirrorBoundsAllDocuments: the open documents' text is bounded in all
// (twice the body limit): a didOpen or didChange that would pass it leaves
// that document unfollowed (lost, with why), and closing others makes room
// again. Before, each document was bounded but their number was not.
func TestMirrorBoundsAllDocuments(t *testing.T) {
	m := newMirror()
	m.setMax(1000)
	open := func(name string, n int) error {
		return m.apply("textDocument/didOpen", []byte(`{"textDocument":{"uri":"file:///`+name+`.java","languageId":"java","version":1,"text":"`+strings.Repeat("x", n)+`"}}`))
	}
	if err := open("a", 900); err != nil {
		t.Fatal(err)
	}
	if err := open("b", 700); err != nil {
		t.Fatal(err)
	}
	var big *tooLargeDocError
	if err := open("c", 500); !errors.As(err, &big) || !big.All {
		t.Fatalf("a third document past 2000 bytes in all: %v", err)
	}
	if _, ok := m.get("file:///c.java"); ok {
		t.Error("the document past the bound is followed")
	}
	if lost := m.lostDocs(); len(lost) != 1 || !strings.Contains(lost[0].Why, "in all") {
		t.Errorf("lost %+v", lost)
	}
	if err := open("c", 400); err != nil || m.total != 2000 {
		t.Errorf("opened again within the bound: %v, %d bytes in all", err, m.total)
	}
	if err := m.apply("textDocument/didChange", []byte(`{"textDocument":{"uri":"file:///c.java","version":2},"contentChanges":[{"text":"`+strings.Repeat("y", 401)+`"}]}`)); !errors.As(err, &big) || !big.All {
		t.Errorf("a change past the bound in all: %v", err)
	}
	if m.total != 1600 {
		t.Errorf("%d bytes in all after c was dropped; want 1600", m.total)
	}
	m.apply("textDocument/didClose", []byte(`{"textDocument":{"uri":"file:///a.java"}}`))
	if err := open("c", 1000); err != nil || m.total != 1700 {
		t.Errorf("after closing a: %v, %d bytes in all", err, m.total)
	}
}

// TestMirrorLostIsBounded: unreadable didChanges for documents never
// opened leave no trace, so an editor cannot grow the mirror's list of
// lost documents with them.
func TestMirrorLostIsBounded(t *testing.T) {
	m := newMirror()
	for i := range 100 {
		m.apply("textDocument/didChange", []byte(`{"textDocument":{"uri":"file:///n`+strings.Repeat("x", i)+`.java","version":"bad"},"contentChanges":7}`))
	}
	if n := len(m.lostDocs()); n != 0 {
		t.Errorf("%d lost documents after didChanges for documents never opened", n)
	}
	m.apply("textDocument/didOpen", []byte(`{"textDocument":{"uri":"file:///a.java","languageId":"java","version":1,"text":"x"}}`))
	m.apply("textDocument/didChange", []byte(`{"textDocument":{"uri":"file:///a.java","version":"bad"},"contentChanges":7}`))
	if lost := m.lostDocs(); len(lost) != 1 || lost[0].URI != "file:///a.java" {
		t.Errorf("an open document with an unreadable change: lost %+v", lost)
	}
}
