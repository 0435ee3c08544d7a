//go:build linux

package engine

import (
	"errors"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// legacyInUse reports whether a process holds a lock on one of the files
// a running JDT LS locks in its configuration folder cfg (Equinox's
// storage managers: <cfg>/<bundle>/.manager/.tmpN.instance, locked by JDT
// LS 1.20 while it runs, seen in /proc/locks) or workspace folder data
// (Eclipse's <data>/.metadata/.lock). Each is asked with an open file
// description lock query (F_OFD_GETLK), which sees every record lock of
// another process (fcntl(2)). A file that exists but cannot be opened or
// asked about counts as locked.
func legacyInUse(cfg, data string) bool {
	files, _ := filepath.Glob(filepath.Join(cfg, "*", ".manager", "*"))
	files = append(files, filepath.Join(data, ".metadata", ".lock"))
	for _, p := range files {
		if locked(p) {
			return true
		}
	}
	return false
}

// locked reports whether another process (or another open file
// description) holds a lock on the regular file p.
func locked(p string) bool {
	if !isRegular(p) {
		return false
	}
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return false
	}
	if err != nil {
		return true
	}
	defer f.Close()
	lk := unix.Flock_t{Type: unix.F_WRLCK}
	if err := unix.FcntlFlock(f.Fd(), unix.F_OFD_GETLK, &lk); err != nil {
		return true
	}
	return lk.Type != unix.F_UNLCK
}
