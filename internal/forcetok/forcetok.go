// Package forcetok splits a known hunk (a bug fixture's developer fix, a
// mutant of it) into the tokens that the engine soundness checks force
// through the completion engine one by one: whole Java tokens, and fixed-size
// chunks that cut identifiers anywhere, as a language model's tokens do.
// The engine's tests (engine/soundness_test.go, situations_test.go,
// timing_test.go) and bench engine (bench/enginebench) use the same splits,
// so that their soundness numbers are about the same tokens.
//
// It depends on javalex only, so that package engine's own tests can import
// it (a helper in bench/enginebench, which imports engine, cannot be).
package forcetok

import "github.com/repilot-lsp/repilot-lsp/javalex"

// LexTokens splits s into javalex tokens, each carrying the whitespace
// before it; trailing whitespace is a last token of its own. The tokens
// concatenate to s.
func LexTokens(s string) []string {
	var out []string
	prev := 0
	for _, t := range javalex.Lex(s) {
		out = append(out, s[prev:t.End])
		prev = t.End
	}
	if prev < len(s) {
		out = append(out, s[prev:])
	}
	return out
}

// Chunks splits s into n-byte pieces, each extended to the next rune
// boundary so that every piece is valid UTF-8 when s is. The pieces
// concatenate to s; n < 1 is taken as 1.
func Chunks(s string, n int) []string {
	n = max(n, 1)
	var out []string
	for len(s) > 0 {
		k := min(n, len(s))
		for k < len(s) && s[k]&0xC0 == 0x80 {
			k++
		}
		out = append(out, s[:k])
		s = s[k:]
	}
	return out
}
