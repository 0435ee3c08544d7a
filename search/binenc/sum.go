package binenc

import (
	"encoding/binary"
	"hash"
	"hash/crc32"
	"io"
	"unsafe"
)

// A cache file ends with a checksum of everything before it: a length
// check catches a truncated file, but a flipped bit inside a string (a
// unit's code, a posting's frequency) decodes fine and, since the unit
// cache is reused by size and mtime, would be served on every later run.

// SumLen is the length of the trailer Summer.Trailer writes: a CRC-32C
// (Castagnoli) of the preceding bytes, 4 bytes little-endian.
const SumLen = 4

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Summer passes writes on to W and keeps the checksum of all bytes
// written; Trailer writes that checksum to W.
type Summer struct {
	W io.Writer
	h hash.Hash32
}

// NewSummer returns a Summer writing to w.
func NewSummer(w io.Writer) *Summer { return &Summer{W: w, h: crc32.New(castagnoli)} }

// Write writes p to W and adds the bytes written to the checksum.
func (s *Summer) Write(p []byte) (int, error) {
	n, err := s.W.Write(p)
	s.h.Write(p[:n])
	return n, err
}

// Trailer writes the checksum of the bytes written so far (SumLen bytes)
// to W; it must come last in the file.
func (s *Summer) Trailer() error {
	var b [SumLen]byte
	binary.LittleEndian.PutUint32(b[:], s.h.Sum32())
	_, err := s.W.Write(b[:])
	return err
}

// Unseal checks the trailer Summer.Trailer wrote at the end of data and
// returns data without it (a substring, no copy); a missing or wrong
// checksum is ErrBad.
func Unseal(data string) (string, error) {
	if len(data) < SumLen {
		return "", ErrBad
	}
	body, tail := data[:len(data)-SumLen], data[len(data)-SumLen:]
	var got uint32
	if len(body) > 0 {
		got = crc32.Checksum(unsafe.Slice(unsafe.StringData(body), len(body)), castagnoli)
	}
	if got != uint32(tail[0])|uint32(tail[1])<<8|uint32(tail[2])<<16|uint32(tail[3])<<24 {
		return "", ErrBad
	}
	return body, nil
}
