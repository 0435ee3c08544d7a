package textpos

import (
	"strings"
	"testing"
)

func TestLines(t *testing.T) {
	for text, want := range map[string][]string{
		"":               nil,
		"a":              {"a"},
		"a\n":            {"a\n"},
		"a\nb":           {"a\n", "b"},
		"one\r\ntwo\r\n": {"one\r\n", "two\r\n"},
		"\n\n":           {"\n", "\n"},
		"x\ry\n":         {"x\r", "y\n"}, // a lone \r ends a line (LSP 3.17)
		"a\r\rb\r\n\r":   {"a\r", "\r", "b\r\n", "\r"},
	} {
		got := Lines(text)
		if strings.Join(got, "|") != strings.Join(want, "|") || len(got) != len(want) {
			t.Errorf("Lines(%q) = %q, want %q", text, got, want)
		}
		if CountLines(text) != len(want) {
			t.Errorf("CountLines(%q) = %d, want %d", text, CountLines(text), len(want))
		}
	}
}

func TestSpliceLines(t *testing.T) {
	for _, c := range []struct {
		name, text string
		start, end int
		hunk, want string
		from, to   int
	}{
		{"replace one", "a\nb\nc\n", 2, 2, "B\n", "a\nB\nc\n", 2, 4},
		{"replace two by three", "a\nb\nc\n", 1, 2, "x\ny\nz\n", "x\ny\nz\nc\n", 0, 4},
		{"empty hunk deletes", "a\nb\nc\n", 2, 2, "", "a\nc\n", 2, 4},
		{"delete all", "a\nb\n", 1, 2, "", "", 0, 4},
		{"insert before first", "a\nb\n", 1, 0, "0\n", "0\na\nb\n", 0, 0},
		{"insert in middle", "a\nb\n", 2, 1, "i\n", "a\ni\nb\n", 2, 2},
		{"insert at end", "a\nb\n", 3, 2, "c\n", "a\nb\nc\n", 4, 4},
		{"insert into empty text", "", 1, 0, "x\n", "x\n", 0, 0},
		{"no final newline: replace last", "a\nb", 2, 2, "B\n", "a\nB\n", 2, 3},
		{"no final newline: replace last, no newline kept", "a\nb", 2, 2, "B", "a\nB", 2, 3},
		{"no final newline: delete last", "a\nb", 2, 2, "", "a\n", 2, 3},
		{"no final newline: insert before last", "a\nb", 2, 1, "i\n", "a\ni\nb", 2, 2},
		{"CRLF: replace middle keeps the others' CRLF", "a\r\nb\r\nc\r\n", 2, 2, "B\r\n", "a\r\nB\r\nc\r\n", 3, 6},
		{"CRLF: delete", "a\r\nb\r\nc", 1, 2, "", "c", 0, 6},
		{"CRLF: insert at end", "a\r\n", 2, 1, "b\r\n", "a\r\nb\r\n", 3, 3},
		{"multi-byte", "é\n😀\nz\n", 2, 2, "ü\n", "é\nü\nz\n", 3, 8},
		{"lone CR: replace middle", "a\rb\rc\r", 2, 2, "B\r", "a\rB\rc\r", 2, 4},
		{"lone CR: insert at end", "a\r", 2, 1, "b\r", "a\rb\r", 2, 2},
	} {
		from, to, err := LineSpan(c.text, c.start, c.end)
		if err != nil || from != c.from || to != c.to {
			t.Errorf("%s: LineSpan(%d,%d) = %d, %d, %v; want %d, %d", c.name, c.start, c.end, from, to, err, c.from, c.to)
		}
		got, err := SpliceLines(c.text, c.start, c.end, c.hunk)
		if err != nil || got != c.want {
			t.Errorf("%s: SpliceLines(%d,%d,%q) = %q, %v; want %q", c.name, c.start, c.end, c.hunk, got, err, c.want)
		}
	}
}

func TestSpliceLinesErrors(t *testing.T) {
	for _, c := range []struct {
		text       string
		start, end int
		msg        string
	}{
		{"a\nb\nc\n", 0, 0, "start line 0 out of range: the file has 3 lines"},
		{"a\nb\nc\n", 5, 4, "start line 5 out of range"},
		{"a\nb\nc\n", 3, 4, "end line 4 out of range: the file has 3 lines"},
		{"a\n", 1, 2, "end line 2 out of range: the file has 1 line"},
		{"a\nb\nc\n", 3, 1, "end line 1 is before start line 3"},
		{"a\nb", 3, 2, "cannot insert after line 2: the file does not end with a newline"},
		{"", 1, 1, "end line 1 out of range: the file has 0 lines"},
	} {
		_, err := SpliceLines(c.text, c.start, c.end, "x\n")
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("SpliceLines(%q, %d, %d) error %v, want %q", c.text, c.start, c.end, err, c.msg)
		}
	}
}

func TestWithLineEnd(t *testing.T) {
	for _, c := range []struct{ text, end, want string }{
		{"a\nb\r\nc\rd", "\n", "a\nb\nc\nd"},
		{"a\nb\r\nc\rd", "\r\n", "a\r\nb\r\nc\r\nd"},
		{"a\nb\r\nc\rd", "\r", "a\rb\rc\rd"},
	} {
		if got := WithLineEnd(c.text, c.end); got != c.want {
			t.Errorf("WithLineEnd(%q, %q) = %q, want %q", c.text, c.end, got, c.want)
		}
	}
	for line, want := range map[string]string{"a\r\n": "\r\n", "a\n": "\n", "a\r": "\r", "a": ""} {
		if got := Terminator(line); got != want {
			t.Errorf("Terminator(%q) = %q, want %q", line, got, want)
		}
	}
}
