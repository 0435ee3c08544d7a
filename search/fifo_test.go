package search

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestFIFOsAreNotOpened: a FIFO named README.md, or named like a source
// file and reported saved by the editor, is never opened (its open would
// wait for a writer for good): Build and UpdateFromDisk return, and the
// FIFO is not indexed.
func TestFIFOsAreNotOpened(t *testing.T) {
	root := project(t)
	if err := os.Remove(filepath.Join(root, "README.md")); err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"README.md", "src/main/java/shop/F.java"} {
		if err := syscall.Mkfifo(filepath.Join(root, rel), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e, err := New(Config{Root: root, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	done := make(chan error, 1)
	go func() {
		ctx := context.Background()
		if err := e.Build(ctx, nil); err != nil {
			done <- err
			return
		}
		_, err := e.Index().UpdateFromDisk(ctx, filepath.Join(root, "src/main/java/shop/F.java"))
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Build or UpdateFromDisk still blocked after 20s: a FIFO was opened")
	}
	for _, u := range e.Index().Units() {
		if u.Path == "src/main/java/shop/F.java" {
			t.Errorf("the FIFO was indexed: %+v", u)
		}
	}
}
