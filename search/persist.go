package search

// persist.go keeps the analysed lexical index on disk between runs of the
// CLI (Config.Persist): a warm run reads it back instead of analysing
// every unit again, which is most of a warm build (search/README.md).

import (
	"bufio"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/repilot-lsp/repilot-lsp/search/units"
)

// snapshotFile holds the analysed lexical index in Config.CacheDir.
const snapshotFile = "lexical-v1.gob"

// snapshotHeader starts the file: the key the state belongs to.
type snapshotHeader struct {
	Key   string
	Assoc bool
}

// persisting says whether Build defers the lexical analysis to read it
// from (or write it to) the snapshot.
func (e *Engine) persisting() bool {
	return e.cfg.Persist && e.cfg.CacheDir != "" && e.cfg.Transform == nil
}

// snapshotKey names the units and the tuning the lexical state comes from.
func (e *Engine) snapshotKey() string {
	d := e.idx.Digest()
	h := sha256.New()
	h.Write(d[:])
	fmt.Fprintf(h, "%+v", *e.cfg.Tuning)
	return hex.EncodeToString(h.Sum(nil))
}

// finishBuild ends a deferred build: the lexical state comes from the
// snapshot when its key matches, else from analysing the deferred units.
func (e *Engine) finishBuild() {
	e.mu.Lock()
	e.deferring = false
	pending := e.deferred
	e.deferred = nil
	// The last version of each unit still in the view, in arrival order.
	last := map[string]int{}
	for i, u := range pending {
		last[u.ID] = i
	}
	var ups []units.Unit
	for i, u := range pending {
		if _, ok := e.view[u.ID]; ok && last[u.ID] == i {
			ups = append(ups, u)
		}
	}
	e.mu.Unlock()
	key := e.snapshotKey()
	saved := e.readSnapshot(key) == nil
	if !saved {
		if e.assoc != nil {
			e.assoc.Upsert(ups)
		}
		e.lex.Upsert(ups)
	}
	e.mu.Lock()
	e.snapKey, e.snapSaved = key, saved
	e.mu.Unlock()
}

func (e *Engine) readSnapshot(key string) error {
	f, err := os.Open(filepath.Join(e.cfg.CacheDir, snapshotFile))
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReader(f) // an io.ByteReader: the decoders below read no further than their value
	var h snapshotHeader
	if err := gob.NewDecoder(r).Decode(&h); err != nil {
		return err
	}
	if h.Key != key || h.Assoc != (e.assoc != nil) {
		return fmt.Errorf("search: the lexical snapshot is for other units or settings")
	}
	if err := e.lex.ReadState(r); err != nil {
		return err
	}
	if e.assoc != nil {
		if err := e.assoc.ReadState(r); err != nil {
			e.lex.Reset()
			e.assoc.Reset()
			return err
		}
	}
	return nil
}

// saveSnapshot writes the lexical state when it was analysed in this run
// and nothing changed since the build (write to a temporary file, then
// rename: a reader never sees half a snapshot).
func (e *Engine) saveSnapshot() error {
	e.mu.RLock()
	key, saved := e.snapKey, e.snapSaved
	e.mu.RUnlock()
	if key == "" || saved {
		return nil
	}
	if err := os.MkdirAll(e.cfg.CacheDir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(e.cfg.CacheDir, snapshotFile+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriter(tmp)
	err = gob.NewEncoder(w).Encode(snapshotHeader{Key: key, Assoc: e.assoc != nil})
	if err == nil {
		err = e.lex.WriteState(w)
	}
	if err == nil && e.assoc != nil {
		err = e.assoc.WriteState(w)
	}
	if err == nil {
		err = w.Flush()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(e.cfg.CacheDir, snapshotFile))
}
