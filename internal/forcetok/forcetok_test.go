package forcetok

// forcetok_test.go checks that both splits cover their input exactly.

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLexTokens(t *testing.T) {
	got := LexTokens("        int off = a.b(c);  \n")
	want := []string{"        int", " off", " =", " a", ".", "b", "(", "c", ")", ";", "  \n"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("LexTokens:\n got %q\nwant %q", got, want)
	}
}

func TestChunksKeepRunes(t *testing.T) {
	s := "x = \"héllo→\";\n"
	for n := 0; n <= 4; n++ {
		got := Chunks(s, n)
		if strings.Join(got, "") != s {
			t.Errorf("Chunks(%d) = %q: does not join to the input", n, got)
		}
		for _, c := range got {
			if !utf8.ValidString(c) || len(c) < max(n, 1) && c != got[len(got)-1] {
				t.Errorf("Chunks(%d): piece %q", n, c)
			}
		}
	}
}
