// This file defines the disk cache of the JDK's n-gram counts: lexing and
// counting java.base takes several seconds, loading its counts well under
// one.

package ngram

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/repilot-lsp/repilot-lsp/internal/cachedir"
)

// cacheFormat is bumped whenever the lexer, the stream or the cache layout
// changes in a way that changes the counts.
const cacheFormat = 2

// cacheEntry is the gob-encoded content of one cache file.
type cacheEntry struct {
	Format int
	Key    string
	Vocab  []string
	Order  int
	Grams  []uint32 // Order ids per n-gram, n-grams sorted
	Counts []uint32
	Files  int
	Tokens int
	Types  typeMemberCounts // since format 2
}

// jdkCounts returns the counts of src.zip, from cacheDir when it has them
// (cached=true), else by lexing the archive and then storing them there.
// Errors writing the cache are ignored: the cache is an optimisation.
func jdkCounts(ctx context.Context, zipPath string, include []string, order int, cacheDir string, progress func(string, int, int)) (c *counted, cached bool, err error) {
	st, err := os.Stat(zipPath)
	if err != nil {
		return nil, false, fmt.Errorf("ngram: %w", err)
	}
	real, err := filepath.EvalSymlinks(zipPath)
	if err != nil {
		real = zipPath
	}
	cacheKey := fmt.Sprintf("v%d order=%d path=%s size=%d mtime=%d include=%s",
		cacheFormat, order, real, st.Size(), st.ModTime().UnixNano(), strings.Join(include, ","))
	var file string
	if cacheDir != "" {
		sum := sha256.Sum256([]byte(cacheKey))
		file = filepath.Join(cacheDir, "jdk-"+hex.EncodeToString(sum[:8])+".gob")
		t0 := time.Now()
		if c, ok := loadCache(file, cacheKey, order); ok {
			c.took = time.Since(t0)
			return c, true, nil
		}
	}
	c, err = countZip(ctx, zipPath, include, order, progress)
	if err != nil {
		return nil, false, err
	}
	if file != "" {
		_ = saveCache(file, cacheKey, order, c)
	}
	return c, false, nil
}

func loadCache(file, cacheKey string, order int) (*counted, bool) {
	f, err := os.Open(file)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	var e cacheEntry
	if err := gob.NewDecoder(bufio.NewReaderSize(f, 1<<20)).Decode(&e); err != nil {
		return nil, false
	}
	if e.Format != cacheFormat || e.Key != cacheKey || e.Order != order || len(e.Grams) != len(e.Counts)*order ||
		len(e.Vocab) < int(numSpecial) {
		return nil, false
	}
	for i, s := range specialTexts {
		if e.Vocab[i] != s {
			return nil, false
		}
	}
	g := gramCounts{keys: make([]key, len(e.Counts)), counts: e.Counts}
	for i := range g.keys {
		copy(g.keys[i][:order], e.Grams[i*order:(i+1)*order])
		for _, id := range g.keys[i][:order] {
			if int(id) >= len(e.Vocab) {
				return nil, false
			}
		}
		if i > 0 && cmpKey(g.keys[i-1], g.keys[i]) >= 0 {
			return nil, false
		}
	}
	return &counted{vocab: e.Vocab, grams: g, types: e.Types, files: e.Files, tokens: e.Tokens}, true
}

func saveCache(file, cacheKey string, order int, c *counted) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	e := cacheEntry{Format: cacheFormat, Key: cacheKey, Vocab: c.vocab, Order: order, Counts: c.grams.counts,
		Files: c.files, Tokens: c.tokens, Types: c.types, Grams: make([]uint32, 0, len(c.grams.keys)*order)}
	for _, k := range c.grams.keys {
		e.Grams = append(e.Grams, k[:order]...)
	}
	// <file>.tmp-<pid>-*: a run killed mid-write (SIGKILL) leaves its
	// file, as large as the cache (9 MB for JDK 17), and the next save
	// removes it (cachedir.CreateTemp); the older ".jdk-*.tmp" names
	// stayed for good.
	removeLegacyTemps(filepath.Dir(file))
	tmp, err := cachedir.CreateTemp(filepath.Dir(file), filepath.Base(file))
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriterSize(tmp, 1<<20)
	if err := gob.NewEncoder(w).Encode(&e); err != nil {
		tmp.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), file)
}

// removeLegacyTemps removes the temporary files of versions before
// cachedir.CreateTemp (".jdk-<random>.tmp") in dir that are over an hour
// old (a save takes seconds).
func removeLegacyTemps(dir string) {
	old, _ := filepath.Glob(filepath.Join(dir, ".jdk-*.tmp"))
	for _, p := range old {
		if st, err := os.Lstat(p); err == nil && st.Mode().IsRegular() && time.Since(st.ModTime()) > time.Hour {
			_ = os.Remove(p)
		}
	}
}
