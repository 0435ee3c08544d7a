package engine

// jimage.go reads the resource names of a JDK's run-time image (lib/modules,
// the "jimage" format of JDK 9 and later): the index at the start of the file
// (a header, a hash table, the locations and a string table) names every
// resource as /module/parent/base.extension. Only the index is read; no
// resource is decompressed. Format: OpenJDK's jdk.internal.jimage
// (ImageHeader, ImageLocation, BasicImageReader).

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// jimageMagic starts every jimage file, in the byte order of the platform
// that wrote it.
const jimageMagic = 0xCAFEDADA

// Location attribute kinds (jdk.internal.jimage.ImageLocation).
const (
	jimageAttrEnd       = 0
	jimageAttrModule    = 1
	jimageAttrParent    = 2
	jimageAttrBase      = 3
	jimageAttrExtension = 4
	jimageAttrCount     = 8
)

// jimageEntry is one resource of an image: module ("java.base"), parent
// ("java/util", "" for a module's root), base ("HashMap$Entry") and extension
// ("class").
type jimageEntry struct {
	Module, Parent, Base, Extension string
}

// readJimage calls fn for every resource of the image at path. Errors: the
// file cannot be read, is not a jimage of either byte order, or its index is
// cut short or points outside itself.
func readJimage(path string, fn func(jimageEntry)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var hdr [28]byte
	if _, err := io.ReadFull(f, hdr[:]); err != nil {
		return fmt.Errorf("jimage %s: header: %w", path, err)
	}
	var bo binary.ByteOrder = binary.LittleEndian
	if bo.Uint32(hdr[0:]) != jimageMagic {
		bo = binary.BigEndian
		if bo.Uint32(hdr[0:]) != jimageMagic {
			return fmt.Errorf("jimage %s: bad magic", path)
		}
	}
	tableLen := int64(bo.Uint32(hdr[16:]))
	locSize := int64(bo.Uint32(hdr[20:]))
	strSize := int64(bo.Uint32(hdr[24:]))
	const maxIndex = 1 << 30
	size := 2*4*tableLen + locSize + strSize
	if tableLen < 0 || size > maxIndex {
		return fmt.Errorf("jimage %s: index of %d bytes", path, size)
	}
	idx := make([]byte, size)
	if _, err := io.ReadFull(f, idx); err != nil {
		return fmt.Errorf("jimage %s: index: %w", path, err)
	}
	offsets := idx[4*tableLen : 8*tableLen]
	locs := idx[8*tableLen : 8*tableLen+locSize]
	strs := idx[8*tableLen+locSize:]
	str := func(off uint64) (string, error) {
		if off >= uint64(len(strs)) {
			return "", errors.New("string offset out of range")
		}
		end := off
		for end < uint64(len(strs)) && strs[end] != 0 {
			end++
		}
		return string(strs[off:end]), nil
	}
	for i := int64(0); i < tableLen; i++ {
		off := uint64(bo.Uint32(offsets[4*i:]))
		var attr [jimageAttrCount]uint64
		for {
			if off >= uint64(len(locs)) {
				return fmt.Errorf("jimage %s: location %d out of range", path, i)
			}
			b := locs[off]
			kind := b >> 3
			if kind == jimageAttrEnd {
				break
			}
			n := uint64(b&7) + 1
			if off+n >= uint64(len(locs)) {
				return fmt.Errorf("jimage %s: location %d cut short", path, i)
			}
			var v uint64
			for j := uint64(1); j <= n; j++ {
				v = v<<8 | uint64(locs[off+j])
			}
			if kind < jimageAttrCount {
				attr[kind] = v
			}
			off += n + 1
		}
		var e jimageEntry
		var err error
		for _, p := range []struct {
			dst  *string
			kind int
		}{{&e.Module, jimageAttrModule}, {&e.Parent, jimageAttrParent}, {&e.Base, jimageAttrBase}, {&e.Extension, jimageAttrExtension}} {
			if *p.dst, err = str(attr[p.kind]); err != nil {
				return fmt.Errorf("jimage %s: location %d: %w", path, i, err)
			}
		}
		fn(e)
	}
	return nil
}
