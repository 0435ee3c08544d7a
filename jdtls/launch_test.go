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
