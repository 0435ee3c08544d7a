package textpos

// lines.go numbers a file's lines as editors and diff tools do (from 1; a
// text ending in "\n" has no empty last line) and splices a hunk in place of
// whole lines: the one rule for cutting a file around a hunk (repair, the bug
// corpus, bench engine).

import (
	"fmt"
	"strings"
)

// Lines splits text into lines, each keeping its terminator: "\n", "\r\n"
// (kept whole) or a lone "\r" (LSP 3.17 "Text Documents", JLS 3.4
// LineTerminator; Mapper numbers lines the same way); a last line without
// one is a line as it is. "" has no lines. strings.Join(Lines(text), "") ==
// text.
func Lines(text string) []string {
	var lines []string
	for text != "" {
		i := lineEnd(text)
		lines = append(lines, text[:i])
		text = text[i:]
	}
	return lines
}

// lineEnd returns the offset just after the first line terminator of text,
// else len(text).
func lineEnd(text string) int {
	i := strings.IndexAny(text, "\r\n")
	switch {
	case i < 0:
		return len(text)
	case text[i] == '\r' && i+1 < len(text) && text[i+1] == '\n':
		return i + 2
	}
	return i + 1
}

// CountLines is len(Lines(text)): the line terminators, plus one for a last
// line without one. (Mapper.LineCount counts LSP lines instead, where a text
// ending in a terminator has an empty last line.)
func CountLines(text string) int {
	n := Breaks(text)
	if text != "" && !EndsLine(text) {
		n++
	}
	return n
}

// Breaks counts the line terminators of text: "\n", "\r\n" and lone "\r"
// each once. The line of offset len(text) in a text that starts at line l is
// l + Breaks(text) (as LSP, JDT LS and javac number lines).
func Breaks(text string) int {
	return strings.Count(text, "\n") + strings.Count(text, "\r") - strings.Count(text, "\r\n")
}

// EndsLine reports whether text ends with a line terminator ("\n", or a
// "\r" taken as a lone one).
func EndsLine(text string) bool {
	return strings.HasSuffix(text, "\n") || strings.HasSuffix(text, "\r")
}

// Terminator returns the line terminator line ends with ("\r\n", "\n",
// "\r"), or "" for none.
func Terminator(line string) string {
	switch {
	case strings.HasSuffix(line, "\r\n"):
		return "\r\n"
	case strings.HasSuffix(line, "\n"):
		return "\n"
	case strings.HasSuffix(line, "\r"):
		return "\r"
	}
	return ""
}

// LineSpan returns the byte offsets [from, to) of lines start..end of text
// (1-based, inclusive), terminators included. end == start-1 is an insertion
// point: the empty span where line start begins, start running up to
// CountLines(text)+1 (the end of the text). It fails, with a message that
// names the lines, when start < 1, end > CountLines(text), end < start-1, or
// for an insertion after a last line that lacks its "\n" (whatever is
// inserted would continue that line).
func LineSpan(text string, start, end int) (from, to int, err error) {
	n := CountLines(text)
	if start < 1 || start > n+1 {
		return 0, 0, fmt.Errorf("start line %d out of range: the file has %s", start, plural(n))
	}
	if end > n {
		return 0, 0, fmt.Errorf("end line %d out of range: the file has %s", end, plural(n))
	}
	if end < start-1 {
		return 0, 0, fmt.Errorf("end line %d is before start line %d (an insertion has end = start-1)", end, start)
	}
	from, to = lineOffset(text, start), lineOffset(text, end+1)
	if from > 0 && !EndsLine(text[:from]) {
		return 0, 0, fmt.Errorf("cannot insert after line %d: the file does not end with a newline", n)
	}
	return from, to, nil
}

// SpliceLines returns text with lines start..end (1-based, inclusive)
// replaced by hunk, exactly as given: end == start-1 inserts hunk before line
// start, and hunk "" deletes the lines. hunk should end with "\n" unless it is
// empty or replaces the text's unterminated last line; a "\r\n" file wants
// "\r\n" in hunk too. The errors are LineSpan's.
func SpliceLines(text string, start, end int, hunk string) (string, error) {
	from, to, err := LineSpan(text, start, end)
	if err != nil {
		return "", err
	}
	return text[:from] + hunk + text[to:], nil
}

// lineOffset returns the byte offset where 1-based line l starts
// (len(text) for the line after the last).
func lineOffset(text string, l int) int {
	off := 0
	for i := 1; i < l && off < len(text); i++ {
		off += lineEnd(text[off:])
	}
	return off
}

func plural(n int) string {
	if n == 1 {
		return "1 line"
	}
	return fmt.Sprintf("%d lines", n)
}

// WithLineEnd returns text with every line terminator ("\n", "\r\n" or a
// lone "\r") written as end ("\n", "\r\n" or "\r"), so that text a model
// wrote with "\n" leaves no mixed line ends in a "\r\n" or "\r" file
// (repair's hunks, ghost text).
func WithLineEnd(text, end string) string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	if end == "\n" {
		return text
	}
	return strings.ReplaceAll(text, "\n", end)
}
