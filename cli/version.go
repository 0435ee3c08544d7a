package cli

import (
	"runtime/debug"
	"strings"
)

// version describes the running binary for --version: the module version
// (or "devel" for a build from a working tree), the VCS revision it was
// built from (12 hex digits, "+dirty" when the tree had uncommitted
// changes; left out when the version is a pseudo-version that names it) and
// the Go version, all read from the binary's build information.
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
