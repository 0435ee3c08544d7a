// Command repilot-lsp is the editor-facing entry point; see package cli.
package main

import "github.com/repilot-lsp/repilot-lsp/cli"

func main() { cli.Execute() }
