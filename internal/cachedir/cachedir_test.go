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
