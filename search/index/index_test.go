package index

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"
)

func write(t *testing.T, root, rel, text string) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func unitIDs(x *Index) []string {
	var ids []string
	for _, u := range x.Units() {
		ids = append(ids, u.ID)
	}
	sort.Strings(ids)
	return ids
}

func TestBuildUpdateRemoveCache(t *testing.T) {
	ctx := context.Background()
	root, cache := t.TempDir(), t.TempDir()
	write(t, root, "a/A.java", "class A { void f() {} void g() {} }")
	write(t, root, "b.py", "def h():\n    '''Doc.'''\n    pass\n")
	write(t, root, "node_modules/x.py", "def skipped(): pass\n")
	write(t, root, ".hidden/y.py", "def skipped(): pass\n")
	write(t, root, "venv1/pyvenv.cfg", "")
	write(t, root, "venv1/lib/z.py", "def skipped(): pass\n")
	write(t, root, "README.md", "# not code")

	x, _ := New(Options{Root: root, CacheDir: cache})
	var changes []Change
	x.Subscribe(func(c Change) { changes = append(changes, c) })
	var last Progress
	if err := x.Build(ctx, func(p Progress) { last = p }); err != nil {
		t.Fatal(err)
	}
	want := []string{"a/A.java#A", "a/A.java#A.f", "a/A.java#A.g", "b.py#h"}
	if got := unitIDs(x); !equal(got, want) {
		t.Fatalf("units %v, want %v", got, want)
	}
	if !last.Done || last.TotalFiles != 2 || last.Units != 4 || last.Reused != 0 {
		t.Errorf("progress %+v", last)
	}
	if n := len(changes); n == 0 || len(changes[0].Upserted) != 4 {
		t.Errorf("changes %+v", changes)
	}

	// A buffer edit: g renamed to k, f unchanged (same text and range).
	changes = nil
	ch, err := x.Update(ctx, filepath.Join(root, "a/A.java"), []byte("class A { void f() {} void k() {} }"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Removed) != 1 || ch.Removed[0] != "a/A.java#A.g" || len(ch.Upserted) != 2 {
		t.Errorf("update change %+v", ch)
	}
	if len(changes) != 1 {
		t.Errorf("subscriber saw %d changes", len(changes))
	}
	if ch, _ := x.Update(ctx, "a/A.java", []byte("class A { void f() {} void k() {} }")); len(ch.Upserted)+len(ch.Removed) != 0 {
		t.Errorf("same text changed something: %+v", ch)
	}
	if ch, _ := x.Update(ctx, "/elsewhere/Q.java", []byte("class Q {}")); len(ch.Upserted) != 0 {
		t.Errorf("outside root indexed: %+v", ch)
	}
	if u, ok := x.Unit("a/A.java#A.k"); !ok || u.Name != "k" {
		t.Errorf("Unit(k) = %+v %v", u, ok)
	}

	// Delete a directory.
	if ch := x.Remove(filepath.Join(root, "a")); len(ch.Removed) != 3 {
		t.Errorf("remove dir: %+v", ch)
	}
	if x.Len() != 1 {
		t.Errorf("Len after remove = %d", x.Len())
	}

	// Restart: everything comes from the cache; then a changed file is re-parsed.
	x2, _ := New(Options{Root: root, CacheDir: cache})
	if err := x2.Build(ctx, func(p Progress) { last = p }); err != nil {
		t.Fatal(err)
	}
	if last.Reused != 2 || x2.Len() != 4 {
		t.Errorf("restart: progress %+v, %d units", last, x2.Len())
	}
	write(t, root, "b.py", "def h2():\n    pass\n")
	os.Remove(filepath.Join(root, "a/A.java"))
	x3, _ := New(Options{Root: root, CacheDir: cache})
	if err := x3.Build(ctx, func(p Progress) { last = p }); err != nil {
		t.Fatal(err)
	}
	if got := unitIDs(x3); !equal(got, []string{"b.py#h2"}) || last.Reused != 0 {
		t.Errorf("after disk change: %v, %+v", got, last)
	}
	// didSave / watched-file events.
	write(t, root, "c/C.java", "class C {}")
	if ch, err := x3.UpdateFromDisk(ctx, filepath.Join(root, "c")); err != nil || len(ch.Upserted) != 1 {
		t.Errorf("new folder: %+v %v", ch, err)
	}
	os.Remove(filepath.Join(root, "b.py"))
	if ch, _ := x3.UpdateFromDisk(ctx, "b.py"); len(ch.Removed) != 1 {
		t.Errorf("deleted file: %+v", ch)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestCacheWritesAndDamage: a build that finds every file as cached (same
// size and mtime) does not write the cache again; one that had to hash a
// touched file does; a damaged or truncated cache is parsed again, not
// trusted, and gives the same units.
func TestCacheWritesAndDamage(t *testing.T) {
	ctx := context.Background()
	root, cache := t.TempDir(), t.TempDir()
	write(t, root, "a/A.java", "class A { /** Doc. */ void f() {} void g() {} }")
	write(t, root, "b.py", "def h():\n    '''Doc.'''\n    pass\n")
	// Older than the cache: a file changed in the cache's clock tick is
	// hashed again (TestRacyClean).
	hourAgo := time.Now().Add(-time.Hour)
	for _, f := range []string{"a/A.java", "b.py"} {
		os.Chtimes(filepath.Join(root, f), hourAgo, hourAgo)
	}
	build := func() (*Index, Progress) {
		t.Helper()
		x, _ := New(Options{Root: root, CacheDir: cache})
		var last Progress
		if err := x.Build(ctx, func(p Progress) { last = p }); err != nil {
			t.Fatal(err)
		}
		return x, last
	}
	cold, _ := build()
	path := filepath.Join(cache, cacheFile)
	st0, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, p := build(); p.Reused != 2 {
		t.Fatalf("warm build reused %d files, want 2", p.Reused)
	}
	if st, _ := os.Stat(path); !os.SameFile(st, st0) {
		t.Error("an unchanged build wrote the cache again") // renamed over
	}
	// Same content, new mtime: hashed, reused, and the cache records the
	// new mtime (so the next build need not hash it again).
	later := time.Now().Add(time.Minute)
	os.Chtimes(filepath.Join(root, "b.py"), later, later)
	if _, p := build(); p.Reused != 2 {
		t.Fatalf("touched file: reused %d, want 2", p.Reused)
	}
	if st, _ := os.Stat(path); os.SameFile(st, st0) {
		t.Error("the new mtime was not saved")
	}
	want := unitIDs(cold)
	b, _ := os.ReadFile(path)
	// One flipped bit inside a unit's code decodes as well as the right
	// one: only the checksum tells it from the code parsed.
	flipped := append([]byte{}, b...)
	i := bytes.Index(flipped, []byte("void g()"))
	if i < 0 {
		t.Fatal("the cache does not hold g's code")
	}
	flipped[i] ^= 0x20
	for _, bad := range [][]byte{b[:len(b)/2], b[:len(b)-1], append(append([]byte{}, b...), 'x'), []byte("garbage"), flipped, nil} {
		if err := os.WriteFile(path, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		x, p := build()
		if p.Reused != 0 || !equal(unitIDs(x), want) {
			t.Errorf("damaged cache (%d bytes): reused %d, units %v, want %v", len(bad), p.Reused, unitIDs(x), want)
		}
	}
	// The rebuilt cache reads back: every unit equal to the parsed ones.
	x, p := build()
	if p.Reused != 2 {
		t.Fatalf("after rebuilding: reused %d", p.Reused)
	}
	for _, id := range want {
		u1, _ := cold.Unit(id)
		u2, _ := x.Unit(id)
		if u1 != u2 {
			t.Errorf("unit %s read back as %+v, want %+v", id, u2, u1)
		}
	}
}

// TestRacyClean: a file rewritten with the same size and the same mtime
// after the cache recorded it (two writes within one clock tick, here
// made by setting the mtime back) is not served from the cache while its
// mtime is not older than the cache file's (git's racily clean entries).
func TestRacyClean(t *testing.T) {
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
	// The cache file is as new as the file: same tick.
	os.Chtimes(filepath.Join(cache, cacheFile), st.ModTime(), st.ModTime())
	write(t, root, "m.py", "def gamma_func():\n    pass\n")
	os.Chtimes(p, st.ModTime(), st.ModTime())
	if ids := unitIDs(build()); !equal(ids, []string{"m.py#gamma_func"}) {
		t.Errorf("units %v after a same-size rewrite in the cache's tick, want m.py#gamma_func", ids)
	}
}
