package textpos

import "testing"

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
