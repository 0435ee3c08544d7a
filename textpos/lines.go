package textpos

// lines.go numbers a file's lines as editors and diff tools do (from 1; a
// text ending in "\n" has no empty last line) and splices a hunk in place of
// whole lines: the one rule for cutting a file around a hunk (repair, the bug
// corpus, bench engine).

import (
	"fmt"
	"strings"
)

// Lines splits text into lines, each keeping its "\n" (a "\r" before it stays
// in the line, so "\r\n" is kept whole); a last line without "\n" is a line as
// it is. "" has no lines. strings.Join(Lines(text), "") == text.
func Lines(text string) []string {
	var lines []string
	for text != "" {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			lines = append(lines, text)
			break
		}
		lines = append(lines, text[:i+1])
		text = text[i+1:]
	}
	return lines
}

// CountLines is len(Lines(text)): the newlines, plus one for a last line
// without "\n". (Mapper.LineCount counts LSP lines instead, where a text
// ending in "\n" has an empty last line.)
func CountLines(text string) int {
	n := strings.Count(text, "\n")
	if text != "" && text[len(text)-1] != '\n' {
		n++
	}
	return n
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
	if from > 0 && text[from-1] != '\n' {
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
	for i := 1; i < l; i++ {
		j := strings.IndexByte(text[off:], '\n')
		if j < 0 {
			return len(text)
		}
		off += j + 1
	}
	return off
}

func plural(n int) string {
	if n == 1 {
		return "1 line"
	}
	return fmt.Sprintf("%d lines", n)
}

// WithLineEnd returns text with every line terminator ("\n" or "\r\n")
// written as end ("\n" or "\r\n"), so that text a model wrote with "\n"
// leaves no mixed line ends in a "\r\n" file (repair's hunks, ghost text).
func WithLineEnd(text, end string) string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	if end == "\n" {
		return text
	}
	return strings.ReplaceAll(text, "\n", end)
}
