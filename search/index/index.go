// Package index keeps the workspace index of semantic search: the code units
// (package units) of every Java, Python and Go file under a root, built in
// the background with progress, updated incrementally file by file (Update,
// Remove, UpdateFromDisk: what didChange, didSave and didChangeWatchedFiles
// need), and cached on disk so a restart re-parses only files whose content
// changed.
//
// Subscribers (the retrieval streams) receive every change as a Change, in
// order, so each can keep its own structure (lexical index, vectors) in step.
//
// Architecture invariant: the index knows files, bytes and units; it knows
// nothing of LSP (callers pass paths, not URIs) and nothing of the streams.
package index

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/repilot-lsp/repilot-lsp/internal/cachedir"
	"github.com/repilot-lsp/repilot-lsp/search/binenc"
	"github.com/repilot-lsp/repilot-lsp/search/units"
)

// Change is what one update did: units added or modified (to be upserted)
// and IDs of units that disappeared.
type Change struct {
	Upserted []units.Unit
	Removed  []string
}

// Progress reports a build: Files of TotalFiles files done, Units found so
// far, Reused of the files taken from the cache without parsing, TooLarge
// of the files skipped unread for being over units.MaxFileBytes,
// Unreadable of the files skipped because they could not be read (no
// permission, an I/O error; not those deleted meanwhile), the first of
// them in FirstUnreadable ("path: error").
type Progress struct {
	Files, TotalFiles, Units, Reused, TooLarge, Unreadable int
	FirstUnreadable                                        string
	Done                                                   bool
}

// openRead opens a file to index for reading, without waiting (a FIFO's
// open would wait for a writer). A variable for tests.
var openRead = func(abs string) (*os.File, error) {
	return os.OpenFile(abs, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// ErrTooLarge is wrapped by UpdateFromDisk's error for a file over
// units.MaxFileBytes: it is not read (beyond one byte past the bound, for
// a file that grew after its size was taken) and has no units.
var ErrTooLarge = errors.New("file over the index's size bound")

// readBounded reads the regular file at abs whose size was size: at most
// units.MaxFileBytes+1 bytes, and none when size is over the bound. A file
// over the bound is ErrTooLarge.
func readBounded(abs string, size int64) ([]byte, error) {
	tooLarge := func(n int64) error {
		return fmt.Errorf("%w: %s is %d bytes or more, over the %d-byte bound", ErrTooLarge, abs, n, units.MaxFileBytes)
	}
	if size > units.MaxFileBytes {
		return nil, tooLarge(size)
	}
	// Opened without waiting, and read only when what was opened is a
	// regular file: a file replaced by a FIFO after the walk (or the stat)
	// saw it would otherwise block the open until a writer came, for good.
	f, err := openRead(abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil {
		return nil, err
	} else if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is no longer a regular file (%s)", abs, st.Mode().Type())
	}
	var buf bytes.Buffer
	buf.Grow(int(size) + bytes.MinRead)
	if _, err := buf.ReadFrom(io.LimitReader(f, units.MaxFileBytes+1)); err != nil {
		return nil, err
	}
	if buf.Len() > units.MaxFileBytes {
		return nil, tooLarge(int64(buf.Len()))
	}
	return buf.Bytes(), nil
}

// Options configure an Index.
type Options struct {
	// Root is the workspace root; paths in units are relative to it.
	Root string
	// CacheDir holds the unit cache between runs ("" disables it).
	CacheDir string
	// Include, when set, limits the index to files for which it returns true
	// (rel is slash-separated, relative to Root).
	Include func(rel string) bool
	// Workers parse files in parallel (0: GOMAXPROCS, at most 4).
	Workers int
	// MapCache reads the unit cache by mapping the file, never unmapped
	// (binenc.MapFile): for a process that builds once and exits (the CLI).
	MapCache bool
}

// SkipDirs are directory names never walked: version control, dependencies
// and build outputs. Hidden directories (".name") and Python virtual
// environments (a directory holding pyvenv.cfg) are skipped too.
var SkipDirs = map[string]bool{
	"node_modules": true, "target": true, "build": true, "out": true, "bin": true,
	"__pycache__": true, "venv": true, "site-packages": true, "dist": true,
}

type fileEntry struct {
	Hash    [32]byte
	Size    int64 // from disk; 0 when the entry came from an editor buffer
	ModTime int64 // UnixNano, as Size
	Units   []units.Unit
}

// Index is the workspace index. It is safe for concurrent use.
type Index struct {
	opt Options

	notify sync.Mutex // held while a change is applied and delivered: keeps order
	subs   []func(Change)

	mu    sync.RWMutex
	files map[string]*fileEntry // by relative path
	byID  map[string]*units.Unit
	dirty bool // files changed since the last Save
}

// New returns an empty index for opt.Root. Call Build to fill it.
func New(opt Options) (*Index, error) {
	root, err := filepath.Abs(opt.Root)
	if err != nil {
		return nil, err
	}
	opt.Root = root
	if opt.Workers <= 0 {
		opt.Workers = min(runtime.GOMAXPROCS(0), 4)
	}
	return &Index{opt: opt, files: map[string]*fileEntry{}, byID: map[string]*units.Unit{}}, nil
}

// Root is the absolute workspace root.
func (x *Index) Root() string { return x.opt.Root }

// Subscribe registers f to receive every later change, in order. f runs on
// the goroutine that made the change, with the index's notification lock
// held: it must not call Update, Remove or Build. Subscribe before Build to
// see every unit.
func (x *Index) Subscribe(f func(Change)) {
	x.notify.Lock()
	defer x.notify.Unlock()
	x.subs = append(x.subs, f)
}

// Len is the number of units.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.byID)
}

// Unit returns the unit with the given ID.
func (x *Index) Unit(id string) (units.Unit, bool) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	u, ok := x.byID[id]
	if !ok {
		return units.Unit{}, false
	}
	return *u, true
}

// Units returns every unit, sorted by path then position.
func (x *Index) Units() []units.Unit {
	x.mu.RLock()
	paths := make([]string, 0, len(x.files))
	for p := range x.files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var out []units.Unit
	for _, p := range paths {
		out = append(out, x.files[p].Units...)
	}
	x.mu.RUnlock()
	return out
}

// Digest is a SHA-256 over the indexed files' paths and content hashes
// and the unit cache's version: equal digests mean equal units.
func (x *Index) Digest() [32]byte {
	x.mu.RLock()
	paths := make([]string, 0, len(x.files))
	for p := range x.files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	h := sha256.New()
	io.WriteString(h, cacheFile)
	for _, p := range paths {
		h.Write([]byte{0})
		io.WriteString(h, p)
		h.Write(x.files[p].Hash[:])
	}
	x.mu.RUnlock()
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// FileState is one indexed file as the lexical snapshot records it: its
// path, content hash and unit IDs.
type FileState struct {
	Path string
	Hash [32]byte
	IDs  []string
}

// FileStates returns every indexed file's state, sorted by path.
func (x *Index) FileStates() []FileState {
	x.mu.RLock()
	out := make([]FileState, 0, len(x.files))
	for p, e := range x.files {
		ids := make([]string, len(e.Units))
		for i := range e.Units {
			ids[i] = e.Units[i].ID
		}
		out = append(out, FileState{Path: p, Hash: e.Hash, IDs: ids})
	}
	x.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// Version names the unit extraction: files with equal hashes under equal
// versions have equal units.
func Version() string { return cacheFile }

// Files returns the relative paths of the indexed files, sorted.
func (x *Index) Files() []string {
	x.mu.RLock()
	defer x.mu.RUnlock()
	out := make([]string, 0, len(x.files))
	for p := range x.files {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// Rel converts an absolute or root-relative path to the slash-separated
// path relative to the root; ok is false for paths outside the root.
func (x *Index) Rel(path string) (rel string, ok bool) {
	if !filepath.IsAbs(path) {
		path = filepath.Join(x.opt.Root, path)
	}
	r, err := filepath.Rel(x.opt.Root, filepath.Clean(path))
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(r), true
}

func (x *Index) wanted(rel string) bool {
	if units.LangOf(rel) == "" {
		return false
	}
	return x.opt.Include == nil || x.opt.Include(rel)
}

// apply replaces the entries of the given files (nil entry: remove) and
// delivers the resulting change. The caller holds x.notify.
func (x *Index) apply(entries map[string]*fileEntry) Change {
	var ch Change
	x.mu.Lock()
	for rel, e := range entries {
		old := x.files[rel]
		var oldByID map[string]*units.Unit
		if old != nil {
			oldByID = make(map[string]*units.Unit, len(old.Units))
			for i := range old.Units {
				oldByID[old.Units[i].ID] = &old.Units[i]
			}
		}
		if e != nil {
			for i := range e.Units {
				u := &e.Units[i]
				if o, ok := oldByID[u.ID]; !ok || *o != *u {
					ch.Upserted = append(ch.Upserted, *u)
				}
				delete(oldByID, u.ID)
				x.byID[u.ID] = u
			}
			x.files[rel] = e
		} else {
			delete(x.files, rel)
		}
		for id := range oldByID {
			ch.Removed = append(ch.Removed, id)
			delete(x.byID, id)
		}
		x.dirty = true
	}
	x.mu.Unlock()
	if len(ch.Upserted) > 0 || len(ch.Removed) > 0 {
		for _, f := range x.subs {
			f(ch)
		}
	}
	return ch
}

// Update sets the text of one file (an editor buffer: didOpen, didChange)
// and re-extracts its units if the text changed. Files outside the root or
// in no supported language are ignored. The returned Change says what
// changed.
func (x *Index) Update(ctx context.Context, path string, text []byte) (Change, error) {
	rel, ok := x.Rel(path)
	if !ok || !x.wanted(rel) {
		return Change{}, nil
	}
	h := sha256.Sum256(text)
	x.mu.RLock()
	old := x.files[rel]
	x.mu.RUnlock()
	if old != nil && old.Hash == h {
		return Change{}, nil
	}
	us, err := units.Extract(ctx, rel, text)
	if err != nil && ctx.Err() != nil {
		return Change{}, err
	}
	x.notify.Lock()
	defer x.notify.Unlock()
	return x.apply(map[string]*fileEntry{rel: {Hash: h, Units: us}}), nil
}

// UpdateFromDisk re-reads a file (didSave, didChangeWatchedFiles created or
// changed); a file that no longer exists is removed.
func (x *Index) UpdateFromDisk(ctx context.Context, path string) (Change, error) {
	rel, ok := x.Rel(path)
	if !ok {
		return Change{}, nil
	}
	abs := filepath.Join(x.opt.Root, filepath.FromSlash(rel))
	readAt := time.Now()
	st, err := os.Stat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return x.Remove(path), nil
	}
	if err != nil {
		return Change{}, err
	}
	if st.IsDir() {
		return x.rescan(ctx, rel)
	}
	if !st.Mode().IsRegular() {
		// A FIFO or device: never indexed (Build's walk skips them too), and
		// never opened (a FIFO's open waits for a writer for good).
		return x.Remove(path), nil
	}
	text, err := readBounded(abs, st.Size())
	if errors.Is(err, ErrTooLarge) {
		return x.Remove(path), err
	}
	if err != nil {
		return Change{}, err
	}
	ch, err := x.Update(ctx, rel, text)
	if err == nil {
		x.mu.Lock()
		if e := x.files[rel]; e != nil && e.Hash == sha256.Sum256(text) {
			e.Size, e.ModTime = st.Size(), stamp(st.ModTime().UnixNano(), readAt)
		}
		x.mu.Unlock()
	}
	return ch, err
}

// rescan re-walks one directory (a folder created or renamed).
func (x *Index) rescan(ctx context.Context, relDir string) (Change, error) {
	var all Change
	err := x.walk(filepath.Join(x.opt.Root, filepath.FromSlash(relDir)), func(rel, _ string) error {
		ch, err := x.UpdateFromDisk(ctx, rel)
		all.Upserted = append(all.Upserted, ch.Upserted...)
		all.Removed = append(all.Removed, ch.Removed...)
		return err
	})
	return all, err
}

// Remove drops a file, or every file under a directory (didChangeWatchedFiles
// deleted).
func (x *Index) Remove(path string) Change {
	rel, ok := x.Rel(path)
	if !ok {
		return Change{}
	}
	x.notify.Lock()
	defer x.notify.Unlock()
	gone := map[string]*fileEntry{}
	x.mu.RLock()
	for p := range x.files {
		if p == rel || rel == "." || strings.HasPrefix(p, rel+"/") {
			gone[p] = nil
		}
	}
	x.mu.RUnlock()
	return x.apply(gone)
}

// walk calls f for every wanted file under dir (absolute), with its
// root-relative and absolute path. Links inside the tree are not followed
// (no cycles, no file indexed twice; dir too when it is one of them), but
// the root itself may be one: a project opened through a symbolic link
// (filepath.WalkDir alone would visit the link and nothing under it).
func (x *Index) walk(dir string, f func(rel, abs string) error) error {
	if st, err := os.Lstat(dir); err == nil && st.Mode()&fs.ModeSymlink != 0 && dir == x.opt.Root {
		// With a trailing separator the link is resolved and the paths
		// still start with dir (filepath.Join cleans the separator away).
		dir += string(filepath.Separator)
	}
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			return nil // unreadable entries are skipped
		}
		if d.IsDir() {
			if p != dir && (strings.HasPrefix(d.Name(), ".") || SkipDirs[d.Name()]) {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "pyvenv.cfg")); err == nil {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, ok := x.Rel(p)
		if !ok || !x.wanted(rel) {
			return nil
		}
		return f(rel, p)
	})
}

// Build walks the root and brings the index in step with the files on disk:
// new and changed files are parsed (or taken from the disk cache when their
// content hash matches), vanished files are removed. progress (may be nil)
// is called after each batch of files and once with Done set. Subscribers
// receive the changes batch by batch, so search works on a partial index
// while Build runs. The cache is saved at the end.
func (x *Index) Build(ctx context.Context, progress func(Progress)) error {
	type job struct {
		rel, abs string
	}
	var jobs []job
	if err := x.walk(x.opt.Root, func(rel, abs string) error {
		jobs = append(jobs, job{rel, abs})
		return nil
	}); err != nil {
		return fmt.Errorf("index: walking %s: %w", x.opt.Root, err)
	}
	cached, cachedAt := x.loadCache()
	x.mu.Lock()
	wasDirty := x.dirty
	if len(x.byID) == 0 && len(cached) > 0 {
		n := 0
		for _, e := range cached {
			n += len(e.Units)
		}
		x.byID = make(map[string]*units.Unit, n)
	}
	x.mu.Unlock()
	// unchanged: every file came from the cache by its size and mtime (or
	// was skipped for its size) and the cache holds no other file, so the
	// cache need not be written again.
	unchanged := cached != nil
	p := Progress{TotalFiles: len(jobs)}
	seen := map[string]bool{}
	const batchSize = 64
	var unchangedMu sync.Mutex
	for start := 0; start < len(jobs); start += batchSize {
		batch := jobs[start:min(start+batchSize, len(jobs))]
		entries := make([]*fileEntry, len(batch))
		reused, tooLarge := make([]bool, len(batch)), make([]bool, len(batch))
		readErrs := make([]error, len(batch))
		var wg sync.WaitGroup
		sem := make(chan struct{}, x.opt.Workers)
		for i, j := range batch {
			seen[j.rel] = true
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				var byStat bool
				entries[i], reused[i], byStat, tooLarge[i], readErrs[i] = x.load(ctx, j.rel, j.abs, cached[j.rel], cachedAt)
				if !byStat && !tooLarge[i] {
					unchangedMu.Lock()
					unchanged = false
					unchangedMu.Unlock()
				}
			}()
		}
		wg.Wait()
		if err := ctx.Err(); err != nil {
			return err
		}
		m := map[string]*fileEntry{}
		x.mu.RLock()
		for i, j := range batch {
			if reused[i] {
				p.Reused++
			}
			cur := x.files[j.rel]
			if tooLarge[i] {
				p.TooLarge++
			}
			if err := readErrs[i]; err != nil {
				if p.Unreadable == 0 {
					p.FirstUnreadable = j.rel + ": " + errors.Unwrap(err).Error()
				}
				p.Unreadable++
			}
			if cur != nil && cur.Size == 0 {
				continue // an editor buffer (Update) wins over the disk
			}
			if tooLarge[i] {
				if cur != nil {
					m[j.rel] = nil // grew past the bound: its units are gone
				}
				continue
			}
			if e := entries[i]; e != nil && (cur == nil || cur.Hash != e.Hash) {
				m[j.rel] = e
			}
		}
		x.mu.RUnlock()
		x.notify.Lock()
		x.apply(m)
		x.notify.Unlock()
		p.Files += len(batch)
		p.Units = x.Len()
		if progress != nil {
			progress(p)
		}
	}
	unchanged = unchanged && len(cached) == len(jobs)-p.TooLarge
	// Files indexed before (or in the cache) that are gone from disk.
	gone := map[string]*fileEntry{}
	x.mu.RLock()
	for rel, e := range x.files {
		if !seen[rel] && e.Size != 0 {
			gone[rel] = nil
		}
	}
	x.mu.RUnlock()
	x.notify.Lock()
	x.apply(gone)
	x.notify.Unlock()
	p.Units, p.Done = x.Len(), true
	if progress != nil {
		progress(p)
	}
	if unchanged && len(gone) == 0 {
		x.mu.Lock()
		x.dirty = wasDirty
		x.mu.Unlock()
	}
	if err := x.Save(); err != nil {
		return fmt.Errorf("%w: %w", ErrCacheNotSaved, err)
	}
	return nil
}

// ErrCacheNotSaved wraps the error of Build when the index was built but its
// unit cache could not be written (CacheDir not creatable, a full or
// read-only disk): the index is complete and usable, only the next run
// starts cold.
var ErrCacheNotSaved = errors.New("index cache not saved")

// load returns the entry for one file: the cached one when size and mtime
// (byStat; the file is not read) or else the content hash match (reused),
// a fresh extraction otherwise; nil when the file cannot be read or parsed,
// or is over units.MaxFileBytes (tooLarge; it is not read), with readErr
// set when it could not be read (not when it was deleted meanwhile: that
// is no fault, nor a file that is no longer regular). byStat is also
// set for a hashed file whose entry is unchanged (nothing to save).
// cachedAt is the cache file's mtime (UnixNano): a file whose mtime is not
// older may have changed again within the same clock tick after the cache
// recorded it (same size, same mtime), so it is hashed (git's "racily
// clean" entries). The cache is written at the end of a build, which may
// be seconds after the file was read, so each entry is also stamped by
// the time of its own read (stamp).
func (x *Index) load(ctx context.Context, rel, abs string, c *fileEntry, cachedAt int64) (e *fileEntry, reused, byStat, tooLarge bool, readErr error) {
	readAt := time.Now()
	st, err := os.Stat(abs)
	if err != nil {
		return nil, false, false, false, unreadable(err)
	}
	size, mtime := st.Size(), st.ModTime().UnixNano()
	if c != nil && c.Size == size && c.ModTime == mtime && mtime < cachedAt {
		return c, true, true, false, nil
	}
	text, err := readBounded(abs, size)
	if err != nil {
		return nil, false, false, errors.Is(err, ErrTooLarge), unreadable(err)
	}
	h := sha256.Sum256(text)
	stamped := stamp(mtime, readAt)
	if c != nil && c.Hash == h {
		same := c.Size == size && c.ModTime == stamped
		c.Size, c.ModTime = size, stamped
		return c, true, same, false, nil
	}
	us, err := units.Extract(ctx, rel, text)
	if err != nil {
		return nil, false, false, false, nil
	}
	return &fileEntry{Hash: h, Size: size, ModTime: stamped, Units: us}, false, false, false, nil
}

// unreadable returns err when it is a fault of reading a file (an
// *fs.PathError other than the file's absence), else nil.
func unreadable(err error) error {
	var pe *fs.PathError
	if errors.Is(err, fs.ErrNotExist) || !errors.As(err, &pe) {
		return nil
	}
	return pe
}

// racyWindow is how close to the moment a file is read its mtime may be
// for a later write within the same timestamp tick to leave size and mtime
// as they were: the coarsest common granularity (FAT's 2 s; ext3 and HFS+
// keep seconds, ext4 the kernel's tick).
const racyWindow = 2 * time.Second

// racyMTime is the mtime recorded for an entry read within racyWindow of
// its file's mtime: no stat matches it, so the next build hashes the file
// (git smudges such entries the same way). Before, only the cache file's
// mtime was compared, and a build that wrote the cache a tick or more
// after reading a file served that file's old units after a same-size
// rewrite in the read's tick (TestRacyCleanLongBuild).
const racyMTime = -1

// stamp is the mtime to record for a file whose mtime was mtime (UnixNano)
// when it was read at readAt.
func stamp(mtime int64, readAt time.Time) int64 {
	if mtime >= readAt.Add(-racyWindow).UnixNano() {
		return racyMTime
	}
	return mtime
}

// cacheFile names the unit cache; its version changes whenever
// units.Extract's output or the file's format does (v2: units inside Java
// anonymous classes, enum constants and lambdas, Python nested functions;
// v3: package binenc instead of gob, which took most of a warm CLI run's
// loading; v4: a checksum at the end, binenc.Summer; v5: a Java compact
// constructor's signature carries its record's components), so that a
// cache from an older binary is not read.
const cacheFile = "units-v5.bin"

// oldCacheFiles are earlier versions' caches, removed when a new one is saved.
var oldCacheFiles = []string{"units-v4.bin", "units-v3.bin", "units-v2.gob", "units.gob"}

const cacheMagic = "repilot-lsp unit cache v5\n"

// loadCache returns the cached entries and the cache file's mtime
// (UnixNano; see load).
func (x *Index) loadCache() (map[string]*fileEntry, int64) {
	if x.opt.CacheDir == "" {
		return nil, 0
	}
	path := filepath.Join(x.opt.CacheDir, cacheFile)
	st, err := os.Stat(path)
	if err != nil {
		return nil, 0
	}
	// The units' strings are substrings of data.
	read := binenc.ReadFile
	if x.opt.MapCache {
		read = binenc.MapFile
	}
	data, err := read(path)
	if err != nil {
		return nil, 0
	}
	// A damaged file is rebuilt: entries reused by size and mtime are
	// never read again, so a flipped bit would otherwise stay.
	if data, err = binenc.Unseal(data); err != nil {
		return nil, 0
	}
	if !strings.HasPrefix(data, cacheMagic) {
		return nil, 0
	}
	m, err := decodeCache(&binenc.Decoder{S: data, Off: len(cacheMagic)})
	if err != nil {
		return nil, 0 // a corrupt cache is rebuilt
	}
	return m, st.ModTime().UnixNano()
}

func encodeCache(e *binenc.Encoder, files map[string]*fileEntry) {
	e.W.WriteString(cacheMagic)
	e.Int(len(files))
	for rel, f := range files {
		e.Str(rel)
		e.W.Write(f.Hash[:])
		e.Uvarint(uint64(f.Size))
		e.Uvarint(uint64(f.ModTime))
		e.Int(len(f.Units))
		for i := range f.Units {
			u := &f.Units[i]
			for _, s := range [...]string{u.ID, u.Path, u.Lang, string(u.Kind), u.Name, u.Container, u.Signature, u.Doc, u.Code} {
				e.Str(s)
			}
			for _, n := range [...]int{u.Start.Line, u.Start.Character, u.End.Line, u.End.Character, u.StartByte, u.EndByte} {
				e.Int(n)
			}
		}
	}
}

// decodeCache reads what encodeCache wrote after the magic; the data must
// end with it.
func decodeCache(d *binenc.Decoder) (map[string]*fileEntry, error) {
	n := d.Count(36)
	m := make(map[string]*fileEntry, n)
	for i := 0; i < n && d.Err == nil; i++ {
		rel := d.Str()
		if len(d.S)-d.Off < 32 {
			d.Fail()
			break
		}
		f := &fileEntry{}
		copy(f.Hash[:], d.S[d.Off:d.Off+32])
		d.Off += 32
		f.Size, f.ModTime = int64(d.Uvarint()), int64(d.Uvarint())
		f.Units = make([]units.Unit, d.Count(15))
		for j := range f.Units {
			u := &f.Units[j]
			u.ID, u.Path, u.Lang, u.Kind, u.Name = d.Str(), d.Str(), d.Str(), units.Kind(d.Str()), d.Str()
			u.Container, u.Signature, u.Doc, u.Code = d.Str(), d.Str(), d.Str(), d.Str()
			u.Start.Line, u.Start.Character, u.End.Line, u.End.Character = d.Int(), d.Int(), d.Int(), d.Int()
			u.StartByte, u.EndByte = d.Int(), d.Int()
		}
		m[rel] = f
	}
	if d.Err == nil && d.Off != len(d.S) {
		d.Fail()
	}
	return m, d.Err
}

// Save writes the unit cache (atomically: a temporary file renamed over the
// old one). It is a no-op without a cache directory or changes.
func (x *Index) Save() error {
	if x.opt.CacheDir == "" {
		return nil
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.dirty {
		return nil
	}
	if err := os.MkdirAll(x.opt.CacheDir, 0o755); err != nil {
		return err
	}
	tmp, err := cachedir.CreateTemp(x.opt.CacheDir, cacheFile)
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	sum := binenc.NewSummer(tmp)
	e := &binenc.Encoder{W: bufio.NewWriter(sum)}
	encodeCache(e, x.files)
	err = e.W.Flush()
	if err == nil {
		err = sum.Trailer()
	}
	if err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), filepath.Join(x.opt.CacheDir, cacheFile)); err != nil {
		return err
	}
	for _, old := range oldCacheFiles {
		os.Remove(filepath.Join(x.opt.CacheDir, old))
	}
	x.dirty = false
	return nil
}

// AutoSave saves the cache every interval until ctx ends (then once more).
func (x *Index) AutoSave(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			x.Save()
			return
		case <-t.C:
			x.Save()
		}
	}
}
