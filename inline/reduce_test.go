package inline

import (
	"strings"
	"testing"
)

// reduceFile is a unit with every kind of body the reduction meets: methods
// of several return types, constructors with and without an explicit
// invocation, an interface's default method, a record's compact
// constructor, an enum's methods, initializer blocks, a nested class and
// an anonymous class inside a body.
const reduceFile = `package p;
import java.util.List;
class A extends B {
  static final int K;
  static { K = 1; }
  final String s;
  { System.out.println("init"); }
  A() { this("x"); g(); }
  A(String s) {
    super(s.length());
    this.s = s;
  }
  int f(int x) {
    Runnable r = new Runnable() { public void run() { f(1); } };
    return x + CARET;
  }
  /** Javadoc,
   * two lines. */
  List<String> g() { return List.of("{", "}"); } // a line comment
  /** @deprecated kept */
  class Inner { void h() { int y = 2; } }
  interface I { default int d() { return 1; } void abs(); }
  record R(int a) { R { if (a < 0) throw new IllegalArgumentException(); } int twice() { return 2 * a; } }
  enum E { X { void m() {} }; int v() { return 3; } }
}
`

func TestReducedPair(t *testing.T) {
	i := strings.Index(reduceFile, "CARET")
	prefix, suffix := reduceFile[:i], reduceFile[i+len("CARET"):]
	newRed, oldRed, ok := ReducedPair(prefix, "x * 2", suffix)
	if !ok {
		t.Fatal("not reduced")
	}
	want := `package p;
import java.util.List;
class A extends B {
  static final int K;
  static { K = 1; }
  final String s;
  { System.out.println("init"); }
  A() { this("x");throw null;}
  A(String s) {
    super(s.length());throw null;

}
  int f(int x) {
    Runnable r = new Runnable() { public void run() { f(1); } };
    return x + x * 2;
  }
   

  List<String> g() {throw null;}  
  /** @deprecated kept */
  class Inner { void h() {throw null;} }
  interface I { default int d() {throw null;} void abs(); }
  record R(int a) { R {throw null;} int twice() {throw null;} }
  enum E { X { void m() {} }; int v() {throw null;} }
}
`
	if newRed != want {
		t.Errorf("reduced new text:\n%s\nwant:\n%s", newRed, want)
	}
	if wantOld := strings.Replace(want, "x + x * 2", "x + ", 1); oldRed != wantOld {
		t.Errorf("reduced old text:\n%s\nwant:\n%s", oldRed, wantOld)
	}
	if strings.Count(newRed, "\n") != strings.Count(prefix+"x * 2"+suffix, "\n") {
		t.Error("the reduction changed the line count")
	}
	// Not reduced: braces that close the body, an open comment or string,
	// a Unicode escape, an insertion outside every body.
	for _, c := range []struct{ prefix, text, suffix string }{
		{prefix, "1; } int z() { return 2", suffix},
		{prefix, "1; /* ", suffix},
		{prefix, `"a`, suffix},
		{prefix, `\u0031`, suffix},
		{prefix, "1 }; {", suffix},
	} {
		if _, _, ok := ReducedPair(c.prefix, c.text, c.suffix); ok {
			t.Errorf("reduced with %q inserted", c.text)
		}
	}
	j := strings.Index(reduceFile, "final String s;")
	if _, _, ok := ReducedPair(reduceFile[:j], "int z = 1; ", reduceFile[j:]); ok {
		t.Error("reduced an insertion between members")
	}
}
