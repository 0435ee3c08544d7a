package index

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
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
	// A link inside the tree reported as changed is not followed either.
	if _, err := x.UpdateFromDisk(context.Background(), filepath.Join(link, "src", "up")); err != nil {
		t.Fatal(err)
	}
	if got := unitIDs(x); len(got) != 3 {
		t.Errorf("after the link inside changed: %v", got)
	}
}

// TestRacyCleanLongBuild: as TestRacyClean, but the cache was written a
// second after the file was read (a build of many files takes seconds):
// the file rewritten with the same size in the tick of its read is hashed,
// not served from the cache. Before, only the cache file's mtime was
// compared, and the old units were served.
func TestRacyCleanLongBuild(t *testing.T) {
	ctx := context.Background()
	root, cache := t.TempDir(), t.TempDir()
	write(t, root, "m.py", "def alpha_func():\n    pass\n")
	p := filepath.Join(root, "m.py")
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	build := func() *Index {
		t.Helper()
		x, _ := New(Options{Root: root, CacheDir: cache})
		if err := x.Build(ctx, nil); err != nil {
			t.Fatal(err)
		}
		return x
	}
	build()
	later := st.ModTime().Add(time.Second)
	os.Chtimes(filepath.Join(cache, cacheFile), later, later)
	write(t, root, "m.py", "def gamma_func():\n    pass\n")
	os.Chtimes(p, st.ModTime(), st.ModTime())
	if ids := unitIDs(build()); !equal(ids, []string{"m.py#gamma_func"}) {
		t.Errorf("units %v after a same-size rewrite in the read's tick, want m.py#gamma_func", ids)
	}
	// Once the file is older than the window, its stat is trusted again
	// (the cache is not hashed in full on every run).
	old := time.Now().Add(-time.Hour)
	os.Chtimes(p, old, old)
	x := build()
	if c, _ := x.loadCache(); c["m.py"] == nil || c["m.py"].ModTime != old.UnixNano() {
		t.Errorf("an old file's entry: %+v, want its mtime recorded", c["m.py"])
	}
}

// TestKilledWriterTempIsRemoved: a "search" killed (SIGKILL) while it
// writes the unit cache leaves its temporary file (its deferred removal
// never runs); the next save removes it, and the cache it wrote reads
// back. Before, each such kill left a file as large as the cache for good.
func TestKilledWriterTempIsRemoved(t *testing.T) {
	root, cache := t.TempDir(), t.TempDir()
	write(t, root, "m.py", "def alpha_func():\n    pass\n")
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip(err)
	}
	torn := filepath.Join(cache, fmt.Sprintf("%s.tmp-%d-1", cacheFile, cmd.Process.Pid))
	if err := os.WriteFile(torn, []byte("repilot-lsp unit cache, cut off"), 0o600); err != nil {
		t.Fatal(err)
	}
	x, _ := New(Options{Root: root, CacheDir: cache})
	if err := x.Build(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(torn); err == nil {
		t.Error("the killed writer's temporary file is still there")
	}
	if c, _ := x.loadCache(); c["m.py"] == nil {
		t.Error("the new cache does not read back")
	}
}

// TestFileTurnedFIFOIsNotWaitedFor: a source file replaced by a FIFO after
// the walk listed it (and after its stat) is skipped, not opened for
// reading, which waits for a writer for good: the build hung.
func TestFileTurnedFIFOIsNotWaitedFor(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "A.java")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip(err)
	}
	x, _ := New(Options{Root: root})
	done := make(chan error, 1)
	go func() {
		_, err := readBounded(p, 10) // the stat saw a 10-byte file
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Error("a FIFO was read as a source file")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("reading a FIFO waits for a writer")
	}
	e, _, _, _, readErr := x.load(context.Background(), "A.java", p, nil, 0)
	if e != nil || readErr != nil {
		t.Errorf("a FIFO gave an entry %+v, error %v; want neither (no longer a source file)", e, readErr)
	}
}

// TestUnreadableFilesAreCounted: a source file that cannot be read (no
// permission: root reads everything, so the open is made to fail) is
// skipped and counted in the build's progress with its path and error,
// which "search" prints; a file deleted between the walk and its read is
// not counted. Before, such files were left out without a word.
func TestUnreadableFilesAreCounted(t *testing.T) {
	root := t.TempDir()
	write(t, root, "A.java", "class A { void f() {} }")
	write(t, root, "B.java", "class B { void g() {} }")
	write(t, root, "C.java", "class C {}")
	defer func(f func(string) (*os.File, error)) { openRead = f }(openRead)
	openRead = func(abs string) (*os.File, error) {
		switch filepath.Base(abs) {
		case "B.java":
			return nil, &fs.PathError{Op: "open", Path: abs, Err: syscall.EACCES}
		case "C.java":
			return nil, &fs.PathError{Op: "open", Path: abs, Err: syscall.ENOENT}
		}
		return os.Open(abs)
	}
	x, _ := New(Options{Root: root})
	var last Progress
	if err := x.Build(context.Background(), func(p Progress) { last = p }); err != nil {
		t.Fatal(err)
	}
	if got, want := unitIDs(x), []string{"A.java#A", "A.java#A.f"}; !equal(got, want) {
		t.Errorf("units %v, want %v", got, want)
	}
	if last.Unreadable != 1 || last.FirstUnreadable != "B.java: permission denied" {
		t.Errorf("progress %+v; want B.java counted as unreadable, with its error", last)
	}
}
