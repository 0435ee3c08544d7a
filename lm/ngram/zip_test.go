// Test helper: reading Java files out of src.zip.

package ngram

import (
	"archive/zip"
	"io"
	"strings"
	"testing"
)

// readZip returns the texts of up to n .java entries under prefix.
func readZip(t testing.TB, zipPath, prefix string, n int) []string {
	t.Helper()
	zr, err := zip.OpenReader(zipPath)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var out []string
	for _, f := range zr.File {
		if len(out) == n {
			break
		}
		if !strings.HasPrefix(f.Name, prefix) || !strings.HasSuffix(f.Name, ".java") {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	if len(out) == 0 {
		t.Fatalf("no .java entries under %s in %s", prefix, zipPath)
	}
	return out
}
