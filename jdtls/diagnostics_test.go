package jdtls

// diagnostics_test.go tests the sync marker that ties diagnostics to
// versions, and Diagnostics against publishes and log messages fed to an
// offline client.

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestSyncMarker(t *testing.T) {
	text := "class A {}\n"
	full := withMarker(text, 42)
	if !strings.HasPrefix(full, text) || !strings.HasSuffix(full, "// TODO repilot-sync 42\n") {
		t.Fatalf("withMarker: %q", full)
	}
	if got := withMarker("class A {}", 3); got != "class A {}\n// TODO repilot-sync 3\n" {
		t.Errorf("no final newline: %q", got)
	}
	ds := []Diagnostic{
		{Severity: 1, Code: json.RawMessage(`"67108964"`), Message: "The method getNam() is undefined"},
		{Severity: 3, Code: json.RawMessage(`"536871362"`), Message: "TODO repilot-sync 42"},
		{Severity: 3, Code: json.RawMessage(`"536871362"`), Message: "TODO fix me"},
	}
	m, rest := splitMarker(ds)
	if m != 42 || len(rest) != 2 || rest[1].Message != "TODO fix me" {
		t.Errorf("splitMarker = %d %+v", m, rest)
	}
	if m, rest := splitMarker(ds[:1]); m != -1 || len(rest) != 1 {
		t.Errorf("no marker: %d %+v", m, rest)
	}
	for text, want := range map[string]bool{
		"class A {}\n":                     true,
		"class A { // comment":             true,
		"class A { String s = \"open":      true, // a string ends at the line end
		"class A { /* open comment":        false,
		"class A { String s = \"\"\"\n  x": false, // open text block
	} {
		if got := markable(text, 1); got != want {
			t.Errorf("markable(%q) = %v, want %v", text, got, want)
		}
	}
}

// publish feeds a publishDiagnostics for uri whose text carried the marker
// of version marker (-1: none), with one error message msg (or none).
func publish(t *testing.T, c *Client, uri string, marker int, msg string) {
	t.Helper()
	var ds []Diagnostic
	if msg != "" {
		ds = append(ds, Diagnostic{Severity: 1, Message: msg})
	}
	if marker >= 0 {
		ds = append(ds, Diagnostic{Severity: 3, Code: json.RawMessage(`"536871362"`), Message: "TODO repilot-sync " + strconv.Itoa(marker)})
	}
	c.handle(context.Background(), serverMessage(t, "textDocument/publishDiagnostics", map[string]any{"uri": uri, "diagnostics": ds}))
}

func TestDiagnosticsMatchVersions(t *testing.T) {
	c := offlineClient(t)
	const uri = "file:///p/A.java"
	quick := func() context.Context {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		t.Cleanup(cancel)
		return ctx
	}
	v1, _ := c.Open(context.Background(), uri, "class A { broken }\n")
	v2, _ := c.Change(context.Background(), uri, "class A {}\n")
	if v2 <= v1 {
		t.Fatalf("versions %d then %d", v1, v2)
	}
	if v, _ := c.Change(context.Background(), uri, "class A {}\n"); v != v2 {
		t.Errorf("unchanged text got a new version %d", v)
	}
	publish(t, c, uri, v1, "stale error of v1") // a late publish of the old text
	if _, err := c.Diagnostics(quick(), uri, v2); err == nil {
		t.Fatal("took the old text's publish for the new one")
	}
	publish(t, c, uri, v2, "")
	ds, err := c.Diagnostics(quick(), uri, v2)
	if err != nil || len(ds) != 0 {
		t.Fatalf("v2: %+v %v", ds, err)
	}
	publish(t, c, uri, v1, "stale again") // even after the right one
	if ds, err := c.Diagnostics(quick(), uri, v2); err != nil || len(ds) != 0 {
		t.Fatalf("v2 after a stale publish: %+v %v", ds, err)
	}
	if _, err := c.Diagnostics(quick(), uri, v1); err == nil {
		t.Error("diagnostics of a replaced version")
	}
	// Closed and reopened: the server's unmarked publish of the file on disk
	// is not the new text's.
	c.Close(context.Background(), uri)
	v3, _ := c.Open(context.Background(), uri, "class A { x }\n")
	publish(t, c, uri, -1, "")
	if _, err := c.Diagnostics(quick(), uri, v3); err == nil {
		t.Error("took an unmarked publish after markers were seen")
	}
	publish(t, c, uri, v3, "x cannot be resolved")
	if ds, err := c.Diagnostics(quick(), uri, v3); err != nil || len(ds) != 1 || ds[0].Message != "x cannot be resolved" {
		t.Errorf("v3: %+v %v", ds, err)
	}
	// A text that swallows the marker falls back to the quiet period.
	v4, _ := c.Change(context.Background(), uri, "class A { String s = \"\"\"\n")
	publish(t, c, uri, -1, "unterminated text block")
	ctx, cancel := context.WithTimeout(context.Background(), DiagnosticsQuiet+2*time.Second)
	defer cancel()
	began := time.Now()
	if ds, err := c.Diagnostics(ctx, uri, v4); err != nil || len(ds) != 1 {
		t.Errorf("unmarkable text: %+v %v", ds, err)
	} else if time.Since(began) < DiagnosticsQuiet-50*time.Millisecond {
		t.Errorf("fallback did not wait for quiet: %v", time.Since(began))
	}
}

// TestDiagnosticsNoAST: when JDT LS logs that JDT Core failed to convert the
// text of a version (it then never publishes for it), Diagnostics of that
// version returns ErrNoAST at once, and other versions are not affected.
func TestDiagnosticsNoAST(t *testing.T) {
	c := offlineClient(t)
	const uri = "file:///p/A.java"
	v1, _ := c.Open(context.Background(), uri, "class A { void f() { public boolean g(a.b() > c) {} } }\n")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		_, err := c.Diagnostics(ctx, uri, v1)
		errc <- err
	}()
	// A log message about another version, then one naming v1's marker (the
	// real message carries the whole source, marker line last).
	log := func(v int) {
		c.handle(context.Background(), serverMessage(t, "window/logMessage", map[string]any{"type": 1,
			"message": "Nov 29, 2026 Exception occurred during compilation unit conversion:\n----- SOURCE BEGIN -----\nclass A {}\n" +
				syncMarker + strconv.Itoa(v) + "\n\n----- SOURCE END -----\njava.lang.IllegalArgumentException"}))
	}
	log(v1 + 100)
	select {
	case err := <-errc:
		t.Fatalf("returned before its own version failed: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	log(v1)
	if err := <-errc; !errors.Is(err, ErrNoAST) {
		t.Fatalf("Diagnostics = %v, want ErrNoAST", err)
	}
	v2, _ := c.Change(context.Background(), uri, "class A {}\n")
	publish(t, c, uri, v2, "")
	if ds, err := c.Diagnostics(ctx, uri, v2); err != nil || len(ds) != 0 {
		t.Fatalf("next version: %v %v", ds, err)
	}
}

// TestDiagnosticsURISpelling: JDT LS spells a file URI its own way (java.net.URI
// leaves non-ASCII characters unescaped: file:///p/my%20dir%20ü/A.java) where
// we sent the escaped form (FileURI: %C3%BC), or the editor sent either: the
// publish is that document's whatever the spelling.
func TestDiagnosticsURISpelling(t *testing.T) {
	for _, tc := range []struct{ opened, published string }{
		{FileURI("/p/my dir ü/A.java"), "file:///p/my%20dir%20ü/A.java"},
		{"file:///p/my%20dir%20ü/B.java", FileURI("/p/my dir ü/B.java")},
		{"file:///c%3A/p/C.java", "file:///c:/p/C.java"},
	} {
		c := offlineClient(t)
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		v, err := c.Open(context.Background(), tc.opened, "class A { x }\n")
		if err != nil {
			t.Fatal(err)
		}
		publish(t, c, tc.published, v, "x cannot be resolved")
		ds, err := c.Diagnostics(ctx, tc.opened, v)
		cancel()
		if err != nil || len(ds) != 1 {
			t.Errorf("opened as %s, published as %s: %+v %v", tc.opened, tc.published, ds, err)
		}
	}
}
