package repair

// diff.go splits a file around a hunk and writes a patch as a unified diff
// (GNU diffutils "Unified Format"; `git apply` and `patch -p1` read it). The
// hunk's location is known, so no diff algorithm runs: the changed lines are
// the hunk's, trimmed of lines the candidate left equal, with 3 lines of
// context.

import (
	"fmt"
	"strings"

	"github.com/repilot-lsp/repilot-lsp/textpos"
)

// DiffContext is the number of context lines around each change.
const DiffContext = 3

// hunkSite is a file split around the buggy lines: Prefix + Buggy + Suffix is
// the file text.
type hunkSite struct {
	Prefix, Buggy, Suffix string
	Indent                string // leading whitespace of the hunk's first line (see lm.FIM)
	Insert                bool   // the hunk inserts lines (end = start-1): Buggy is ""
}

// splitHunk splits text around lines start..end (1-based, inclusive;
// end == start-1 is an insertion before line start), by textpos.LineSpan's
// rule: the file has textpos.CountLines(text) lines; start may be one more to
// insert at the end, but only when the text ends with a newline.
func splitHunk(text string, start, end int) (hunkSite, error) {
	a, b, err := textpos.LineSpan(text, start, end)
	if err != nil {
		return hunkSite{}, err
	}
	site := hunkSite{Prefix: text[:a], Buggy: text[a:b], Suffix: text[b:], Insert: end == start-1}
	site.Indent = indentNear(text, start, textpos.CountLines(text))
	return site, nil
}

// lineEnd is the line terminator of the hunk's place in the file: that of
// the buggy lines' first line, else (an insertion) of the line before, else
// of the line after; "\r\n" or a lone "\r" when it is that (textpos.Lines),
// else "\n".
func (s hunkSite) lineEnd() string {
	for _, t := range []string{s.Buggy, lastLine(s.Prefix), s.Suffix} {
		if ls := textpos.Lines(t); len(ls) > 0 {
			if end := textpos.Terminator(ls[0]); end != "" {
				return end
			}
		}
	}
	return "\n"
}

// lastLine is the last line of text with its terminator ("" for "").
func lastLine(text string) string {
	ls := textpos.Lines(text)
	if len(ls) == 0 {
		return ""
	}
	return ls[len(ls)-1]
}

// indentNear returns the leading whitespace of line start, or of the nearest
// non-blank line below it, else above it.
func indentNear(text string, start, n int) string {
	lines := textpos.Lines(text)
	get := func(l int) (string, bool) {
		if l < 1 || l > len(lines) || l > n {
			return "", false
		}
		s := lines[l-1]
		t := strings.TrimLeft(s, " \t")
		if strings.TrimSpace(t) == "" {
			return "", false
		}
		return s[:len(s)-len(t)], true
	}
	for l := start; l <= n; l++ {
		if ind, ok := get(l); ok {
			return ind
		}
	}
	for l := start - 1; l >= 1; l-- {
		if ind, ok := get(l); ok {
			return ind
		}
	}
	return ""
}

// unifiedDiff returns the unified diff that turns site's file into the file
// with hunk in place of the buggy lines, for path (slash-separated, relative
// to the project root), or "" when the texts are equal.
func unifiedDiff(path string, site hunkSite, hunk string) string {
	// Lines keep their "\n"; textpos.Lines is the same split the fixtures
	// and bench use.
	pre := textpos.Lines(site.Prefix)
	oldMid, newMid := textpos.Lines(site.Buggy), textpos.Lines(hunk)
	post := textpos.Lines(site.Suffix)
	// Lines the candidate left equal at either end are context, not change.
	for len(oldMid) > 0 && len(newMid) > 0 && oldMid[0] == newMid[0] {
		pre = append(pre, oldMid[0])
		oldMid, newMid = oldMid[1:], newMid[1:]
	}
	for len(oldMid) > 0 && len(newMid) > 0 && oldMid[len(oldMid)-1] == newMid[len(newMid)-1] {
		post = append([]string{oldMid[len(oldMid)-1]}, post...)
		oldMid, newMid = oldMid[:len(oldMid)-1], newMid[:len(newMid)-1]
	}
	if len(oldMid) == 0 && len(newMid) == 0 {
		return ""
	}
	before := pre[max(0, len(pre)-DiffContext):]
	after := post[:min(len(post), DiffContext)]
	oldStart := len(pre) - len(before) + 1 // 1-based first line shown
	oldCount := len(before) + len(oldMid) + len(after)
	newCount := len(before) + len(newMid) + len(after)

	var b strings.Builder
	fmt.Fprintf(&b, "--- a/%s\n+++ b/%s\n", path, path)
	fmt.Fprintf(&b, "@@ -%s +%s @@\n", rangeSpec(oldStart, oldCount), rangeSpec(oldStart, newCount))
	line := func(mark byte, s string) {
		b.WriteByte(mark)
		b.WriteString(s)
		if strings.HasSuffix(s, "\r") {
			b.WriteByte('\n') // a lone "\r" ends this line (textpos.Lines); the diff's own lines end in "\n"
		} else if !strings.HasSuffix(s, "\n") {
			b.WriteString("\n\\ No newline at end of file\n")
		}
	}
	for _, s := range before {
		line(' ', s)
	}
	for _, s := range oldMid {
		line('-', s)
	}
	for _, s := range newMid {
		line('+', s)
	}
	for _, s := range after {
		line(' ', s)
	}
	return b.String()
}

// rangeSpec formats one side of a hunk header: "l,n", "l" when n is 1, and
// for an empty range the line before it ("l-1,0").
func rangeSpec(start, count int) string {
	switch count {
	case 0:
		return fmt.Sprintf("%d,0", start-1)
	case 1:
		return fmt.Sprintf("%d", start)
	}
	return fmt.Sprintf("%d,%d", start, count)
}
