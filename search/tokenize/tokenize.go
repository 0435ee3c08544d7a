// Package tokenize turns code and natural language into the terms the lexical
// stream indexes: identifiers are split at camelCase, PascalCase and
// snake_case boundaries ("parseHTTPRequest_v2" -> parse, http, request, v2),
// everything is lower-cased, English stop words are dropped, and the parts are
// Porter-stemmed, so that a query word ("parses") meets the identifier part
// ("parse"). The whole identifier is kept as a term too when it has several
// parts, so an exact identifier in a query still scores highest.
//
// The same Analyzer must be used for units and queries.
package tokenize

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	porter "github.com/blevesearch/go-porterstemmer"
)

// Analyzer is a configuration of the tokenizer. The zero value splits and
// lower-cases only.
type Analyzer struct {
	Stem      bool // Porter-stem each part (not the whole compound)
	Stop      bool // drop English stop words (but see DropStopParts)
	Compounds bool // also emit a multi-part identifier as one term
	MinLen    int  // drop terms shorter than this many bytes (0: keep all)
	Abbrev    bool // also emit the words a known abbreviation stands for (abbrev.go)
	// Stop keeps stop words that are parts of a multi-part identifier
	// ("isEmpty" -> is, empty; "toArray" -> to, array): there they are
	// morphemes of the name (a predicate, a conversion), and the
	// doc-mined expansion (lexical.Assoc) can learn that "true" or
	// "whether" in a description predicts "is". DropStopParts drops
	// those too (the behaviour before; measured: search/README.md).
	DropStopParts bool
}

// Default is the analyzer the lexical stream uses. Abbrev was measured with
// `repilot-lsp bench search` (+1.3 points Success@10 on the Python standard
// library, +0.4 on JDK java.util); keeping stop words inside identifiers
// (DropStopParts false) on the tuning corpora (+0.1 to +0.3); stemming, stop words and compounds are standard
// practice, kept without an ablation (search/README.md).
var Default = Analyzer{Stem: true, Stop: true, Compounds: true, MinLen: 2, Abbrev: true}

// Token is one term and its ordinal position in the token stream (parts of
// one identifier share the identifier's position).
type Token struct {
	Term string
	Pos  int
}

// Terms appends the terms of text to dst and returns it.
func (a Analyzer) Terms(text string, dst []string) []string {
	a.Each(text, func(t string, _ int) { dst = append(dst, t) })
	return dst
}

// Tokens returns the tokens of text with positions.
func (a Analyzer) Tokens(text string) []Token {
	var out []Token
	a.Each(text, func(t string, pos int) { out = append(out, Token{t, pos}) })
	return out
}

// Each calls emit for every term of text, in order; pos counts identifiers
// (words) from 0.
func (a Analyzer) Each(text string, emit func(term string, pos int)) {
	pos := 0
	Words(text, func(word string, parts []string) {
		emitted := false
		if a.Compounds && len(parts) > 1 {
			whole := strings.ToLower(strings.Trim(word, "_$"))
			if len(whole) >= a.MinLen {
				emit(whole, pos)
				emitted = true
			}
		}
		for _, p := range parts {
			t, ok := a.Part(p)
			if !ok && a.Stop && !a.DropStopParts && len(parts) > 1 && len(p) >= a.MinLen {
				t, ok = strings.ToLower(p), true
			}
			if ok {
				emit(t, pos)
				emitted = true
			}
			if a.Abbrev {
				for _, w := range abbrevs[strings.ToLower(p)] {
					if t, ok := a.Part(w); ok {
						emit(t, pos)
					}
				}
			}
		}
		if emitted {
			pos++
		}
	})
}

// Part returns the term of one identifier part (lower-cased, stemmed), or
// false when the analyzer drops it (too short, a stop word).
func (a Analyzer) Part(p string) (string, bool) {
	p = strings.ToLower(p)
	if len(p) < a.MinLen || (a.Stop && stopWords[p]) {
		return "", false
	}
	if a.Stem && len(p) > 3 && isASCIILetters(p) {
		p = stem(p)
	}
	return p, true
}

// stems memoises Porter stems: a code base repeats its words, and stemming
// was a fifth of building the index. Bounded: past stemsMax words, new
// words are stemmed each time.
var stems = struct {
	sync.RWMutex
	m map[string]string
}{m: map[string]string{}}

const stemsMax = 1 << 17

func stem(p string) string {
	stems.RLock()
	s, ok := stems.m[p]
	stems.RUnlock()
	if ok {
		return s
	}
	s = porter.StemString(p)
	stems.Lock()
	if len(stems.m) < stemsMax {
		stems.m[strings.Clone(p)] = s // p may share a unit's whole text
	}
	stems.Unlock()
	return s
}

// IsStopWord says whether a lower-case word is on the stop list.
func IsStopWord(w string) bool { return stopWords[w] }

// Words calls fn for every identifier-like word of text (letters, digits,
// "_" and "$") with its parts (Split; case preserved). parts is reused
// between calls.
func Words(text string, fn func(word string, parts []string)) {
	var parts []string
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !isWordRune(r) {
			i += size
			continue
		}
		j := i + size
		for j < len(text) {
			r, size := utf8.DecodeRuneInString(text[j:])
			if !isWordRune(r) {
				break
			}
			j += size
		}
		word := text[i:j]
		i = j
		parts = Split(word, parts[:0])
		if len(parts) > 0 {
			fn(word, parts)
		}
	}
}

func isWordRune(r rune) bool {
	return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

func isASCIILetters(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// Split cuts one identifier into its parts, appending them to dst: at "_" and
// "$", at a lower-to-upper change ("getValue" -> get, Value), before the last
// capital of a capital run followed by a lower-case letter ("HTTPServer" ->
// HTTP, Server). Digits stay with the letters before them ("utf8", "int32");
// a digit followed by a capital starts a new part ("Base64Encoder" -> Base64,
// Encoder). Case is preserved.
func Split(word string, dst []string) []string {
	runes := []rune(word)
	start := -1
	for k, r := range runes {
		if r == '_' || r == '$' {
			if start >= 0 {
				dst = append(dst, string(runes[start:k]))
			}
			start = -1
			continue
		}
		if start < 0 {
			start = k
			continue
		}
		prev := runes[k-1]
		switch {
		case unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
			dst = append(dst, string(runes[start:k]))
			start = k
		case unicode.IsLower(r) && unicode.IsUpper(prev) && k-2 >= start && unicode.IsUpper(runes[k-2]):
			// "HTTPServer": cut before the 'S'.
			dst = append(dst, string(runes[start:k-1]))
			start = k - 1
		}
	}
	if start >= 0 {
		dst = append(dst, string(runes[start:]))
	}
	return dst
}

// stopWords is a short English stop list (the Lucene/Snowball core words);
// no programming keywords are in it, as those carry meaning in queries
// ("return", "class", "new").
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an and are as at be been but by for from has have if in into is it its
		of on or such that the their then there these they this to was were which will with would
		should can could may might must shall do does did not no so than too very
		i me my we our you your he him his she her them what when where who whom why how`) {
		m[w] = true
	}
	return m
}()
