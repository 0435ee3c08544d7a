package cli

import (
	"runtime/debug"
	"testing"
)

// TestVersion checks the --version text from build information: the
// revision shortened, a dirty tree marked, a missing revision left out.
func TestVersion(t *testing.T) {
	info := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "26e7b4d0123456789abcdef"}, {Key: "vcs.modified", Value: "true"}}}
	if got, want := version(info, true), "devel (26e7b4d01234+dirty) go1.26.8"; got != want {
		t.Errorf("version = %q, want %q", got, want)
	}
	info.Main.Version = "v0.0.0-20261202143446-26e7b4d01234+dirty"
	if got, want := version(info, true), "v0.0.0-20261202143446-26e7b4d01234+dirty go1.26.8"; got != want {
		t.Errorf("version = %q, want %q", got, want)
	}
	info = &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.3"}}
	if got, want := version(info, true), "v1.2.3 go1.26.8"; got != want {
		t.Errorf("version = %q, want %q", got, want)
	}
	// A build in a linked git worktree: no VCS settings, the commit stamped
	// by scripts/install.sh.
	defer func(s string) { stampedRevision = s }(stampedRevision)
	stampedRevision = "26e7b4d0123456789abcdef+dirty"
	info = &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}}
	if got, want := version(info, true), "devel (26e7b4d01234+dirty) go1.26.8"; got != want {
		t.Errorf("stamped version = %q, want %q", got, want)
	}
	if got := version(nil, false); got != "unknown (no build information)" {
		t.Errorf("version without build info = %q", got)
	}
}
