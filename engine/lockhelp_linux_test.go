//go:build linux

package engine

import (
	"os"

	"golang.org/x/sys/unix"
)

// lockWhole takes an open file description write lock on all of f, as
// another process's JDT LS holds its workspace lock (legacyInUse).
func lockWhole(f *os.File) error {
	lk := unix.Flock_t{Type: unix.F_WRLCK}
	return unix.FcntlFlock(f.Fd(), unix.F_OFD_SETLK, &lk)
}
