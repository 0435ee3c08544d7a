//go:build linux

package jdtls

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/internal/proc"
	"github.com/repilot-lsp/repilot-lsp/internal/testtree"
)

// childHelperVar makes this test binary the "proxy" of
// TestKill9EndsJDTLSChildren: it starts a JDT LS command and waits to be
// killed.
const childHelperVar = "REPILOT_TEST_JDTLS_CHILD_HELPER"

// TestJDTLSChildHelper is not a test: the helper process of
// TestKill9EndsJDTLSChildren (skipped unless childHelperVar is set).
func TestJDTLSChildHelper(t *testing.T) {
	home := os.Getenv(childHelperVar)
	if home == "" {
		t.Skip("helper process only")
	}
	cmd, err := Command(home, t.TempDir(), 0)
	if err != nil {
		fmt.Println("helper:", err)
		os.Exit(2)
	}
	if err := cmd.Start(); err != nil {
		fmt.Println("helper:", err)
		os.Exit(2)
	}
	time.Sleep(5 * time.Minute) // killed by the test
}

// TestKill9EndsJDTLSChildren: the processes JDT LS starts (a Gradle daemon,
// a forked compiler) must not outlive a proxy killed with SIGKILL, whose
// code never runs: neither a child in JDT LS's process group nor one that
// left it with setsid (as Gradle's daemon does). The "JDT LS" here is a
// script standing in for java that starts both and waits.
func TestKill9EndsJDTLSChildren(t *testing.T) {
	home, jdk, pids := standInJDTLS(t)
	helper := exec.Command(os.Args[0], "-test.run=^TestJDTLSChildHelper$", "-test.v")
	// The helper is killed before its t.TempDir clean-up can run: its
	// temporary folders go under this test's, which removes them.
	helper.Env = append(os.Environ(), childHelperVar+"="+home, "JAVA_HOME="+jdk, "TMPDIR="+t.TempDir())
	out := &strings.Builder{}
	helper.Stdout, helper.Stderr = out, out
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	children := waitChildren(t, pids, func() string { return out.String() })
	if err := helper.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = helper.Wait()
	waitEnded(t, children, "after the proxy was killed with SIGKILL")
}

// TestStopEndsJDTLSChildren: proc.Stop, how the client and the proxy end a
// JDT LS, ends what it started too, in its group or not.
func TestStopEndsJDTLSChildren(t *testing.T) {
	home, jdk, pids := standInJDTLS(t)
	t.Setenv("JAVA_HOME", jdk)
	cmd, err := Command(home, t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	children := waitChildren(t, pids, func() string { return "" })
	if err := proc.Stop(cmd); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	waitEnded(t, children, "after proc.Stop")
}

// standInJDTLS writes a JDT LS install and a JAVA_HOME whose bin/java is a
// script standing in for JDT LS: it starts a child in its process group and
// one in a session of its own (setsid, as Gradle's daemon), writes their
// pids to the returned file, and waits.
func standInJDTLS(t *testing.T) (home, jdk, pids string) {
	t.Helper()
	dir := t.TempDir()
	home = filepath.Join(dir, "home")
	testtree.Write(t, home, map[string]string{"plugins/org.eclipse.equinox.launcher_1.0.0.jar": "x", "config_linux/config.ini": "x"})
	pids = filepath.Join(dir, "pids")
	jdk = filepath.Join(dir, "jdk")
	java := filepath.Join(jdk, "bin", "java")
	if err := os.MkdirAll(filepath.Dir(java), 0o755); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\nsleep 300 &\necho $! >> " + pids + "\nsetsid sleep 300 &\necho $! >> " + pids + "\nexec sleep 300\n"
	if err := os.WriteFile(java, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return home, jdk, pids
}

// waitChildren waits until the stand-in has written both children's pids
// and returns them (killed at the test's end whatever happens).
func waitChildren(t *testing.T, pids string, said func() string) []int {
	t.Helper()
	var children []int
	for deadline := time.Now().Add(30 * time.Second); len(children) < 2; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the stand-in JDT LS did not start its children in 30 s; output:\n%s", said())
		}
		b, _ := os.ReadFile(pids)
		children = children[:0]
		for _, f := range strings.Fields(string(b)) {
			if p, err := strconv.Atoi(f); err == nil {
				children = append(children, p)
			}
		}
	}
	t.Cleanup(func() {
		for _, p := range children {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
	})
	return children
}

// waitEnded fails t unless every pid has ended within 10 s.
func waitEnded(t *testing.T, pids []int, when string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var left []int
		for _, p := range pids {
			if running(p) {
				left = append(left, p)
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("JDT LS's children %v (in its group, and in a session of its own) still run 10 s %s", left, when)
		}
	}
}

// running reports a process that exists and is not a zombie (a zombie
// waits for its new parent to reap it, which some containers' init never
// does).
func running(pid int) bool {
	st, err := proc.ReadStat(pid)
	return err == nil && st.State != "Z"
}
