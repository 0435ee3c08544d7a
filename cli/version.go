package cli

import (
	"runtime/debug"
	"strings"
)

// stampedRevision is the commit that scripts/install.sh writes with
// -ldflags -X where Go cannot read it itself: in a linked git worktree, whose
// .git is a file, Go finds no repository, or an enclosing checkout's
// (golang/go#58218). A commit hash, "+dirty" appended when the tree had
// uncommitted changes; empty in every other build, which reads the revision
// from the build information.
var stampedRevision string

// version describes the running binary for --version: the module version
// (or "devel" for a build from a working tree), the VCS revision it was
// built from (12 hex digits, "+dirty" when the tree had uncommitted
// changes; left out when the version is a pseudo-version that names it) and
// the Go version, all read from the binary's build information, the revision
// from stampedRevision when the build information has none.
func version(info *debug.BuildInfo, ok bool) string {
	if !ok || info == nil {
		return "unknown (no build information)"
	}
	v := info.Main.Version
	if v == "" || v == "(devel)" {
		v = "devel"
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev == "" && stampedRevision != "" {
		rev, _, _ = strings.Cut(stampedRevision, "+")
		if strings.HasSuffix(stampedRevision, "+dirty") {
			dirty = "+dirty"
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" && !strings.Contains(v, rev) { // a pseudo-version names it already
		v += " (" + rev + dirty + ")"
	}
	return v + " " + info.GoVersion
}

func init() {
	Root.Version = version(debug.ReadBuildInfo())
}
