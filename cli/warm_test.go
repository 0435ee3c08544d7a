package cli

// warm_test.go tests serve's warm-up (warm.go): which didOpens start a
// project's backends, that a repair after the warm-up reuses them (real JDT
// LS and n-gram model), and the --warm / REPILOT_WARM switch.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/repilot-lsp/repilot-lsp/backend"
	"github.com/repilot-lsp/repilot-lsp/internal/realpart"
	"github.com/repilot-lsp/repilot-lsp/internal/testtree"
	"github.com/repilot-lsp/repilot-lsp/jdtls"
	"github.com/repilot-lsp/repilot-lsp/proxy"
	"github.com/repilot-lsp/repilot-lsp/repair"
)

// warmClient is a proxy.Client over fixed documents that records progress.
type warmClient struct {
	root string
	docs map[string]string // URI -> text

	mu     sync.Mutex
	titles []string
	ends   []string
	logs   []string
}

func (c *warmClient) Root() string { return c.root }
func (c *warmClient) Capabilities() proxy.ClientCapabilities {
	return proxy.ClientCapabilities{WorkDoneProgress: true}
}
func (c *warmClient) Document(uri protocol.DocumentURI) (proxy.Document, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.docs[string(uri)]
	return proxy.Document{URI: uri, LanguageID: "java", Version: 1, Text: t}, ok
}
func (c *warmClient) ShowMessage(protocol.MessageType, string) {}
func (c *warmClient) ApplyEdit(context.Context, string, protocol.WorkspaceEdit) (bool, error) {
	return false, nil
}
func (c *warmClient) BeginProgress(_ context.Context, title string) proxy.Progress {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.titles = append(c.titles, title)
	return warmProgress{c}
}
func (c *warmClient) Logf(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.logs = append(c.logs, fmt.Sprintf(format, args...))
}
func (c *warmClient) Notify(string, any) {}

type warmProgress struct{ c *warmClient }

func (warmProgress) Report(string, int) {}
func (p warmProgress) End(msg string) {
	p.c.mu.Lock()
	defer p.c.mu.Unlock()
	p.c.ends = append(p.c.ends, msg)
}

// recordingWarmer records the roots it is asked to warm, and the files
// (path and text) of WarmFile.
type recordingWarmer struct {
	mu    sync.Mutex
	roots []string
	files []string
}

func (w *recordingWarmer) WarmFile(_ context.Context, root, path, text string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.files = append(w.files, path+"="+text)
	return nil
}

func (w *recordingWarmer) Warm(_ context.Context, root string, _ repair.Progress) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.roots = append(w.roots, root)
	return nil
}

func didOpen(uri string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "java", "version": 1, "text": "class A {}"}})
	return b
}

// waitWarm waits for n warm-ups to finish.
func waitWarm(t *testing.T, x *warmExt, n int, limit time.Duration) {
	t.Helper()
	for i := 0; i < n; i++ {
		select {
		case <-x.done:
		case <-time.After(limit):
			t.Fatalf("warm-up %d of %d did not finish in %s", i+1, n, limit)
		}
	}
}

func TestWarmStartsOncePerJavaProjectInTheWorkspace(t *testing.T) {
	ws := testtree.New(t, map[string]string{
		"a/pom.xml":                    "<project/>",
		"a/src/main/java/p/A.java":     "package p;\nclass A {}\n",
		"a/src/main/java/p/B.java":     "package p;\nclass B {}\n",
		"b/build.gradle":               "",
		"b/src/main/java/q/C.java":     "package q;\nclass C {}\n",
		"b/src/main/resources/x.java~": "",
	})
	outside := filepath.Join(t.TempDir(), "D.java")
	uri := func(p string) string { return repair.FileURI(p) }
	docs := map[string]string{}
	for _, p := range []string{"a/src/main/java/p/A.java", "a/src/main/java/p/B.java", "b/src/main/java/q/C.java"} {
		text, _ := os.ReadFile(filepath.Join(ws, p))
		docs[uri(filepath.Join(ws, p))] = string(text)
	}
	docs[uri(outside)] = "class D {}\n"
	w := &recordingWarmer{}
	x := newWarmExt(w)
	x.done = make(chan struct{}, 8)
	c := &warmClient{root: ws, docs: docs}
	// Opened before initialized: warmed once the handle is known.
	x.observeOpen(didOpen(uri(filepath.Join(ws, "a/src/main/java/p/A.java"))))
	x.Initialized(context.Background(), c)
	waitWarm(t, x, 1, 10*time.Second)
	for _, p := range []string{"a/src/main/java/p/B.java", "b/src/main/java/q/C.java"} {
		x.observeOpen(didOpen(uri(filepath.Join(ws, p))))
	}
	x.observeOpen(didOpen(uri(outside)))                                           // outside the workspace
	x.observeOpen(didOpen(uri(filepath.Join(ws, "b/src/main/resources/x.java~")))) // not Java
	waitWarm(t, x, 1, 10*time.Second)
	time.Sleep(100 * time.Millisecond) // no further warm-up
	w.mu.Lock()
	got := strings.Join(w.roots, ",")
	w.mu.Unlock()
	if want := filepath.Join(ws, "a") + "," + filepath.Join(ws, "b"); got != want {
		t.Errorf("warmed %s, want %s (once per project, the roots a repair uses)", got, want)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.titles) != 2 || len(c.ends) != 2 || !warmReady.MatchString(c.ends[0]) {
		t.Errorf("progress: begun %q, ended %q", c.titles, c.ends)
	}
}

// TestWarmFileOncePerDocument: each Java document opened in the workspace
// warms the engine up on its own file, with the editor's text, once per
// URI and after its project's backends (serve's "be warm before asked" for
// the repair's file); a document outside the workspace does not.
func TestWarmFileOncePerDocument(t *testing.T) {
	ws := testtree.New(t, map[string]string{
		"a/pom.xml":                "<project/>",
		"a/src/main/java/p/A.java": "package p;\nclass A {}\n",
		"a/src/main/java/p/B.java": "package p;\nclass B {}\n",
	})
	outside := filepath.Join(t.TempDir(), "D.java")
	a, b := filepath.Join(ws, "a/src/main/java/p/A.java"), filepath.Join(ws, "a/src/main/java/p/B.java")
	docs := map[string]string{repair.FileURI(a): "class A { /* edited */ }", repair.FileURI(b): "class B {}", repair.FileURI(outside): "class D {}"}
	w := &recordingWarmer{}
	x := newWarmExt(w)
	x.done = make(chan struct{}, 8)
	x.fileDone = make(chan string, 8)
	x.Initialized(context.Background(), &warmClient{root: ws, docs: docs})
	for _, p := range []string{a, b, a} {
		x.observeOpen(didOpen(repair.FileURI(p)))
		select {
		case <-x.fileDone:
		case <-time.After(10 * time.Second):
			t.Fatalf("the warm-up of %s did not end", p)
		}
	}
	x.observeOpen(didOpen(repair.FileURI(outside)))
	time.Sleep(100 * time.Millisecond)
	w.mu.Lock()
	defer w.mu.Unlock()
	want := []string{a + "=class A { /* edited */ }", b + "=class B {}"}
	if strings.Join(w.files, "|") != strings.Join(want, "|") {
		t.Errorf("files warmed %q, want %q (each document once, with the editor's text)", w.files, want)
	}
	if len(w.roots) != 1 || w.roots[0] != filepath.Join(ws, "a") {
		t.Errorf("roots warmed %q, want the project once", w.roots)
	}
}

// TestWarmFileSkipsLargeDocuments opens a document over the size repair and
// ghost text work on: its file warm-up is not run (it would send the text
// to the shadow JDT LS and hold the project's engine for nothing), a smaller
// one opened after it is, and the log says why.
func TestWarmFileSkipsLargeDocuments(t *testing.T) {
	ws := testtree.New(t, map[string]string{
		"pom.xml":                "<project/>",
		"src/main/java/p/A.java": "package p;\nclass A {}\n",
		"src/main/java/p/G.java": "package p;\nclass G {}\n",
	})
	a, g := filepath.Join(ws, "src/main/java/p/A.java"), filepath.Join(ws, "src/main/java/p/G.java")
	big := "package p;\nclass G {\n" + strings.Repeat("  int x;\n", maxWarmFileBytes/9) + "}\n"
	docs := map[string]string{repair.FileURI(g): big, repair.FileURI(a): "class A {}"}
	w := &recordingWarmer{}
	x := newWarmExt(w)
	x.done = make(chan struct{}, 8)
	x.fileDone = make(chan string, 8)
	c := &warmClient{root: ws, docs: docs}
	x.Initialized(context.Background(), c)
	for _, p := range []string{g, a} {
		x.observeOpen(didOpen(repair.FileURI(p)))
		select {
		case <-x.fileDone:
		case <-time.After(10 * time.Second):
			t.Fatalf("the warm-up of %s did not end", p)
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if want := a + "=class A {}"; strings.Join(w.files, "|") != want {
		t.Errorf("files warmed %d, want only %s", len(w.files), a)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if logs := strings.Join(c.logs, "\n"); !strings.Contains(logs, "G.java") || !strings.Contains(logs, "1024 KiB") {
		t.Errorf("the log does not say why G.java was not warmed:\n%s", logs)
	}
}

func TestWarmSwitch(t *testing.T) {
	env := func(v string) func(string) string { return func(string) string { return v } }
	for _, c := range []struct {
		flag, given bool
		env         string
		want        bool
		warned      bool // a word about the value
	}{
		{true, false, "", true, false},
		{true, false, "false", false, false},
		{true, false, "0", false, false},
		{true, false, "yes", true, false},
		{true, false, " True", true, false},
		{true, true, "false", true, false},
		{false, true, "", false, false},
		// Neither on nor off: the default, said (before, silently on).
		{true, false, "flase", true, true},
		{true, false, "disabled", true, true},
		{true, true, "disabled", true, false}, // --warm decides
	} {
		got, warning := warmEnabled(c.flag, c.given, env(c.env))
		if got != c.want {
			t.Errorf("--warm=%v (given %v), %s=%q: %v, want %v", c.flag, c.given, EnvWarm, c.env, got, c.want)
		}
		if named := strings.Contains(warning, "$"+EnvWarm) && strings.Contains(warning, c.env); named != c.warned || (warning != "" && !c.warned) {
			t.Errorf("%s=%q: warning %q, want one naming it: %v", EnvWarm, c.env, warning, c.warned)
		}
	}
}

// TestDidOpenWarmsAndRepairReuses: with the real backends (JDT LS, the
// n-gram model), a didOpen starts the project's engine and a repair that
// follows uses it: the engine is started once.
func TestDidOpenWarmsAndRepairReuses(t *testing.T) {
	home, err := jdtls.ResolveHome("")
	realpart.JDTLS.Require(t, err)
	root := testtree.New(t, map[string]string{
		"src/A.java": "class A {\n  int f(int x) {\n    return x + 1;\n  }\n}\n",
	})
	file := filepath.Join(root, "src", "A.java")
	text, _ := os.ReadFile(file)
	var mu sync.Mutex
	var starts []string
	p, err := backend.New(backend.Config{JDTLSHome: home, StateDir: t.TempDir(), Progress: func(msg string, _ int) {
		if strings.HasPrefix(msg, "starting JDT LS") || strings.HasPrefix(msg, "training the n-gram model") {
			mu.Lock()
			starts = append(starts, msg)
			mu.Unlock()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	x := newWarmExt(p)
	x.done = make(chan struct{}, 1)
	c := &warmClient{root: root, docs: map[string]string{repair.FileURI(file): string(text)}}
	x.Initialized(context.Background(), c)
	began := time.Now()
	x.observeOpen(didOpen(repair.FileURI(file)))
	waitWarm(t, x, 1, 5*time.Minute)
	t.Logf("warm-up: %s", time.Since(began).Round(time.Millisecond))
	c.mu.Lock()
	ends := c.ends
	c.mu.Unlock()
	if len(ends) != 1 || !warmReady.MatchString(ends[0]) {
		t.Fatalf("warm-up ended %q; log %q", ends, c.logs)
	}
	mu.Lock()
	warmed := len(starts)
	mu.Unlock()
	if warmed != 2 {
		t.Fatalf("after the warm-up, start-up work %q: want one JDT LS start and one model training", starts)
	}
	opts := repair.DefaultOptions()
	opts.Samples, opts.MaxTokens = 2, 16
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	began = time.Now()
	res, err := p.Repair(ctx, repair.Request{Root: root, File: file, Text: string(text), StartLine: 3, EndLine: 3, Options: opts}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the repair after it: %s", time.Since(began).Round(time.Millisecond))
	if res.Stats.Samples != 2 {
		t.Errorf("repair stats %+v: want 2 samples", res.Stats)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(starts) != 2 {
		t.Errorf("start-up work %q: the repair started backends again instead of using the warm-up's", starts)
	}
}

// fullWarmer refuses its first n warm-ups with backend.ErrNoRoom, as a
// pool whose project slots are all in use does.
type fullWarmer struct {
	recordingWarmer
	refuse int
}

func (w *fullWarmer) Warm(ctx context.Context, root string, p repair.Progress) error {
	w.mu.Lock()
	refuse := w.refuse > 0
	w.refuse--
	w.mu.Unlock()
	if refuse {
		return fmt.Errorf("%w: test", backend.ErrNoRoom)
	}
	return w.recordingWarmer.Warm(ctx, root, p)
}

// warmReady is a warm-up's end when the backends are ready, read after
// its title: "Repilot: preparing repair: ready (52s)".
var warmReady = regexp.MustCompile(`^ready \([0-9.]+m?s\)$`)

// TestWarmRefusedForRoomIsRetried: a warm-up the pool refuses for want of
// room (backend.ErrNoRoom) is not a failure, and the project's next
// didOpen warms it.
func TestWarmRefusedForRoomIsRetried(t *testing.T) {
	ws := testtree.New(t, map[string]string{"src/A.java": "class A {}\n", "src/B.java": "class B {}\n"})
	docs := map[string]string{}
	for _, p := range []string{"src/A.java", "src/B.java"} {
		docs[repair.FileURI(filepath.Join(ws, p))] = "class X {}\n"
	}
	w := &fullWarmer{refuse: 1}
	x := newWarmExt(w)
	x.done = make(chan struct{}, 4)
	c := &warmClient{root: ws, docs: docs}
	x.Initialized(context.Background(), c)
	x.observeOpen(didOpen(repair.FileURI(filepath.Join(ws, "src/A.java"))))
	waitWarm(t, x, 1, 10*time.Second)
	x.observeOpen(didOpen(repair.FileURI(filepath.Join(ws, "src/B.java"))))
	waitWarm(t, x, 1, 10*time.Second)
	w.mu.Lock()
	got := strings.Join(w.roots, ",")
	w.mu.Unlock()
	if got != ws {
		t.Errorf("warmed %q, want %s once, after the refusal", got, ws)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.ends) != 2 || !strings.HasPrefix(c.ends[0], "postponed to the first repair") || !warmReady.MatchString(c.ends[1]) {
		t.Errorf("progress ended %q", c.ends)
	}
}

// blockingWarmer is a recordingWarmer whose WarmFile waits for release
// (closed by the test) before it records.
type blockingWarmer struct {
	recordingWarmer
	release chan struct{}
}

func (w *blockingWarmer) WarmFile(ctx context.Context, root, path, text string) error {
	<-w.release
	return w.recordingWarmer.WarmFile(ctx, root, path, text)
}

// TestWarmFileLatestWaits: documents opened while a file warm-up runs do not
// queue up behind it (an editor restoring its tabs): only the latest waits,
// the others are dropped, and a dropped one warms when it is opened again.
func TestWarmFileLatestWaits(t *testing.T) {
	files := map[string]string{"pom.xml": "<project/>"}
	for _, n := range []string{"A", "B", "C", "D"} {
		files["src/main/java/p/"+n+".java"] = "package p;\nclass " + n + " {}\n"
	}
	ws := testtree.New(t, files)
	path := func(n string) string { return filepath.Join(ws, "src/main/java/p", n+".java") }
	docs := map[string]string{}
	for _, n := range []string{"A", "B", "C", "D"} {
		docs[repair.FileURI(path(n))] = n
	}
	w := &blockingWarmer{release: make(chan struct{})}
	x := newWarmExt(w)
	x.done = make(chan struct{}, 8)
	x.fileDone = make(chan string, 8)
	x.Initialized(context.Background(), &warmClient{root: ws, docs: docs})
	next := func() string {
		select {
		case u := <-x.fileDone:
			return u
		case <-time.After(10 * time.Second):
			t.Fatal("no file warm-up ended")
			return ""
		}
	}
	x.observeOpen(didOpen(repair.FileURI(path("A"))))
	waitWarm(t, x, 1, 10*time.Second) // the project's warm-up; A's file warm-up now waits in WarmFile
	// waiting waits until uri is the file warm-up waiting.
	waiting := func(uri string) {
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			x.mu.Lock()
			ok := x.fileNext != nil && x.fileNext.uri == uri
			x.mu.Unlock()
			if ok {
				return
			}
		}
		t.Fatalf("%s never waited", uri)
	}
	var dropped []string
	for _, n := range []string{"B", "C", "D"} {
		x.observeOpen(didOpen(repair.FileURI(path(n))))
		waiting(repair.FileURI(path(n)))
		if n != "B" { // each newer one drops the one waiting
			dropped = append(dropped, next())
		}
	}
	if want := repair.FileURI(path("B")) + " " + repair.FileURI(path("C")); strings.Join(dropped, " ") != want {
		t.Errorf("dropped %q, want B then C", dropped)
	}
	close(w.release)
	next()
	next()
	x.observeOpen(didOpen(repair.FileURI(path("B")))) // dropped before: warms now
	next()
	w.mu.Lock()
	defer w.mu.Unlock()
	if got, want := strings.Join(w.files, "|"), path("A")+"=A|"+path("D")+"=D|"+path("B")+"=B"; got != want {
		t.Errorf("files warmed %q, want %q (the running one, the latest, then B opened again)", got, want)
	}
}

func didClose(uri string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"textDocument": map[string]any{"uri": uri}})
	return b
}

// TestWarmForgetsClosedDocuments: over a long editor session that opens and
// closes many documents, the warm-up's per-document records shrink again on
// didClose (they grew by every URI ever opened), and its per-project record
// stays within its bound (it grew by every project ever opened); a document
// opened again after its close is warmed again.
func TestWarmForgetsClosedDocuments(t *testing.T) {
	files := map[string]string{"a/pom.xml": "<project/>", "b/pom.xml": "<project/>", "b/src/main/java/q/K.java": "class K {}\n"}
	const n, projects, bound = 40, 10, 3
	for i := 0; i < n; i++ {
		files[fmt.Sprintf("a/src/main/java/p/C%d.java", i)] = "class C {}\n"
	}
	for i := 0; i < projects; i++ {
		files[fmt.Sprintf("m%d/pom.xml", i)] = "<project/>"
		files[fmt.Sprintf("m%d/src/main/java/M.java", i)] = "class M {}\n"
	}
	ws := testtree.New(t, files)
	c := &warmClient{root: ws, docs: map[string]string{}}
	w := &recordingWarmer{}
	x := newWarmExt(w)
	x.maxRoots = bound
	x.done = make(chan struct{}, 2*(n+projects)+8)
	x.fileDone = make(chan string, 2*(n+projects)+8)
	x.Initialized(context.Background(), c)
	open := func(path string) string {
		u := repair.FileURI(path)
		c.mu.Lock()
		c.docs[u] = "class X {}"
		c.mu.Unlock()
		x.observeOpen(didOpen(u))
		select {
		case <-x.fileDone:
		case <-time.After(10 * time.Second):
			t.Fatalf("the warm-up of %s did not end", path)
		}
		return u
	}
	closeDoc := func(u string) {
		c.mu.Lock()
		delete(c.docs, u) // the proxy's mirror forgets it before the features see didClose
		c.mu.Unlock()
		for _, m := range x.Methods() {
			if m.Name == "textDocument/didClose" {
				m.Notify(c, didClose(u))
			}
		}
	}
	sizes := func() (int, int) {
		x.mu.Lock()
		defer x.mu.Unlock()
		return len(x.files) + len(x.openDocs), len(x.roots)
	}
	warmed := func() (files, roots int) {
		w.mu.Lock()
		defer w.mu.Unlock()
		return len(w.files), len(w.roots)
	}
	keep := open(filepath.Join(ws, "b/src/main/java/q/K.java"))
	for i := 0; i < n; i++ {
		closeDoc(open(filepath.Join(ws, fmt.Sprintf("a/src/main/java/p/C%d.java", i))))
	}
	if f, r := sizes(); f != 2 || r != 2 {
		t.Errorf("after %d documents opened and closed beside one open: %d document records and %d projects, want 2 (one document in two maps) and 2", n, f, r)
	}
	if _, r := warmed(); r != 2 {
		t.Errorf("%d project warm-ups, want 2 (a closed document's project is not warmed again while recorded)", r)
	}
	files0, _ := warmed()
	open(filepath.Join(ws, "a/src/main/java/p/C0.java"))
	if got, _ := warmed(); got != files0+1 {
		t.Errorf("a document opened again after its close was not warmed again (%d file warm-ups, want %d)", got, files0+1)
	}
	for i := 0; i < projects; i++ {
		closeDoc(open(filepath.Join(ws, fmt.Sprintf("m%d/src/main/java/M.java", i))))
		if _, r := sizes(); r > bound {
			t.Fatalf("project %d: %d projects recorded, over the bound %d", i, r, bound)
		}
	}
	x.mu.Lock()
	if !x.roots[filepath.Join(ws, "b")] {
		t.Error("the project of the document still open was dropped from the record")
	}
	x.mu.Unlock()
	closeDoc(keep)
	if f, _ := sizes(); f != 2 {
		t.Errorf("%d document records with one document open, want 2", f)
	}
}
