package testtree

// testtree_test.go checks that New writes every file, nested folders
// included, with its text.

import (
	"os"
	"path/filepath"
	"testing"
)

func TestNew(t *testing.T) {
	files := map[string]string{"a/b/C.java": "class C {}\n", "README": "r\n", "a/d.py": ""}
	root := New(t, files)
	for rel, want := range files {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil || string(b) != want {
			t.Errorf("%s = %q, %v; want %q", rel, b, err, want)
		}
	}
}
