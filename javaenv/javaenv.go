// Package javaenv answers two questions about the Java around a project:
// which JDK is in use (its home, its feature release, its source archive),
// and which Java language level a source file is compiled at.
//
// The JDK in use is the one that runs JDT LS: $JAVA_HOME when it holds
// bin/java, else the java on PATH with its symbolic links resolved
// (jdtls.JavaBinary makes the same choice). A JDK's feature release comes
// from the JAVA_VERSION line of its release file ("17.0.21.1" is 17, "1.8.0"
// is 8).
//
// The language level of a file (Level) is read from the nearest build file
// above it: Maven (maven.compiler.release or .source, or the
// maven-compiler-plugin's release or source), Gradle (a toolchain's
// JavaLanguageVersion, options.release, sourceCompatibility), or Eclipse's
// .settings/org.eclipse.jdt.core.prefs; a folder without a build file
// compiles at the JDK in use's release, as javac and JDT LS do. A level that
// cannot be read is unknown (Release 0), never guessed: the engine's end
// check is sound only at levels its grammar is verified for (engine/end.go).
package javaenv

import (
	"bufio"
	"cmp"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Home returns the home folder of the JDK in use: $JAVA_HOME when
// $JAVA_HOME/bin/java exists, else the folder two levels above the java
// found on PATH with symbolic links resolved (/usr/bin/java ->
// /usr/lib/jvm/java-17-openjdk-amd64). The error says that no java was
// found.
func Home() (string, error) {
	if jh := os.Getenv("JAVA_HOME"); jh != "" {
		if _, err := os.Stat(filepath.Join(jh, "bin", "java")); err == nil {
			return jh, nil
		}
	}
	p, err := exec.LookPath("java")
	if err != nil {
		return "", fmt.Errorf("no java found (set JAVA_HOME or put java on PATH): %w", err)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", fmt.Errorf("resolving %s: %w", p, err)
	}
	return filepath.Dir(filepath.Dir(real)), nil
}

// Release returns the feature release of the JDK at home (17 for
// JAVA_VERSION="17.0.21.1", 8 for "1.8.0_392"), read from home/release. The
// error says that the file is missing or has no JAVA_VERSION line.
func Release(home string) (int, error) {
	f, err := os.Open(filepath.Join(home, "release"))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		v, ok := strings.CutPrefix(sc.Text(), "JAVA_VERSION=")
		if !ok {
			continue
		}
		if n := parseRelease(strings.Trim(v, `"`)); n > 0 {
			return n, nil
		}
		return 0, fmt.Errorf("%s/release: JAVA_VERSION %s is not a Java version", home, v)
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("%s/release has no JAVA_VERSION line", home)
}

// parseRelease reads a Java version as build files and release files write
// it: "17", "17.0.2", "1.8", "1.8.0_392", "VERSION_17", "VERSION_1_8". It
// returns the feature release, or 0 when s is not one.
func parseRelease(s string) int {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "VERSION_")
	s = strings.ReplaceAll(s, "_", ".")
	parts := strings.Split(s, ".")
	n, err := strconv.Atoi(parts[0])
	if err != nil || n <= 0 {
		return 0
	}
	if n == 1 && len(parts) > 1 { // 1.8 is Java 8
		if m, err := strconv.Atoi(parts[1]); err == nil && m > 0 {
			return m
		}
		return 0
	}
	return n
}

// jvmDir is where Debian (and Temurin's packages) install JDKs; tests
// point it elsewhere.
var jvmDir = "/usr/lib/jvm"

// candidateHomes returns the folders SrcZips and JDKs look at: the home of
// the JDK in use (Home), when there is one, then every entry of jvmDir, in
// name order; duplicates and folders that are no JDK are left to the caller.
func candidateHomes() []string {
	var homes []string
	if h, err := Home(); err == nil {
		homes = append(homes, h)
	}
	m, _ := filepath.Glob(filepath.Join(jvmDir, "*"))
	return append(homes, m...)
}

// SrcZip is one JDK's source archive.
type SrcZip struct {
	Path    string // home/lib/src.zip, a readable regular file
	Home    string // the JDK's home folder
	Release int    // the JDK's feature release; 0 when its release file is unreadable
}

// SrcZips returns the source archives of the JDK in use and of every JDK
// under /usr/lib/jvm, each archive once (paths compared with links
// resolved), newest release first. A src.zip that is a dangling link (Debian's JDK without the
// openjdk-N-source package) is left out.
func SrcZips() []SrcZip {
	var out []SrcZip
	seen := map[string]int{} // resolved archive path -> index in out
	for _, h := range candidateHomes() {
		p := filepath.Join(h, "lib", "src.zip")
		if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
			continue
		}
		key, err := filepath.EvalSymlinks(p)
		if err != nil {
			continue
		}
		r, _ := Release(h)
		if i, ok := seen[key]; ok {
			// Debian links the same archive from several folders
			// (java-17-openjdk-amd64, openjdk-17); keep the one that
			// is a JDK home.
			if out[i].Release == 0 && r > 0 {
				out[i] = SrcZip{Path: p, Home: h, Release: r}
			}
			continue
		}
		seen[key] = len(out)
		out = append(out, SrcZip{Path: p, Home: h, Release: r})
	}
	slices.SortStableFunc(out, func(a, b SrcZip) int { return cmp.Compare(b.Release, a.Release) })
	return out
}

// TrainingSrcZip chooses the JDK sources the embedded model learns from: the
// archive of the JDK in use (the one that runs JDT LS, so the model learns
// the library the project compiles against), else the newest JDK's archive.
// Why says which rule chose it, for the model's description; ok is false
// when no JDK on the machine has sources.
func TrainingSrcZip() (z SrcZip, why string, ok bool) {
	all := SrcZips()
	if len(all) == 0 {
		return SrcZip{}, "", false
	}
	if h, err := Home(); err == nil {
		hk, _ := filepath.EvalSymlinks(h)
		for _, z := range all {
			if zk, _ := filepath.EvalSymlinks(z.Home); zk == hk {
				return z, "the JDK in use", true
			}
		}
	}
	return all[0], "the newest JDK with sources (the JDK in use has none)", true
}

// JDK is one installed Java development kit.
type JDK struct {
	Home    string // its home folder, holding bin/javac
	Release int    // its feature release
}

// JDKs returns the JDK in use and every JDK under /usr/lib/jvm that has
// bin/javac and a readable release file, each once (homes compared with
// links resolved), newest release first.
func JDKs() []JDK {
	var out []JDK
	seen := map[string]bool{}
	for _, h := range candidateHomes() {
		key, err := filepath.EvalSymlinks(h)
		if err != nil || seen[key] {
			continue
		}
		seen[key] = true
		if _, err := os.Stat(filepath.Join(h, "bin", "javac")); err != nil {
			continue
		}
		if r, err := Release(h); err == nil {
			out = append(out, JDK{Home: h, Release: r})
		}
	}
	slices.SortStableFunc(out, func(a, b JDK) int { return cmp.Compare(b.Release, a.Release) })
	return out
}
