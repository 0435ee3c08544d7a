package jdtls

import (
	"os"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/internal/testtree"
)

func TestInferSourcePaths(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"one package under src", map[string]string{"src/org/example/editor/A.java": "package org.example.editor;\nclass A {}\n"}, []string{"src"}},
		{"license comment, two roots", map[string]string{
			"src/main/java/a/b/A.java": "/* License\n * package not.this;\n */\n// package nor.this;\npackage a . b /* c */ ;\n",
			"test/a/ATest.java":        "package a;\n",
			"src/main/java/a/b/B.java": "package a.b;",
		}, []string{"src/main/java", "test"}},
		{"annotated package-info", map[string]string{"src/p/q/package-info.java": "@Deprecated\n@SuppressWarnings(\"x\")\npackage p.q;\n"}, []string{"src"}},
		{"unnamed package in a folder", map[string]string{"scripts/Main.java": "class Main {}\n"}, []string{"scripts"}},
		{"sources at root are left to JDT LS", map[string]string{"Main.java": "class Main {}\n", "src/p/A.java": "package p;"}, nil},
		{"misplaced file only", map[string]string{"src/x/A.java": "package y;\n"}, nil},
		{"a build file at root", map[string]string{"pom.xml": "<project/>", "src/main/java/p/A.java": "package p;"}, nil},
		{"a build file below", map[string]string{"src/p/A.java": "package p;", "lib/pom.xml": "<project/>"}, nil},
		{"outputs skipped", map[string]string{"src/p/A.java": "package p;", "target/gen/q/B.java": "package q;", ".hidden/r/C.java": "package r;"}, []string{"src"}},
		{"no Java", map[string]string{"README.md": "hi"}, nil},
	} {
		root := t.TempDir()
		testtree.Write(t, root, c.files)
		if got := InferSourcePaths(root); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: InferSourcePaths = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestWithSourcePaths(t *testing.T) {
	root := t.TempDir()
	testtree.Write(t, root, map[string]string{"src/p/A.java": "package p;"})
	got := withSourcePaths(DefaultSettings(), root, nil)
	if v := lookupSetting(got, SourcePathsSetting); !reflect.DeepEqual(v, []any{"src"}) {
		t.Errorf("inferred: %v, want [src]", v)
	}
	if lookupSetting(got, "java.completion.maxResults") != 0 {
		t.Errorf("the other settings were lost: %v", got)
	}
	set := normalizeSettings(map[string]any{SourcePathsSetting: []any{"other"}})
	if v := lookupSetting(withSourcePaths(set, root, nil), SourcePathsSetting); !reflect.DeepEqual(v, []any{"other"}) {
		t.Errorf("the client's own value was replaced: %v", v)
	}
}

func TestInferSourcePathsAll(t *testing.T) {
	a, b, c, m := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	testtree.Write(t, a, map[string]string{"src/p/A.java": "package p;"})
	testtree.Write(t, b, map[string]string{"src/q/B.java": "package q;"})
	testtree.Write(t, c, map[string]string{"src/main/java/p/C.java": "package p;"})
	testtree.Write(t, m, map[string]string{"pom.xml": "<project/>", "src/main/java/p/M.java": "package p;"})
	for _, tc := range []struct {
		dirs []string
		want []any
	}{
		{[]string{a, b, m}, []any{"src"}},
		{[]string{m, a}, []any{"src"}},
		{[]string{a, c}, nil},
		{[]string{m}, nil},
	} {
		if got := InferSourcePathsAll(tc.dirs); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("InferSourcePathsAll(%q) = %v, want %v", tc.dirs, got, tc.want)
		}
	}
	// One scan budget for all the folders an editor names (initialize's
	// workspaceFolders, as many as it likes): each folder alone is within
	// it, together they are past it; a folder named again is not walked
	// again.
	old := maxSourceScan
	defer func() { maxSourceScan = old }()
	maxSourceScan = 10 // a, b hold 4 entries each (root, src, src/p, the file)
	if got := InferSourcePathsAll([]string{a, a, a, a, b}); !reflect.DeepEqual(got, []any{"src"}) {
		t.Errorf("a named four times, then b, within the budget: %v, want [src]", got)
	}
	many := []string{a, b}
	for i := 0; i < 3; i++ {
		d := t.TempDir()
		testtree.Write(t, d, map[string]string{"src/p/A.java": "package p;"})
		many = append(many, d)
	}
	if got := InferSourcePathsAll(many); got != nil {
		t.Errorf("five folders past the one budget: %v, want nil (the walk gave up)", got)
	}
}

// TestReadPackage checks the package declaration read from a file's start:
// comments, a byte order mark and package annotations skipped; anything
// else before "package", or a malformed name, gives "".
func TestReadPackage(t *testing.T) {
	dir := t.TempDir()
	for text, want := range map[string]string{
		"package a.b;\n":                             "a.b",
		"\ufeff// x\npackage a;":                     "a",
		"/* package x; */ package a . /* c */ b ;":   "a.b",
		"@Deprecated @A.B(f(1), \")\") package p.q;": "p.q",
		"@interface A {}":                            "",
		"class A {} package a;":                      "",
		"/* unterminated package a;":                 "",
		"package a.b":                                "",
		"package a..b;":                              "",
		"import x.y;\n":                              "",
	} {
		p := filepath.Join(dir, "A.java")
		testtree.Write(t, dir, map[string]string{"A.java": text})
		if got := readPackage(p); got != want {
			t.Errorf("readPackage(%q) = %q, want %q", text, got, want)
		}
	}
}

// TestInferSourcePathsSkipsFIFOs: a FIFO named like a Java file (or a link
// to one) is not read: its open would wait for a writer for good, and the
// proxy infers the source paths on its read loop, at initialize. A link to
// a regular file still counts.
func TestInferSourcePathsSkipsFIFOs(t *testing.T) {
	root := t.TempDir()
	testtree.Write(t, root, map[string]string{"src/p/A.java": "package p;\n", "lib/q/B.txt": "package q;\n"})
	if err := syscall.Mkfifo(filepath.Join(root, "src/p/F.java"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("F.java", filepath.Join(root, "src/p/L.java")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("B.txt", filepath.Join(root, "lib/q/B.java")); err != nil {
		t.Fatal(err)
	}
	got := make(chan []string, 1)
	go func() { got <- InferSourcePaths(root) }()
	select {
	case g := <-got:
		if want := []string{"lib", "src"}; !reflect.DeepEqual(g, want) {
			t.Errorf("InferSourcePaths = %q, want %q", g, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("InferSourcePaths still blocked after 10s: it opened the FIFO")
	}
}
