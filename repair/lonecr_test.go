package repair

import (
	"strings"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/engine"
)

// TestLoneCRHunkErrorsAreInTheHunk: in a file whose lines end with a lone
// "\r" (LSP 3.17 "Text Documents", JLS 3.4), a two-line patch is written
// with "\r" and covers two lines; an error the shadow JDT LS reports on its
// second line is in the hunk and never excused by an error of the buggy file
// elsewhere. The patched lines were counted by "\n" only: none, so the error
// counted as outside the hunk, was excused, and the patch passed as
// compilable.
func TestLoneCRHunkErrorsAreInTheHunk(t *testing.T) {
	next := table(map[string][]tok{
		"":      {{"a;\nb", 1, false}},
		"a;\nb": {{";", 1, true}},
	})
	comp := &fakeCompiler{errs: func(text string) []engine.CompileError {
		if strings.Contains(text, "b;") {
			return []engine.CompileError{{Line: 4, Message: "b cannot be resolved"}} // the patch's second line
		}
		return []engine.CompileError{{Line: 5, Message: "b cannot be resolved"}} // the buggy file, outside its hunk
	}}
	req := request(variant(t, "base", func(o *Options) { o.Samples = 4 }))
	req.Text = strings.ReplaceAll(javaFile, "\n", "\r")
	res := run(t, service(&fakeModel{next: next}, &fakeEngine{}, comp), req)
	if len(res.Candidates) != 1 {
		t.Fatalf("candidates %q, want the one", hunks(res.Candidates))
	}
	p := res.Candidates[0]
	if p.Hunk != "a;\rb;\r" || p.Compilable || len(p.NewErrors) != 1 {
		t.Errorf("patch %q: compilable %v, new errors %q; want \"a;\\rb;\\r\" with the error on its second line", p.Hunk, p.Compilable, p.NewErrors)
	}
}
