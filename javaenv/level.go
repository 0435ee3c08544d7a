package javaenv

// level.go reads the Java language level a source file is compiled at from
// the build file above it.

import (
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Level is the Java language level a file is compiled at.
type Level struct {
	// Release is the feature release (8, 17, 21, 25); 0 when unknown.
	Release int
	// Preview is set when the build enables preview features
	// (--enable-preview): the file may use syntax of no final release.
	Preview bool
	// From says where the level was read, or why it is unknown, for logs
	// and messages: "pom.xml: maven.compiler.release", "no build file: the
	// JDK in use (/usr/lib/jvm/java-17-openjdk-amd64)".
	From string
}

// String gives the level as a user would read it: "Java 17 (pom.xml:
// maven.compiler.release)", "Java 25 with preview features (...)", "unknown
// level (...)".
func (l Level) String() string {
	switch {
	case l.Release == 0:
		return "unknown level (" + l.From + ")"
	case l.Preview:
		return fmt.Sprintf("Java %d with preview features (%s)", l.Release, l.From)
	}
	return fmt.Sprintf("Java %d (%s)", l.Release, l.From)
}

// maxBuildFileBytes bounds a build file read for its level: larger files
// are not build files a person wrote, and the level is then unknown.
const maxBuildFileBytes = 4 << 20

// FileLevel returns the language level of the Java file at path (which need
// not exist). It looks in path's folder and each folder above it for, in
// this order, pom.xml, build.gradle.kts, build.gradle and
// .settings/org.eclipse.jdt.core.prefs; the first folder that has one
// decides. The search stops after a folder holding .git (the repository
// root). A folder with none of them, up to there, compiles at the JDK in
// use's release.
func FileLevel(path string) Level {
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return Level{From: err.Error()}
	}
	for {
		if l, ok := dirLevel(dir); ok {
			return l
		}
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			break
		}
		up := filepath.Dir(dir)
		if up == dir {
			break
		}
		dir = up
	}
	home, err := Home()
	if err != nil {
		return Level{From: "no build file, and " + err.Error()}
	}
	r, err := Release(home)
	if err != nil {
		return Level{From: "no build file, and the JDK in use: " + err.Error()}
	}
	return Level{Release: r, From: "no build file: the JDK in use (" + home + ")"}
}

// dirLevel reads the level from dir's build file; ok is false when dir has
// none.
func dirLevel(dir string) (Level, bool) {
	if _, err := os.Stat(filepath.Join(dir, "pom.xml")); err == nil {
		return mavenLevel(filepath.Join(dir, "pom.xml")), true
	}
	for _, name := range []string{"build.gradle.kts", "build.gradle"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return gradleLevel(filepath.Join(dir, name)), true
		}
	}
	p := filepath.Join(dir, ".settings", "org.eclipse.jdt.core.prefs")
	if _, err := os.Stat(p); err == nil {
		return eclipseLevel(p), true
	}
	return Level{}, false
}

// readBuildFile reads a build file: a regular file, bounded by
// maxBuildFileBytes.
func readBuildFile(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if !st.Mode().IsRegular() {
		// A FIFO's open would wait for a writer for good.
		return "", fmt.Errorf("%s is not a regular file", path)
	}
	if st.Size() > maxBuildFileBytes {
		return "", fmt.Errorf("%s is %d bytes, more than a build file's %d", path, st.Size(), maxBuildFileBytes)
	}
	b, err := os.ReadFile(path)
	return string(b), err
}

// pomFile is the part of a Maven POM that sets the language level.
type pomFile struct {
	Parent struct {
		RelativePath *string `xml:"relativePath"`
	} `xml:"parent"`
	Properties struct {
		Entries []struct {
			XMLName xml.Name
			Value   string `xml:",chardata"`
		} `xml:",any"`
	} `xml:"properties"`
	Plugins []pomPlugin `xml:"build>plugins>plugin"`
	Managed []pomPlugin `xml:"build>pluginManagement>plugins>plugin"`
}

type pomPlugin struct {
	ArtifactID string `xml:"artifactId"`
	Release    string `xml:"configuration>release"`
	Source     string `xml:"configuration>source"`
}

// maxParentPoms bounds the walk up a POM's parents for properties.
const maxParentPoms = 8

// mavenLevel reads a POM's level, as maven-compiler-plugin sets it: the
// plugin's release, else its source, else the properties
// maven.compiler.release, then maven.compiler.source, resolving ${name}
// from the POM's properties and its parents' (by relativePath, default
// ../pom.xml). A POM that sets none compiles at maven-compiler-plugin's
// default source, 8 at most.
func mavenLevel(path string) Level {
	var chain []pomFile // path's POM first, then its parents
	preview := false
	for p := path; p != "" && len(chain) < maxParentPoms; {
		text, err := readBuildFile(p)
		if err != nil {
			if len(chain) == 0 {
				return Level{From: err.Error()}
			}
			break // a parent outside the tree: its properties are unknown
		}
		var pom pomFile
		if err := xml.Unmarshal([]byte(text), &pom); err != nil {
			if len(chain) == 0 {
				return Level{From: fmt.Sprintf("%s: %v", p, err)}
			}
			break
		}
		preview = preview || strings.Contains(text, "--enable-preview")
		chain = append(chain, pom)
		rel := "../pom.xml"
		if pom.Parent.RelativePath != nil {
			rel = strings.TrimSpace(*pom.Parent.RelativePath)
		}
		if rel == "" {
			break
		}
		next := filepath.Join(filepath.Dir(p), rel)
		if st, err := os.Stat(next); err == nil && st.IsDir() {
			next = filepath.Join(next, "pom.xml")
		}
		p = next
	}
	prop := func(name string) string {
		for _, pom := range chain {
			for _, e := range pom.Properties.Entries {
				if e.XMLName.Local == name {
					return strings.TrimSpace(e.Value)
				}
			}
		}
		return ""
	}
	var plugin pomPlugin
	for _, pom := range chain {
		for _, pl := range append(pom.Plugins, pom.Managed...) {
			if pl.ArtifactID == "maven-compiler-plugin" && plugin.Release == "" && plugin.Source == "" {
				plugin = pl
			}
		}
	}
	for _, c := range []struct{ value, from string }{
		{plugin.Release, "maven-compiler-plugin's release"},
		{plugin.Source, "maven-compiler-plugin's source"},
		{prop("maven.compiler.release"), "maven.compiler.release"},
		{prop("maven.compiler.source"), "maven.compiler.source"},
	} {
		v := strings.TrimSpace(c.value)
		if v == "" {
			continue
		}
		for i := 0; i < maxParentPoms && strings.HasPrefix(v, "${") && strings.HasSuffix(v, "}"); i++ {
			v = prop(v[2 : len(v)-1])
		}
		from := "pom.xml: " + c.from
		if n := parseRelease(v); n > 0 {
			return Level{Release: n, Preview: preview, From: from}
		}
		return Level{From: fmt.Sprintf("%s is %q, not a Java version", from, c.value)}
	}
	return Level{Release: 8, Preview: preview, From: "pom.xml sets no level: maven-compiler-plugin's default source (8 at most)"}
}

var (
	gradleToolchain = regexp.MustCompile(`JavaLanguageVersion\s*\.\s*of\s*\(\s*["']?(\d+)["']?\s*\)`)
	gradleRelease   = regexp.MustCompile(`\brelease\s*(?:=|\.set\s*\()\s*["']?(\d+)["']?`)
	gradleSource    = regexp.MustCompile(`\bsourceCompatibility\s*(?:=|\.set\s*\()?\s*(?:JavaVersion\s*\.\s*)?["']?((?:VERSION_)?[\d._]+)["']?`)
)

// gradleLevel reads a Gradle build script's level: a toolchain's
// JavaLanguageVersion.of(N), else options.release, else
// sourceCompatibility. A script that sets none compiles at the JDK that
// runs Gradle, taken to be the JDK in use.
func gradleLevel(path string) Level {
	text, err := readBuildFile(path)
	if err != nil {
		return Level{From: err.Error()}
	}
	name := filepath.Base(path)
	preview := strings.Contains(text, "--enable-preview")
	for _, c := range []struct {
		re   *regexp.Regexp
		from string
	}{
		{gradleToolchain, "toolchain languageVersion"},
		{gradleRelease, "options.release"},
		{gradleSource, "sourceCompatibility"},
	} {
		if m := c.re.FindStringSubmatch(text); m != nil {
			if n := parseRelease(m[1]); n > 0 {
				return Level{Release: n, Preview: preview, From: name + ": " + c.from}
			}
			return Level{From: fmt.Sprintf("%s: %s is %q, not a Java version", name, c.from, m[1])}
		}
	}
	home, err := Home()
	if err != nil {
		return Level{From: name + " sets no level, and " + err.Error()}
	}
	r, err := Release(home)
	if err != nil {
		return Level{From: name + " sets no level, and the JDK in use: " + err.Error()}
	}
	return Level{Release: r, Preview: preview, From: name + " sets no level: the JDK in use (" + home + ")"}
}

// eclipseLevel reads org.eclipse.jdt.core.compiler.source (and whether
// preview features are enabled) from Eclipse's project preferences.
func eclipseLevel(path string) Level {
	text, err := readBuildFile(path)
	if err != nil {
		return Level{From: err.Error()}
	}
	l := Level{From: ".settings/org.eclipse.jdt.core.prefs: org.eclipse.jdt.core.compiler.source"}
	for _, line := range strings.Split(text, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), "=")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "org.eclipse.jdt.core.compiler.source":
			l.Release = parseRelease(v)
		case "org.eclipse.jdt.core.compiler.problem.enablePreviewFeatures":
			l.Preview = strings.TrimSpace(v) == "enabled"
		}
	}
	if l.Release == 0 {
		l.From = ".settings/org.eclipse.jdt.core.prefs sets no org.eclipse.jdt.core.compiler.source"
	}
	return l
}
