package engine

// typeindex_test.go pins the type index's reading rules (typeindex.go,
// jimage.go) and the local names built from it and the scope list
// (simple.go, localNames) over the fake peer: which decisions they make
// without a request, and that they give way to JDT LS wherever they cannot
// be complete.

import (
	"archive/zip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/jdtls"
)

func TestAddBinaryName(t *testing.T) {
	b := newIndexBuilder()
	b.addBinaryName("Map$Entry")
	b.addBinaryName("Outer$1Local")
	b.addBinaryName("Weird$Name$Inner")
	got := b.index().Types
	for _, want := range []string{"Map", "Entry", "Map$Entry", "Outer", "1Local", "Local", "Weird$Name", "Name$Inner", "Inner", "Weird$Name$Inner"} {
		if !slices.Contains(got, want) {
			t.Errorf("names %v lack %q", got, want)
		}
	}
}

func TestAddClassPath(t *testing.T) {
	b := newIndexBuilder()
	for _, p := range []string{
		"com/google/common/base/Strings.class",
		"META-INF/versions/11/org/example/Only11.class",
		"Top.class",                 // the default package: no package name
		"javax/swing/text/html/",    // a folder entry
		"java/lang/Compiler.sig",    // ct.sym, after the release and module
		"com/example/readme.txt",    // a resource: its folder is a package
		"net/example/Foo$Bar.class", // a nested class
	} {
		b.addClassPath(p)
	}
	x := b.index()
	if want := []string{"Bar", "Compiler", "Foo", "Foo$Bar", "Only11", "Strings", "Top"}; !slices.Equal(x.Types, want) {
		t.Errorf("types %v, want %v", x.Types, want)
	}
	if want := []string{"com", "java", "javax", "net", "org"}; !slices.Equal(x.Packages, want) {
		t.Errorf("packages %v, want %v", x.Packages, want)
	}
}

func TestAddSourceText(t *testing.T) {
	src := `package com.acme.shop;
// class NotInCode
import java.util.List;
public class Cart<Item extends Comparable<Item>, Key> {
    interface Listener {}
    enum Mode { A, B }
    record Line(String sku, int qty) {}
    @interface Marker {}
    <Value> void put(Key k, Value v) { class Local {} }
}
`
	b := newIndexBuilder()
	b.addSourceText(src, false)
	x := b.index()
	if want := []string{"Cart", "Line", "Listener", "Local", "Marker", "Mode"}; !slices.Equal(x.Types, want) {
		t.Errorf("types %v, want %v", x.Types, want)
	}
	if want := []string{"com"}; !slices.Equal(x.Packages, want) {
		t.Errorf("packages %v, want %v", x.Packages, want)
	}
	b = newIndexBuilder()
	b.addSourceText(src, true)
	for _, want := range []string{"Item", "Key", "Value"} {
		if !slices.Contains(b.index().Types, want) {
			t.Errorf("type parameter %s missing with typeParams set: %v", want, b.index().Types)
		}
	}
}

// TestJDKIndex reads the JDK that runs JDT LS here: lib/modules' classes,
// nested ones by their simple names, ct.sym's types of earlier releases
// (java.lang.Compiler, gone since JDK 21), and the JDK's packages.
func TestJDKIndex(t *testing.T) {
	java, err := jdtls.JavaBinary()
	if err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(java)
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Dir(filepath.Dir(real))
	if !fileExists(filepath.Join(home, "lib", "modules")) {
		t.Fatalf("%s has no lib/modules: a JDK 17 or newer runs JDT LS", home)
	}
	b := newIndexBuilder()
	if err := b.addJDK(home); err != nil {
		t.Fatal(err)
	}
	x := b.index()
	for _, want := range []string{"HashMap", "Entry", "String", "Compiler", "ConcurrentHashMap", "Node"} {
		if !slices.Contains(x.Types, want) {
			t.Errorf("JDK %s: types lack %s", home, want)
		}
	}
	for _, want := range []string{"java", "javax", "jdk", "sun", "com", "org"} {
		if !slices.Contains(x.Packages, want) {
			t.Errorf("JDK %s: packages lack %s (have %v)", home, want, x.Packages)
		}
	}
	if len(x.Types) < 10000 {
		t.Errorf("JDK %s: only %d types", home, len(x.Types))
	}
}

// TestClasspathJarAndFolder reads a jar and a class folder of a classpath,
// and a missing entry adds nothing.
func TestClasspathJarAndFolder(t *testing.T) {
	dir := t.TempDir()
	jar := filepath.Join(dir, "lib.jar")
	f, err := os.Create(jar)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for _, n := range []string{"org/lib/Widget.class", "org/lib/Widget$Part.class"} {
		if _, err := zw.Create(n); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	classes := filepath.Join(dir, "classes", "app", "core")
	if err := os.MkdirAll(classes, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(classes, "Engine.class"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	b := newIndexBuilder()
	for _, p := range []string{jar, filepath.Join(dir, "classes"), filepath.Join(dir, "missing.jar")} {
		if err := b.addClasspathEntry(p); err != nil {
			t.Fatal(err)
		}
	}
	x := b.index()
	if want := []string{"Engine", "Part", "Widget", "Widget$Part"}; !slices.Equal(x.Types, want) {
		t.Errorf("types %v, want %v", x.Types, want)
	}
	if want := []string{"app", "org"}; !slices.Equal(x.Packages, want) {
		t.Errorf("packages %v, want %v", x.Packages, want)
	}
}

// fakeIndex is a type index for the fake peer's project: the fake's types,
// String and a lower-case class, and the packages java and demo.
var fakeIndex = &typeIndex{Parts: []*nameSet{
	{Types: []string{"Arrays", "Math", "Names", "Search"}, Packages: []string{"demo"}},
	{Types: []string{"Names", "String", "StringBuilder", "lowercaseType"}, Packages: []string{"java"}},
}}

// TestLocalNamesPruneWithoutRequest: with a type index and a complete
// scope list, a name at the hunk start that neither extends (made-up
// names, one-letter names included) is pruned without a request of its
// own; the prune's second answer is the scope list asked once more per
// hunk. Types and packages of the index are feasible, and followers are
// judged by the kinds the scope list and the index give.
func TestLocalNamesPruneWithoutRequest(t *testing.T) {
	f := newFakePeer()
	s := fakeSession(t, f)
	s.e.indexOf = func(ctx context.Context, uri string) (*typeIndex, error) { return fakeIndex, nil }
	checkAll(t, s, []checkCase{
		{ind + "lo = 1 + ", "mid", Infeasible},        // made up
		{ind + "lo = 1 + ", "priorCount", Infeasible}, // made up
		{ind + "while (lo < ", "q", Infeasible},       // one letter, nothing with q
		{ind + "lo = 1 + ", "Arr", Feasible},          // a type of the index
		{ind + "lo = 1 + ", "lowercase", Feasible},    // a lower-case type
		{ind + "lo = 1 + ", "ja", Feasible},           // a package
		{ind + "lo = 1 + ", "N", Feasible},            // one letter: Names
		{ind + "lo = hi", "(", Infeasible},            // a variable is not called
		{ind + "lo = count", ";", Infeasible},         // a method that is not called
		{ind + "lo = Math", "(", Infeasible},          // a type is not called outside new (typeCalled)
		{ind + "lo = java", "(", Infeasible},          // a package is not called
	})
	want := []string{"simple:", "simple:"} // the scope list and its second answer
	if got := f.requests(); !slices.Equal(got, want) {
		t.Errorf("requests %v, want %v", got, want)
	}
}

// TestLocalNamesGiveWay: without an index, or with a scope list JDT LS
// marks incomplete, names are asked of JDT LS as before.
func TestLocalNamesGiveWay(t *testing.T) {
	for _, c := range []struct {
		name       string
		index      func(context.Context, string) (*typeIndex, error)
		incomplete bool
	}{
		{"no index", func(context.Context, string) (*typeIndex, error) { return nil, errors.New("no") }, false},
		{"incomplete scope list", func(context.Context, string) (*typeIndex, error) { return fakeIndex, nil }, true},
	} {
		f := newFakePeer()
		f.scopeIncomplete = c.incomplete
		s := fakeSession(t, f)
		s.e.indexOf = c.index
		// JDT LS's two empty answers for mid prune it, as before.
		checkAll(t, s, []checkCase{{ind + "lo = 1 + ", "mid", Infeasible}})
		got := strings.Join(f.requests(), ",")
		if !strings.Contains(got, "simple:mid") {
			t.Errorf("%s: requests %s, want the list for mid", c.name, got)
		}
	}
}

// TestFingerprintSeesNewSources: the fingerprint an index is reused under
// changes when a source file is added or saved with other contents, and
// the index built again then holds the new type; it is the same when
// nothing changed.
func TestFingerprintSeesNewSources(t *testing.T) {
	java, err := jdtls.JavaBinary()
	if err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(java)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	src := filepath.Join(root, "src", "app")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(src, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("Main.java", "package app;\nclass Main {}\n")
	f := projectFacts{Root: root, VM: filepath.Dir(filepath.Dir(real)), Folders: []string{root}}
	fp1, err := fingerprint(f)
	if err != nil {
		t.Fatal(err)
	}
	if fp, _ := fingerprint(f); fp != fp1 {
		t.Fatal("the fingerprint changed with nothing changed")
	}
	write("Widget.java", "package app;\nclass Widget {}\n")
	fp2, _ := fingerprint(f)
	if fp2 == fp1 {
		t.Error("a new source file left the fingerprint as it was")
	}
	write("Main.java", "package app;\nclass Main { class Gadget {} }\n")
	if fp3, _ := fingerprint(f); fp3 == fp2 {
		t.Error("a saved source file left the fingerprint as it was")
	}
	x, err := buildTypeIndex(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Widget", "Gadget", "Main", "HashMap"} {
		if len(x.types(want)) == 0 {
			t.Errorf("the index lacks %s", want)
		}
	}
	if len(x.packages("app")) == 0 {
		t.Error("the index lacks the package app")
	}
}
