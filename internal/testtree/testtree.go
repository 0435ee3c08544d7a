// Package testtree writes small file trees for tests: a project of a few
// source files, given as a map from path to text, in a temporary folder.
//
// It imports no package of the module, so that any package's own tests can
// use it.
package testtree

import (
	"os"
	"path/filepath"
	"testing"
)

// Write creates every file of files under root, making the folders on the
// way. A key is the file's path relative to root, with forward slashes
// ("src/demo/Main.java"); its value is the file's text. It fails the test on
// the first error.
func Write(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for rel, text := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// New writes files (as Write does) into a fresh t.TempDir() and returns that
// folder; the testing package removes it after the test.
func New(t testing.TB, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	Write(t, root, files)
	return root
}
