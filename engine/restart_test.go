package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/internal/testtree"
	"github.com/repilot-lsp/repilot-lsp/jdtls"
)

// A shadow JDT LS started again with the same state directory (serve and
// repair keep one per project) must judge as a fresh one: JDT LS 1.20
// started on an earlier run's workspace data answered type searches without
// JDK types imported on demand, and the engine pruned `new ArrayList<>()`
// and `Iterator<String>` in the second and third runs (runDir). Three runs
// on one state directory; valid tokens with types from `import java.util.*`
// must never be infeasible, and after Close each run's server has ended
// (Close stops it at once: its run folder holds all it keeps) and its folder
// is gone.
func TestRestartKeepsOnDemandTypes(t *testing.T) {
	home := jdtHome(t)
	root, err := copyProject("testdata/project")
	if err != nil {
		t.Fatal(err)
	}
	src := "package demo;\n\nimport java.util.*;\nimport java.util.concurrent.*;\n\npublic class Wild {\n    int f() {\n        int n = Collections.emptyList().size();\n        return n;\n    }\n}\n"
	if err := os.WriteFile(filepath.Join(root, "src", "demo", "Wild.java"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	for round := 0; round < 3; round++ {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		eng, err := StartJDT(ctx, jdtls.Options{Home: home, Root: root, StateDir: state}, WithRequestTimeout(2*time.Minute))
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		h, _ := hunkAt(t, root, "src/demo/Wild.java", "int n = Collections")
		s, err := eng.Open(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		settle(t, s)
		for _, c := range []checkCase{
			{ind + "int n = Collections", ".emptyList().size();", Feasible},
			{ind + "int n = ", "Collections.emptyList().size();", Feasible},
			{ind + "int n = Executors", ".newCachedThreadPool().hashCode();", Feasible},
			{ind + "Object o = Objects", ".requireNonNull(this);", Feasible},
			{ind + "Iterator", "<String> it = null;", Feasible},
			{ind + "Object o = new ", "ArrayList<String>();", Feasible},
		} {
			got, err := s.Check(ctx, c.generated, c.token)
			if err != nil {
				t.Fatalf("run %d: Check(%q, %q): %v", round+1, c.generated, c.token, err)
			}
			if got == Infeasible {
				t.Errorf("run %d: Check(%q, %q) = infeasible: valid code pruned", round+1, c.generated, c.token)
			}
		}
		s.Close()
		if err := eng.Close(); err != nil {
			t.Errorf("run %d: Close: %v", round+1, err)
		}
		if eng.Client().Err() == nil {
			t.Errorf("run %d: JDT LS still running after Close", round+1)
		}
		cancel()
		entries, _ := os.ReadDir(state)
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), "run-") {
				t.Errorf("run %d: %s left after Close", round+1, e.Name())
			}
		}
	}
}

// removeStaleRuns removes the run folders of processes that are gone and
// keeps this process's and those of live ones.
func TestRemoveStaleRuns(t *testing.T) {
	state := t.TempDir()
	dead := "run-999999999-1" // above Linux's pid_max
	mine := filepath.Base(must(runDir(state)))
	live := "run-1-1" // init
	for _, d := range []string{dead, live} {
		if err := os.Mkdir(filepath.Join(state, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	removeStaleRuns(state)
	for d, want := range map[string]bool{dead: false, mine: true, live: true} {
		_, err := os.Stat(filepath.Join(state, d))
		if got := err == nil; got != want {
			t.Errorf("%s kept = %v, want %v", d, got, want)
		}
	}
}

func must(s string, err error) string {
	if err != nil {
		panic(err)
	}
	return s
}

// TestRemoveLegacyLayout: runDir removes the <state>/config and <state>/data
// folders that versions before per-run folders kept in the state directory
// (the exact layout: config.ini in config, .metadata in data), keeps other
// entries and look-alikes, and keeps a legacy workspace whose lock another
// open file holds (an older binary's JDT LS still running on it).
func TestRemoveLegacyLayout(t *testing.T) {
	write := func(path string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	exists := func(path string) bool {
		_, err := os.Lstat(path)
		return err == nil
	}
	// The legacy layout goes; a run folder of a live process and other
	// files stay.
	state := t.TempDir()
	write(filepath.Join(state, "config", "config.ini"))
	write(filepath.Join(state, "config", "org.eclipse.osgi", "x"))
	write(filepath.Join(state, "data", ".metadata", ".lock"))
	write(filepath.Join(state, "data", "jdt.ls-java-project", "x"))
	write(filepath.Join(state, "run-1-1", "keep"))
	write(filepath.Join(state, "notes.txt"))
	run := must(runDir(state))
	for path, want := range map[string]bool{"config": false, "data": false, "run-1-1/keep": true,
		"notes.txt": true, filepath.Base(run): true} {
		if got := exists(filepath.Join(state, path)); got != want {
			t.Errorf("after runDir: %s exists = %v, want %v", path, got, want)
		}
	}
	// Look-alikes stay: a config without config.ini, a data without
	// .metadata, a link named config.
	other := t.TempDir()
	write(filepath.Join(other, "config", "mine.txt"))
	write(filepath.Join(other, "data", "mine.txt"))
	target := t.TempDir()
	write(filepath.Join(target, "config.ini"))
	if err := os.Symlink(target, filepath.Join(other, "cfglink")); err != nil {
		t.Fatal(err)
	}
	must(runDir(other))
	for _, path := range []string{"config/mine.txt", "data/mine.txt", "cfglink"} {
		if !exists(filepath.Join(other, path)) {
			t.Errorf("look-alike %s was removed", path)
		}
	}
	// A legacy layout a process holds a lock in stays whole: the
	// workspace lock, or a storage manager's lock in the configuration
	// (what JDT LS 1.20 holds while it runs).
	for _, lockRel := range []string{"data/.metadata/.lock", "config/org.eclipse.core.runtime/.manager/.tmp3.instance"} {
		locked := t.TempDir()
		write(filepath.Join(locked, "config", "config.ini"))
		write(filepath.Join(locked, "data", ".metadata", "version.ini"))
		lockFile := filepath.Join(locked, lockRel)
		write(lockFile)
		f, err := os.OpenFile(lockFile, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := lockWhole(f); err != nil {
			t.Fatal(err)
		}
		must(runDir(locked))
		f.Close()
		for _, path := range []string{"config/config.ini", "data/.metadata/version.ini", lockRel} {
			if !exists(filepath.Join(locked, path)) {
				t.Errorf("legacy layout locked at %s: %s was removed", lockRel, path)
			}
		}
	}
}

// TestConcurrentStartsShareNoFolder: two starts at once on one state
// directory (two repair commands on one project: another pid, or two
// engines of one process) get different run folders, and JDT LS's command
// line puts its configuration copy and its workspace data inside its own
// run folder, never in the state directory itself, so that no folder JDT
// LS writes is shared between runs.
func TestConcurrentStartsShareNoFolder(t *testing.T) {
	home := t.TempDir()
	testtree.Write(t, home, map[string]string{"plugins/org.eclipse.equinox.launcher_1.0.0.jar": "x", "config_linux/config.ini": "x"})
	if _, err := jdtls.JavaBinary(); err != nil {
		t.Skip(err) // jdtls.Command needs a java to name
	}
	state := t.TempDir()
	const n = 8
	type start struct{ run, cfg, data string }
	got := make(chan start, n)
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		go func() {
			run, err := runDir(state)
			if err != nil {
				errs <- err
				return
			}
			cmd, err := jdtls.Command(home, run, 0)
			if err != nil {
				errs <- err
				return
			}
			var s start
			s.run = run
			for k, a := range cmd.Args {
				switch a {
				case "-configuration":
					s.cfg = cmd.Args[k+1]
				case "-data":
					s.data = cmd.Args[k+1]
				}
			}
			got <- s
		}()
	}
	seen := map[string]bool{}
	for i := 0; i < n; i++ {
		select {
		case err := <-errs:
			t.Fatal(err)
		case s := <-got:
			for _, d := range []string{s.run, s.cfg, s.data} {
				if seen[d] {
					t.Errorf("folder %s used by two starts", d)
				}
				seen[d] = true
			}
			for _, d := range []string{s.cfg, s.data} {
				if filepath.Dir(d) != s.run {
					t.Errorf("%s is not in its run folder %s", d, s.run)
				}
			}
			if _, err := os.Stat(filepath.Join(s.cfg, "config.ini")); err != nil {
				t.Errorf("configuration copy of %s: %v", s.run, err)
			}
		}
	}
	for _, shared := range []string{"config", "data"} {
		if _, err := os.Stat(filepath.Join(state, shared)); err == nil {
			t.Errorf("%s/%s exists: a folder shared by every run", state, shared)
		}
	}
}
