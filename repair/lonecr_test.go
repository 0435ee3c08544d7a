package repair

import (
	"fmt"
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

// TestLoneCRRepairAsLF: a repair of a lone-CR file gives the patches of the
// same file with "\n" line ends, written with "\r".
func TestLoneCRRepairAsLF(t *testing.T) {
	next := table(map[string][]tok{
		"":                        {{"int x = 2;\n", 0.6, false}, {"x = 3;", 0.4, false}},
		"int x = 2;\n":            {{"  return;", 1, false}},
		"int x = 2;\n  return;":   {{";", 0.5, true}, {"\n", 0.5, false}},
		"int x = 2;\n  return;\n": {{"", 1, true}},
		"x = 3;":                  {{"", 1, true}},
	})
	var got [2][]string
	for i, end := range []string{"\n", "\r"} {
		req := request(variant(t, "base", func(o *Options) { o.Samples = 20 }))
		req.Text = strings.ReplaceAll(javaFile, "\n", end)
		res := run(t, service(&fakeModel{next: next}, &fakeEngine{}, nil), req)
		for _, p := range res.Candidates {
			got[i] = append(got[i], fmt.Sprintf("%q compilable %v", strings.ReplaceAll(p.Hunk, "\r", "\n"), p.Compilable))
		}
	}
	if strings.Join(got[0], "; ") != strings.Join(got[1], "; ") || len(got[0]) == 0 {
		t.Errorf("lone-CR file: %q\nLF file: %q", got[1], got[0])
	}
}
