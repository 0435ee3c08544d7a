package jdtls

import "testing"

// TestURIPath: FileURI and URIPath are inverses on absolute paths; a file
// URI that names no absolute path, and another scheme, are errors.
func TestURIPath(t *testing.T) {
	for _, p := range []string{"/work/p/A.java", "/work/My Docs/B.java"} {
		if got, err := URIPath(FileURI(p)); err != nil || got != p {
			t.Errorf("URIPath(FileURI(%q)) = %q, %v", p, got, err)
		}
	}
	for _, uri := range []string{"file:A.java", "file:", "jdt://contents/x", "%zz"} {
		if got, err := URIPath(uri); err == nil {
			t.Errorf("URIPath(%q) = %q, want an error", uri, got)
		}
	}
}
