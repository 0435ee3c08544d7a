package index

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/search/units"
)

// allocated returns the bytes f allocates (runtime.MemStats.TotalAlloc).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestFilesOverTheBoundAreNotRead: a file over units.MaxFileBytes (here a
// sparse 256 MiB one, which costs no disk) is skipped without being read,
// by Build and by UpdateFromDisk, counted in the progress, and a file that
// grew past the bound loses the units it had.
func TestFilesOverTheBoundAreNotRead(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	write(t, root, "A.java", "class A { void f() {} }")
	write(t, root, "Big.java", "class Big { void g() {} }")
	x, _ := New(Options{Root: root})
	if err := x.Build(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if got := unitIDs(x); !equal(got, []string{"A.java#A", "A.java#A.f", "Big.java#Big", "Big.java#Big.g"}) {
		t.Fatalf("units %v", got)
	}
	const huge = 256 << 20
	if err := os.Truncate(filepath.Join(root, "Big.java"), huge); err != nil {
		t.Fatal(err)
	}
	var last Progress
	if n := allocated(func() {
		if err := x.Build(ctx, func(p Progress) { last = p }); err != nil {
			t.Fatal(err)
		}
	}); n > huge/4 {
		t.Errorf("Build allocated %d MiB for a %d MiB file over the bound", n>>20, huge>>20)
	}
	if got := unitIDs(x); !equal(got, []string{"A.java#A", "A.java#A.f"}) {
		t.Errorf("units after Big.java grew past the bound: %v", got)
	}
	if last.TooLarge != 1 || last.TotalFiles != 2 {
		t.Errorf("progress %+v, want 1 file too large of 2", last)
	}
	var err error
	if n := allocated(func() { _, err = x.UpdateFromDisk(ctx, "Big.java") }); n > huge/4 {
		t.Errorf("UpdateFromDisk allocated %d MiB for a %d MiB file over the bound", n>>20, huge>>20)
	}
	if err == nil || !strings.Contains(err.Error(), "over the") {
		t.Errorf("UpdateFromDisk of a file over the bound: %v", err)
	}
	// At the bound it is read.
	write(t, root, "Big.java", "class Big { void g() {} }"+strings.Repeat(" ", units.MaxFileBytes-25))
	if _, err := x.UpdateFromDisk(ctx, "Big.java"); err != nil {
		t.Fatal(err)
	}
	if got := unitIDs(x); !equal(got, []string{"A.java#A", "A.java#A.f", "Big.java#Big", "Big.java#Big.g"}) {
		t.Errorf("units with Big.java at the bound: %v", got)
	}
}
