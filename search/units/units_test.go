package units

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// summary renders units one per line: ID kind | signature | doc | code, with
// newlines shown as ⏎, so a whole extraction compares as one string.
func summary(us []Unit) string {
	var b strings.Builder
	for _, u := range us {
		fmt.Fprintf(&b, "%s %s %d:%d-%d:%d | %s | %s | %s\n", u.ID, u.Kind, u.Start.Line, u.Start.Character,
			u.End.Line, u.End.Character, u.Signature, strings.ReplaceAll(u.Doc, "\n", "⏎"),
			strings.ReplaceAll(u.Code, "\n", "⏎"))
	}
	return b.String()
}

func check(t *testing.T, path, src, want string) {
	t.Helper()
	us, err := Extract(context.Background(), path, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	got := summary(us)
	if strings.TrimSpace(got) != strings.TrimSpace(want) {
		t.Errorf("%s:\ngot:\n%s\nwant:\n%s", path, got, want)
	}
	for _, u := range us {
		if src[u.StartByte:u.EndByte] == "" {
			t.Errorf("%s: empty range", u.ID)
		}
	}
}

func TestJava(t *testing.T) {
	src := `package p;

/** A stack of {@code int}s, see {@link java.util.Deque#push(Object) push}. */
public class IntStack<T> extends Base {
    private int[] items;
    /**
     * Pushes an item.
     * @param x the item
     */
    public void push(int x) { items[n++] = x; }
    // not a doc
    int pop() { return items[--n]; }
    int pop(int k) { return 0; }
    IntStack() {}
    enum Color { RED, GREEN; /** Dark? */ boolean dark() { return false; } }
    interface Sink { void take(int x); }
}
`
	check(t, "src/p/IntStack.java", src, `
src/p/IntStack.java#IntStack class 3:0-16:1 | public class IntStack<T> extends Base | A stack of ints, see push. | public class IntStack<T> extends Base {⏎    private int[] items;⏎    public void push(int x);⏎    int pop();⏎    int pop(int k);⏎    IntStack();⏎    enum Color⏎    interface Sink⏎}
src/p/IntStack.java#IntStack.push method 9:4-9:47 | public void push(int x) | Pushes an item.⏎@param x the item | public void push(int x) { items[n++] = x; }
src/p/IntStack.java#IntStack.pop method 11:4-11:36 | int pop() |  | int pop() { return items[--n]; }
src/p/IntStack.java#IntStack.pop#2 method 12:4-12:32 | int pop(int k) |  | int pop(int k) { return 0; }
src/p/IntStack.java#IntStack.IntStack constructor 13:4-13:17 | IntStack() |  | IntStack() {}
src/p/IntStack.java#IntStack.Color class 14:4-14:76 | enum Color |  | enum Color {⏎    RED,⏎    GREEN,⏎    boolean dark();⏎}
src/p/IntStack.java#IntStack.Color.dark method 14:42-14:74 | boolean dark() | Dark? | boolean dark() { return false; }
src/p/IntStack.java#IntStack.Sink class 15:4-15:40 | interface Sink |  | interface Sink {⏎    void take(int x);⏎}
src/p/IntStack.java#IntStack.Sink.take method 15:21-15:38 | void take(int x) |  | void take(int x);
`)
}

// TestJavaInnerUnits: enum constant bodies, anonymous classes and lambdas
// in fields, anonymous and local classes in methods are units with
// readable qualified names.
func TestJavaInnerUnits(t *testing.T) {
	src := `class TypeAdapters {
  /** Reads and writes booleans. */
  static final TypeAdapter<Boolean> BOOLEAN = new TypeAdapter<Boolean>() {
    public Boolean read(JsonReader in) { return in.nextBoolean(); }
  };
  static final Comparator<String> BY_LENGTH = (a, b) -> a.length() - b.length();
  int plain = 1;
  enum Op {
    PLUS("+") { int apply(int a, int b) { return a + b; } },
    MINUS("-");
  }
  static Factory newFactory() {
    class Local { void help() {} }
    return new Factory() { Object create(Gson g) { return null; } };
  }
}
`
	check(t, "T.java", src, `
T.java#TypeAdapters class 0:0-15:1 | class TypeAdapters |  | class TypeAdapters {⏎    static final TypeAdapter<Boolean> BOOLEAN = new TypeAdapter<Boolean>() { public Boolean read(JsonReader in) { return in.nextBoolean(); } };⏎    static final Comparator<String> BY_LENGTH = (a, b) -> a.length() - b.length();⏎    int plain = 1;⏎    enum Op⏎    static Factory newFactory();⏎}
T.java#TypeAdapters.BOOLEAN class 2:2-4:4 | static final TypeAdapter<Boolean> BOOLEAN = new TypeAdapter<Boolean>() | Reads and writes booleans. | static final TypeAdapter<Boolean> BOOLEAN = new TypeAdapter<Boolean>() {⏎    public Boolean read(JsonReader in);⏎}
T.java#TypeAdapters.BOOLEAN.read method 3:4-3:67 | public Boolean read(JsonReader in) |  | public Boolean read(JsonReader in) { return in.nextBoolean(); }
T.java#TypeAdapters.BY_LENGTH method 5:2-5:80 | static final Comparator<String> BY_LENGTH = (a, b) -> |  | static final Comparator<String> BY_LENGTH = (a, b) -> a.length() - b.length();
T.java#TypeAdapters.Op class 7:2-10:3 | enum Op |  | enum Op {⏎    PLUS,⏎    MINUS,⏎}
T.java#TypeAdapters.Op.PLUS class 8:4-8:59 | PLUS("+") |  | PLUS("+") {⏎    int apply(int a, int b);⏎}
T.java#TypeAdapters.Op.PLUS.apply method 8:16-8:57 | int apply(int a, int b) |  | int apply(int a, int b) { return a + b; }
T.java#TypeAdapters.newFactory method 11:2-14:3 | static Factory newFactory() |  | static Factory newFactory() {⏎    class Local { void help() {} }⏎    return new Factory() { Object create(Gson g) { return null; } };⏎  }
T.java#TypeAdapters.newFactory.Local class 12:4-12:34 | class Local |  | class Local {⏎    void help();⏎}
T.java#TypeAdapters.newFactory.Local.help method 12:18-12:32 | void help() |  | void help() {}
T.java#TypeAdapters.newFactory.create method 13:27-13:65 | Object create(Gson g) |  | Object create(Gson g) { return null; }
`)
}

// TestJavaRecord: a record is a Class unit; its compact constructor's
// signature carries the record's components (it declares none itself),
// not a bare "public Discount".
func TestJavaRecord(t *testing.T) {
	src := `/** A discount. */
public record Discount(String code, int percent) {
    /** Checks the percentage. */
    public Discount {
        if (percent > 100) throw new IllegalArgumentException();
    }
    Discount(String code) { this(code, 0); }
}
`
	check(t, "D.java", src, `
D.java#Discount class 1:0-7:1 | public record Discount(String code, int percent) | A discount. | public record Discount(String code, int percent) {⏎    public Discount(String code, int percent);⏎    Discount(String code);⏎}
D.java#Discount.Discount constructor 3:4-5:5 | public Discount(String code, int percent) | Checks the percentage. | public Discount {⏎        if (percent > 100) throw new IllegalArgumentException();⏎    }
D.java#Discount.Discount#2 constructor 6:4-6:44 | Discount(String code) |  | Discount(String code) { this(code, 0); }
`)
}

func TestPython(t *testing.T) {
	src := `import os

def top(a, b=1) -> int:
    """Add two numbers.

    Longer text.
    """
    return a + b

@decorator
def only_doc():
    'Just a doc.'

class Shape(Base):
    """A shape."""
    sides = 0

    def area(self):
        # comment first
        return 0

    class Inner:
        pass

if os.name == "nt":
    def win():
        def nested():
            pass
        return nested
`
	check(t, "pkg/shape.py", src, `
pkg/shape.py#top function 2:0-7:16 | def top(a, b=1) -> int | Add two numbers.⏎⏎Longer text. | def top(a, b=1) -> int:⏎    return a + b
pkg/shape.py#only_doc function 9:0-11:17 | def only_doc() | Just a doc. | @decorator⏎def only_doc():
pkg/shape.py#Shape class 13:0-22:12 | class Shape(Base) | A shape. | class Shape(Base):⏎    sides = 0⏎    def area(self)⏎    class Inner
pkg/shape.py#Shape.area method 17:4-19:16 | def area(self) |  | def area(self):⏎        # comment first⏎        return 0
pkg/shape.py#Shape.Inner class 21:4-22:12 | class Inner |  | class Inner:
pkg/shape.py#win function 25:4-28:21 | def win() |  | def win():⏎        def nested():⏎            pass⏎        return nested
pkg/shape.py#win.nested function 26:8-27:16 | def nested() |  | def nested():⏎            pass
`)
}

func TestGo(t *testing.T) {
	src := `package p

// Server serves.
//
// More.
type Server struct{ n int }

// unrelated

func (s *Server[T]) Start() error { return nil }

//go:noinline
// Helper helps.
func Helper() {}

type (
	// A is a.
	A int
	B string
)
`
	check(t, "p/s.go", src, `
p/s.go#Server class 5:0-5:27 | type Server struct | Server serves.⏎⏎More. | type Server struct{ n int }
p/s.go#Server.Start method 9:0-9:48 | func (s *Server[T]) Start() error |  | func (s *Server[T]) Start() error { return nil }
p/s.go#Helper function 13:0-13:16 | func Helper() | Helper helps. | func Helper() {}
p/s.go#A class 17:1-17:6 | type A int | A is a. | type A int
p/s.go#B class 18:1-18:9 | type B string |  | type B string
`)
}

func TestBrokenInputNeverFails(t *testing.T) {
	for _, src := range []string{"", "class {", "def (:\n  '''", "func ( {", "/** */", "\x00\xff"} {
		for _, p := range []string{"a.java", "a.py", "a.go"} {
			if _, err := Extract(context.Background(), p, []byte(src)); err != nil {
				t.Errorf("%s %q: %v", p, src, err)
			}
		}
	}
}

func TestFirstSentence(t *testing.T) {
	cases := map[string]string{
		"Returns the value, e.g. 3. More text.":            "Returns the value, e.g. 3.",
		"Adds an item.\n@param x the item":                 "Adds an item.",
		"Compute the sum\nof two numbers\n\nDetails here.": "Compute the sum of two numbers",
		"Version 1.2 of the API. Next.":                    "Version 1.2 of the API.",
		"@return nothing":                                  "",
	}
	for in, want := range cases {
		if got := FirstSentence(in); got != want {
			t.Errorf("FirstSentence(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCleanJavadoc(t *testing.T) {
	in := "/**\n * Returns {@code true} if {@link Map#containsKey(Object)} holds; &lt;b&gt; <b>bold</b>.\n * {@link #size() the size}\n */"
	want := "Returns true if Map.containsKey holds; <b> bold.\nthe size"
	if got := CleanJavadoc(in); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestIsTestPath(t *testing.T) {
	for p, want := range map[string]bool{
		"src/test/java/com/x/FooTest.java": true,
		"src/main/java/com/x/Foo.java":     false,
		"lib/FooTests.java":                true,
		"lib/FooIT.java":                   true,
		"lib/Latest.java":                  false, // ends in "test" but not "Test"
		"lib/Contest.java":                 false,
		"tests/helpers.py":                 true,
		"test/support/__init__.py":         true,
		"pkg/test_parse.py":                true,
		"pkg/parse_test.py":                true,
		"pkg/conftest.py":                  true,
		"pkg/testing.py":                   false,
		"pkg/attest/x.py":                  false,
		"unittest/case.py":                 false,
		"net/http/server_test.go":          true,
		"internal/testtree/tree.go":        false,
		"testdata/x.go":                    true,
	} {
		if got := IsTestPath(p); got != want {
			t.Errorf("IsTestPath(%q) = %v, want %v", p, got, want)
		}
	}
}

// TestSnippetBoundsLines: a snippet keeps its line count and cuts each line
// at MaxSnippetLineBytes on a character boundary. Before, a minified
// file's one line (1.5 MB here) was the whole snippet: the search command's
// result, the CLI's --json and the reranking prompt carried it whole.
func TestSnippetBoundsLines(t *testing.T) {
	long := strings.Repeat("é", 1_500_000/2)
	for _, tc := range []struct {
		code  string
		lines int
		want  string
	}{
		{"a\nb\nc", 2, "a\nb\n…"},
		{"a\nb\n", 2, "a\nb\n…"},
		{"a\nb", 2, "a\nb"},
		{"a\nb\nc", 0, "a\nb\nc"},
		{"", 3, ""},
		{"x" + long + "\nnext", 8, "x" + strings.Repeat("é", (MaxSnippetLineBytes-1)/2) + "…\nnext"},
	} {
		u := Unit{Code: tc.code}
		if got := u.Snippet(tc.lines); got != tc.want {
			t.Errorf("Snippet(%.20q, %d) = %.60q (%d bytes), want %.60q", tc.code, tc.lines, got, len(got), tc.want)
		}
	}
}

// TestShownSignatureIsBounded: a signature a megabyte long (a string in a
// parameter annotation) is shown cut at MaxShownSignatureBytes; the unit
// keeps it whole for the index. Before, search printed it whole (1 MB
// lines in `repilot-lsp search` and the editor's result).
func TestShownSignatureIsBounded(t *testing.T) {
	src := "package a; public class Sig { void parseDateSig(@Deprecated(since=\"" + strings.Repeat("date ", 200000) + "\") String s) { } }\n"
	us, err := Extract(context.Background(), "a/Sig.java", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for i := range us {
		if us[i].Name != "parseDateSig" {
			continue
		}
		found = true
		if got := us[i].ShownSignature(); len(got) > MaxShownSignatureBytes+len("…") || !strings.HasSuffix(got, "…") {
			t.Errorf("shown signature is %d bytes", len(got))
		}
		if len(us[i].Signature) < 1_000_000 {
			t.Errorf("the unit's signature was cut (%d bytes)", len(us[i].Signature))
		}
	}
	if !found {
		t.Fatal("no unit parseDateSig")
	}
}

// TestClipBytes: a cut never splits a character (the one byte n falls in is
// dropped whole), and clip adds "…" only where it cut.
func TestClipBytes(t *testing.T) {
	for _, c := range []struct {
		s        string
		n        int
		want     string
		wantClip string
	}{
		{"abc", 3, "abc", "abc"},
		{"abcd", 3, "abc", "abc…"},
		{"aé", 2, "a", "a…"}, // é is bytes 1-2
		{"aé", 3, "aé", "aé"},
		{"éé", 1, "", "…"},
		{"", 0, "", ""},
	} {
		if got := ClipBytes(c.s, c.n); got != c.want {
			t.Errorf("ClipBytes(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
		if got := clip(c.s, c.n); got != c.wantClip {
			t.Errorf("clip(%q, %d) = %q, want %q", c.s, c.n, got, c.wantClip)
		}
	}
}
