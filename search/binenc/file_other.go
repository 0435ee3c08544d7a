//go:build !unix

package binenc

// MapFile reads the file at path (no mapping on this system; see the unix
// version).
func MapFile(path string) (string, error) { return ReadFile(path) }
