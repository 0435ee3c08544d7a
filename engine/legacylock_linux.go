//go:build linux

package engine

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// legacyInUse reports whether another process holds a lock on the
// workspace lock file (Eclipse locks <workspace>/.metadata/.lock with a
// POSIX record lock, java.nio's FileChannel.tryLock, while a workspace is
// open). It asks with an open file description lock (F_OFD_GETLK), which
// conflicts with every record lock of another process and with another
// open file description's OFD lock (fcntl(2)). A lock file that cannot be
// opened or asked about counts as in use, unless it does not exist.
func legacyInUse(lockFile string) bool {
	f, err := os.OpenFile(lockFile, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return false
	}
	if err != nil {
		return true
	}
	defer f.Close()
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: 0, Start: 0, Len: 0}
	if err := unix.FcntlFlock(f.Fd(), unix.F_OFD_GETLK, &lk); err != nil {
		return true
	}
	return lk.Type != unix.F_UNLCK
}
