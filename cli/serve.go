package cli

// serve.go is "repilot-lsp serve", also what bare "repilot-lsp" runs: the LSP
// proxy on stdio, in front of JDT LS (package proxy).

import (
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/repilot-lsp/repilot-lsp/backend"
	"github.com/repilot-lsp/repilot-lsp/jdtls"
	"github.com/repilot-lsp/repilot-lsp/proxy"
	"github.com/repilot-lsp/repilot-lsp/proxy/feature/repairfeat"
	"github.com/repilot-lsp/repilot-lsp/repair"
)

// serveFlags are the flags of serve (and of the bare command).
var serveFlags struct {
	jdtls    string
	stateDir string
	logFile  string
	trace    bool
	warm     bool
	model    modelFlags
}

var serveCmd = &cobra.Command{
	Use:   "serve",
	Short: "Speak LSP on stdin/stdout in front of JDT LS (what editors start)",
	Long: `serve speaks the Language Server Protocol on stdin/stdout. It starts Eclipse
JDT LS when the editor sends initialize, forwards every message both ways, and
adds the code actions "Repair with Repilot" and "Semantic search in repo" and
ghost text (textDocument/inlineCompletion, or the command repilot.inlineSuggest).
Logs go to --log-file or stderr, never to stdout.`,
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
	fs.BoolVar(&serveFlags.warm, "warm", true, "start a project's repair engine (JDT LS) and model in the background when the editor opens one of its Java files (env "+EnvWarm+"=false turns it off)")
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
	// What the libraries log through the standard logger (the model
	// transport's retries after a cut connection, internal/oaihttp) goes
	// to serve's log too, in the proxy's format.
	log.SetOutput(logw)
	log.SetPrefix("repilot-lsp: ")
	log.SetFlags(log.LstdFlags | log.Lmicroseconds)
	defer func() {
		log.SetOutput(os.Stderr)
		log.SetPrefix("")
		log.SetFlags(log.LstdFlags)
	}()
	if hint := serveTTYHint(os.Stdin); hint != "" {
		fmt.Fprintln(os.Stderr, hint)
	}
	home := serveFlags.jdtls
	if home == "" {
		home = os.Getenv(jdtls.EnvHome)
	}
	model, err := serveFlags.model.resolve(os.Getenv)
	if err == nil {
		err = repair.CheckEnv()
	}
	if err == nil {
		fmt.Fprintf(logw, "repilot-lsp: repair model: %s\n", model)
		if model.Remote() {
			// Not fatal: the server may come up later; a repair then reports
			// the same error.
			go func() {
				if err := backend.CheckModel(cmd.Context(), model); err != nil {
					fmt.Fprintf(logw, "repilot-lsp: %v\n", err)
				}
			}()
		}
	}
	var rep repair.Repairer
	if err == nil {
		rep, err = buildRepairer(backend.Config{JDTLSHome: home, StateDir: serveFlags.stateDir, Model: model})
	}
	if err != nil {
		fmt.Fprintf(logw, "repilot-lsp: the repair service is not available (%v); serving without it\n", err)
		rep = repairfeat.UnavailableRepairer(err)
	}
	// Stop the repair engines (cancelling one still starting) at the same
	// time as the editor's JDT LS, so that all are gone within 5 s.
	var closeOnce sync.Once
	closeRep := func() {
		closeOnce.Do(func() {
			if c, ok := rep.(io.Closer); ok {
				_ = c.Close()
			}
		})
	}
	defer closeRep()
	// A write to an editor that has gone fails with EPIPE instead of killing
	// the process with SIGPIPE (os/signal: "SIGPIPE"), so that the proxy
	// stops through its normal shutdown and takes JDT LS with it.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	var ropts repairfeat.Options
	if model.Remote() {
		ropts.Concurrency = serveFlags.model.concurrency // samples at once
	}
	exts := []proxy.Extension{repairfeat.New(rep, ropts), searchExtension()}
	if x := inlineExtension(rep); x != nil {
		exts = append(exts, x) // ghost text (proxy/feature/inlinefeat)
	}
	warm, warning := warmEnabled(serveFlags.warm, cmd.Flags().Changed("warm"), os.Getenv)
	if warning != "" {
		fmt.Fprintf(logw, "repilot-lsp: %s\n", warning)
	}
	if w, ok := rep.(warmer); ok && warm {
		exts = append(exts, newWarmExt(w)) // warm-up on didOpen (warm.go)
	}
	// SIGINT and SIGTERM stop the proxy through its normal shutdown; the
	// command then reports "interrupted (SIGTERM)" (exit status 143), as
	// repair and search do.
	ctx, interrupted, stop := withSignals(cmd.Context())
	defer stop()
	return interrupted(proxy.Run(ctx, os.Stdin, os.Stdout, proxy.Options{
		Stopping:   closeRep,
		JDTLSHome:  home,
		StateDir:   serveFlags.stateDir,
		Extensions: exts,
		Log:        logw,
		Trace:      serveFlags.trace,
	}))
}

// serveTTYHint is what serve tells a person who started it at a terminal
// (stdin a terminal, as with a bare "repilot-lsp" typed in a shell): that
// it waits for an editor's LSP messages, and where the shell commands are.
// It is "" when stdin is not a terminal, that is, when an editor runs it.
func serveTTYHint(stdin *os.File) string {
	if !isTerminal(stdin) {
		return ""
	}
	return "repilot-lsp: this is the language server that editors start: it waits for LSP messages on stdin (Ctrl-C quits). " +
		"In the shell, use \"repilot-lsp repair\" or \"repilot-lsp search\"; \"repilot-lsp help\" lists the commands."
}
