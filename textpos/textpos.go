// Package textpos converts between byte offsets in a UTF-8 text and LSP
// positions (zero-based line, UTF-16 code-unit character; LSP 3.17 "Position"
// and "PositionEncodingKind"). It is the one place where the project does this
// conversion, and the one that numbers a file's lines and splices a hunk in
// place of whole lines (lines.go: Lines, LineSpan, SpliceLines).
package textpos

import (
	"fmt"
	"slices"
	"sort"
	"unicode/utf16"
	"unicode/utf8"
)

// Position is an LSP position: Line is zero-based, Character counts UTF-16
// code units from the start of the line.
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// Mapper maps positions for one text. Build it once per text version.
type Mapper struct {
	text  string
	lines []int // byte offset of each line start
}

// New returns a Mapper for text. Lines end at "\n", "\r\n" or a lone "\r"
// (LSP 3.17 "Text Documents"; Java's LineTerminator, JLS 3.4, is the same):
// Offset never returns the offset between the "\r" and "\n" of a "\r\n".
func New(text string) *Mapper {
	return &Mapper{text: text, lines: lineStarts(text, 0, len(text), []int{0})}
}

// lineStarts appends to lines the line starts l with from <= l <= to (and
// 0 < l <= len(text)) in ascending order: the offsets just after a "\n", or
// after a "\r" that no "\n" follows.
func lineStarts[T string | []byte](text T, from, to int, lines []int) []int {
	from = max(from, 1)
	to = min(to, len(text))
	for l := from; l <= to; l++ {
		if isLineStart(text, l) {
			lines = append(lines, l)
		}
	}
	return lines
}

// isLineStart reports whether a line starts at offset l (0 < l <=
// len(text)): text[l-1] ends a line.
func isLineStart[T string | []byte](text T, l int) bool {
	switch text[l-1] {
	case '\n':
		return true
	case '\r':
		return l == len(text) || text[l] != '\n'
	}
	return false
}

// LineCount is the number of lines (a text ending in "\n" has an empty last line).
func (m *Mapper) LineCount() int { return len(m.lines) }

// LineStart returns the byte offset where zero-based line starts; a line past
// the end maps to len(text).
func (m *Mapper) LineStart(line int) int {
	if line < 0 {
		return 0
	}
	if line >= len(m.lines) {
		return len(m.text)
	}
	return m.lines[line]
}

// Offset converts p to a byte offset. A character past the end of its line
// clamps to the line end (as the specification asks), before a "\r\n" as
// before a "\n"; a line past the end of the text is an error.
func (m *Mapper) Offset(p Position) (int, error) { return offsetIn(m.text, m.lines, p) }

// offsetIn is Offset on text with line index lines (a Mapper's or a
// Buffer's).
func offsetIn[T string | []byte](text T, lines []int, p Position) (int, error) {
	if p.Line < 0 || p.Character < 0 {
		return 0, fmt.Errorf("textpos: negative position %d:%d", p.Line, p.Character)
	}
	if p.Line >= len(lines) {
		if p.Line == len(lines) && p.Character == 0 {
			return len(text), nil
		}
		return 0, fmt.Errorf("textpos: line %d beyond end of text (%d lines)", p.Line, len(lines))
	}
	start := lines[p.Line]
	end := len(text)
	if p.Line+1 < len(lines) {
		end = lines[p.Line+1] - 1 // the '\n' or lone '\r'
		if text[end] == '\n' && end > start && text[end-1] == '\r' {
			end-- // a position cannot denote "\r|\n" (LSP 3.17 "Position")
		}
	}
	units := 0
	off := start
	for off < end && units < p.Character {
		r, size := utf8.DecodeRuneInString(string(text[off:min(off+utf8.UTFMax, len(text))]))
		units += utf16.RuneLen(r)
		if r == utf8.RuneError && size == 1 {
			units = units - utf16.RuneLen(r) + 1
		}
		off += size
	}
	return off, nil
}

// Buffer is a text edited in place, with its line index kept up to date
// by each edit: for applying many edits in a row (an editor's "replace
// all" sends one per match) without building the index of, or copying,
// the whole text for each. Positions map as a Mapper's do. Not safe for
// concurrent use.
type Buffer struct {
	text  []byte
	lines []int
}

// NewBuffer returns a Buffer holding text.
func NewBuffer(text string) *Buffer {
	return &Buffer{text: []byte(text), lines: New(text).lines}
}

// Offset is Mapper.Offset on the buffer's current text.
func (b *Buffer) Offset(p Position) (int, error) { return offsetIn(b.text, b.lines, p) }

// Len is the text's length in bytes.
func (b *Buffer) Len() int { return len(b.text) }

// String returns the text.
func (b *Buffer) String() string { return string(b.text) }

// Splice replaces text[start:end] by s (0 <= start <= end <= Len(); it
// panics otherwise). Cost: moving the text after end, and the line starts
// after it, once; s and the byte on each side of it are the only text
// scanned (a "\r" before start or after s may join or part from a "\n").
func (b *Buffer) Splice(start, end int, s string) {
	if start < 0 || end < start || end > len(b.text) {
		panic(fmt.Sprintf("textpos: Splice(%d, %d) of a %d-byte text", start, end, len(b.text)))
	}
	d := len(s) - (end - start)
	n := len(b.text)
	if d > 0 {
		b.text = append(b.text, make([]byte, d)...)
	}
	copy(b.text[end+d:], b.text[end:n])
	copy(b.text[start:], s)
	b.text = b.text[:n+d]
	// Whether a line starts at l depends on the bytes at l-1 and l
	// (isLineStart): those before start stay, those in [start, end+1] of
	// the old text are found again in [start, start+len(s)+1] of the new,
	// and those after move by d.
	i := sort.SearchInts(b.lines, max(start, 1))
	j := sort.SearchInts(b.lines, end+2)
	added := lineStarts(b.text, start, start+len(s)+1, nil)
	b.lines = slices.Replace(b.lines, i, j, added...)
	for k := i + len(added); k < len(b.lines); k++ {
		b.lines[k] += d
	}
}

// Position converts a byte offset (clamped to [0, len(text)]) to an LSP position.
func (m *Mapper) Position(offset int) Position {
	if offset < 0 {
		offset = 0
	}
	if offset > len(m.text) {
		offset = len(m.text)
	}
	lo, hi := 0, len(m.lines)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if m.lines[mid] <= offset {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	units := 0
	for off := m.lines[lo]; off < offset; {
		r, size := utf8.DecodeRuneInString(m.text[off:])
		if r == utf8.RuneError && size == 1 {
			units++
		} else {
			units += utf16.RuneLen(r)
		}
		off += size
	}
	return Position{Line: lo, Character: units}
}
