// Package sandbox makes scratch copies of a project in which a test command
// may run and a patched file may be written, so that the user's files are
// only ever read. Both repair's validation (repair/validate.go) and the bug
// corpus (corpus/run.go) use it, so a candidate is tested on the same copy
// whichever path asks.
//
// The copy rule (Copy):
//   - directories, regular files (with their permission bits, plus owner
//     read/write) and symbolic links (recreated with the same target, never
//     followed; a relative target that leaves the project is made absolute,
//     so it names the same file from the copy) are copied; sockets, devices
//     and pipes are not;
//   - left out, because they are derived or version control, not the
//     project: every entry named .git; beside a pom.xml (a Maven project or
//     module, at any depth) target/ and the Eclipse metadata .classpath,
//     .project, .settings/ and .factorypath that JDT LS's Maven import
//     writes; beside a Gradle build file (build.gradle, build.gradle.kts,
//     settings.gradle, settings.gradle.kts) build/, .gradle/ and the same
//     Eclipse metadata. A directory named target or build anywhere else
//     (a Java package, say) is source and is copied;
//   - at most MaxBytes of regular files and MaxEntries entries (files,
//     directories and links) are copied; a larger project is an error
//     (ErrTooLarge) and the partial copy is removed by New.
//
// Writing into a copy (WriteFile) never goes through a symbolic link: a
// link at the path is replaced by a regular file, and a path whose folder
// is (under) a link is an error, since writing there would write outside
// the copy.
package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/repilot-lsp/repilot-lsp/internal/cachedir"
)

// MaxBytes bounds the bytes of regular files one copy holds (1 GiB).
const MaxBytes int64 = 1 << 30

// MaxEntries bounds the entries (regular files, directories and links) one
// copy holds: a million empty files are cheap in bytes but not in inodes
// and copy time.
const MaxEntries = 200_000

// ErrTooLarge is wrapped by Copy's error when the project holds more than
// MaxBytes of files or MaxEntries entries to copy.
var ErrTooLarge = errors.New("sandbox: project too large to copy")

// eclipseMetadata are the Eclipse project files a build tool's import (m2e,
// Buildship) writes beside its build file.
var eclipseMetadata = []string{".classpath", ".project", ".settings", ".factorypath"}

// derived maps a build file to the entries beside it that the build tool or
// its Eclipse import derives from it.
var derived = map[string][]string{
	"pom.xml":             append([]string{"target"}, eclipseMetadata...),
	"build.gradle":        append([]string{"build", ".gradle"}, eclipseMetadata...),
	"build.gradle.kts":    append([]string{"build", ".gradle"}, eclipseMetadata...),
	"settings.gradle":     append([]string{"build", ".gradle"}, eclipseMetadata...),
	"settings.gradle.kts": append([]string{"build", ".gradle"}, eclipseMetadata...),
}

// Sandbox is a scratch copy of a project in a temporary directory of its
// own. Close removes it.
type Sandbox struct {
	// Dir is the copy's root (absolute).
	Dir string
	// lock is Dir opened, holding its flock while the copy lives (New,
	// removeDead); nil where the file system has no flock.
	lock *os.File
}

// runPrefix starts the name of each copy's folder in the temporary
// directory: repilot-sandbox-p<pid>-<random>, pid being the process that made
// it.
const runPrefix = "repilot-sandbox-p"

// New copies the project at src (a directory) into a new temporary
// directory by the package's rule. On error nothing is left behind. It
// first removes the copies of processes that are gone (removeDead: a repair
// or serve killed with SIGKILL mid-test cannot remove its own, and a
// project's copy may hold up to MaxBytes).
func New(ctx context.Context, src string) (*Sandbox, error) {
	removeDead(os.TempDir())
	dir, err := os.MkdirTemp("", fmt.Sprintf("%s%d-*", runPrefix, os.Getpid()))
	if err != nil {
		return nil, err
	}
	// Held while the copy lives; closed on exec (the test command does
	// not hold it), released by the kernel however this process ends.
	lock, err := os.Open(dir)
	if err == nil && syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		lock.Close()
		lock = nil // a file system without flock: the copy is never removed by another
	}
	if err := Copy(ctx, src, dir); err != nil {
		_ = removeAll(dir)
		if lock != nil {
			lock.Close()
		}
		return nil, err
	}
	return &Sandbox{Dir: dir, lock: lock}, nil
}

// removeDead removes tmp's copies (runPrefix) whose process is gone: its
// pid names no process (kill(2) says ESRCH) and nothing holds the copy's
// flock(2) (a process in another pid namespace that shares tmp holds it;
// its pid means nothing here). A copy of this process, of a live pid, one
// whose lock this process cannot take, and any other entry are kept.
// Errors are ignored: a copy left behind only takes space.
func removeDead(tmp string) {
	for _, dir := range cachedir.DeadRuns(tmp, runPrefix) {
		f, err := os.Open(dir)
		if err != nil {
			continue
		}
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			_ = removeAll(dir)
		}
		f.Close()
	}
}

// WriteFile writes data at rel (slash-separated, relative to the sandbox's
// root); see the package function WriteFile.
func (s *Sandbox) WriteFile(rel string, data []byte) error { return WriteFile(s.Dir, rel, data) }

// Close removes the sandbox's directory and everything in it, then lets
// its lock go. The error is the removal's (the lock goes either way).
func (s *Sandbox) Close() error {
	err := removeAll(s.Dir)
	if s.lock != nil {
		s.lock.Close()
	}
	return err
}

// removeAll removes dir, first making its folders writable (a copied
// read-only folder, or one a test command made read-only, would stop
// os.RemoveAll).
func removeAll(dir string) error {
	if err := os.RemoveAll(dir); err == nil {
		return nil
	}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o700)
		}
		return nil
	})
	return os.RemoveAll(dir)
}

// Copy copies the project tree src into dst (created if missing) by the
// package's rule: what is left out, how links are copied, and the MaxBytes
// bound. dst must not lie inside src. ctx ends the copy early (its error is
// returned; what was copied stays in dst).
func Copy(ctx context.Context, src, dst string) error {
	return copyTree(ctx, src, dst, MaxBytes, MaxEntries)
}

func copyTree(ctx context.Context, src, dst string, maxBytes int64, maxEntries int) error {
	info, err := os.Stat(src)
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	if !info.IsDir() {
		return fmt.Errorf("sandbox: %s is not a directory", src)
	}
	// A project opened through a link (~/proj -> /data/proj) is copied as
	// the folder it names: the walk below does not follow the root either.
	if src, err = filepath.EvalSymlinks(src); err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	if inside(src, dst) {
		return fmt.Errorf("sandbox: cannot copy %s into %s, which lies inside it", src, dst)
	}
	if err := os.MkdirAll(dst, 0o700); err != nil {
		return err
	}
	var total int64
	entries := 0
	skip := map[string]bool{} // slash-separated paths relative to src
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if d.Name() == ".git" || skip[filepath.ToSlash(rel)] {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if entries++; entries > maxEntries {
			return fmt.Errorf("%w: %s holds more than %d files, folders and links (after leaving out .git and build outputs)", ErrTooLarge, src, maxEntries)
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			if err := markDerived(p, rel, skip); err != nil {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			if rel == "." {
				return nil
			}
			return os.MkdirAll(target, info.Mode().Perm()|0o700)
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(copiedLink(src, p, link), target)
		case d.Type().IsRegular():
			info, err := d.Info()
			if err != nil {
				return err
			}
			if total += info.Size(); total > maxBytes {
				return fmt.Errorf("%w: %s holds more than %d MiB of files (after leaving out .git and build outputs)", ErrTooLarge, src, maxBytes>>20)
			}
			return copyFile(p, target, info.Mode().Perm()|0o600)
		}
		return nil // sockets, devices, pipes: not part of a project
	})
}

// copiedLink is the target of the copy of link p (whose target is link) in a
// copy of src: a relative target that leaves src (a library beside the
// project) becomes absolute, so that it names the same file from the copy;
// any other target is kept (a relative one inside src then names the copy's
// file).
func copiedLink(src, p, link string) string {
	if filepath.IsAbs(link) {
		return link
	}
	abs := filepath.Join(filepath.Dir(p), link)
	if r, err := filepath.Rel(src, abs); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		if a, err := filepath.Abs(abs); err == nil {
			return a
		}
		return abs
	}
	return link
}

// markDerived adds to skip the derived entries of the build files in the
// directory dir (rel: its path relative to the copy's source).
func markDerived(dir, rel string, skip map[string]bool) error {
	for file, outs := range derived {
		if _, err := os.Lstat(filepath.Join(dir, file)); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return err
		}
		for _, o := range outs {
			skip[filepath.ToSlash(filepath.Join(rel, o))] = true
		}
	}
	return nil
}

// inside reports whether dst is src or lies below it (after making both
// absolute and resolving the links of the part of dst that exists).
func inside(src, dst string) bool {
	s, err1 := realPath(src)
	d, err2 := realPath(dst)
	if err1 != nil || err2 != nil {
		return false
	}
	r, err := filepath.Rel(s, d)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator))
}

// realPath makes p absolute and resolves the links of its longest existing
// prefix.
func realPath(p string) (string, error) {
	p, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	rest := ""
	for {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest), nil
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(p, rest), nil
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

func copyFile(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// WriteFile writes data at rel (slash-separated, relative to dir) inside
// the copy dir, creating the folders on the way. A symbolic link at rel is
// replaced by a regular file; rel may not leave dir ("..", absolute), and
// no folder on the way may be a symbolic link: either would write outside
// the copy, and is an error (nothing is written), as is the file system's.
func WriteFile(dir, rel string, data []byte) error {
	clean := filepath.Clean(filepath.FromSlash(rel))
	if rel == "" || filepath.IsAbs(clean) || clean == "." || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return fmt.Errorf("sandbox: %q is not a path inside the copy", rel)
	}
	parts := strings.Split(clean, string(filepath.Separator))
	cur := dir
	for _, part := range parts[:len(parts)-1] {
		cur = filepath.Join(cur, part)
		info, err := os.Lstat(cur)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if err := os.Mkdir(cur, 0o755); err != nil {
				return err
			}
		case err != nil:
			return err
		case info.Mode()&fs.ModeSymlink != 0:
			return fmt.Errorf("sandbox: cannot write %s: its folder %s is a symbolic link in the project, and writing through it would write outside the copy", rel, filepath.ToSlash(strings.TrimPrefix(cur, dir+string(filepath.Separator))))
		case !info.IsDir():
			return fmt.Errorf("sandbox: cannot write %s: %s is not a folder", rel, cur)
		}
	}
	path := filepath.Join(dir, clean)
	if info, err := os.Lstat(path); err == nil && !info.Mode().IsRegular() {
		// A link (or anything else) is replaced, never written through. A
		// regular file keeps its mode (a copied file is owner-writable).
		if err := os.Remove(path); err != nil {
			return err
		}
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
