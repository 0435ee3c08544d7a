// Package textpos converts between byte offsets in a UTF-8 text and LSP
// positions (zero-based line, UTF-16 code-unit character; LSP 3.17 "Position"
// and "PositionEncodingKind"). It is the one place where the project does this
// conversion, and the one that numbers a file's lines and splices a hunk in
// place of whole lines (lines.go: Lines, LineSpan, SpliceLines).
package textpos

import (
	"fmt"
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

// New returns a Mapper for text. Lines end at "\n" (a "\r" before it is part
// of the terminator: Offset never returns the offset between them; a lone
// "\r" ends no line).
func New(text string) *Mapper {
	lines := []int{0}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			lines = append(lines, i+1)
		}
	}
	return &Mapper{text: text, lines: lines}
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
func (m *Mapper) Offset(p Position) (int, error) {
	if p.Line < 0 || p.Character < 0 {
		return 0, fmt.Errorf("textpos: negative position %d:%d", p.Line, p.Character)
	}
	if p.Line >= len(m.lines) {
		if p.Line == len(m.lines) && p.Character == 0 {
			return len(m.text), nil
		}
		return 0, fmt.Errorf("textpos: line %d beyond end of text (%d lines)", p.Line, len(m.lines))
	}
	start := m.lines[p.Line]
	end := len(m.text)
	if p.Line+1 < len(m.lines) {
		end = m.lines[p.Line+1] - 1 // the '\n'
		if end > start && m.text[end-1] == '\r' {
			end-- // a position cannot denote "\r|\n" (LSP 3.17 "Position")
		}
	}
	units := 0
	off := start
	for off < end && units < p.Character {
		r, size := utf8.DecodeRuneInString(m.text[off:])
		units += utf16.RuneLen(r)
		if r == utf8.RuneError && size == 1 {
			units = units - utf16.RuneLen(r) + 1
		}
		off += size
	}
	return off, nil
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
