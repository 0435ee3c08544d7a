package lm

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestClipLines: TailLines and HeadLines keep the text nearest the middle,
// within n bytes, cut at a line start when the kept bytes hold a line break
// and otherwise between characters.
func TestClipLines(t *testing.T) {
	text := "a\nbb\nccc\n"
	for _, c := range []struct {
		n          int
		tail, head string
	}{
		{100, text, text},
		{9, text, text},
		{8, "bb\nccc\n", "a\nbb\n"},
		{4, "ccc\n", "a\n"},
		{3, "", "a\n"},
		{1, "", "a"},
		{0, "", ""},
		{-1, "", ""},
	} {
		if got := TailLines(text, c.n); got != c.tail {
			t.Errorf("TailLines(%q, %d) = %q, want %q", text, c.n, got, c.tail)
		}
		if got := HeadLines(text, c.n); got != c.head {
			t.Errorf("HeadLines(%q, %d) = %q, want %q", text, c.n, got, c.head)
		}
	}
	long := strings.Repeat("é漢😀", 50) // 2, 3 and 4 bytes: no '\n'
	for n := 0; n <= len(long); n++ {
		tl, hl := TailLines(long, n), HeadLines(long, n)
		if !utf8.ValidString(tl) || !strings.HasSuffix(long, tl) || len(tl) > n || len(tl) < n-3 {
			t.Fatalf("TailLines(long, %d) = %d bytes, valid %v", n, len(tl), utf8.ValidString(tl))
		}
		if !utf8.ValidString(hl) || !strings.HasPrefix(long, hl) || len(hl) > n || len(hl) < n-3 {
			t.Fatalf("HeadLines(long, %d) = %d bytes, valid %v", n, len(hl), utf8.ValidString(hl))
		}
	}
}
