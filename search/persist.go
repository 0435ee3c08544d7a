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

	"github.com/repilot-lsp/repilot-lsp/search/binenc"
	"github.com/repilot-lsp/repilot-lsp/search/units"
)

// snapshotFile holds the analysed lexical index in Config.CacheDir: the
// line snapshotMagic, the key (hex) and '1' or '0' for the doc-mined
// model on one line, then BM25's state and the model's
// (lexical.BM25.WriteState, lexical.Assoc.WriteState).
const snapshotFile = "lexical-v2.bin"

const snapshotMagic = "repilot-lsp lexical snapshot v2\n"

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
	e.mu.Unlock()
	key := e.snapshotKey()
	saved := e.readSnapshot(key) == nil
	if !saved {
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
			if _, ok := e.view[u.ID]; ok && last[u.ID] == i {
				ups = append(ups, u)
			}
		}
		e.mu.RUnlock()
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
	// The states' strings are substrings of data, a mapping of the file
	// that lives as long as the process (Persist is the one-shot CLI's).
	data, err := binenc.MapFile(filepath.Join(e.cfg.CacheDir, snapshotFile))
	if err != nil {
		return err
	}
	head := snapshotMagic + key + " " + assocFlag(e.assoc != nil) + "\n"
	if !strings.HasPrefix(data, head) {
		return fmt.Errorf("search: the lexical snapshot is for other units or settings")
	}
	rest, err := e.lex.ReadState(data[len(head):])
	if err != nil {
		return err
	}
	if e.assoc != nil {
		if rest, err = e.assoc.ReadState(rest); err != nil {
			e.lex.Reset()
			return err
		}
	}
	if rest != "" {
		e.lex.Reset()
		if e.assoc != nil {
			e.assoc.Reset()
		}
		return fmt.Errorf("search: %d bytes after the lexical snapshot", len(rest))
	}
	return nil
}

func assocFlag(on bool) string {
	if on {
		return "1"
	}
	return "0"
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
	_, err = w.WriteString(snapshotMagic + key + " " + assocFlag(e.assoc != nil) + "\n")
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
	if err := os.Rename(tmp.Name(), filepath.Join(e.cfg.CacheDir, snapshotFile)); err != nil {
		return err
	}
	os.Remove(filepath.Join(e.cfg.CacheDir, "lexical-v1.gob")) // the format before v2
	return nil
}
