package textpos

import (
	"fmt"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	text := "a😀b\nçx\r\n\nlast"
	m := New(text)
	cases := []struct {
		off int
		pos Position
	}{
		{0, Position{0, 0}},
		{1, Position{0, 1}},
		{5, Position{0, 3}}, // after the emoji: two UTF-16 units
		{6, Position{0, 4}},
		{7, Position{1, 0}},
		{9, Position{1, 1}}, // ç is two bytes, one unit
		{13, Position{3, 0}},
		{len(text), Position{3, 4}},
	}
	for _, c := range cases {
		if got := m.Position(c.off); got != c.pos {
			t.Errorf("Position(%d) = %v, want %v", c.off, got, c.pos)
		}
		if got, err := m.Offset(c.pos); err != nil || got != c.off {
			t.Errorf("Offset(%v) = %d, %v; want %d", c.pos, got, err, c.off)
		}
	}
	if off, _ := m.Offset(Position{0, 99}); off != 6 {
		t.Errorf("clamp: got %d", off)
	}
	// LSP 3.17 "Position": a position cannot denote "\r|\n"; a character
	// past the end of a "\r\n" line clamps to before the "\r".
	if off, _ := m.Offset(Position{1, 99}); off != 10 {
		t.Errorf("clamp on a CRLF line: got %d, want 10 (before the \\r)", off)
	}
	if off, _ := m.Offset(Position{1, 3}); off != 10 {
		t.Errorf("character 3 of a 2-character CRLF line: got %d, want 10", off)
	}
	if _, err := m.Offset(Position{9, 0}); err == nil {
		t.Error("line past end accepted")
	}
}

// TestBufferSplice: after each of many random splices (line breaks, "\r\n",
// multi-byte and astral characters in and out), a Buffer holds the text
// and maps every position as a Mapper built afresh on that text does.
func TestBufferSplice(t *testing.T) {
	pieces := []string{"", "a", "\n", "\r\n", "é", "😀", "ab\ncd", "\n\n", "x\r", "\r"}
	text := "a😀b\nçx\r\n\nlast"
	b := NewBuffer(text)
	seed := uint32(1)
	next := func(n int) int { // xorshift: deterministic, no import
		seed ^= seed << 13
		seed ^= seed >> 17
		seed ^= seed << 5
		return int(seed % uint32(n))
	}
	for step := 0; step < 3000; step++ {
		start := next(len(text) + 1)
		end := start + next(len(text)-start+1)
		if end-start > 8 {
			end = start + next(9)
		}
		s := pieces[next(len(pieces))] + pieces[next(len(pieces))]
		text = text[:start] + s + text[end:]
		b.Splice(start, end, s)
		if b.String() != text || b.Len() != len(text) {
			t.Fatalf("step %d: text %q, want %q", step, b.String(), text)
		}
		m := New(text)
		if fmt.Sprint(b.lines) != fmt.Sprint(m.lines) {
			t.Fatalf("step %d: line starts %v, want %v", step, b.lines, m.lines)
		}
		for line := 0; line <= m.LineCount(); line++ {
			for ch := 0; ch < 6; ch++ {
				p := Position{line, ch}
				got, gerr := b.Offset(p)
				want, werr := m.Offset(p)
				if got != want || (gerr == nil) != (werr == nil) {
					t.Fatalf("step %d: Offset(%v) = %d, %v; Mapper says %d, %v", step, p, got, gerr, want, werr)
				}
			}
		}
	}
}

// TestLoneCR: LSP 3.17 "Text Documents" ends lines at "\n", "\r\n" and a
// lone "\r"; positions on a classic-Mac or mixed file map as an editor
// numbers its lines.
func TestLoneCR(t *testing.T) {
	text := "ab\rcd\r\nef\ngh\r\rij\r"
	m := New(text)
	if m.LineCount() != 7 {
		t.Errorf("LineCount = %d, want 7 (ab, cd, ef, gh, \"\", ij, \"\")", m.LineCount())
	}
	for _, c := range []struct {
		pos Position
		off int
	}{
		{Position{0, 2}, 2}, {Position{0, 9}, 2}, {Position{1, 0}, 3}, {Position{1, 9}, 5},
		{Position{2, 0}, 7}, {Position{3, 1}, 11}, {Position{4, 0}, 13}, {Position{4, 5}, 13},
		{Position{5, 2}, 16}, {Position{6, 0}, 17},
	} {
		if got, err := m.Offset(c.pos); err != nil || got != c.off {
			t.Errorf("Offset(%v) = %d, %v; want %d", c.pos, got, err, c.off)
		}
		if c.pos.Character <= 2 {
			if got := m.Position(c.off); got != c.pos {
				t.Errorf("Position(%d) = %v, want %v", c.off, got, c.pos)
			}
		}
	}
	// A splice that joins a "\r" to a "\n" (or parts them) changes the
	// line count by one; the Buffer must see it.
	b := NewBuffer("a\rb")
	b.Splice(2, 2, "\n")
	if got := b.lines; fmt.Sprint(got) != fmt.Sprint(New("a\r\nb").lines) {
		t.Errorf("after joining \\r and \\n: line starts %v, want %v", got, New("a\r\nb").lines)
	}
	b.Splice(1, 2, "")
	if got := b.lines; fmt.Sprint(got) != fmt.Sprint(New("a\nb").lines) {
		t.Errorf("after deleting the \\r: line starts %v, want %v", got, New("a\nb").lines)
	}
	b.Splice(1, 1, "\r")
	b.Splice(2, 2, "x")
	if got := b.lines; fmt.Sprint(got) != fmt.Sprint(New("a\rx\nb").lines) {
		t.Errorf("after parting \\r from \\n: line starts %v, want %v", got, New("a\rx\nb").lines)
	}
}
