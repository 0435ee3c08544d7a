package inline

// check.go is the guarantee: a suggestion is shown only when inserting it
// introduces no compile error, as the shadow JDT LS reports errors.

import (
	"fmt"

	"github.com/repilot-lsp/repilot-lsp/engine"
	"github.com/repilot-lsp/repilot-lsp/textpos"
)

// Span is the 1-based, inclusive range of lines that an insertion covers in
// the new text: the caret's line through the line where the inserted text
// ends.
type Span struct{ From, To int }

// spanOf returns the lines that inserting text at offset in a document whose
// text before the caret is prefix covers.
// Lines end at "\n", "\r\n" or a lone "\r", as the shadow JDT LS numbers the
// lines of its errors (textpos.Breaks).
func spanOf(prefix, text string) Span {
	from := textpos.Breaks(prefix) + 1
	return Span{From: from, To: from + textpos.Breaks(text)}
}

// Introduced returns the compile errors of the new text (after the insertion
// spanning span) that the guarantee forbids, as "line N: message"; empty means
// the suggestion may be shown. The comparison, precisely:
//
//   - (a) every error of the new text on a line of span is forbidden, whether
//     or not the file had one there before (the inserted lines must be clean);
//   - (b) an error of the new text on a line l outside span is allowed only
//     when the file as it stands (old) has an error with the same message on
//     the corresponding line: l itself for l < span.From, and
//     l - (span.To - span.From) for l > span.To (the lines after the
//     insertion move down by the lines it adds). Errors are matched as a
//     multiset of (line, message): each old error excuses at most one new
//     error.
//
// old is needed only when the new text has errors outside span (callers may
// compute it lazily; see needOld).
func Introduced(newErrs, old []engine.CompileError, span Span) []string {
	excuse := map[engine.CompileError]int{}
	for _, e := range old {
		excuse[e]++
	}
	added := span.To - span.From
	var out []string
	for _, e := range newErrs {
		if e.Line >= span.From && e.Line <= span.To {
			out = append(out, fmt.Sprintf("line %d: %s", e.Line, e.Message))
			continue
		}
		l := e.Line
		if l > span.To {
			l -= added
		}
		k := engine.CompileError{Line: l, Message: e.Message}
		if excuse[k] > 0 {
			excuse[k]--
			continue
		}
		out = append(out, fmt.Sprintf("line %d: %s", e.Line, e.Message))
	}
	return out
}

// needOld reports whether judging newErrs needs the old file's errors: some
// error lies outside span (errors inside it fail the check on their own).
func needOld(newErrs []engine.CompileError, span Span) bool {
	for _, e := range newErrs {
		if e.Line >= span.From && e.Line <= span.To {
			return false // fails on (a) whatever old says
		}
	}
	return len(newErrs) > 0
}
