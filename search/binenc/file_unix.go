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
// 10 MB file into the heap was a quarter of a warm run. The file must not
// be truncated while mapped (the caches are replaced by rename, never
// rewritten in place). An empty file gives "".
func MapFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	size := st.Size()
	if size == 0 {
		return "", nil
	}
	if size != int64(int(size)) {
		return "", syscall.EFBIG
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_PRIVATE)
	if err != nil {
		return ReadFile(path)
	}
	return unsafe.String(&b[0], len(b)), nil
}
