package cachedir

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRoot(t *testing.T) {
	t.Setenv(Env, "/some/cache")
	if got := Root(); got != "/some/cache" {
		t.Errorf("with %s set: %q", Env, got)
	}
	t.Setenv(Env, "")
	t.Setenv("HOME", "/home/u")
	t.Setenv("XDG_CACHE_HOME", "/elsewhere") // the install scripts do not read it, so neither do we
	if got, want := Root(), filepath.Join("/home/u", ".cache", "repilot-lsp"); got != want {
		t.Errorf("without %s: %q, want %q", Env, got, want)
	}
	t.Setenv("HOME", "")
	if got, want := Root(), filepath.Join(os.TempDir(), "repilot-lsp"); got != want {
		t.Errorf("without a home: %q, want %q", got, want)
	}
}

func TestPaths(t *testing.T) {
	t.Setenv(Env, "/c")
	if got, want := Path("ngram"), filepath.Join("/c", "ngram"); got != want {
		t.Errorf("Path = %q, want %q", got, want)
	}
	// The key of a root is fixed: state directories written by earlier
	// versions must still be found.
	if got, want := ProjectState("/work/p"), filepath.Join("/c", "state", "1eb39ff2d919a732"); got != want {
		t.Errorf("ProjectState = %q, want %q", got, want)
	}
	if RootKey("/a") == RootKey("/b") {
		t.Error("two roots share a key")
	}
}
