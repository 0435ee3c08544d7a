package jdtls

// client_test.go tests Client: item normalization on completion results
// captured from JDT LS 1.20 and 1.60, settings, the sync marker that ties
// diagnostics to versions, server->client requests, and — against a real JDT
// LS — the handshake, completion, versioned diagnostics, shutdown and process
// death.

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/internal/realpart"
	"github.com/repilot-lsp/repilot-lsp/internal/testtree"
	"github.com/repilot-lsp/repilot-lsp/jsonrpc"
	"github.com/repilot-lsp/repilot-lsp/textpos"
)

// Items as JDT LS 1.20 sends them (captured; "data" and "command" trimmed).
const completion120 = `{"isIncomplete":false,"items":[
{"label":"greet() : String","kind":2,"detail":"Greeter.greet() : String","sortText":"999999035","insertText":"greet","insertTextFormat":1,"textEdit":{"range":{"start":{"line":13,"character":10},"end":{"line":13,"character":10}},"newText":"greet"}},
{"label":"setName(String name) : void","kind":2,"detail":"Greeter.setName(String name) : void","insertText":"setName","insertTextFormat":1,"textEdit":{"range":{"start":{"line":13,"character":10},"end":{"line":13,"character":10}},"newText":"setName"}},
{"label":"AbstractCollection - java.util","kind":7,"detail":"java.util.AbstractCollection","filterText":"java.util.AbstractCollection","insertText":"AbstractCollection","insertTextFormat":1,"textEdit":{"range":{"start":{"line":13,"character":8},"end":{"line":13,"character":18}},"newText":"java.util.AbstractCollection"}},
{"label":"class : Class<demo.Greeter>","kind":5,"insertTextFormat":1,"textEdit":{"range":{"start":{"line":13,"character":16},"end":{"line":13,"character":16}},"newText":"class"}},
{"label":"greet(String who) : String","kind":2,"insertTextFormat":2,"textEdit":{"range":{"start":{"line":13,"character":10},"end":{"line":13,"character":10}},"newText":"greet(${1:who})$0"}},
{"label":"sysout","kind":15,"insertTextFormat":2,"insertText":"System.out.println(${0});"}
]}`

// The same kinds of items from JDT LS 1.60 (captured): itemDefaults.editRange,
// textEditText, labelDetails.
const completion160 = `{"isIncomplete":false,
"itemDefaults":{"editRange":{"start":{"line":13,"character":10},"end":{"line":13,"character":10}},"insertTextFormat":1,"data":{"completionKinds":[2,6]}},
"items":[
{"label":"equals","labelDetails":{"detail":"(Object obj)","description":"boolean"},"kind":2,"detail":"Object.equals(Object obj) : boolean","sortText":"999999035","filterText":"equals(Object obj) : boolean","insertText":"equals","textEditText":"equals"},
{"label":"getName","labelDetails":{"detail":"()","description":"String"},"kind":2,"detail":"Greeter.getName() : String","filterText":"getName() : String","insertText":"getName","textEditText":"getName"},
{"label":"AbstractCollection","labelDetails":{"description":"java.util"},"kind":7,"detail":"java.util.AbstractCollection","filterText":"java.util.AbstractCollection","insertText":"AbstractCollection","textEditText":"java.util.AbstractCollection"},
{"label":"new","kind":14,"filterText":"new","insertText":"new","textEditText":"new"}
]}`

func TestParseCompletionShapes(t *testing.T) {
	type item struct {
		Name  string
		Kind  int
		Label string
	}
	cases := []struct {
		name, raw string
		want      []item
	}{
		{"1.20", completion120, []item{
			{"greet", 2, "greet() : String"},
			{"setName", 2, "setName(String name) : void"},
			{"AbstractCollection", 7, "AbstractCollection - java.util"},
			{"class", 5, "class : Class<demo.Greeter>"},
			{"greet", 2, "greet(String who) : String"},
			{"println", 15, "sysout"}, // a template: the engine ignores snippet items
		}},
		{"1.60", completion160, []item{
			{"equals", 2, "equals(Object obj) : boolean"},
			{"getName", 2, "getName() : String"},
			{"AbstractCollection", 7, "AbstractCollection : java.util"},
			{"new", 14, "new"},
		}},
		{"array", `[{"label":"toString() : String","kind":2}]`, []item{{"toString", 2, "toString() : String"}}},
		{"null", `null`, nil},
	}
	for _, c := range cases {
		l, err := ParseCompletion(json.RawMessage(c.raw))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var got []item
		for _, it := range l.Items {
			got = append(got, item{it.Name, it.Kind, it.Label})
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", c.name, got, c.want)
		}
		if l.IsIncomplete {
			t.Errorf("%s: incomplete", c.name)
		}
	}
	// The edits: the item's own textEdit (1.20) or the list's editRange
	// with textEditText (1.60); snippet syntax removed.
	edits := map[string][]TextEdit{
		completion120: {
			{Range{textpos.Position{Line: 13, Character: 10}, textpos.Position{Line: 13, Character: 10}}, "greet"},
			{Range{textpos.Position{Line: 13, Character: 10}, textpos.Position{Line: 13, Character: 10}}, "setName"},
			{Range{textpos.Position{Line: 13, Character: 8}, textpos.Position{Line: 13, Character: 18}}, "java.util.AbstractCollection"},
			{Range{textpos.Position{Line: 13, Character: 16}, textpos.Position{Line: 13, Character: 16}}, "class"},
			{Range{textpos.Position{Line: 13, Character: 10}, textpos.Position{Line: 13, Character: 10}}, "greet(who)"},
		},
		completion160: {
			{Range{textpos.Position{Line: 13, Character: 10}, textpos.Position{Line: 13, Character: 10}}, "equals"},
			{Range{textpos.Position{Line: 13, Character: 10}, textpos.Position{Line: 13, Character: 10}}, "getName"},
			{Range{textpos.Position{Line: 13, Character: 10}, textpos.Position{Line: 13, Character: 10}}, "java.util.AbstractCollection"},
			{Range{textpos.Position{Line: 13, Character: 10}, textpos.Position{Line: 13, Character: 10}}, "new"},
		},
	}
	for raw, want := range edits {
		l, _ := ParseCompletion(json.RawMessage(raw))
		for i, w := range want {
			if e := l.Items[i].Edit; e == nil || *e != w {
				t.Errorf("item %s: edit %+v, want %+v", l.Items[i].Label, e, w)
			}
		}
	}
	if l, err := ParseCompletion(json.RawMessage(`{"isIncomplete":true,"items":[]}`)); err != nil || !l.IsIncomplete {
		t.Errorf("isIncomplete lost: %+v %v", l, err)
	}
	if _, err := ParseCompletion(json.RawMessage(`{"items":3}`)); err == nil {
		t.Error("bad result accepted")
	}
}

func TestStripSnippetAndNames(t *testing.T) {
	for in, want := range map[string]string{
		"greet(${1:who})$0":      "greet(who)",
		"foo(${1|a,b|})":         "foo()",
		`a\$b`:                   "a$b",
		"${1:x}.${2:y}":          "x.y",
		"System.out.println($0)": "System.out.println()",
	} {
		if got := stripSnippet(in); got != want {
			t.Errorf("stripSnippet(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"greet() : String":   "greet",
		"java.util.List<T>":  "List",
		"((Foo) x).bar":      "",
		"é_1$ rest":          "é_1$",
		"util":               "util",
		"Map.Entry<K, V> e":  "Entry",
		"1abc":               "",
		"java.util.":         "util",
		"getName(): String":  "getName",
		"x.y.z() : Foo.Type": "z",
	} {
		if got := lastSegment(in); got != want {
			t.Errorf("lastSegment(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSettings(t *testing.T) {
	s := mergeSettings(DefaultSettings(), normalizeSettings(map[string]any{
		"java.completion.maxResults": 7,
		"java":                       map[string]any{"format": map[string]any{"enabled": false}},
		"java.home":                  "/opt/jdk",
	}))
	cases := map[string]any{
		"java.completion.maxResults":    7, // the caller's value wins
		"java.completion.filteredTypes": []any{},
		"java.format.enabled":           false,
		"java.home":                     "/opt/jdk",
		"java.nothing":                  nil,
		"other":                         nil,
	}
	for section, want := range cases {
		if got := lookupSetting(s, section); !reflect.DeepEqual(got, want) {
			t.Errorf("lookup(%q) = %#v, want %#v", section, got, want)
		}
	}
	if got := lookupSetting(DefaultSettings(), "java.completion.maxResults"); got != 0 {
		t.Errorf("default maxResults = %v, want 0", got)
	}
	if m, ok := lookupSetting(s, "").(map[string]any); !ok || m["java"] == nil {
		t.Errorf("empty section: %v", m)
	}
}

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

// offlineClient is a Client with no process: its connection writes to
// nowhere, and tests feed server messages to handle directly.
func offlineClient(t *testing.T) *Client {
	t.Helper()
	pr, pw := io.Pipe()
	t.Cleanup(func() { pw.Close() })
	c := &Client{
		settings: mergeSettings(DefaultSettings(), nil),
		ready:    make(chan struct{}),
		done:     make(chan struct{}),
		docs:     map[string]*docState{},
		diags:    map[string]*diagState{},
		diagWake: make(chan struct{}),
		regs:     map[string]string{},
	}
	c.conn = jsonrpc.NewConn(pr, io.Discard, IDPrefix, c.handle)
	return c
}

func serverMessage(t *testing.T, method string, params any) *jsonrpc.Message {
	t.Helper()
	p, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	return &jsonrpc.Message{ID: json.RawMessage(`"s1"`), Method: method, Params: p}
}

func TestServerRequests(t *testing.T) {
	c := offlineClient(t)
	ctx := context.Background()
	res, err := c.handle(ctx, serverMessage(t, "workspace/configuration", map[string]any{
		"items": []any{map[string]any{"section": "java.completion.maxResults"}, map[string]any{"section": "java.nope"}},
	}))
	if err != nil || !reflect.DeepEqual(res, []any{0, nil}) {
		t.Errorf("workspace/configuration = %#v, %v", res, err)
	}
	if _, err := c.handle(ctx, serverMessage(t, "client/registerCapability", map[string]any{
		"registrations": []any{map[string]any{"id": "r1", "method": "textDocument/completion"}},
	})); err != nil || !c.Registered("textDocument/completion") {
		t.Errorf("registerCapability: %v registered=%v", err, c.Registered("textDocument/completion"))
	}
	if _, err := c.handle(ctx, serverMessage(t, "client/unregisterCapability", map[string]any{
		"unregisterations": []any{map[string]any{"id": "r1", "method": "textDocument/completion"}},
	})); err != nil || c.Registered("textDocument/completion") {
		t.Errorf("unregisterCapability: %v", err)
	}
	res, _ = c.handle(ctx, serverMessage(t, "workspace/applyEdit", map[string]any{"edit": map[string]any{}}))
	if b, _ := json.Marshal(res); !strings.Contains(string(b), `"applied":false`) {
		t.Errorf("applyEdit = %s", b)
	}
	for _, m := range []string{"window/workDoneProgress/create", "workspace/executeClientCommand", "x/unknown"} {
		if res, err := c.handle(ctx, serverMessage(t, m, map[string]any{"command": "_java.reloadBundles.command"})); res != nil || err != nil {
			t.Errorf("%s = %v, %v; want null", m, res, err)
		}
	}
	select {
	case <-c.Ready():
		t.Fatal("ready before ServiceReady")
	default:
	}
	c.handle(ctx, serverMessage(t, "language/status", map[string]any{"type": "Started", "message": "x"}))
	c.handle(ctx, serverMessage(t, "language/status", map[string]any{"type": "ServiceReady", "message": "ServiceReady"}))
	c.handle(ctx, serverMessage(t, "language/status", map[string]any{"type": "ServiceReady", "message": "again"}))
	if err := c.WaitReady(ctx); err != nil {
		t.Fatal(err)
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
	v1, _ := c.Open(uri, "class A { broken }\n")
	v2, _ := c.Change(uri, "class A {}\n")
	if v2 <= v1 {
		t.Fatalf("versions %d then %d", v1, v2)
	}
	if v, _ := c.Change(uri, "class A {}\n"); v != v2 {
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
	c.Close(uri)
	v3, _ := c.Open(uri, "class A { x }\n")
	publish(t, c, uri, -1, "")
	if _, err := c.Diagnostics(quick(), uri, v3); err == nil {
		t.Error("took an unmarked publish after markers were seen")
	}
	publish(t, c, uri, v3, "x cannot be resolved")
	if ds, err := c.Diagnostics(quick(), uri, v3); err != nil || len(ds) != 1 || ds[0].Message != "x cannot be resolved" {
		t.Errorf("v3: %+v %v", ds, err)
	}
	// A text that swallows the marker falls back to the quiet period.
	v4, _ := c.Change(uri, "class A { String s = \"\"\"\n")
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
	if _, err := c.Open(uri, mainText); err != nil {
		t.Fatal(err)
	}

	t.Run("completion", func(t *testing.T) {
		text := strings.Replace(mainText, "System.out.println(g.greet());", "g.", 1)
		if _, err := c.Change(uri, text); err != nil {
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
			if _, err := c.Change(uri, broken+strings.Repeat(" ", i)); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Change(uri, mainText+strings.Repeat(" ", i)); err != nil {
				t.Fatal(err)
			}
		}
		for i, text := range []string{broken, mainText, broken} {
			v, err := c.Change(uri, text)
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
	v, err := c.Open(uri, mainText)
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
	if _, err := c.Change(uri, "x"); !errors.Is(err, ErrExited) {
		t.Errorf("Change after death: %v", err)
	}
	if _, err := c.Diagnostics(ctx, uri, v); !errors.Is(err, ErrExited) {
		t.Errorf("Diagnostics after death: %v", err)
	}
	if err := c.Shutdown(ctx); err != nil {
		t.Errorf("Shutdown of a dead server: %v", err)
	}
}

// TestDiagnosticsNoAST: when JDT LS logs that JDT Core failed to convert the
// text of a version (it then never publishes for it), Diagnostics of that
// version returns ErrNoAST at once, and other versions are not affected.
func TestDiagnosticsNoAST(t *testing.T) {
	c := offlineClient(t)
	const uri = "file:///p/A.java"
	v1, _ := c.Open(uri, "class A { void f() { public boolean g(a.b() > c) {} } }\n")
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
	v2, _ := c.Change(uri, "class A {}\n")
	publish(t, c, uri, v2, "")
	if ds, err := c.Diagnostics(ctx, uri, v2); err != nil || len(ds) != 0 {
		t.Fatalf("next version: %v %v", ds, err)
	}
}
