package engine

// jdt_test.go runs the JDT engine against a real JDT LS on
// testdata/project: feasible and infeasible member names, the exact-name rule,
// unknown outside strict sites, tokens that cross identifier boundaries,
// active completion, compile errors, and a dead server.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/jdtls"
)

// mainSession opens a session whose hunk is the line of Main.run() that
// calls names.add: Greeter g, Names names and String s are in scope.
func mainSession(t *testing.T) (Session, *JDT) {
	t.Helper()
	eng, root := sharedJDT(t)
	h, _ := hunkAt(t, root, "src/demo/Main.java", "names.add(g.getName());")
	s, err := eng.Open(ctxT(t), h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	settle(t, s)
	return s, eng
}

type checkCase struct {
	generated, token string
	want             Outcome
}

func runChecks(t *testing.T, s Session, cases []checkCase) {
	t.Helper()
	ctx := ctxT(t)
	for _, c := range cases {
		got, err := s.Check(ctx, c.generated, c.token)
		if err != nil {
			t.Fatalf("Check(%q, %q): %v", c.generated, c.token, err)
		}
		if got != c.want {
			t.Errorf("Check(%q, %q) = %v, want %v", c.generated, c.token, got, c.want)
		}
	}
}

const ind = "        "

func TestCheckMemberAccess(t *testing.T) {
	s, _ := mainSession(t)
	runChecks(t, s, []checkCase{
		{ind + "g.", "gre", Feasible},
		{ind + "g.", "gxx", Infeasible},
		{ind + "g.", "Gre", Infeasible},  // case-sensitive
		{ind + "g.", "reet", Infeasible}, // JDT's substring match is not a prefix
		{ind + "g.", "name", Infeasible}, // private field of Greeter, not visible here
		{ind + "g", ".gre", Feasible},
		{ind + "g.", "\n" + ind + "    gre", Feasible}, // newline between dot and name
		{ind + "Greeter.", "of", Feasible},             // static member via the type
		{ind + "Greeter.", "greet", Infeasible},        // instance method via the type
		{ind + "Greeter.Tone.", "LO", Feasible},
		{ind + "s.", "len", Feasible}, // String receiver
		{ind + "s.", "lenx", Infeasible},
		{ind + `"abc".`, "isBl", Feasible},
		{ind + "names.", "cou", Feasible},
		{ind + "names.", "size", Infeasible}, // Names is not a List
		{ind + "System.out.", "printl", Feasible},
		{ind + "g.getName().", "charA", Feasible},
		{ind + "java.util.", "Li", Feasible}, // package receiver: types
		{ind + "java.util.", "concurrent", Feasible},
		{ind + "java.", "utl", Unknown}, // a package receiver: JDT LS may not list every package
	})
}

func TestCheckExactNameRule(t *testing.T) {
	s, _ := mainSession(t)
	runChecks(t, s, []checkCase{
		{ind + "g.", "greet(", Feasible},
		{ind + "g.", "gree(", Infeasible},
		{ind + "g.gree", "(", Infeasible},
		{ind + "g.greet", "()", Feasible},
		{ind + "g.greet", " ", Feasible}, // whitespace ends the name too
		{ind + "g.gree", " ", Infeasible},
		{ind + "g.getName", ".", Infeasible}, // a method name must be called
		{ind + "g.getName", "(", Feasible},
		{ind + "g.getName", " ", Feasible},      // whitespace may come before "("
		{ind + "g.", "<String>greet", Feasible}, // explicit type arguments: String is a visible type
		{ind + "java", ".", Feasible},           // a package (checkQualifier)
	})
}

func TestCheckUnknownOutsideStrictSites(t *testing.T) {
	s, _ := mainSession(t)
	runChecks(t, s, []checkCase{
		{ind + "foo.", "bar", Unknown}, // unresolvable receiver: JDT lists nothing
		{ind + "int n = foo.bar().", "xyz", Unknown},
		{ind + `String t = "g.`, "gxx", Unknown}, // in a string
		{ind + "// g.", "gxx", Unknown},          // in a comment
		{ind + "/* g.", "gxx", Unknown},
		{ind + "char c = 'g.", "x", Unknown},
		{ind + "double d = 1.", "gxx", Unknown}, // number literal
		{ind + "gxx", "yy", Unknown},            // no dot at all
		{ind + "int ", "gxx", Unknown},
	})
}

func TestCheckTokensCrossingBoundaries(t *testing.T) {
	s, _ := mainSession(t)
	runChecks(t, s, []checkCase{
		{ind + "names.add(g", ".getNa", Feasible},
		{ind + "names.add(g", ".getNx", Infeasible},
		{ind + "g.getNa", "me()", Feasible},
		{ind + "g.getNa", "mx()", Infeasible},
		{ind + "g.set", "Name(", Feasible},
		{ind + "g.set", "Nam(", Infeasible},                     // "setNam(" is not a member call
		{ind + "int n = g", ".getName().len", Feasible},         // two sites in one token
		{ind + "int n = g", ".getName().lenx", Infeasible},      // second site refutes
		{ind + "int n = g", ".getNme().length", Infeasible},     // first site refutes
		{ind + "int n = foo", ".bar().length", Infeasible},      // no foo in scope (checkQualifier)
		{ind + "g.greet().", "toUpperCase().trim", Feasible},    // String chain
		{ind + "g.greet().", "toUpperCase().trimx", Infeasible}, // String chain
	})
}

func TestComplete(t *testing.T) {
	s, _ := mainSession(t)
	ctx := ctxT(t)
	cases := []struct {
		generated string
		known     bool
		names     []string
	}{
		{ind + "g.gr", true, []string{"greet"}},
		{ind + "g.getN", true, []string{"getName"}},
		{ind + "g.get", true, []string{"getClass", "getName"}},
		{ind + "g.xyz", true, nil}, // known: nothing extends it
		{ind + "g.ne", false, nil}, // could be "new"
		{ind + "foo.ba", false, nil},
		{ind + "gr", false, nil},
		{ind + "// g.gr", false, nil},
	}
	for _, c := range cases {
		got, err := s.Complete(ctx, c.generated)
		if err != nil {
			t.Fatalf("Complete(%q): %v", c.generated, err)
		}
		if got.Known != c.known || !reflect.DeepEqual(got.Names, c.names) {
			t.Errorf("Complete(%q) = %+v, want known=%v names=%q", c.generated, got, c.known, c.names)
		}
	}
	all, err := s.Complete(ctx, ind+"g.")
	if err != nil || !all.Known || !sort.StringsAreSorted(all.Names) {
		t.Fatalf("Complete after the dot: %+v %v", all, err)
	}
	for _, want := range []string{"getName", "greet", "setName", "toString"} {
		if !contains(all.Names, want) {
			t.Errorf("members of g lack %s: %q", want, all.Names)
		}
	}
}

func TestSiteCacheAndStats(t *testing.T) {
	s, _ := mainSession(t)
	ctx := ctxT(t)
	before := s.Stats()
	for _, tok := range []string{"g", "gr", "gre", "greet", "gxx", "gyy"} {
		if _, err := s.Check(ctx, ind+"Greeter.of(s).", tok); err != nil {
			t.Fatal(err)
		}
	}
	st := s.Stats()
	if st.Checks-before.Checks != 6 {
		t.Errorf("checks: %s", describe(st))
	}
	// One request for the list; the other five checks are answered from
	// it, the prunes of gxx and gyy included (this site's own answer needs
	// no second one: jdtSession.confirm).
	if st.Requests-before.Requests != 1 || st.SiteHits-before.SiteHits != 5 {
		t.Errorf("six checks at one site should cost one request: %s", describe(st))
	}
}

func TestCompileErrors(t *testing.T) {
	eng, root := sharedJDT(t)
	h, line := hunkAt(t, root, "src/demo/Main.java", "names.add(g.getName());")
	ctx := ctxT(t)
	fixed := h.Prefix + line + h.Suffix
	broken := h.Prefix + strings.Replace(line, "getName", "getNam", 1) + h.Suffix
	hunkLine := strings.Count(h.Prefix, "\n") + 1
	// Alternate, so that a publish for the previous text could be mistaken
	// for the current one if versions were not told apart. The fixed text
	// has no error at all: on JDT LS 1.60 that needs the source folder this
	// plain-folder project's package declarations give (src, sent as
	// java.project.sourcePaths); its own inference took src/demo, and
	// reported a package mismatch on line 1 of every file.
	var outside []string // errors off the hunk line, per text: must not vary
	for i, text := range []string{broken, fixed, broken, fixed} {
		began := time.Now()
		errs, err := eng.CompileErrors(ctx, h.URI, text)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("CompileErrors #%d: %d errors in %v", i, len(errs), time.Since(began).Round(time.Millisecond))
		var onHunk, off []string
		for _, e := range errs {
			if e.Line == hunkLine {
				onHunk = append(onHunk, e.Message)
			} else {
				off = append(off, fmt.Sprint(e.Line, ": ", e.Message))
			}
		}
		outside = append(outside, strings.Join(off, "\n"))
		if text == fixed && len(errs) != 0 {
			t.Errorf("fixed text has errors: %+v", errs)
		}
		if text == broken && (len(onHunk) != 1 || !strings.Contains(onHunk[0], "getNam()")) {
			t.Errorf("broken text: got %q on line %d, want one error about getNam()", onHunk, hunkLine)
		}
	}
	for _, o := range outside[1:] {
		if o != outside[0] {
			t.Errorf("errors off the hunk line differ between texts: %q vs %q", outside[0], o)
		}
	}
	// A session on the same file still answers from its own text afterwards.
	s, err := eng.Open(ctx, h)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got, err := s.Check(ctx, ind+"g.", "gre"); err != nil || got != Feasible {
		t.Errorf("check after CompileErrors: %v %v", got, err)
	}
	if errs, err := eng.CompileErrors(ctx, h.URI, broken); err != nil || len(errs) == 0 || errs[len(errs)-1].Line != hunkLine {
		t.Errorf("CompileErrors while a session is open: %+v %v", errs, err)
	}
}

func TestListReceiverInOtherFile(t *testing.T) {
	eng, root := sharedJDT(t)
	h, _ := hunkAt(t, root, "src/demo/Names.java", "return names.size();")
	s, err := eng.Open(ctxT(t), h)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	runChecks(t, s, []checkCase{
		{ind + "return names.", "siz", Feasible},
		{ind + "return names.", "sizx", Infeasible},
		{ind + "return names.", "stream().cou", Feasible},
		{ind + "return names.get(0).", "leng", Feasible},
		{ind + "return names.get(0).", "lengthx", Infeasible},
	})
}

// TestDeadServer kills a JDT LS of its own while a request is in flight: the
// engine must return an error (never Infeasible), promptly, then and after.
func TestDeadServer(t *testing.T) {
	home := jdtHome(t)
	root, err := copyProject("testdata/project")
	if err != nil {
		t.Fatal(err)
	}
	ctx := ctxT(t)
	c, err := jdtls.Start(ctx, jdtls.Options{Home: home, Root: root, StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Kill()
	eng := NewJDT(c) // not waiting for ServiceReady: the request below waits inside JDT LS
	h, _ := hunkAt(t, root, "src/demo/Main.java", "names.add(g.getName());")
	s, err := eng.Open(ctx, h)
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		out Outcome
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := s.Check(ctx, ind+"g.", "gxx")
		done <- result{out, err}
	}()
	time.Sleep(300 * time.Millisecond)
	p, err := os.FindProcess(c.PID())
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-done:
		if r.err == nil || r.out == Infeasible {
			t.Fatalf("check on a dying server = %v, %v; want an error", r.out, r.err)
		}
		if !errors.Is(r.err, jdtls.ErrExited) {
			t.Errorf("error does not wrap jdtls.ErrExited: %v", r.err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("check hung after the server died")
	}
	began := time.Now()
	if out, err := s.Check(context.Background(), ind+"g.", "gyy"); err == nil || out == Infeasible {
		t.Errorf("check after death = %v, %v; want an error", out, err)
	}
	if _, err := s.Complete(context.Background(), ind+"g.gr"); err == nil {
		t.Error("complete after death: no error")
	}
	if _, err := eng.CompileErrors(context.Background(), h.URI, h.Prefix+h.Suffix); err == nil {
		t.Error("CompileErrors after death: no error")
	}
	if d := time.Since(began); d > time.Second {
		t.Errorf("calls after death took %v", d)
	}
	if _, err := eng.Open(context.Background(), h); err == nil {
		t.Error("Open after death: no error")
	}
}

// TestFirstJavaFile: the warm-up's file is a Java source outside hidden
// folders and build outputs; none is found in a tree without one.
func TestFirstJavaFile(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{".git/A.java", "target/B.java", "src/module-info.java", "src/demo/C.java"} {
		p := filepath.Join(root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("class X {}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := firstJavaFile(root), filepath.Join(root, "src", "demo", "C.java"); got != want {
		t.Errorf("firstJavaFile = %q, want %q", got, want)
	}
	empty := t.TempDir()
	if err := os.WriteFile(filepath.Join(empty, "README"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := firstJavaFile(empty); got != "" {
		t.Errorf("firstJavaFile of a tree without Java = %q", got)
	}
}

// TestWarmUpLeavesNothingOpen: StartJDT's warm-up closes the document it
// opened, so a session on that file opens it afresh with its own text.
func TestWarmUpLeavesNothingOpen(t *testing.T) {
	eng, root := sharedJDT(t)
	path := firstJavaFile(root)
	if path == "" {
		t.Fatal("testdata/project has no Java file")
	}
	if _, _, open := eng.Client().Document(jdtls.FileURI(path)); open {
		t.Errorf("%s is still open in the shadow server after the warm-up", path)
	}
}
