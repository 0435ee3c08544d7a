package repair

import (
	"strings"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/textpos"
)

// TestCRLFFileGetsCRLFHunk: in a file with "\r\n" line ends, a candidate
// the model wrote with "\n" is compile-checked, diffed and returned with
// "\r\n", so applying a patch does not leave a file with mixed line ends;
// a "\n" file keeps "\n" even where the model wrote "\r\n".
func TestCRLFFileGetsCRLFHunk(t *testing.T) {
	crlf := strings.ReplaceAll(javaFile, "\n", "\r\n")
	for _, tc := range []struct {
		name, file, model, want string
		start, end              int
	}{
		{"crlf", crlf, "    y();\n    z();", "    y();\r\n    z();\r\n", 3, 3},
		{"crlf, model wrote crlf", crlf, "    y();\r\n    z();\r\n", "    y();\r\n    z();\r\n", 3, 3},
		{"crlf insertion", crlf, "    y();\n", "    y();\r\n", 4, 3},
		{"lf, model wrote crlf", javaFile, "    y();\r\n    z();", "    y();\n    z();\n", 3, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &fakeModel{next: table(map[string][]tok{"": {{tc.model, 1, false}}, tc.model: {{"", 1, true}}})}
			c := &fakeCompiler{}
			r := request(variant(t, "full", func(o *Options) { o.Samples = 1 }))
			r.Text, r.StartLine, r.EndLine = tc.file, tc.start, tc.end
			res := run(t, service(m, &fakeEngine{}, c), r)
			if len(res.Patches) != 1 || res.Patches[0].Hunk != tc.want {
				t.Fatalf("patches %q, want one %q", hunks(res.Patches), tc.want)
			}
			want, err := textpos.SpliceLines(tc.file, tc.start, tc.end, tc.want)
			if err != nil {
				t.Fatal(err)
			}
			compiled := c.compiled()
			// Only the patched file: it has no errors, so the buggy
			// file's (the baseline that excuses errors) are not needed.
			if len(compiled) != 1 || compiled[0] != want {
				t.Fatalf("compiled %q, want only %q", compiled, want)
			}
			applyCheck(t, tc.file, res.Patches[0].Diff, want)
		})
	}
}
