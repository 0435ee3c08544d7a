package cli

// flags.go registers the flags that several subcommands share (--jdtls,
// --state-dir), so that each says the same thing everywhere: what it is, its default, and its
// environment variable.

import (
	"github.com/spf13/pflag"

	"github.com/repilot-lsp/repilot-lsp/jdtls"
)

// cacheNote says what <cache> means in the flag help below (jdtls.CacheDir).
const cacheNote = "<cache> is $REPILOT_CACHE or ~/.cache/repilot-lsp"

// addJDTLSFlag registers --jdtls, the JDT LS install directory (resolved by
// jdtls.ResolveHome: the flag, else $REPILOT_JDTLS_HOME, else
// jdtls.DefaultHome).
func addJDTLSFlag(fs *pflag.FlagSet, p *string) {
	fs.StringVar(p, "jdtls", "", "JDT LS install directory (env "+jdtls.EnvHome+
		"; default <cache>/jdtls-1.20.0, where scripts/install-jdtls.sh installs it; "+cacheNote+")")
}

// addStateDirFlag registers --state-dir. withEditor is true for serve, whose
// directory also holds the editor-facing JDT LS's data (proxy.Options.StateDir);
// repair and bench repair only start the repair engine's JDT LS
// (engineStateDir).
func addStateDirFlag(fs *pflag.FlagSet, p *string, withEditor bool) {
	usage := "state directory: the repair engine's JDT LS keeps its data in <dir>/engine/<root hash> " +
		"(no env var; default <cache>/state/<root hash>/engine; " + cacheNote + ")"
	if withEditor {
		usage = "state directory: the editor's JDT LS keeps its data in <dir>/jdtls, the repair engine's " +
			"JDT LS in <dir>/engine/<root hash> (no env var; default <cache>/state/<root hash>, the engine's " +
			"in <cache>/state/<root hash>/engine; " + cacheNote + ")"
	}
	fs.StringVar(p, "state-dir", "", usage)
}
