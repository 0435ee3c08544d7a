package sandbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/internal/testtree"
)

func exists(root, rel string) bool {
	_, err := os.Lstat(filepath.Join(root, filepath.FromSlash(rel)))
	return err == nil
}

func TestCopyRule(t *testing.T) {
	src := testtree.New(t, map[string]string{
		"pom.xml":                               "<project/>",
		"src/main/java/a/A.java":                "class A {}",
		"src/main/java/a/build/B.java":          "class B {}", // a package named build: source
		"src/main/java/a/target/T.java":         "class T {}", // a package named target: source
		"target/classes/A.class":                "stale",
		".classpath":                            "derived",
		".settings/org.eclipse.jdt.core.prefs":  "derived",
		".git/HEAD":                             "ref: refs/heads/main\n",
		"module/pom.xml":                        "<project/>",
		"module/target/classes/M.class":         "stale",
		"module/src/M.java":                     "class M {}",
		"gradle/build.gradle":                   "",
		"gradle/build/libs/x.jar":               "stale",
		"gradle/.gradle/cache":                  "stale",
		"gradle/src/G.java":                     "class G {}",
		"plain/target/keep.txt":                 "kept: no build file beside it",
		"plain/.classpath":                      "kept: the plain project's own",
		"plain/build/keep.txt":                  "kept",
		"sub/.git":                              "gitdir: ../.git/modules/sub\n",
		"scripts/run.sh":                        "#!/bin/sh\n",
		"src/main/resources/build/Resource.txt": "kept",
	})
	if err := os.Chmod(filepath.Join(src, "scripts/run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../src/main/java/a/A.java", filepath.Join(src, "scripts", "A.java")); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "copy")
	if err := Copy(context.Background(), src, dst); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"pom.xml", "src/main/java/a/A.java", "src/main/java/a/build/B.java", "src/main/java/a/target/T.java",
		"module/pom.xml", "module/src/M.java", "gradle/build.gradle", "gradle/src/G.java",
		"plain/target/keep.txt", "plain/.classpath", "plain/build/keep.txt", "scripts/run.sh", "src/main/resources/build/Resource.txt"} {
		if !exists(dst, f) {
			t.Errorf("%s not copied", f)
		}
	}
	for _, f := range []string{"target", ".classpath", ".settings", ".git", "module/target", "gradle/build", "gradle/.gradle", "sub/.git"} {
		if exists(dst, f) {
			t.Errorf("%s copied", f)
		}
	}
	if info, err := os.Stat(filepath.Join(dst, "scripts/run.sh")); err != nil || info.Mode().Perm()&0o100 == 0 {
		t.Errorf("mode not kept: %v %v", info.Mode(), err)
	}
	if link, err := os.Readlink(filepath.Join(dst, "scripts/A.java")); err != nil || link != "../src/main/java/a/A.java" {
		t.Errorf("link: %q %v", link, err)
	}
}

func TestCopyBounds(t *testing.T) {
	src := testtree.New(t, map[string]string{"a.txt": strings.Repeat("x", 600), "b.txt": strings.Repeat("y", 600)})
	err := copyTree(context.Background(), src, t.TempDir(), 1000, 100)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("copy of 1200 bytes under a 1000-byte bound: %v", err)
	}
	if err := copyTree(context.Background(), src, t.TempDir(), 1200, 100); err != nil {
		t.Fatalf("exactly at the bound: %v", err)
	}
	// The root and two files are three entries.
	if err := copyTree(context.Background(), src, t.TempDir(), 1200, 2); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("three entries under a bound of two: %v", err)
	}
	if err := copyTree(context.Background(), src, t.TempDir(), 1200, 3); err != nil {
		t.Fatalf("exactly at the entry bound: %v", err)
	}
	if err := Copy(context.Background(), src, filepath.Join(src, "inner")); err == nil {
		t.Fatal("a copy into the source itself")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Copy(ctx, src, t.TempDir()); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled copy: %v", err)
	}
}

func TestNewWriteClose(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "user.java")
	if err := os.WriteFile(outside, []byte("user's"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := testtree.New(t, map[string]string{"src/A.java": "class A {}", "other/x.txt": "x"})
	if err := os.Symlink(outside, filepath.Join(src, "src", "L.java")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(src, "other"), filepath.Join(src, "linked")); err != nil {
		t.Fatal(err)
	}
	s, err := New(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.WriteFile("src/A.java", []byte("patched")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(src, "src/A.java")); string(b) != "class A {}" {
		t.Fatal("the source was written")
	}
	if b, _ := os.ReadFile(filepath.Join(s.Dir, "src/A.java")); string(b) != "patched" {
		t.Fatalf("copy holds %q", b)
	}
	// A link at the path is replaced, not written through.
	if err := s.WriteFile("src/L.java", []byte("patched")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(outside); string(b) != "user's" {
		t.Fatal("wrote through a link")
	}
	// A folder that is a link, and paths that leave the copy, are refused.
	for _, rel := range []string{"linked/x.txt", "../escape.txt", "/abs.txt", ""} {
		if err := s.WriteFile(rel, []byte("x")); err == nil {
			t.Errorf("WriteFile(%q) accepted", rel)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(src, "other/x.txt")); string(b) != "x" {
		t.Fatal("wrote through a linked folder")
	}
	if err := s.WriteFile("new/dir/N.java", []byte("n")); err != nil {
		t.Fatal(err)
	}
	// A read-only folder (made by a test command, say) does not stop Close.
	if err := os.Chmod(filepath.Join(s.Dir, "new"), 0o500); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("sandbox left behind: %v", err)
	}
}

func TestRun(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	res, err := Run(ctx, dir, []string{"sh", "-c", "echo out; echo err >&2; exit 3"}, 10*time.Second)
	if err != nil || res.Passed || res.ExitCode != 3 || res.TimedOut || res.Output != "out\nerr\n" {
		t.Fatalf("failing command: %+v %v", res, err)
	}
	res, err = Run(ctx, dir, []string{"sh", "-c", "pwd"}, 10*time.Second)
	if err != nil || !res.Passed || res.ExitCode != 0 || strings.TrimSpace(res.Output) != dir {
		t.Fatalf("passing command in dir: %+v %v", res, err)
	}
	res, err = Run(ctx, dir, []string{"sh", "-c", "head -c 200000 /dev/zero | tr '\\0' x; echo END"}, 10*time.Second)
	if err != nil || len(res.Output) != MaxOutput || !res.Truncated || !strings.HasSuffix(res.Output, "xEND\n") {
		t.Fatalf("long output: %d bytes, truncated %v, %v", len(res.Output), res.Truncated, err)
	}
	if _, err := Run(ctx, dir, []string{"/no/such/binary"}, time.Second); err == nil {
		t.Fatal("a command that cannot start must be an error")
	}
	if _, err := Run(ctx, dir, nil, time.Second); err == nil {
		t.Fatal("an empty command must be an error")
	}
}

func TestRunTimeoutKillsGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	began := time.Now()
	res, err := Run(context.Background(), t.TempDir(), []string{"sh", "-c", "sleep 60 & echo $! > " + pidFile + "; wait"}, 500*time.Millisecond)
	if err != nil || !res.TimedOut || res.Passed || res.ExitCode != -1 {
		t.Fatalf("%+v %v", res, err)
	}
	if d := time.Since(began); d > 5*time.Second {
		t.Fatalf("took %v", d)
	}
	requireGone(t, pidFile, "still running")

	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := Run(ctx, t.TempDir(), []string{"sleep", "60"}, time.Minute); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("ctx ended: %v", err)
	}
}

// TestRunKillsLeftoverChildren: a test command that passes but leaves a
// background child (with or without our output pipe) must not leave it
// running after Run returns, and keeps its result.
func TestRunKillsLeftoverChildren(t *testing.T) {
	for name, bg := range map[string]string{
		"detached output": "sleep 60 >/dev/null 2>&1 &",
		"holding output":  "sleep 60 &",
		// setsid leaves the process group; the mark in its environment
		// still finds it.
		"new session": "setsid sh -c 'echo $$ > " + "PIDFILE" + "; exec sleep 60' >/dev/null 2>&1 & sleep 0.3;",
	} {
		t.Run(name, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "pid")
			script := bg + " echo $! > " + pidFile + "; echo done"
			if strings.Contains(bg, "PIDFILE") { // the child writes its own pid
				script = strings.ReplaceAll(bg, "PIDFILE", pidFile) + " echo done"
			}
			began := time.Now()
			res, err := Run(context.Background(), t.TempDir(), []string{"sh", "-c", script}, 30*time.Second)
			if err != nil || !res.Passed || res.ExitCode != 0 || res.Output != "done\n" {
				t.Fatalf("%+v %v", res, err)
			}
			if d := time.Since(began); d > 5*time.Second {
				t.Fatalf("took %v", d)
			}
			requireGone(t, pidFile, "outlived the test command")
		})
	}
}

// TestCopyLinksOutside: a relative link that leaves the project (a shared
// library beside it) must reach the same file from the copy, which lies
// elsewhere; links inside the project stay relative (into the copy); a
// link loop and a dangling link are copied as links; an unreadable file is
// a clear error and New leaves no partial copy.
func TestCopyLinksOutside(t *testing.T) {
	parent := t.TempDir()
	src := filepath.Join(parent, "proj")
	if err := os.MkdirAll(filepath.Join(src, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(parent, "shared"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(parent, "shared", "lib.txt"), []byte("shared"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"lib":        "../shared",
		"src/up.txt": "../../shared/lib.txt",
		"src/in":     "../src",
		"loop":       "loop",
		"dangling":   "no/such/file",
	} {
		if err := os.Symlink(target, filepath.Join(src, link)); err != nil {
			t.Fatal(err)
		}
	}
	dst := filepath.Join(t.TempDir(), "copy")
	if err := Copy(context.Background(), src, dst); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"lib/lib.txt", "src/up.txt"} {
		if b, err := os.ReadFile(filepath.Join(dst, f)); err != nil || string(b) != "shared" {
			t.Errorf("%s in the copy: %q %v", f, b, err)
		}
	}
	for link, want := range map[string]string{"src/in": "../src", "loop": "loop", "dangling": "no/such/file"} {
		if got, err := os.Readlink(filepath.Join(dst, link)); err != nil || got != want {
			t.Errorf("link %s: %q %v, want %q", link, got, err, want)
		}
	}

	if os.Geteuid() == 0 {
		return // root reads everything
	}
	if err := os.WriteFile(filepath.Join(src, "secret.txt"), []byte("x"), 0o000); err != nil {
		t.Fatal(err)
	}
	before, _ := filepath.Glob(filepath.Join(os.TempDir(), "repilot-sandbox-*"))
	_, err := New(context.Background(), src)
	if err == nil || !strings.Contains(err.Error(), "secret.txt") {
		t.Fatalf("unreadable file: %v", err)
	}
	after, _ := filepath.Glob(filepath.Join(os.TempDir(), "repilot-sandbox-*"))
	if len(after) > len(before) {
		t.Errorf("partial copy left: %v", after)
	}
}

// TestCopyRootIsALink: a project opened through a symbolic link (~/proj ->
// /data/proj) is copied as the folder it names.
func TestCopyRootIsALink(t *testing.T) {
	src := testtree.New(t, map[string]string{"src/A.java": "class A {}"})
	link := filepath.Join(t.TempDir(), "proj")
	if err := os.Symlink(src, link); err != nil {
		t.Fatal(err)
	}
	s, err := New(context.Background(), link)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if b, err := os.ReadFile(filepath.Join(s.Dir, "src/A.java")); err != nil || string(b) != "class A {}" {
		t.Fatalf("copy of a linked project: %q %v", b, err)
	}
}

// TestNewTooLargeLeavesNothing: a project over MaxBytes (a sparse file
// here, so the test writes nothing) is refused by New with ErrTooLarge
// naming the bound, and no partial copy is left behind.
func TestNewTooLargeLeavesNothing(t *testing.T) {
	src := testtree.New(t, map[string]string{"src/A.java": "class A {}"})
	big := filepath.Join(src, "data.bin")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, MaxBytes+1); err != nil {
		t.Skipf("no sparse file here: %v", err)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	_, err := New(context.Background(), src)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "1024 MiB") {
		t.Fatalf("project over the bound: %v", err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("left behind in TMPDIR: %v", left)
	}
}

// requireGone fails the test, naming why, unless the process whose pid is
// in pidFile is gone (or a zombie waiting for its new parent) within 3 s; a
// process still running is killed.
func requireGone(t *testing.T, pidFile, why string) {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	deadline := time.Now().Add(3 * time.Second)
	for {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil || strings.Contains(string(stat), ") Z ") {
			return
		}
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("background sleep %d %s: %s", pid, why, stat)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestNewRemovesCopiesOfKilledProcesses kills (SIGKILL) a process holding a
// copy, as an out-of-memory kill of repair or serve mid-test would: the next
// New removes that copy, and keeps those of live processes, one whose lock
// is held, and folders it cannot tell the owner of.
func TestNewRemovesCopiesOfKilledProcesses(t *testing.T) {
	if dir := os.Getenv("REPILOT_SANDBOX_TEST_HOLD"); dir != "" {
		// The process to kill: make a copy, say where, wait.
		s, err := New(context.Background(), dir)
		if err != nil {
			os.Exit(3)
		}
		// A read-only folder, as a test command may leave.
		if os.Mkdir(filepath.Join(s.Dir, "ro"), 0o500) != nil {
			os.Exit(5)
		}
		os.Stdout.WriteString(s.Dir + "\n")
		time.Sleep(time.Minute)
		os.Exit(4)
	}
	src := testtree.New(t, map[string]string{"src/A.java": "class A {}"})
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	cmd := exec.Command(os.Args[0], "-test.run=^TestNewRemovesCopiesOfKilledProcesses$")
	cmd.Env = append(os.Environ(), "REPILOT_SANDBOX_TEST_HOLD="+src)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		t.Fatalf("the holding process: %v", err)
	}
	killed := strings.TrimSpace(line)
	cmd.Process.Kill()
	cmd.Wait()
	if _, err := os.Stat(filepath.Join(killed, "src/A.java")); err != nil {
		t.Fatalf("the killed process's copy: %v", err)
	}
	// A live process's copy (this one's), and a folder without an owner.
	live, err := New(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	ownerless := filepath.Join(tmp, "repilot-sandbox-1993128970")
	if err := os.Mkdir(ownerless, 0o700); err != nil {
		t.Fatal(err)
	}
	// A copy whose pid names no process here but whose lock is held: a
	// process of another pid namespace sharing the temporary folder.
	held := filepath.Join(tmp, fmt.Sprintf("%s%d-held", runPrefix, cmd.Process.Pid))
	if err := os.Mkdir(held, 0o700); err != nil {
		t.Fatal(err)
	}
	lock, err := os.Open(held)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	s, err := New(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := os.Stat(killed); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the copy of the killed process is left: %v", err)
	}
	for _, dir := range []string{live.Dir, ownerless, held} {
		if _, err := os.Stat(dir); err != nil {
			t.Errorf("%s removed: %v", dir, err)
		}
	}
}

// TestRunWatchedCPU: RunWatched's CPU function reads the CPU time of the
// command and all below it while it runs: a busy loop that already ended
// (its time counted once waited for) and one still running in a grandchild
// (its time growing), and nothing once the run is over; Result.CPU holds
// the whole tree's. The bounds allow for a loaded machine (a busy loop got
// a fifth of a core at load 8).
func TestRunWatchedCPU(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("CPU time of a process tree: Linux only")
	}
	var cpu func() (time.Duration, bool)
	reads := make(chan []time.Duration, 1)
	script := `timeout 0.5 sh -c 'while :; do :; done'; sleep 0.5; sh -c 'while :; do :; done' & sleep 1.5; kill $!`
	res, err := RunWatched(context.Background(), t.TempDir(), []string{"sh", "-c", script}, 10*time.Second,
		func(f func() (time.Duration, bool)) {
			cpu = f
			began := time.Now()
			go func() {
				var ds []time.Duration
				for _, at := range []time.Duration{800 * time.Millisecond, 1600 * time.Millisecond, 2300 * time.Millisecond} {
					time.Sleep(time.Until(began.Add(at)))
					d, ok := f()
					if !ok {
						d = -1
					}
					ds = append(ds, d)
				}
				reads <- ds
			}()
		})
	if err != nil || cpu == nil {
		t.Fatalf("%+v, %v, watched %v", res, err, cpu != nil)
	}
	ds := <-reads
	if ds[0] <= 0 || ds[1] <= ds[0] || ds[2] <= ds[1] {
		t.Fatalf("CPU time during the run %v; want the ended loop's at the first read, then growing with the running one's", ds)
	}
	if d, ok := cpu(); ok {
		t.Fatalf("CPU time after the run: %v, ok", d)
	}
	if res.CPU < ds[1] || res.CPU > res.Duration*time.Duration(runtime.NumCPU())+time.Second {
		t.Fatalf("Result.CPU %v for %v of wall time, %v read during the run; want the tree's", res.CPU, res.Duration, ds)
	}
}
