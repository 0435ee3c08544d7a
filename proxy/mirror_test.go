package proxy

// mirror_test.go checks the document mirror's change application and the
// repair extension's line arithmetic, table-driven.

import (
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/repilot-lsp/repilot-lsp/textpos"
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
		got, err := applyChanges(c.text, c.changes)
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

func TestHunkLines(t *testing.T) {
	cases := []struct {
		r          *protocol.Range
		start, end int
	}{
		{rng(5, 0, 6, 0), 6, 6},  // a whole line, ending at character 0 of the next
		{rng(5, 4, 5, 9), 6, 6},  // within one line
		{rng(5, 4, 7, 1), 6, 8},  // ends inside line 7
		{rng(5, 0, 8, 0), 6, 8},  // three whole lines
		{rng(5, 12, 6, 0), 6, 6}, // from the end of a line to the next line's start
	}
	for _, c := range cases {
		if s, e := hunkLines(*c.r); s != c.start || e != c.end {
			t.Errorf("%v: lines %d-%d, want %d-%d", *c.r, s, e, c.start, c.end)
		}
	}
}

func TestHunkEdit(t *testing.T) {
	cases := []struct {
		text       string
		start, end int
		hunk       string
		want       string
	}{
		{"a\nb\nc\n", 2, 2, "B\n", "a\nB\nc\n"},
		{"a\nb\nc\n", 1, 3, "x\n", "x\n"},
		{"a\nb\nc", 3, 3, "C\n", "a\nb\nC"}, // no final newline stays absent
		{"a\nb\nc\n", 2, 2, "", "a\nc\n"},   // deletion
	}
	for _, c := range cases {
		doc := Document{URI: "file:///x.java", Version: 4, Text: c.text}
		mp := textpos.New(c.text)
		for _, versioned := range []bool{true, false} {
			we := hunkEdit(doc, mp, c.start, c.end, c.hunk, versioned)
			var te protocol.TextEdit
			if versioned {
				if *we.DocumentChanges[0].TextDocument.Version != 4 {
					t.Errorf("version %d", *we.DocumentChanges[0].TextDocument.Version)
				}
				te = we.DocumentChanges[0].Edits[0]
			} else {
				te = we.Changes["file:///x.java"][0]
			}
			s, _ := mp.Offset(toTextpos(te.Range.Start))
			e, _ := mp.Offset(toTextpos(te.Range.End))
			if got := c.text[:s] + te.NewText + c.text[e:]; got != c.want {
				t.Errorf("%q lines %d-%d -> %q: got %q, want %q", c.text, c.start, c.end, c.hunk, got, c.want)
			}
		}
	}
}
