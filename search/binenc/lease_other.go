//go:build unix && !linux

package binenc

import "os"

// lease reports false: without Linux's leases a mapping is not guarded
// against truncation, so MapFile reads the file instead.
func lease(*os.File) bool { return false }
