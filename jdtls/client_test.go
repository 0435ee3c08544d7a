package jdtls

// client_test.go tests Client against a real JDT LS: the handshake,
// completion, versioned diagnostics, shutdown and process death.

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/internal/realpart"
	"github.com/repilot-lsp/repilot-lsp/internal/testtree"
	"github.com/repilot-lsp/repilot-lsp/textpos"
)

// The integration tests below need a real JDT LS.

func jdtHome(t *testing.T) string {
	t.Helper()
	home, err := ResolveHome("")
	realpart.JDTLS.Require(t, err)
	return home
}

// testProject writes a two-class plain-folder project (an "invisible
// project" for JDT LS) and returns its root and Main.java's text.
func testProject(t *testing.T) (root, mainPath, mainText string) {
	t.Helper()
	files := map[string]string{
		"src/demo/Greeter.java": "package demo;\n\npublic class Greeter {\n    private String name;\n\n    public Greeter(String name) {\n        this.name = name;\n    }\n\n    public String greet() {\n        return \"Hello, \" + name;\n    }\n\n    public String getName() {\n        return name;\n    }\n\n    public void setName(String name) {\n        this.name = name;\n    }\n}\n",
		"src/demo/Main.java":    "package demo;\n\npublic class Main {\n    void run() {\n        Greeter g = new Greeter(\"world\");\n        System.out.println(g.greet());\n    }\n}\n",
	}
	root = testtree.New(t, files)
	return root, filepath.Join(root, "src", "demo", "Main.java"), files["src/demo/Main.java"]
}

func names(l *CompletionList) []string {
	var out []string
	for _, it := range l.Items {
		out = append(out, it.Name)
	}
	sort.Strings(out)
	return out
}

// TestRealServer runs one JDT LS through its life: handshake and
// ServiceReady, completion, diagnostics matched to versions under rapid
// changes, and shutdown.
func TestRealServer(t *testing.T) {
	home := jdtHome(t)
	root, mainPath, mainText := testProject(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	c, err := Start(ctx, Options{Home: home, Root: root, StateDir: t.TempDir(), Stderr: os.Stderr})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Kill()
	if err := c.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("spawn -> ServiceReady: %v", c.Timings().Ready.Round(time.Millisecond))
	if !c.Registered("textDocument/completion") {
		t.Error("JDT LS did not register completion dynamically")
	}
	uri := FileURI(mainPath)
	if _, err := c.Open(context.Background(), uri, mainText); err != nil {
		t.Fatal(err)
	}

	t.Run("completion", func(t *testing.T) {
		text := strings.Replace(mainText, "System.out.println(g.greet());", "g.", 1)
		if _, err := c.Change(context.Background(), uri, text); err != nil {
			t.Fatal(err)
		}
		pos := textpos.New(text).Position(strings.Index(text, "g.\n") + 2)
		var lat []time.Duration
		for i := 0; i < 5; i++ {
			began := time.Now()
			l, err := c.Completion(ctx, uri, pos)
			if err != nil {
				t.Fatal(err)
			}
			lat = append(lat, time.Since(began))
			got := names(l)
			for _, want := range []string{"getName", "greet", "setName", "toString"} {
				if i := sort.SearchStrings(got, want); i == len(got) || got[i] != want {
					t.Fatalf("members of g lack %s: %v", want, got)
				}
			}
			if l.IsIncomplete {
				t.Error("member list marked incomplete (maxResults not 0?)")
			}
		}
		t.Logf("completion at g.: first %v, then %v", lat[0].Round(time.Millisecond), lat[1:])
	})

	t.Run("diagnostics follow versions", func(t *testing.T) {
		broken := strings.Replace(mainText, "g.greet()", "g.gret()", 1)
		// Rapid changes: publishes for the older texts may arrive late.
		for i := 0; i < 3; i++ {
			if _, err := c.Change(context.Background(), uri, broken+strings.Repeat(" ", i)); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Change(context.Background(), uri, mainText+strings.Repeat(" ", i)); err != nil {
				t.Fatal(err)
			}
		}
		for i, text := range []string{broken, mainText, broken} {
			v, err := c.Change(context.Background(), uri, text)
			if err != nil {
				t.Fatal(err)
			}
			began := time.Now()
			ds, err := c.Diagnostics(ctx, uri, v)
			if err != nil {
				t.Fatal(err)
			}
			var errs []string
			for _, d := range ds {
				if d.Severity == 1 {
					errs = append(errs, d.Message)
				}
			}
			t.Logf("diagnostics #%d (version %d): %d errors after %v", i, v, len(errs), time.Since(began).Round(time.Millisecond))
			// Relative assertions: JDT LS 1.60 adds a package-mismatch error
			// to every text of this plain folder.
			var gret int
			for _, e := range errs {
				if strings.Contains(e, "gret()") {
					gret++
				}
			}
			if text == broken && gret != 1 {
				t.Errorf("broken text: %q, want one error about gret()", errs)
			}
			if text == mainText && gret != 0 {
				t.Errorf("fixed text: %q", errs)
			}
		}
	})

	t.Run("shutdown", func(t *testing.T) {
		began := time.Now()
		if err := c.Shutdown(ctx); err != nil {
			t.Fatal(err)
		}
		select {
		case <-c.Done():
		default:
			t.Fatal("Shutdown returned before the process ended")
		}
		if d := time.Since(began); d > ShutdownGrace+2*time.Second {
			t.Errorf("shutdown took %v", d)
		}
		if c.Err() == nil || !errors.Is(c.Err(), ErrExited) {
			t.Errorf("Err after shutdown: %v", c.Err())
		}
		if _, err := c.Completion(ctx, uri, textpos.Position{}); !errors.Is(err, ErrExited) {
			t.Errorf("completion after shutdown: %v", err)
		}
		if err := c.Shutdown(ctx); err != nil {
			t.Errorf("second shutdown: %v", err)
		}
	})
}

// TestProcessDeath kills JDT LS while a request is in flight: the call must
// fail with ErrExited instead of hanging, and so must later calls.
func TestProcessDeath(t *testing.T) {
	home := jdtHome(t)
	root, mainPath, mainText := testProject(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c, err := Start(ctx, Options{Home: home, Root: root, StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Kill()
	uri := FileURI(mainPath)
	v, err := c.Open(context.Background(), uri, mainText)
	if err != nil {
		t.Fatal(err)
	}
	// Before ServiceReady a completion waits inside JDT LS for the import.
	errc := make(chan error, 1)
	go func() {
		_, err := c.Completion(ctx, uri, textpos.Position{Line: 5, Character: 29})
		errc <- err
	}()
	wait := make(chan error, 1)
	go func() { wait <- c.WaitReady(ctx) }()
	time.Sleep(200 * time.Millisecond)
	p, err := os.FindProcess(c.PID())
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		if !errors.Is(err, ErrExited) {
			t.Errorf("in-flight completion: %v, want ErrExited", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("in-flight completion hung after the process died")
	}
	select {
	case <-c.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("Done not closed")
	}
	if err := <-wait; !errors.Is(err, ErrExited) && err != nil {
		t.Errorf("WaitReady: %v", err)
	}
	if _, err := c.Change(context.Background(), uri, "x"); !errors.Is(err, ErrExited) {
		t.Errorf("Change after death: %v", err)
	}
	if _, err := c.Diagnostics(ctx, uri, v); !errors.Is(err, ErrExited) {
		t.Errorf("Diagnostics after death: %v", err)
	}
	if err := c.Shutdown(ctx); err != nil {
		t.Errorf("Shutdown of a dead server: %v", err)
	}
}
