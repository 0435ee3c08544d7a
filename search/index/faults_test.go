package index

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestRootIsALink: a project opened through a symbolic link (the CLI's
// --project, an editor's workspace folder) is indexed like its target, with
// paths relative to the link; links inside the tree are still not followed
// (a link back up makes no cycle, a linked file is not indexed twice).
// Before, the walk visited the link itself and nothing under it: "search"
// answered "holds no Java, Python or Go code".
func TestRootIsALink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	write(t, real, "src/A.java", "class A { void f() {} }")
	if err := os.Symlink("..", filepath.Join(real, "src", "up")); err != nil { // a cycle
		t.Fatal(err)
	}
	if err := os.Symlink("A.java", filepath.Join(real, "src", "B.java")); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	x, err := New(Options{Root: link})
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Build(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if got, want := unitIDs(x), []string{"src/A.java#A", "src/A.java#A.f"}; !equal(got, want) {
		t.Errorf("units through the link: %v, want %v", got, want)
	}
	// A folder created under the link (didChangeWatchedFiles) is walked too.
	write(t, real, "lib/C.java", "class C {}")
	if _, err := x.UpdateFromDisk(context.Background(), filepath.Join(link, "lib")); err != nil {
		t.Fatal(err)
	}
	if got, want := unitIDs(x), []string{"lib/C.java#C", "src/A.java#A", "src/A.java#A.f"}; !equal(got, want) {
		t.Errorf("after the new folder: %v, want %v", got, want)
	}
}
