package repair

// root.go finds the Java project a file belongs to, for requests whose caller
// only knows the editor's workspace folder. The engine's JDT LS imports that
// folder; if it is not the file's project (a clone holding several projects,
// say), JDT LS treats the file as a "non-project file" and reports syntax
// errors only, and every candidate would look compilable.

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/repilot-lsp/repilot-lsp/javalex"
)

// buildFiles mark a project root that JDT LS imports as Maven, Gradle or
// Eclipse project.
var buildFiles = []string{"pom.xml", "build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts", ".project"}

// ProjectRoot returns the project directory of the Java file at file (an
// absolute path) with content text, searching no higher than limit (the
// workspace folder; "" means no limit):
//  1. the nearest ancestor holding a build file (pom.xml, build.gradle, ...);
//  2. else the source root implied by the package declaration (the file's
//     directory minus the package path), and then its project: the parent of
//     src/main/java or of src, or the source root itself;
//  3. else limit, or the file's directory when limit is "".
func ProjectRoot(file, text, limit string) string {
	dir := filepath.Dir(file)
	inLimit := func(d string) bool {
		if limit == "" {
			return true
		}
		rel, err := filepath.Rel(limit, d)
		return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
	}
	for d := dir; inLimit(d); {
		for _, b := range buildFiles {
			if _, err := os.Stat(filepath.Join(d, b)); err == nil {
				return d
			}
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	if src, ok := sourceRoot(dir, packageOf(text)); ok && inLimit(src) {
		switch {
		case strings.HasSuffix(src, filepath.Join("src", "main", "java")):
			src = filepath.Dir(filepath.Dir(filepath.Dir(src)))
		case filepath.Base(src) == "src":
			src = filepath.Dir(src)
		}
		if inLimit(src) {
			return src
		}
	}
	if limit != "" {
		return limit
	}
	return dir
}

// packageOf returns the package name declared in text ("" for the default
// package or when there is none). It lexes only up to the declaration (or
// the first import or type), not the whole file: ghost text asks on every
// keystroke, and lexing a 1 MiB file took about 100 ms.
func packageOf(text string) string {
	lx := javalex.NewLexer(text)
	next := func() (javalex.Token, bool) {
		for {
			t, ok := lx.Next()
			if !ok || !t.Kind.IsComment() {
				return t, ok
			}
		}
	}
	for t, ok := next(); ok; t, ok = next() {
		if t.Kind == javalex.Keyword && t.Text == "package" {
			var b strings.Builder
			for u, ok := next(); ok; u, ok = next() {
				if u.Text == ";" {
					return b.String()
				}
				b.WriteString(u.Text)
			}
			return ""
		}
		if t.Kind == javalex.Keyword && (t.Text == "import" || t.Text == "class" || t.Text == "interface" || t.Text == "enum") {
			return ""
		}
	}
	return ""
}

// sourceRoot strips the package path from dir: ("/p/src/a/b", "a.b") gives
// "/p/src". It fails when dir does not end with the package path.
func sourceRoot(dir, pkg string) (string, bool) {
	if pkg == "" {
		return dir, true
	}
	suffix := filepath.Join(strings.Split(pkg, ".")...)
	if !strings.HasSuffix(dir, string(filepath.Separator)+suffix) {
		return "", false
	}
	return strings.TrimSuffix(dir, string(filepath.Separator)+suffix), true
}
