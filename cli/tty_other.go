//go:build !linux

package cli

import "os"

// isTerminal reports false outside Linux: serve's hint for a person at a
// terminal (serveTTYHint) is then not shown.
func isTerminal(*os.File) bool { return false }
