package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSearchAnswersWhenTheCacheCannotBeWritten: a cache folder that cannot
// be created (here a regular file is in its place; also a read-only disk or
// a full one) costs the next run its warm start, not this run's answer. The
// search used to index every file and then fail with "mkdir ...: not a
// directory", printing no result.
func TestSearchAnswersWhenTheCacheCannotBeWritten(t *testing.T) {
	root := searchProject(t)
	f := searchCmdFlags{SearchFlags: testSearchFlags(root), k: 3}
	blocker := filepath.Join(t.TempDir(), "not-a-folder")
	if err := os.WriteFile(blocker, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.CacheDir = filepath.Join(blocker, "search")
	var out, errOut bytes.Buffer
	if err := runSearch(context.Background(), f, "parse a date from a string", &out, &errOut); err != nil {
		t.Fatalf("search failed: %v (stderr %q)", err, errOut.String())
	}
	if !strings.Contains(out.String(), "Dates.parseIsoDate") {
		t.Errorf("no result printed:\n%s", out.String())
	}
	if !strings.Contains(errOut.String(), "not saved") {
		t.Errorf("stderr does not say the cache was not saved:\n%s", errOut.String())
	}
}
