// Package binenc is the binary encoding of search's on-disk caches (the
// unit cache of package index, the lexical snapshots of package lexical): varint
// lengths and counts, fixed little-endian 4-byte numbers, strings as
// length + bytes. Decoding works on one string holding the whole file, so
// every decoded string is a substring of it (no copy, no allocation) and
// number arrays are read without reflection: a warm CLI run spends its
// time in this decoding (search/README.md, "The persistent CLI index").
package binenc

// Every length is checked against the bytes left, so a damaged or
// truncated snapshot is an error, never a panic or a huge allocation.

import (
	"bufio"
	"encoding/binary"
	"errors"
	"math"
)

// ErrBad is the error of a decoder that met data its reads do not fit.
var ErrBad = errors.New("binenc: damaged or truncated data")

// Encoder writes values to W; check W.Flush's error at the end.
type Encoder struct {
	W   *bufio.Writer
	buf [binary.MaxVarintLen64]byte
}

// Uvarint writes v as a varint.
func (e *Encoder) Uvarint(v uint64) {
	n := binary.PutUvarint(e.buf[:], v)
	e.W.Write(e.buf[:n])
}

// Int writes a non-negative int as a varint.
func (e *Encoder) Int(v int) { e.Uvarint(uint64(v)) }

// U32 writes v in 4 bytes, little-endian.
func (e *Encoder) U32(v uint32) {
	binary.LittleEndian.PutUint32(e.buf[:4], v)
	e.W.Write(e.buf[:4])
}

// I32 writes v in 4 bytes.
func (e *Encoder) I32(v int32) { e.U32(uint32(v)) }

// F32 writes v's bits in 4 bytes.
func (e *Encoder) F32(v float32) { e.U32(math.Float32bits(v)) }

// F64 writes v's bits in 8 bytes, little-endian.
func (e *Encoder) F64(v float64) {
	binary.LittleEndian.PutUint64(e.buf[:8], math.Float64bits(v))
	e.W.Write(e.buf[:8])
}

// Bool writes one byte, 1 or 0.
func (e *Encoder) Bool(b bool) {
	if b {
		e.W.WriteByte(1)
	} else {
		e.W.WriteByte(0)
	}
}

// Str writes s's length and bytes.
func (e *Encoder) Str(s string) {
	e.Int(len(s))
	e.W.WriteString(s)
}

// Strs writes the count of ss, then each string.
func (e *Encoder) Strs(ss []string) {
	e.Int(len(ss))
	for _, s := range ss {
		e.Str(s)
	}
}

// I32s writes the count of vs, then each in 4 bytes.
func (e *Encoder) I32s(vs []int32) {
	e.Int(len(vs))
	for _, v := range vs {
		e.I32(v)
	}
}

// Decoder reads what Encoder wrote from S, starting at Off; the first
// error (Err) sticks and every later read returns zero values. Strings it
// returns are substrings of S.
type Decoder struct {
	S   string
	Off int
	Err error
}

// Fail sets Err to ErrBad (unless an error is set) and skips to the end.
func (d *Decoder) Fail() {
	if d.Err == nil {
		d.Err = ErrBad
	}
	d.Off = len(d.S)
}

// Uvarint reads a varint.
func (d *Decoder) Uvarint() uint64 {
	var v uint64
	for shift := uint(0); shift < 64; shift += 7 {
		if d.Off >= len(d.S) {
			d.Fail()
			return 0
		}
		b := d.S[d.Off]
		d.Off++
		v |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return v
		}
	}
	d.Fail()
	return 0
}

// Count reads a length of items at least size bytes each, checked against
// the bytes left.
func (d *Decoder) Count(size int) int {
	v := d.Uvarint()
	if v > uint64(len(d.S)-d.Off)/uint64(size) {
		d.Fail()
		return 0
	}
	return int(v)
}

// Int reads a varint that must fit in an int32.
func (d *Decoder) Int() int {
	v := d.Uvarint()
	if v > math.MaxInt32 {
		d.Fail()
		return 0
	}
	return int(v)
}

// U32 reads 4 bytes, little-endian.
func (d *Decoder) U32() uint32 {
	if len(d.S)-d.Off < 4 {
		d.Fail()
		return 0
	}
	s := d.S[d.Off : d.Off+4]
	d.Off += 4
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

// I32 reads 4 bytes.
func (d *Decoder) I32() int32 { return int32(d.U32()) }

// F32 reads a float32's bits.
func (d *Decoder) F32() float32 { return math.Float32frombits(d.U32()) }

// F64 reads a float64's bits.
func (d *Decoder) F64() float64 {
	lo, hi := uint64(d.U32()), uint64(d.U32())
	return math.Float64frombits(lo | hi<<32)
}

// Bool reads one byte.
func (d *Decoder) Bool() bool {
	if d.Off >= len(d.S) {
		d.Fail()
		return false
	}
	b := d.S[d.Off]
	d.Off++
	return b != 0
}

// Str reads a string (a substring of S).
func (d *Decoder) Str() string {
	n := d.Count(1)
	s := d.S[d.Off : d.Off+n]
	d.Off += n
	return s
}

// Strs reads a count and that many strings (nil for none).
func (d *Decoder) Strs() []string {
	n := d.Count(1)
	if n == 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = d.Str()
	}
	return out
}

// Rest is what follows the decoded part.
func (d *Decoder) Rest() string { return d.S[d.Off:] }

// Skip runs read, which reads one value with d, and returns that value's
// bytes undecoded (checked: Err is set if read failed).
func (d *Decoder) Skip(read func()) string {
	lo := d.Off
	read()
	return d.S[lo:d.Off]
}
