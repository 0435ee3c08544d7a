package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/jdtls"
)

// A shadow JDT LS started again with the same state directory (serve and
// repair keep one per project) must judge as a fresh one: JDT LS 1.20
// started on an earlier run's workspace data answered type searches without
// JDK types imported on demand, and the engine pruned `new ArrayList<>()`
// and `Iterator<String>` in the second and third runs (runDir). Three runs
// on one state directory; valid tokens with types from `import java.util.*`
// must never be infeasible, and each run's folder is gone after Close.
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
