package binenc

import (
	"os"

	"golang.org/x/sys/unix"
)

// lease takes a read lease on f (fcntl F_SETLEASE): the kernel then makes
// a process that opens f's file for writing or truncates it wait until the
// lease is released (f closed) or lease-break-time passes, and signals
// SIGIO to this process, which Go ignores unless asked for it. It reports
// whether the lease was taken (not when the file is open for writing
// elsewhere, belongs to another user, or lives on a file system without
// leases).
func lease(f *os.File) bool {
	_, err := unix.FcntlInt(f.Fd(), unix.F_SETLEASE, unix.F_RDLCK)
	return err == nil
}
