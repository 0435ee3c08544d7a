// Package cli holds the repilot-lsp command line: one file per subcommand,
// each registering itself on Root. main does nothing but call Execute.
package cli

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

// Root is the repilot-lsp command. With no subcommand it serves LSP on stdio
// (the same as "repilot-lsp serve").
var Root = &cobra.Command{
	Use:   "repilot-lsp",
	Short: "A Java language server proxy with completion-engine-guided LLM repair and semantic search",
	Long: `repilot-lsp sits between an editor and Eclipse JDT LS. It forwards every LSP
message unchanged and adds "Repair with Repilot" (language-model patches
pruned by JDT LS used as a completion engine), "Semantic search in repo" and
ghost text that compiles.

Run with no arguments (or "serve") to speak LSP on stdio.`,
	SilenceUsage: true,
}

func init() {
	// A bad flag ("unknown flag: --bogus", "invalid argument "x" for
	// "--seed" flag") says where the flags are listed, as an unknown
	// command does (cobra's "Run 'repilot-lsp --help' for usage."). The
	// subcommands inherit it.
	Root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return fmt.Errorf("%w\nRun '%s --help' for usage.", err, c.CommandPath())
	})
}

// Execute runs the command line and exits with status 1 on error, or
// 128+signal (130 for Ctrl-C) when a signal interrupted the command
// (signals.go).
func Execute() {
	if err := Root.Execute(); err != nil {
		var ie *interruptedError
		if errors.As(err, &ie) {
			os.Exit(ie.exitCode())
		}
		os.Exit(1)
	}
}
