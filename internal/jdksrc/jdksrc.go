// Package jdksrc reads Java source files out of the JDK's src.zip for tests
// that need real Java at scale (the n-gram model's training and held-out
// texts, the end check's grammar on java.base).
//
// It takes the archive's path from the caller (ngram.FindJDKSrcZip finds
// it), so that package ngram's own tests can import it.
package jdksrc

import (
	"archive/zip"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/internal/realpart"
)

// Require returns zipPath when it is not empty. An empty zipPath means no
// src.zip was found, and Require ends the test by realpart.JDKSource's rule:
// it fails saying to install openjdk-17-source, or skips when
// REPILOT_SKIP_JDK_SRC=1.
func Require(t testing.TB, zipPath string) string {
	t.Helper()
	if zipPath == "" {
		realpart.JDKSource.Require(t, errors.New("looked for $JAVA_HOME/lib/src.zip and /usr/lib/jvm/*/lib/src.zip"))
	}
	return zipPath
}

// Each calls fn with the name and text of each .java entry of the archive
// zipPath whose name starts with prefix ("java.base/java/util/"), in archive
// order, until fn returns false. It fails the test when the archive or an
// entry cannot be read; finding no entry is not an error.
func Each(t testing.TB, zipPath, prefix string, fn func(name, text string) bool) {
	t.Helper()
	zr, err := zip.OpenReader(zipPath)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	for _, f := range zr.File {
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
			t.Fatalf("%s in %s: %v", f.Name, zipPath, err)
		}
		if !fn(f.Name, string(b)) {
			return
		}
	}
}
