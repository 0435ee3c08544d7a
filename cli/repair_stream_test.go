package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/repair"
)

// TestWriteFound: the text mode prints a compilable patch as soon as it is
// validated, with its status and diff; a patch that does not compile is not
// printed until the ranked summary.
func TestWriteFound(t *testing.T) {
	var b strings.Builder
	writeFound(&b, repair.Patch{Compilable: true, Tested: true, Plausible: true, Diff: "--- a/A.java\n+++ b/A.java\n"}, 2340*time.Millisecond)
	writeFound(&b, repair.Patch{NewErrors: []string{"line 3: x"}, Diff: "--- a/B.java\n"}, time.Second)
	want := "repilot: found a plausible patch (tests pass) after 2.3s:\nrepilot:   --- a/A.java\nrepilot:   +++ b/A.java\n"
	if b.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", b.String(), want)
	}
}
