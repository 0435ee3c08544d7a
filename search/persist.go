package search

// persist.go keeps the analysed lexical index on disk between runs of the
// CLI (Config.Persist): a warm run reads it back instead of analysing
// every unit again, which is most of a warm build (search/README.md).

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/repilot-lsp/repilot-lsp/internal/cachedir"
	"github.com/repilot-lsp/repilot-lsp/search/binenc"
	"github.com/repilot-lsp/repilot-lsp/search/index"
	"github.com/repilot-lsp/repilot-lsp/search/units"
)

// snapshotFile holds the analysed lexical index in Config.CacheDir: the
// line snapshotMagic, the key (hex) and '1' or '0' for the doc-mined
// model on one line, then (package binenc) the files the state was
// analysed from (path, content hash, unit IDs), BM25's state and the
// model's (lexical.BM25.WriteState, lexical.Assoc.WriteState), and a
// checksum of all that (binenc.Summer; v4).
const snapshotFile = "lexical-v4.bin"

const snapshotMagic = "repilot-lsp lexical snapshot v4\n"

// oldSnapshots are earlier formats' files, removed when a new one is saved.
var oldSnapshots = []string{"lexical-v1.gob", "lexical-v2.bin", "lexical-v3.bin"}

// persisting says whether Build defers the lexical analysis to read it
// from (or write it to) the snapshot.
func (e *Engine) persisting() bool {
	return e.cfg.Persist && e.cfg.CacheDir != "" && e.cfg.Transform == nil
}

// snapshotKey names what shapes the analysis besides the files: the unit
// extraction's version and the tuning.
func (e *Engine) snapshotKey() string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%+v", index.Version(), *e.cfg.Tuning)
	return hex.EncodeToString(h.Sum(nil))
}

// finishBuild ends a deferred build. The lexical state comes from the
// snapshot when its key matches, brought up to date with the files that
// changed since it was saved (their old units deleted, their new ones
// analysed: a one-file edit costs that file, not the whole workspace);
// without a usable snapshot, from analysing every deferred unit.
func (e *Engine) finishBuild() {
	e.mu.Lock()
	e.deferring = false
	pending := e.deferred
	e.deferred = nil
	e.mu.Unlock()
	key := e.snapshotKey()
	cur := e.idx.FileStates()
	old, err := e.readSnapshot(key)
	var changed map[string]bool // paths whose units are analysed now (nil: all)
	var gone []string           // unit IDs of the snapshot's files that changed or went
	if err == nil {
		changed = map[string]bool{}
		was := make(map[string]index.FileState, len(old))
		for _, f := range old {
			was[f.Path] = f
		}
		for _, f := range cur {
			if o, ok := was[f.Path]; !ok || o.Hash != f.Hash {
				changed[f.Path] = true
				gone = append(gone, o.IDs...)
			}
			delete(was, f.Path)
		}
		for _, o := range was {
			gone = append(gone, o.IDs...)
		}
		if len(gone) > 0 {
			if e.assoc != nil {
				e.assoc.Delete(gone)
			}
			e.lex.Delete(gone)
		}
	}
	delta := len(changed) + len(gone)
	if err != nil || delta > 0 {
		// The last version of each unit still in the view, in arrival order.
		var all []units.Unit
		for _, batch := range pending {
			all = append(all, batch...)
		}
		last := make(map[string]int, len(all))
		for i, u := range all {
			last[u.ID] = i
		}
		var ups []units.Unit
		e.mu.RLock()
		for i, u := range all {
			if _, ok := e.view[u.ID]; ok && last[u.ID] == i && (changed == nil || changed[u.Path]) {
				ups = append(ups, u)
			}
		}
		e.mu.RUnlock()
		if len(ups) > 0 {
			if e.assoc != nil {
				e.assoc.Upsert(ups)
			}
			e.lex.Upsert(ups)
		}
	}
	e.mu.Lock()
	e.snapKey, e.snapFiles = key, cur
	e.snapSaved = err == nil && delta == 0
	e.snapUpdated = err == nil && delta > 0
	e.mu.Unlock()
}

// readSnapshot loads the lexical state saved under key and returns the
// files it was analysed from.
func (e *Engine) readSnapshot(key string) ([]index.FileState, error) {
	// The states' strings are substrings of data, a mapping of the file
	// that lives as long as the process (Persist is the one-shot CLI's).
	data, err := binenc.MapFile(filepath.Join(e.cfg.CacheDir, snapshotFile))
	if err != nil {
		return nil, err
	}
	if data, err = binenc.Unseal(data); err != nil {
		return nil, err
	}
	head := snapshotMagic + key + " " + assocFlag(e.assoc != nil) + "\n"
	if !strings.HasPrefix(data, head) {
		return nil, fmt.Errorf("search: the lexical snapshot is for other units or settings")
	}
	d := &binenc.Decoder{S: data, Off: len(head)}
	files := make([]index.FileState, d.Count(34))
	for i := range files {
		f := &files[i]
		f.Path = d.Str()
		if h := d.Str(); len(h) == len(f.Hash) {
			copy(f.Hash[:], h)
		} else {
			d.Fail()
		}
		f.IDs = d.Strs()
	}
	if d.Err != nil {
		return nil, d.Err
	}
	rest, err := e.lex.ReadState(d.Rest())
	if err != nil {
		return nil, err
	}
	if e.assoc != nil {
		if rest, err = e.assoc.ReadState(rest); err != nil {
			e.lex.Reset()
			return nil, err
		}
	}
	if rest != "" {
		e.lex.Reset()
		if e.assoc != nil {
			e.assoc.Reset()
		}
		return nil, fmt.Errorf("search: %d bytes after the lexical snapshot", len(rest))
	}
	return files, nil
}

func assocFlag(on bool) string {
	if on {
		return "1"
	}
	return "0"
}

// saveSnapshot writes the lexical state when it was analysed (or brought
// up to date) in this run and nothing changed since the build (write to a
// temporary file, then rename: a reader never sees half a snapshot, and a
// mapping of the old file stays whole).
func (e *Engine) saveSnapshot() error {
	e.mu.RLock()
	key, saved, files := e.snapKey, e.snapSaved, e.snapFiles
	e.mu.RUnlock()
	if key == "" || saved {
		return nil
	}
	if err := os.MkdirAll(e.cfg.CacheDir, 0o755); err != nil {
		return err
	}
	tmp, err := cachedir.CreateTemp(e.cfg.CacheDir, snapshotFile)
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	sum := binenc.NewSummer(tmp)
	w := bufio.NewWriter(sum)
	w.WriteString(snapshotMagic + key + " " + assocFlag(e.assoc != nil) + "\n")
	enc := &binenc.Encoder{W: w}
	enc.Int(len(files))
	for _, f := range files {
		enc.Str(f.Path)
		enc.Str(string(f.Hash[:]))
		enc.Strs(f.IDs)
	}
	err = w.Flush()
	if err == nil {
		err = e.lex.WriteState(w)
	}
	if err == nil && e.assoc != nil {
		err = e.assoc.WriteState(w)
	}
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = sum.Trailer()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), filepath.Join(e.cfg.CacheDir, snapshotFile)); err != nil {
		return err
	}
	for _, old := range oldSnapshots {
		os.Remove(filepath.Join(e.cfg.CacheDir, old))
	}
	return nil
}
