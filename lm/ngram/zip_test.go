// Test helper: reading Java files out of src.zip.

package ngram

import (
	"testing"

	"github.com/repilot-lsp/repilot-lsp/internal/jdksrc"
)

// readZip returns the texts of up to n .java entries under prefix, failing
// when there is none.
func readZip(t testing.TB, zipPath, prefix string, n int) []string {
	t.Helper()
	var out []string
	jdksrc.Each(t, zipPath, prefix, func(_, text string) bool {
		out = append(out, text)
		return len(out) < n
	})
	if len(out) == 0 {
		t.Fatalf("no .java entries under %s in %s", prefix, zipPath)
	}
	return out
}
