//go:build unix

package binenc

import (
	"os"
	"syscall"
	"unsafe"
)

// MapFile returns the content of the file at path as a string backed by a
// read-only private mapping of the file, which is never unmapped: for a
// process that reads a cache once and exits (the CLI), where reading a
// 10 MB file into the heap was a quarter of a warm run. A mapped file that
// another process truncates kills the reader (SIGBUS), so the file is
// mapped only while a read lease guards it (lease, Linux): a process that
// opens it for writing or truncates it then waits until this one exits,
// for up to the kernel's lease-break-time (45 s by default). Where no lease
// can be taken (another system, a file open for writing, a file system
// without leases) the file is read into memory instead. The caches are
// replaced by rename, which no lease delays. An empty file gives "".
func MapFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return "", err
	}
	size := st.Size()
	if size == 0 {
		f.Close()
		return "", nil
	}
	if size != int64(int(size)) {
		f.Close()
		return "", syscall.EFBIG
	}
	if !lease(f) {
		f.Close()
		return ReadFile(path)
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_PRIVATE)
	if err != nil {
		f.Close()
		return ReadFile(path)
	}
	// f stays open (and its lease held) as long as the mapping: for the
	// rest of the process.
	leased = append(leased, f)
	return unsafe.String(&b[0], len(b)), nil
}

// leased keeps the files whose leases guard mappings open.
var leased []*os.File
