package cli

// serve.go is "repilot-lsp serve", also what bare "repilot-lsp" runs: the LSP
// proxy on stdio, in front of JDT LS (package proxy).

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/repilot-lsp/repilot-lsp/jdtls"
	"github.com/repilot-lsp/repilot-lsp/proxy"
	"github.com/repilot-lsp/repilot-lsp/repair"
)

// serveFlags are the flags of serve (and of the bare command).
var serveFlags struct {
	jdtls    string
	stateDir string
	logFile  string
	trace    bool
	model    modelFlags
}

var serveCmd = &cobra.Command{
	Use:   "serve",
	Short: "Speak LSP on stdin/stdout in front of JDT LS (what editors start)",
	Long: `serve speaks the Language Server Protocol on stdin/stdout. It starts Eclipse
JDT LS when the editor sends initialize, forwards every message both ways, and
adds "Repair with Repilot" code actions. Logs go to --log-file or stderr,
never to stdout.`,
	Args: cobra.NoArgs,
	RunE: runServe,
}

func init() {
	addServeFlags(serveCmd.Flags())
	addServeFlags(Root.Flags())
	Root.RunE = runServe
	Root.AddCommand(serveCmd)
}

func addServeFlags(fs *pflag.FlagSet) {
	addJDTLSFlag(fs, &serveFlags.jdtls)
	addStateDirFlag(fs, &serveFlags.stateDir, true)
	fs.StringVar(&serveFlags.logFile, "log-file", "", "append the log to this file instead of stderr")
	fs.BoolVar(&serveFlags.trace, "trace", false, "log the method and id of every message routed")
	addModelFlags(fs, &serveFlags.model)
	// vscode-languageclient appends --stdio to an executable server's
	// arguments when the transport is stdio; stdio is the only transport.
	fs.Bool("stdio", true, "speak LSP on stdin/stdout (the default and only transport)")
	_ = fs.MarkHidden("stdio")
}

func runServe(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return fmt.Errorf("unexpected arguments %q (see --help)", args)
	}
	var logw io.Writer = os.Stderr
	if serveFlags.logFile != "" {
		f, err := os.OpenFile(serveFlags.logFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return fmt.Errorf("opening the log file: %w", err)
		}
		defer f.Close()
		logw = f
	}
	home := serveFlags.jdtls
	if home == "" {
		home = os.Getenv(jdtls.EnvHome)
	}
	model, err := serveFlags.model.resolve(os.Getenv)
	if err == nil {
		fmt.Fprintf(logw, "repilot-lsp: repair model: %s\n", model)
		if model.Remote() {
			// Not fatal: the server may come up later; a repair then reports
			// the same error.
			go func() {
				if err := checkModel(cmd.Context(), model); err != nil {
					fmt.Fprintf(logw, "repilot-lsp: %v\n", err)
				}
			}()
		}
	}
	var rep repair.Repairer
	if err == nil {
		rep, err = buildRepairer(RepairConfig{JDTLSHome: home, StateDir: serveFlags.stateDir, Model: model})
	}
	if err != nil {
		fmt.Fprintf(logw, "repilot-lsp: the repair service is not available (%v); serving without it\n", err)
		rep = proxy.UnavailableRepairer(err)
	}
	if c, ok := rep.(io.Closer); ok {
		defer c.Close() // stops the repair engines' JDT LS processes
	}
	exts := []proxy.Extension{searchExtension()}
	if x := inlineExtension(rep); x != nil {
		exts = append(exts, x) // ghost text (proxy/inline.go)
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return proxy.Run(ctx, os.Stdin, os.Stdout, proxy.Options{
		JDTLSHome:  home,
		StateDir:   serveFlags.stateDir,
		Repairer:   rep,
		Extensions: exts,
		Log:        logw,
		Trace:      serveFlags.trace,
	})
}
