package jdtls

// sourcepaths.go infers the source folders of a plain folder (a project
// without a build file, which JDT LS imports as an "invisible project") from
// the package declarations of its Java files.
//
// JDT LS infers them itself, from one Java file's package declaration, but
// 1.60 apparently reads that declaration through its default project
// (jdt.ls-java-project), which it no longer creates before the import: it
// reads no package and takes the file's own folder for the source folder
// (.classpath: _/src/org/example/editor), and every file under
// src/org/example/... then gets "The declared package "org.example..." does
// not match the expected package """ on line 1 (1.20 infers src). Imports
// across packages presumably fail too (not checked). The setting java.project.sourcePaths (folders relative
// to the workspace folder) overrides the inference; InferSourcePaths computes
// it as JDT LS 1.20 does, and Start and the proxy send it when the client has
// not set it.

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/repilot-lsp/repilot-lsp/javalex"
)

// SourcePathsSetting is the JDT LS setting holding an invisible project's
// source folders, relative to its workspace folder.
const SourcePathsSetting = "java.project.sourcePaths"

// buildFiles mark a folder JDT LS imports as a Maven, Gradle or Eclipse
// project (its own source folders): a plain folder holds none of them.
var buildFiles = []string{"pom.xml", "build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts", ".project", ".classpath"}

// skippedDirs are folders never searched for sources: version control,
// build outputs and dependency trees.
var skippedDirs = map[string]bool{".git": true, ".hg": true, ".svn": true, "node_modules": true, "target": true, "build": true, "out": true, "bin": true}

// maxSourceScan bounds the folders and files InferSourcePaths visits, so a
// huge folder costs a bounded walk; past it the inference gives up (nil).
// InferSourcePathsAll spends one such budget over all the folders it is
// given (an editor names as many workspace folders as it likes). A variable
// for the tests.
var maxSourceScan = 50000

// maxPackageRead bounds the bytes of a Java file read for its package
// declaration (a long license comment may precede it).
const maxPackageRead = 64 << 10

// InferSourcePaths returns the source folders of the plain folder root,
// relative to it with "/" separators, sorted: for each
// Java file whose package declaration matches its folder (package a.b in
// .../a/b/), the folder above the package's. It returns nil when root or a
// folder under it holds a build file (JDT LS imports that project with its
// own source folders, and no invisible project), when no Java file's package
// matches its folder, when one is root itself (JDT LS 1.60 infers that one
// right), or when root holds more than maxSourceScan entries.
func InferSourcePaths(root string) []string {
	budget := maxSourceScan
	return inferSourcePaths(root, &budget)
}

// inferSourcePaths is InferSourcePaths visiting at most *budget entries,
// which it decreases by those it visits; past it, nil.
func inferSourcePaths(root string, budget *int) []string {
	for _, name := range buildFiles { // the usual case, without a walk
		if _, err := os.Stat(filepath.Join(root, name)); err == nil {
			return nil
		}
	}
	roots := map[string]bool{}
	giveUp := false
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if *budget--; *budget < 0 {
			giveUp = true
			return filepath.SkipAll
		}
		if d.IsDir() {
			if path != root && (skippedDirs[d.Name()] || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if slices.Contains(buildFiles, d.Name()) {
			giveUp = true
			return filepath.SkipAll
		}
		if !strings.HasSuffix(d.Name(), ".java") || d.Name() == "module-info.java" {
			return nil
		}
		if !d.Type().IsRegular() {
			// A link is read when it names a regular file; never a FIFO or
			// device, whose open would wait (for a writer) for good.
			if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
				return nil
			}
		}
		dir := filepath.Dir(path)
		rel, err := filepath.Rel(root, dir)
		if err != nil {
			return nil
		}
		rel = filepath.ToSlash(rel)
		pkg := readPackage(path)
		src := rel
		if pkg != "" {
			pp := strings.ReplaceAll(pkg, ".", "/")
			switch {
			case rel == pp:
				src = "."
			case strings.HasSuffix(rel, "/"+pp):
				src = strings.TrimSuffix(rel, "/"+pp)
			default:
				return nil // JDT LS infers nothing from a misplaced file either
			}
		}
		roots[src] = true
		return nil
	})
	if giveUp || len(roots) == 0 || roots["."] {
		// "." (sources at root) is left to JDT LS, which infers it right.
		return nil
	}
	out := make([]string, 0, len(roots))
	for r := range roots {
		out = append(out, r)
	}
	slices.Sort(out)
	return out
}

// readPackage returns the package a Java file declares ("" for the
// unnamed package or an unreadable file): the name after the first
// "package" keyword outside comments, after nothing but package annotations
// (package-info.java), read with javalex.
func readPackage(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, maxPackageRead))
	lx := javalex.NewLexer(strings.TrimPrefix(string(b), "\ufeff"))
	next := func() javalex.Token {
		for {
			t, ok := lx.Next()
			if !ok {
				return javalex.Token{} // Invalid: ends every loop below
			}
			if !t.Kind.IsComment() {
				return t
			}
		}
	}
	t := next()
	for t.Text == "@" { // an annotation: @Name(.Name)* with an optional (...)
		if t = next(); t.Kind != javalex.Ident {
			return ""
		}
		for t = next(); t.Text == "."; t = next() {
			if t = next(); t.Kind != javalex.Ident {
				return ""
			}
		}
		if t.Text == "(" {
			for depth := 1; depth > 0; {
				switch t = next(); {
				case t.Kind == javalex.Invalid:
					return ""
				case t.Text == "(":
					depth++
				case t.Text == ")":
					depth--
				}
			}
			t = next()
		}
	}
	if t.Text != "package" || t.Kind != javalex.Keyword {
		return ""
	}
	var name strings.Builder
	for t = next(); ; t = next() {
		if t.Kind != javalex.Ident {
			return ""
		}
		name.WriteString(t.Text)
		switch t = next(); t.Text {
		case ";":
			return name.String()
		case ".":
			name.WriteByte('.')
		default:
			return ""
		}
	}
}

// withSourcePaths returns settings (nested, normalized) with
// java.project.sourcePaths set to the source folders inferred under root and
// folders, when settings do not set it and some are inferred; else settings
// unchanged.
func withSourcePaths(settings map[string]any, root string, folders []string) map[string]any {
	if lookupSetting(settings, SourcePathsSetting) != nil {
		return settings
	}
	paths := InferSourcePathsAll(append([]string{root}, folders...))
	if len(paths) == 0 {
		return settings
	}
	return mergeSettings(settings, normalizeSettings(map[string]any{SourcePathsSetting: paths}))
}

// InferSourcePathsAll is InferSourcePaths of the plain folders among dirs
// (the workspace folders), as JSON-ready values, when they all give the same
// source folders; nil when none is inferred, when the folders together hold
// more than maxSourceScan entries (a folder named twice counts once), or
// when two plain folders give different ones: JDT LS applies the one java.project.sourcePaths to every
// invisible project, and one folder's src/main/java would make another's
// src/main/java a source folder too, so then JDT LS infers them itself.
func InferSourcePathsAll(dirs []string) []any {
	var got []string
	budget := maxSourceScan
	seen := map[string]bool{}
	for _, d := range dirs {
		if seen[d] {
			continue
		}
		seen[d] = true
		p := inferSourcePaths(d, &budget)
		if budget < 0 {
			return nil // past the one budget of all the folders
		}
		switch {
		case p == nil:
		case got == nil:
			got = p
		case !slices.Equal(got, p):
			return nil
		}
	}
	var out []any
	for _, p := range got {
		out = append(out, p)
	}
	return out
}

// SetsSourcePaths reports whether client settings (nested or with dotted
// keys, as a client sends them) set java.project.sourcePaths.
func SetsSourcePaths(settings map[string]any) bool {
	return lookupSetting(normalizeSettings(settings), SourcePathsSetting) != nil
}
