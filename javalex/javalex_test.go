// Tests for Lex, ContextAt and TokenAt, plus the fuzz target FuzzLex.

package javalex

import (
	"fmt"
	"strings"
	"testing"
)

// render shows tokens as "Kind:text" (with "!" for unterminated), space separated.
func render(toks []Token) string {
	var b strings.Builder
	for i, t := range toks {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s:%s", t.Kind, t.Text)
		if t.Unterminated {
			b.WriteByte('!')
		}
	}
	return b.String()
}

func TestLex(t *testing.T) {
	tests := []struct{ src, want string }{
		{"", ""},
		{"   \n\t", ""},
		{"int x = 1;", "Keyword:int Ident:x Operator:= Number:1 Operator:;"},
		{"a>>>=b", "Ident:a Operator:>>>= Ident:b"},
		{"a>>>b>>c>b", "Ident:a Operator:>>> Ident:b Operator:>> Ident:c Operator:> Ident:b"},
		{"List<List<T>>", "Ident:List Operator:< Ident:List Operator:< Ident:T Operator:>>"},
		{"x -> y::z", "Ident:x Operator:-> Ident:y Operator::: Ident:z"},
		{"int... xs", "Keyword:int Operator:... Ident:xs"},
		{"a..b", "Ident:a Operator:. Operator:. Ident:b"},
		{"i<=n&&j!=0||!k", "Ident:i Operator:<= Ident:n Operator:&& Ident:j Operator:!= Number:0 Operator:|| Operator:! Ident:k"},
		{"i++ + --j", "Ident:i Operator:++ Operator:+ Operator:-- Ident:j"},
		{"a<<=2 %= ^= ~?:@", "Ident:a Operator:<<= Number:2 Operator:%= Operator:^= Operator:~ Operator:? Operator:: Operator:@"},
		{"1.5 1e10 0x1F 1_000L .5f", "Number:1.5 Number:1e10 Number:0x1F Number:1_000L Number:.5f"},
		{"1. 1.e5 2E-3d 0b1010 017 0x1.8p3f 3f", "Number:1. Number:1.e5 Number:2E-3d Number:0b1010 Number:017 Number:0x1.8p3f Number:3f"},
		{"1.x", "Number:1. Ident:x"},
		{"a.b(1).c", "Ident:a Operator:. Ident:b Operator:( Number:1 Operator:) Operator:. Ident:c"},
		{"1e", "Number:1e"},
		{"1e+", "Number:1e+"},
		{"1e+x", "Number:1e Operator:+ Ident:x"},
		{"x-1", "Ident:x Operator:- Number:1"},
		{`"a\"b" 'c' '\''`, `String:"a\"b" Char:'c' Char:'\''`},
		{`"abc`, `String:"abc!`},
		{"\"abc\nx", "String:\"abc! Ident:x"},
		{`"a\`, `String:"a\!`},
		{`'`, `Char:'!`},
		{`""`, `String:""`},
		{"\"\"\"\n  hi \"\" \\\"\"\" \n\"\"\" x", "TextBlock:\"\"\"\n  hi \"\" \\\"\"\" \n\"\"\" Ident:x"},
		{"\"\"\"\n  open", "TextBlock:\"\"\"\n  open!"},
		{"// c\nx", "LineComment:// c Ident:x"},
		{"// c\r\nx", "LineComment:// c Ident:x"},
		{"/* b */x/** d */y/**/z", "BlockComment:/* b */ Ident:x Javadoc:/** d */ Ident:y BlockComment:/**/ Ident:z"},
		{"/* open", "BlockComment:/* open!"},
		{"/** open", "Javadoc:/** open!"},
		{"/*/", "BlockComment:/*/!"},
		{"$x _y a$1 héllo 变量 x\u0301", "Ident:$x Ident:_y Ident:a$1 Ident:héllo Ident:变量 Ident:x\u0301"},
		{"var record yield _ true null", "Ident:var Ident:record Ident:yield Ident:_ Keyword:true Keyword:null"},
		{"# \\ `", "Invalid:# Invalid:\\ Invalid:`"},
		{"a\xffb", "Ident:a Invalid:\xff Ident:b"},
		{"a\u00a0b", "Ident:a Invalid:\u00a0 Ident:b"},
		{"x = a / b;", "Ident:x Operator:= Ident:a Operator:/ Ident:b Operator:;"},
	}
	for _, tc := range tests {
		got := render(Lex(tc.src))
		if got != tc.want {
			t.Errorf("Lex(%q)\n got %s\nwant %s", tc.src, got, tc.want)
		}
	}
}

func TestLexOffsets(t *testing.T) {
	src := "  if (x)\n\t{ y; }"
	toks := Lex(src)
	want := [][2]int{{2, 4}, {5, 6}, {6, 7}, {7, 8}, {10, 11}, {12, 13}, {13, 14}, {15, 16}}
	if len(toks) != len(want) {
		t.Fatalf("got %d tokens, want %d: %s", len(toks), len(want), render(toks))
	}
	for i, tok := range toks {
		if tok.Start != want[i][0] || tok.End != want[i][1] {
			t.Errorf("token %d %q: [%d,%d), want [%d,%d)", i, tok.Text, tok.Start, tok.End, want[i][0], want[i][1])
		}
	}
}

func TestLexCode(t *testing.T) {
	got := render(LexCode("a /* x */ b // y\n/** z */ c"))
	if want := "Ident:a Ident:b Ident:c"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestContextAt(t *testing.T) {
	// '|' marks the caret; it is removed before calling ContextAt.
	tests := []struct {
		src  string
		want Context
	}{
		{"|x", Code},
		{"x|", Code},
		{"foo|bar", Code},
		{"a |= b", Code},
		{`s = |"abc"`, Code},
		{`s = "|abc"`, InString},
		{`s = "ab|c"`, InString},
		{`s = "abc|"`, InString},
		{`s = "abc"|`, Code},
		{`s = "abc|`, InString},
		{"s = \"abc|\nx", InString},
		{"s = \"abc\n|x", Code},
		{`c = '|`, InChar},
		{`c = 'a'|`, Code},
		{`c = '|a'`, InChar},
		{"x; // comm|ent\ny", InLineComment},
		{"x; // comment|\ny", InLineComment},
		{"x; // comment\n|y", Code},
		{"x; // comment|", InLineComment},
		{"x; /|/ comment", InLineComment},
		{"x; |// comment", Code},
		{"/* a | b */", InBlockComment},
		{"/* a b */|", Code},
		{"/* a b |", InBlockComment},
		{"/** doc |*/", InJavadoc},
		{"\"\"\"\n  text |\n\"\"\"", InTextBlock},
		{"\"\"\"\n  text\n\"\"\"|", Code},
		{"\"\"\"\n  unterminated |", InTextBlock},
		{"x = 1.|", Code},
	}
	for _, tc := range tests {
		off := strings.Index(tc.src, "|")
		src := tc.src[:off] + tc.src[off+1:]
		if got := ContextAt(src, off); got != tc.want {
			t.Errorf("ContextAt(%q, %d) = %v, want %v", src, off, got, tc.want)
		}
	}
	if got := ContextAt("x", -5); got != Code {
		t.Errorf("negative offset: %v", got)
	}
	if got := ContextAt(`"ab`, 99); got != InString {
		t.Errorf("offset past end: %v", got)
	}
}

func TestTokenAt(t *testing.T) {
	src := "foo.getNa"
	tok, ok := TokenAt(src, len(src))
	if ok {
		t.Errorf("caret after a complete identifier should be between tokens, got %+v", tok)
	}
	tok, ok = TokenAt(src, 6)
	if !ok || tok.Text != "getNa" {
		t.Errorf("TokenAt(%q, 6) = %+v, %v", src, tok, ok)
	}
}

// checkInvariants verifies the Lex contract on any input.
func checkInvariants(t *testing.T, src string) {
	toks := Lex(src)
	prev := 0
	for i, tok := range toks {
		if tok.Start < prev || tok.End <= tok.Start || tok.End > len(src) {
			t.Fatalf("token %d %+v out of order or bounds (prev end %d, len %d)", i, tok, prev, len(src))
		}
		if tok.Text != src[tok.Start:tok.End] {
			t.Fatalf("token %d text %q != src slice %q", i, tok.Text, src[tok.Start:tok.End])
		}
		for j := prev; j < tok.Start; j++ {
			if !IsSpace(src[j]) {
				t.Fatalf("gap byte %d (%q) before token %d is not whitespace", j, src[j], i)
			}
		}
		prev = tok.End
	}
	for j := prev; j < len(src); j++ {
		if !IsSpace(src[j]) {
			t.Fatalf("trailing byte %d (%q) is not whitespace and not in a token", j, src[j])
		}
	}
	// ContextAt is quadratic over all offsets; sample at most 64 of them.
	step := max(1, len(src)/64)
	for off := 0; off <= len(src); off += step {
		_ = ContextAt(src, off)
	}
}

func FuzzLex(f *testing.F) {
	for _, s := range []string{
		"", "class A { int x = 1.5e3f; }", `"unterminated`, "/* open", "\"\"\"\nblock",
		"a>>>=b->c::d...", "'\\'", "0x1.8p-3 .5 1_000L", "héllo \xff", "// c\r\n/**/",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		checkInvariants(t, src)
	})
}

func BenchmarkLex(b *testing.B) {
	src := strings.Repeat("public int f(int x) { return x >>> 2 + \"s\".length(); } // c\n", 200)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		Lex(src)
	}
}
