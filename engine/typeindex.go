package engine

// typeindex.go builds a local index of the type names and top-level package
// names a simple name at the hunk start may be a prefix of, so that a name no
// variable or method in scope (the hunk's scope list, simple.go) and no entry
// of the index extends is refuted without a JDT LS request (localNames).
//
// The index is a superset of what the project can name: every class and
// interface (nested ones too, by every '$'-separated part of their binary
// name) of
//   - the project's JDK (JDT LS's answer for the project's VM install:
//     lib/modules, the jimage of JDK 9+; lib/ct.sym, the signatures of the
//     releases `--release` may select, types since removed included; every
//     jar under the JDK's home, JDK 8's rt.jar among them);
//   - the project's resolved classpath and module path (JDT LS's
//     java.project.getClasspaths with the test scope, which includes every
//     other scope): jars and class folders;
//   - every .java file under JDT LS's root and the project's root (types
//     declared at any depth, as the lexer reads them; symbolic links
//     followed), and their packages' first segments.
// A name in the index that the project cannot name only costs a prune; a
// name missing from it would cost soundness, so anything that cannot be read
// completely (a JDK without lib/modules or jars, a classpath entry that is
// neither a readable jar nor a folder, more than maxIndexFiles files, a
// failed command) means no index, and every name is then asked of JDT LS as
// before. TestTypeIndexAgreesWithJDTLS compares the two on the fixtures.

import (
	"archive/zip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/repilot-lsp/repilot-lsp/javalex"
	"github.com/repilot-lsp/repilot-lsp/jdtls"
)

// maxIndexFiles bounds the files the index reads under the source roots
// and in class folders; a project with more gets no index (the engine asks
// JDT LS, as without one).
const maxIndexFiles = 200000

// nameSet is sorted, distinct type names and package first segments.
type nameSet struct {
	Types    []string
	Packages []string
}

// typeIndex is the local index: the name sets of its parts (the JDK, each
// jar, the rest), each read once (partCache), so that no project sorts the
// JDK's names again.
type typeIndex struct {
	Parts []*nameSet
	// Took is how long building it took; From says what it read.
	Took time.Duration
	From string
}

// types returns the type names of every part that start with p (a name
// may come more than once).
func (x *typeIndex) types(p string) []string {
	var out []string
	for _, s := range x.Parts {
		out = append(out, withPrefix(s.Types, p)...)
	}
	return out
}

// packages is types' counterpart for the package first segments.
func (x *typeIndex) packages(p string) []string {
	var out []string
	for _, s := range x.Parts {
		out = append(out, withPrefix(s.Packages, p)...)
	}
	return out
}

// size returns the index's type and package names, counted per part.
func (x *typeIndex) size() (types, packages int) {
	for _, s := range x.Parts {
		types += len(s.Types)
		packages += len(s.Packages)
	}
	return types, packages
}

// withPrefix returns the names of sorted that start with p.
func withPrefix(sorted []string, p string) []string {
	i := sort.SearchStrings(sorted, p)
	j := i
	for j < len(sorted) && strings.HasPrefix(sorted[j], p) {
		j++
	}
	return sorted[i:j]
}

// indexBuilder collects names for a typeIndex.
type indexBuilder struct {
	types, packages map[string]bool
	files           int
}

func newIndexBuilder() *indexBuilder {
	return &indexBuilder{types: map[string]bool{}, packages: map[string]bool{}}
}

func (b *indexBuilder) index() *nameSet {
	x := &nameSet{}
	for n := range b.types {
		x.Types = append(x.Types, n)
	}
	for n := range b.packages {
		x.Packages = append(x.Packages, n)
	}
	sort.Strings(x.Types)
	sort.Strings(x.Packages)
	return x
}

// addBinaryName adds the simple names a class file's base name ("Map$Entry",
// "Outer$1Local") may stand for: the whole name, every part between '$'s and
// every run of consecutive parts ('$' is an identifier character, so
// "A$B" may be one class's name), each also without leading digits (a local
// class "1Local").
func (b *indexBuilder) addBinaryName(base string) {
	parts := strings.Split(base, "$")
	for i := range parts {
		for j := i + 1; j <= len(parts); j++ {
			n := strings.Join(parts[i:j], "$")
			if n != "" {
				b.types[n] = true
			}
			if t := strings.TrimLeft(n, "0123456789"); t != "" {
				b.types[t] = true
			}
		}
	}
}

// addClassPath adds the class or signature file at rel, a slash-separated
// path below a classpath root ("com/google/common/base/Strings.class"):
// its names, and its first segment as a package when it has one.
func (b *indexBuilder) addClassPath(rel string) {
	rel = strings.TrimPrefix(rel, "/")
	if strings.HasPrefix(rel, "META-INF/versions/") {
		// A multi-release jar's classes for one release: META-INF/versions/N/a/b/C.class.
		if p := strings.SplitN(rel, "/", 4); len(p) == 4 {
			rel = p[3]
		}
	}
	dir, file := "", rel
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		dir, file = rel[:i], rel[i+1:]
	}
	if dir != "" {
		seg, _, _ := strings.Cut(dir, "/")
		b.packages[seg] = true
	}
	for _, ext := range []string{".class", ".sig"} {
		if base, ok := strings.CutSuffix(file, ext); ok {
			b.addBinaryName(base)
		}
	}
}

// addJar adds every entry of the jar (or zip) at path. ct.sym's entries
// start with the releases and the module they belong to
// ("8/java.base/java/lang/Compiler.sig"): strip says how many leading
// segments to drop (0 for a jar).
func (b *indexBuilder) addJar(path string, strip int) error {
	z, err := zip.OpenReader(path)
	if err != nil {
		return err
	}
	defer z.Close()
	for _, f := range z.File {
		name := f.Name
		if strip > 0 {
			p := strings.SplitN(name, "/", strip+1)
			if len(p) <= strip {
				continue
			}
			name = p[strip]
		}
		b.addClassPath(name)
	}
	return nil
}

// addJDK adds the JDK at home: lib/modules, lib/ct.sym and every jar under
// home. It fails when home has neither lib/modules nor any jar.
func (b *indexBuilder) addJDK(home string) error {
	found := false
	modules := filepath.Join(home, "lib", "modules")
	if _, err := os.Stat(modules); err == nil {
		if err := readJimage(modules, func(e jimageEntry) {
			if e.Extension == "class" {
				b.addClassPath(e.Parent + "/" + e.Base + ".class")
			}
		}); err != nil {
			return err
		}
		found = true
	}
	if ct := filepath.Join(home, "lib", "ct.sym"); fileExists(ct) {
		if err := b.addJar(ct, 2); err != nil {
			return fmt.Errorf("%s: %w", ct, err)
		}
	}
	err := filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".jar") {
			if err := b.addJar(p, 0); err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			found = true
		}
		return nil
	})
	if err != nil {
		return err
	}
	if !found {
		return fmt.Errorf("JDK %s: no lib/modules and no jar", home)
	}
	return nil
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// addClasspathEntry adds a resolved classpath entry: a jar or a class
// folder. A missing entry adds nothing (JDT LS cannot read it either); one
// that is neither is an error.
func (b *indexBuilder) addClasspathEntry(p string) error {
	st, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	if !st.IsDir() {
		return b.addJar(p, 0)
	}
	return b.walk(p, func(path, rel string) error {
		if strings.HasSuffix(rel, ".class") {
			b.addClassPath(rel)
		}
		return nil
	})
}

// walk calls fn for every regular file under root (rel: its slash path
// relative to root), following symbolic links to folders once each, as
// JDT LS's file system does, and skipping .git folders. It fails past
// maxIndexFiles files.
func (b *indexBuilder) walk(root string, fn func(path, rel string) error) error {
	seen := map[string]bool{}
	var rec func(dir, rel string) error
	rec = func(dir, rel string) error {
		real, err := filepath.EvalSymlinks(dir)
		if err != nil {
			return nil // a dangling link: nothing there for JDT LS either
		}
		if seen[real] {
			return nil
		}
		seen[real] = true
		ents, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		for _, d := range ents {
			p := filepath.Join(dir, d.Name())
			r := d.Name()
			if rel != "" {
				r = rel + "/" + d.Name()
			}
			isDir := d.IsDir()
			if d.Type()&fs.ModeSymlink != 0 {
				st, err := os.Stat(p)
				if err != nil {
					continue
				}
				isDir = st.IsDir()
			}
			if isDir {
				if d.Name() == ".git" {
					continue // a repository's objects: never a source or class folder
				}
				if err := rec(p, r); err != nil {
					return err
				}
				continue
			}
			if b.files++; b.files > maxIndexFiles {
				return fmt.Errorf("more than %d files", maxIndexFiles)
			}
			if err := fn(p, r); err != nil {
				return err
			}
		}
		return nil
	}
	return rec(root, "")
}

// addSources adds the types declared in every .java file under root and
// the first segment of each file's package.
func (b *indexBuilder) addSources(root string) error {
	return b.walk(root, func(path, rel string) error {
		if !strings.HasSuffix(path, ".java") {
			return nil
		}
		text, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		b.addSourceText(string(text), false)
		return nil
	})
}

// addSourceText adds the types that Java text declares, at any depth (the
// name after class, interface, enum, record, @interface), the first segment
// of its package, and, when typeParams is set, every identifier that may be
// a type parameter's declaration (followed by ">", ",", "extends", "&": a
// superset, since a type parameter is visible by its simple name in its own
// file only).
func (b *indexBuilder) addSourceText(text string, typeParams bool) {
	toks := codeTokens(javalex.Lex(text))
	for i, t := range toks {
		switch {
		case isKw(t, "class") || isKw(t, "interface") || isKw(t, "enum") || isWord(t, "record"):
			if i+1 < len(toks) && toks[i+1].Kind == javalex.Ident {
				b.types[toks[i+1].Text] = true
			}
		case isKw(t, "package"):
			if i+1 < len(toks) && toks[i+1].Kind == javalex.Ident {
				b.packages[toks[i+1].Text] = true
			}
		case typeParams && t.Kind == javalex.Ident && i+1 < len(toks):
			n := toks[i+1]
			if isOp(n, ">") || isOp(n, ">>") || isOp(n, ">>>") || isOp(n, ",") || isOp(n, "&") || isKw(n, "extends") {
				b.types[t.Text] = true
			}
		}
	}
}

// projectFacts is what JDT LS says about a document's project: its root,
// its VM install and its resolved classpath and module path.
type projectFacts struct {
	Root    string
	VM      string
	Entries []string
	// Folders are the shadow server's workspace folders that hold the
	// document.
	Folders []string
}

// projectFactsOf asks the shadow JDT LS (workspace/executeCommand:
// java.project.getSettings for org.eclipse.jdt.ls.core.vm.location, and
// java.project.getClasspaths with scope "test") about uri's project.
func (e *JDT) projectFactsOf(ctx context.Context, uri string) (projectFacts, error) {
	if e.client == nil {
		return projectFacts{}, errors.New("no JDT LS client")
	}
	ctx, cancel := context.WithTimeout(ctx, e.cfg.requestTimeout)
	defer cancel()
	const vmKey = "org.eclipse.jdt.ls.core.vm.location"
	raw, err := e.client.Call(ctx, "workspace/executeCommand", map[string]any{
		"command": "java.project.getSettings", "arguments": []any{uri, []string{vmKey}}})
	if err != nil {
		return projectFacts{}, fmt.Errorf("getSettings: %w", err)
	}
	var settings map[string]any
	if err := json.Unmarshal(raw, &settings); err != nil {
		return projectFacts{}, fmt.Errorf("getSettings: %w", err)
	}
	vm, _ := settings[vmKey].(string)
	if vm == "" {
		return projectFacts{}, fmt.Errorf("getSettings: no %s in %s", vmKey, raw)
	}
	raw, err = e.client.Call(ctx, "workspace/executeCommand", map[string]any{
		"command": "java.project.getClasspaths", "arguments": []any{uri, `{"scope":"test"}`}})
	if err != nil {
		return projectFacts{}, fmt.Errorf("getClasspaths: %w", err)
	}
	var cp struct {
		ProjectRoot string   `json:"projectRoot"`
		Classpaths  []string `json:"classpaths"`
		Modulepaths []string `json:"modulepaths"`
	}
	if err := json.Unmarshal(raw, &cp); err != nil {
		return projectFacts{}, fmt.Errorf("getClasspaths: %w", err)
	}
	if cp.ProjectRoot == "" {
		return projectFacts{}, fmt.Errorf("getClasspaths: no project root in %s", raw)
	}
	root := cp.ProjectRoot
	if strings.HasPrefix(root, "file:") {
		// JDT LS 1.20 answers a URI ("file:/tmp/x"); a plain folder's
		// project lives in its data folder and links the folder's sources.
		u, err := url.Parse(root)
		if err != nil || u.Path == "" {
			return projectFacts{}, fmt.Errorf("getClasspaths: project root %q", root)
		}
		root = filepath.FromSlash(u.Path)
	}
	doc, err := jdtls.URIPath(uri)
	if err != nil {
		return projectFacts{}, err
	}
	// The workspace folders the document lies in: every source a plain
	// folder's project links, and a Maven or Gradle project's sibling
	// modules, are under them.
	var folders []string
	for _, w := range append([]string{e.client.Root()}, e.client.Folders()...) {
		if rel, err := filepath.Rel(w, doc); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			folders = append(folders, w)
		}
	}
	if len(folders) == 0 {
		return projectFacts{}, fmt.Errorf("%s lies in no workspace folder of the shadow server", doc)
	}
	return projectFacts{Root: root, VM: vm, Entries: append(cp.Classpaths, cp.Modulepaths...), Folders: folders}, nil
}

// partCache holds the names of JDKs and jars already read (or being read),
// by path, size and modification time (partKey): a JDK or a jar does not
// change under the same key, and every project of a corpus shares its JDK.
var partCache sync.Map // partKey -> *partEntry

// partEntry is one part, read once.
type partEntry struct {
	once sync.Once
	set  *nameSet
	err  error
}

// partKey identifies the file at p as it is now ("" when it cannot be
// read).
func partKey(p string) string {
	st, err := os.Stat(p)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%s\x00%d\x00%d", p, st.Size(), st.ModTime().UnixNano())
}

// readPart returns the names that read adds to an empty builder, read once
// per key (partCache; a caller that comes while another reads it waits for
// that read); an empty key reads every time.
func readPart(key string, read func(*indexBuilder) error) (*nameSet, error) {
	do := func() (*nameSet, error) {
		pb := newIndexBuilder()
		if err := read(pb); err != nil {
			return nil, err
		}
		return pb.index(), nil
	}
	if key == "" {
		return do()
	}
	v, _ := partCache.LoadOrStore(key, &partEntry{})
	ent := v.(*partEntry)
	ent.once.Do(func() { ent.set, ent.err = do() })
	return ent.set, ent.err
}

// jdkPart returns the names of the JDK at home (addJDK), read once.
func jdkPart(home string) (*nameSet, error) {
	key := partKey(filepath.Join(home, "lib", "modules")) + "\x00" + partKey(filepath.Join(home, "lib", "ct.sym")) + "\x00" + home
	return readPart(key, func(pb *indexBuilder) error { return pb.addJDK(home) })
}

// preloadJDK reads, in the background, the JDK that runs the shadow JDT LS
// (jdtls.JavaBinary), which a project's VM install is unless JDT LS found
// another one for it, so that the first session's index does not wait for
// it (StartJDT calls it before JDT LS starts, so the two overlap).
func preloadJDK() {
	java, err := jdtls.JavaBinary()
	if err != nil {
		return
	}
	real, err := filepath.EvalSymlinks(java)
	if err != nil {
		return
	}
	home := filepath.Dir(filepath.Dir(real))
	if fileExists(filepath.Join(home, "lib", "modules")) {
		go func() { _, _ = jdkPart(home) }()
	}
}

// buildTypeIndex reads what f names into a typeIndex.
func buildTypeIndex(f projectFacts) (*typeIndex, error) {
	began := time.Now()
	x := &typeIndex{}
	jdk, err := jdkPart(f.VM)
	if err != nil {
		return nil, err
	}
	x.Parts = append(x.Parts, jdk)
	rest := newIndexBuilder() // class folders and sources
	for _, p := range f.Entries {
		if !fileExists(p) {
			if err := rest.addClasspathEntry(p); err != nil { // a class folder, or nothing
				return nil, fmt.Errorf("classpath entry %s: %w", p, err)
			}
			continue
		}
		jar, err := readPart(partKey(p), func(pb *indexBuilder) error { return pb.addClasspathEntry(p) })
		if err != nil {
			return nil, fmt.Errorf("classpath entry %s: %w", p, err)
		}
		x.Parts = append(x.Parts, jar)
	}
	roots := f.roots()
	for _, r := range roots {
		if err := rest.addSources(r); err != nil {
			return nil, fmt.Errorf("sources under %s: %w", r, err)
		}
	}
	x.Parts = append(x.Parts, rest.index())
	x.Took = time.Since(began)
	x.From = fmt.Sprintf("JDK %s, %d classpath entries, sources under %s", f.VM, len(f.Entries), strings.Join(roots, ", "))
	return x, nil
}

// indexEntry is one project's index and the fingerprint of what it read.
type indexEntry struct {
	fp string
	x  *typeIndex
}

// fingerprint hashes what an index of f would read, cheaply: f's VM,
// classpath entries and roots, and the path, size and modification time of
// every file under the roots and of every classpath entry (a class
// folder's files too). A source file added, removed or saved, or a jar
// replaced, changes it. It fails as walk does.
func fingerprint(f projectFacts) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00", f.VM, strings.Join(f.roots(), "\x00"))
	b := newIndexBuilder()
	note := func(path, _ string) error {
		st, err := os.Stat(path)
		if err != nil {
			fmt.Fprintf(h, "%s\x00-\x00", path)
			return nil
		}
		fmt.Fprintf(h, "%s\x00%d\x00%d\x00", path, st.Size(), st.ModTime().UnixNano())
		return nil
	}
	for _, p := range f.Entries {
		st, err := os.Stat(p)
		if err == nil && st.IsDir() {
			if err := b.walk(p, note); err != nil {
				return "", err
			}
			continue
		}
		_ = note(p, "")
	}
	for _, r := range f.roots() {
		if err := b.walk(r, func(path, rel string) error {
			if strings.HasSuffix(path, ".java") {
				return note(path, rel)
			}
			return nil
		}); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// roots returns the folders whose sources an index reads: the project's
// root and the workspace folders that hold the document, each once and
// none inside another.
func (f projectFacts) roots() []string {
	var roots []string
	for _, r := range append([]string{f.Root}, f.Folders...) {
		inside := false
		for _, o := range append([]string{f.Root}, f.Folders...) {
			if rel, err := filepath.Rel(o, r); err == nil && o != r && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				inside = true
			}
		}
		if !inside && !slices.Contains(roots, r) {
			roots = append(roots, r)
		}
	}
	return roots
}

// typeIndexFor returns the index of uri's project as it is now, or nil when
// it cannot be built (the reason is printed with $REPILOT_ENGINE_TRACE).
// Each call asks the shadow server for the project's facts
// (projectFactsOf) and fingerprints what they name; an index built for the
// same fingerprint is reused, so a session (a hunk) sees the sources and
// classpath of its start. Tests replace the whole step with e.indexOf.
func (e *JDT) typeIndexFor(ctx context.Context, uri string) *typeIndex {
	if e.indexOf != nil {
		x, err := e.indexOf(ctx, uri)
		if err != nil {
			return nil
		}
		return x
	}
	if e.client == nil {
		return nil
	}
	began := time.Now()
	x, err := e.freshIndex(ctx, uri)
	if traceRequests {
		if err != nil {
			fmt.Fprintf(os.Stderr, "engine trace: no type index for %s: %v\n", uri, err)
		} else {
			nt, np := x.size()
			fmt.Fprintf(os.Stderr, "engine trace: type index for %s: %d types, %d packages, %.0f ms (built in %.0f ms: %s)\n",
				uri, nt, np, float64(time.Since(began).Microseconds())/1000, float64(x.Took.Microseconds())/1000, x.From)
		}
	}
	if err != nil {
		return nil
	}
	return x
}

// freshIndex is typeIndexFor's work: the facts, their fingerprint, and the
// cached index for it or a new one.
func (e *JDT) freshIndex(ctx context.Context, uri string) (*typeIndex, error) {
	f, err := e.projectFactsOf(ctx, uri)
	if err != nil {
		return nil, err
	}
	fp, err := fingerprint(f)
	if err != nil {
		return nil, err
	}
	e.indexMu.Lock()
	defer e.indexMu.Unlock()
	if ent := e.indexes[f.Root]; ent != nil && ent.fp == fp {
		return ent.x, nil
	}
	x, err := buildTypeIndex(f)
	if err != nil {
		return nil, err
	}
	if e.indexes == nil {
		e.indexes = map[string]*indexEntry{}
	}
	e.indexes[f.Root] = &indexEntry{fp: fp, x: x}
	return x, nil
}
