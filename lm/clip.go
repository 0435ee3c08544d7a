package lm

// clip.go cuts a FIM context's prefix and suffix to the text nearest the
// middle, at line starts: what a model sees of a document larger than it
// should be given (inline's byte bounds, lm/openai's fit to the server's
// context).

import (
	"strings"
	"unicode/utf8"
)

// TailLines returns the end of prefix within n bytes (n >= 0): all of it
// when len(prefix) <= n, else the lines that start within its last n bytes
// (cut after a '\n'), so the text nearest the middle is kept whole. When
// those n bytes hold no '\n' (one very long line), the cut is at the first
// rune start within them, so the result is never a broken UTF-8 character
// (valid UTF-8 in, valid UTF-8 out). The result is a suffix of prefix of at
// most n bytes.
func TailLines(prefix string, n int) string {
	n = max(n, 0)
	if len(prefix) <= n {
		return prefix
	}
	p := prefix[len(prefix)-n:]
	if prefix[len(prefix)-n-1] == '\n' {
		return p // starts at a line start
	}
	if i := strings.IndexByte(p, '\n'); i >= 0 {
		return p[i+1:]
	}
	for len(p) > 0 && !utf8.RuneStart(p[0]) {
		p = p[1:]
	}
	return p
}

// HeadLines returns the start of suffix within n bytes (n >= 0): all of it
// when len(suffix) <= n, else its whole lines within its first n bytes (cut
// after the last '\n' in them). When those n bytes hold no '\n', the cut is
// at the last rune start at or before byte n, so the result is never a
// broken UTF-8 character. The result is a prefix of suffix of at most n
// bytes.
func HeadLines(suffix string, n int) string {
	n = max(n, 0)
	if len(suffix) <= n {
		return suffix
	}
	p := suffix[:n]
	if i := strings.LastIndexByte(p, '\n'); i >= 0 {
		return p[:i+1]
	}
	for n > 0 && !utf8.RuneStart(suffix[n]) {
		n--
	}
	return suffix[:n]
}
