package repair

import (
	"os"
	"path/filepath"
	"testing"
)

func TestProjectRoot(t *testing.T) {
	ws := t.TempDir()
	write := func(rel string) string {
		p := filepath.Join(ws, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("maven/pom.xml")
	mvn := write("maven/src/main/java/com/x/A.java")
	plain := write("example/shop/project/src/com/example/shop/Cart.java")
	layout := write("lay/src/main/java/org/y/B.java")
	loose := write("loose/C.java")
	odd := write("odd/wrong/D.java")
	for _, c := range []struct{ file, text, want string }{
		{mvn, "package com.x;\nclass A {}", filepath.Join(ws, "maven")},
		{plain, "/* c */\npackage com.example.shop;\nclass Cart {}", filepath.Join(ws, "example/shop/project")},
		{layout, "package org.y; class B {}", filepath.Join(ws, "lay")},
		{loose, "class C {}", filepath.Join(ws, "loose")},
		{odd, "package com.z; class D {}", ws}, // package path does not match: the workspace
	} {
		if got := ProjectRoot(c.file, c.text, ws); got != c.want {
			t.Errorf("ProjectRoot(%s) = %s, want %s", c.file, got, c.want)
		}
	}
}
