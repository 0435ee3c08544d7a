package repair

// check.go: what can be known wrong about a Request before anything
// expensive (a JDT LS start, a model) runs.

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/repilot-lsp/repilot-lsp/textpos"
)

// Check reports what is wrong with req that needs nothing started: a file
// that is not a .java file or not inside Root, lines outside the file
// (splitHunk's rule: StartLine..EndLine within LineCount(Text) lines), and a
// test command whose program cannot be found. Repair runs the same checks;
// callers that start backends first (backend.Pool) call Check before
// that, so that a bad request fails in milliseconds, not after an engine
// start.
func (req Request) Check() error {
	if !strings.EqualFold(filepath.Ext(req.File), ".java") {
		return fmt.Errorf("%s is not a .java file: Repilot repairs Java source files", req.File)
	}
	if _, err := relPath(req.Root, req.File); err != nil {
		return err
	}
	if _, err := splitHunk(req.Text, req.StartLine, req.EndLine); err != nil {
		return err
	}
	return checkTestCmd(req.Root, req.TestCmd)
}

// LineCount is the number of lines of text as Request's line numbers count
// them: newlines, plus one for a last line without a newline (an empty last
// "line" after the final newline is not one); textpos.CountLines.
func LineCount(text string) int { return textpos.CountLines(text) }
