package dense

// cache.go keeps embeddings on disk, keyed by the SHA-256 of the model name
// and the exact text embedded, so a restart (or a unit that moved without
// changing) never embeds the same text twice.
//
// File format (little endian), one file per model, append-only:
//
//	"RPVEC2\n" then records of: key [32]byte, dim uint32, dim × float32,
//	and a CRC-32C (Castagnoli) of those bytes, uint32.
//
// Load keeps the records before the first one that is torn (a crash
// mid-write) or fails its checksum (a flipped bit), and cuts the file
// there: a damaged vector is embedded again, never served. A file with
// another header (damaged, or the older "RPVEC1" without checksums) is
// started over.
//
// Two processes may share the file (two "search" runs on one project):
// it is opened for appending, each Flush writes whole records in one
// write, and the load with its cut, and each write, hold the file's flock
// (exclusive). Before, each process wrote from the offset where its load
// ended, so the second overwrote the first's records, and a load could
// cut another's write in half (TestCacheSharedByTwoProcesses).

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

const cacheMagic = "RPVEC2\n"

// castagnoli is the CRC-32C table of the records' checksums.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Key identifies one (model, text) pair.
type Key [32]byte

// KeyOf returns the cache key of text embedded by model.
func KeyOf(model, text string) Key {
	h := sha256.New()
	h.Write([]byte(model))
	h.Write([]byte{0})
	h.Write([]byte(text))
	var k Key
	h.Sum(k[:0])
	return k
}

// Cache maps keys to vectors, in memory and (when it has a file) on disk.
// It is safe for concurrent use.
type Cache struct {
	mu      sync.Mutex
	m       map[Key][]float32
	f       *os.File // opened for appending; nil: memory only
	pending []byte   // whole records not yet written (Flush)
	path    string
	werr    error // the first error writing the file (WriteErr)
}

// OpenCache loads (or creates) the cache file for model under dir. dir ""
// gives a memory-only cache.
func OpenCache(dir, model string) (*Cache, error) {
	c := &Cache{m: map[Key][]float32{}}
	if dir == "" {
		return c, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(model))
	c.path = filepath.Join(dir, "embeddings-"+hex.EncodeToString(sum[:8])+".bin")
	f, err := os.OpenFile(c.path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	unlock := lockFile(f)
	err = c.open(f)
	unlock()
	if err != nil {
		f.Close()
		return nil, err
	}
	c.f = f
	return c, nil
}

// open loads f and cuts it after its valid records (a new or started-over
// file gets the header). The caller holds f's lock.
func (c *Cache) open(f *os.File) error {
	valid, err := c.load(f)
	if err != nil {
		return err
	}
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if st.Size() != valid {
		// Drop a torn tail so appends start on a record boundary.
		if err := f.Truncate(valid); err != nil {
			return err
		}
	}
	if valid == 0 {
		_, err = f.WriteString(cacheMagic)
	}
	return err
}

// lockFile takes f's flock (exclusive, waiting for it) and returns its
// release; where the file system has no flock it does nothing.
func lockFile(f *os.File) (unlock func()) {
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX) != nil {
		return func() {}
	}
	return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
}

// load reads every complete record whose checksum holds, up to the first
// that is torn or damaged; it returns the length of the valid prefix of the
// file (0: start over).
func (c *Cache) load(f *os.File) (int64, error) {
	r := bufio.NewReaderSize(io.NewSectionReader(f, 0, 1<<62), 1<<16)
	magic := make([]byte, len(cacheMagic))
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != cacheMagic {
		return 0, nil // empty, torn or damaged header, or another format: start over
	}
	valid := int64(len(cacheMagic))
	var head [36]byte
	for {
		if _, err := io.ReadFull(r, head[:]); err != nil {
			return valid, nil
		}
		var k Key
		copy(k[:], head[:32])
		dim := binary.LittleEndian.Uint32(head[32:])
		if dim == 0 || dim > 1<<16 {
			return valid, nil
		}
		buf := make([]byte, 4*dim+4)
		if _, err := io.ReadFull(r, buf); err != nil {
			return valid, nil
		}
		sum := crc32.Update(crc32.Checksum(head[:], castagnoli), castagnoli, buf[:4*dim])
		if sum != binary.LittleEndian.Uint32(buf[4*dim:]) {
			return valid, nil
		}
		v := make([]float32, dim)
		for i := range v {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(buf[4*i:]))
		}
		c.m[k] = v
		valid += int64(len(head) + len(buf))
	}
}

// Get returns the vector for k.
func (c *Cache) Get(k Key) ([]float32, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[k]
	return v, ok
}

// Put stores v under k (and appends it to the file at the next Flush).
func (c *Cache) Put(k Key, v []float32) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[k]; ok {
		return nil
	}
	c.m[k] = v
	if c.f == nil {
		return nil
	}
	rec := make([]byte, 36+4*len(v)+4)
	copy(rec, k[:])
	binary.LittleEndian.PutUint32(rec[32:], uint32(len(v)))
	for i, x := range v {
		binary.LittleEndian.PutUint32(rec[36+4*i:], math.Float32bits(x))
	}
	binary.LittleEndian.PutUint32(rec[len(rec)-4:], crc32.Checksum(rec[:len(rec)-4], castagnoli))
	c.pending = append(c.pending, rec...)
	return nil
}

// Len is the number of vectors held.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

// Flush appends the vectors Put since the last Flush to the file, in one
// write under the file's lock.
func (c *Cache) Flush() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f == nil || len(c.pending) == 0 {
		return nil
	}
	unlock := lockFile(c.f)
	_, err := c.f.Write(c.pending)
	unlock()
	c.pending = c.pending[:0]
	if err != nil && c.werr == nil {
		c.werr = err
	}
	return err
}

// SetWriteErr records err as the cache's write error (WriteErr) unless one
// is recorded: for a memory-only cache that stands in for a file that
// could not be opened.
func (c *Cache) SetWriteErr(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.werr == nil {
		c.werr = err
	}
}

// WriteErr returns the first error writing the file (a full disk), nil if
// none: the vectors stay in memory, and those not written are embedded
// again by the next process.
func (c *Cache) WriteErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.werr
}

// Close flushes and closes the file.
func (c *Cache) Close() error {
	err := c.Flush()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f != nil {
		if cerr := c.f.Close(); err == nil {
			err = cerr
		}
		c.f, c.pending = nil, nil
	}
	return err
}
