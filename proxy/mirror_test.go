package proxy

// mirror_test.go checks the document mirror's change application,
// table-driven.

import (
	"strings"
	"testing"

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
