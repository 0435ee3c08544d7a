package binenc

import (
	"os"
	"unsafe"
)

// ReadFile returns the content of the file at path as a string that
// shares the bytes read instead of copying them (they are never written
// again, so the string stays immutable as a string must).
func ReadFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil || len(b) == 0 {
		return "", err
	}
	return unsafe.String(&b[0], len(b)), nil
}
