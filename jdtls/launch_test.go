package jdtls

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A JAVA_HOME without bin/java is an error naming it, not a silent switch to
// the java on PATH; a JAVA_HOME with one is taken as it is.
func TestJavaBinaryJavaHome(t *testing.T) {
	bad := t.TempDir()
	t.Setenv("JAVA_HOME", bad)
	if p, err := JavaBinary(); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("JAVA_HOME without bin/java: %q, %v; want an error naming it", p, err)
	}
	good := t.TempDir()
	java := filepath.Join(good, "bin", "java")
	if err := os.MkdirAll(filepath.Dir(java), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(java, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("JAVA_HOME", good)
	if p, err := JavaBinary(); err != nil || p != java {
		t.Errorf("JAVA_HOME with bin/java: %q, %v; want %q", p, err, java)
	}
}

// Command places the caller's JVM options after its own and before -jar (so
// they are JVM options, not JDT LS arguments), and a ShortLived server's
// command asks for the C1 compiler only.
func TestCommandJVMArgs(t *testing.T) {
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "plugins"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "plugins", "org.eclipse.equinox.launcher_1.0.jar"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(home, "config_linux"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "config_linux", "config.ini"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	index := func(args []string, s string) int {
		for i, a := range args {
			if a == s {
				return i
			}
		}
		return -1
	}
	cmd, err := Command(home, t.TempDir(), 0, "-XX:TieredStopAtLevel=1")
	if err != nil {
		t.Skipf("no java to build the command with: %v", err)
	}
	c1, jar, heap := index(cmd.Args, "-XX:TieredStopAtLevel=1"), index(cmd.Args, "-jar"), index(cmd.Args, "-Xmx1024m")
	if c1 < 0 || jar < 0 || heap < 0 || !(heap < c1 && c1 < jar) {
		t.Errorf("args %q: want -Xmx1024m, then -XX:TieredStopAtLevel=1, then -jar", cmd.Args)
	}
	plain, err := Command(home, t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if index(plain.Args, "-XX:TieredStopAtLevel=1") >= 0 {
		t.Errorf("args without JVM options %q ask for C1 only", plain.Args)
	}
	if got := jvmArgs(Options{ShortLived: true}); len(got) != 1 || got[0] != "-XX:TieredStopAtLevel=1" {
		t.Errorf("jvmArgs(ShortLived) = %q, want [-XX:TieredStopAtLevel=1]", got)
	}
	if got := jvmArgs(Options{}); len(got) != 0 {
		t.Errorf("jvmArgs(long-lived) = %q, want none", got)
	}
}
