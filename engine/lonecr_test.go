package engine

import (
	"strings"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/textpos"
)

// TestCompileErrorsLoneCR: JDT LS numbers the lines of a file whose lines
// end with a lone "\r" as LSP 3.17 and JLS 3.4 do, as textpos does: an
// error on the hunk's line is reported on line textpos.Breaks(prefix)+1.
// repair (newErrors) and ghost text (inline.spanOf) rely on it.
func TestCompileErrorsLoneCR(t *testing.T) {
	eng, root := sharedJDT(t)
	h, line := hunkAt(t, root, "src/demo/Main.java", "names.add(g.getName());")
	ctx := ctxT(t)
	broken := strings.ReplaceAll(h.Prefix+strings.Replace(line, "getName", "getNam", 1)+h.Suffix, "\n", "\r")
	prefix := strings.ReplaceAll(h.Prefix, "\n", "\r")
	hunkLine := textpos.Breaks(prefix) + 1
	errs, err := eng.CompileErrors(ctx, h.URI, broken)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range errs {
		t.Logf("line %d: %s", e.Line, e.Message)
		if e.Line == hunkLine && strings.Contains(e.Message, "getNam()") {
			found = true
		}
	}
	if !found || hunkLine < 2 {
		t.Errorf("no error about getNam() on line %d of the lone-CR text: %+v", hunkLine, errs)
	}
}
