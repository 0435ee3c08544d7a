package ngram

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestSaveCacheRemovesKilledWritersTemps: the temporary file of a run
// killed while it wrote the JDK counts (SIGKILL: its deferred removal never
// runs) goes at the next save, and an hour-old one of the older naming
// too; the cache written reads back. Before, each stayed for good (9 MB
// for JDK 17's counts).
func TestSaveCacheRemovesKilledWritersTemps(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "jdk-0123456789abcdef.gob")
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip(err)
	}
	dead := fmt.Sprintf("%s.tmp-%d-7", file, cmd.Process.Pid)
	legacy := filepath.Join(dir, ".jdk-123456.tmp")
	recent := filepath.Join(dir, ".jdk-654321.tmp")
	for _, p := range []string{dead, legacy, recent} {
		if err := os.WriteFile(p, []byte("cut off"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	hourAgo := time.Now().Add(-2 * time.Hour)
	os.Chtimes(legacy, hourAgo, hourAgo)
	c := &counted{vocab: append([]string(nil), specialTexts[:]...), grams: gramCounts{}}
	if err := saveCache(file, "k", 3, c); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dead, legacy} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s is still there", filepath.Base(p))
		}
	}
	if _, err := os.Stat(recent); err != nil {
		t.Errorf("a recent temporary file (a save in progress?) was removed: %v", err)
	}
	if _, ok := loadCache(file, "k", 3); !ok {
		t.Error("the saved cache does not read back")
	}
}
