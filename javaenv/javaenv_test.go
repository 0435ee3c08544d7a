package javaenv

// javaenv_test.go checks the level read from each kind of build file, the
// release parsing, and the choice among JDK source archives, on files
// written here (and, for the JDK in use, on the machine's JDK).

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/internal/testtree"
)

func TestParseRelease(t *testing.T) {
	for in, want := range map[string]int{
		"17": 17, "17.0.21.1": 17, "1.8": 8, "1.8.0_392": 8, "VERSION_17": 17, "VERSION_1_8": 8,
		"25": 25, " 21 ": 21, "": 0, "x": 0, "1": 1, "0": 0, "-3": 0, "${java.version}": 0,
	} {
		if got := parseRelease(in); got != want {
			t.Errorf("parseRelease(%q) = %d, want %d", in, got, want)
		}
	}
}

const pomHead = `<?xml version="1.0"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
`

func TestFileLevel(t *testing.T) {
	jdk := 0
	if h, err := Home(); err == nil {
		jdk, _ = Release(h)
	}
	for _, c := range []struct {
		name    string
		files   map[string]string
		file    string
		release int
		preview bool
		from    string
	}{
		{"maven property release", map[string]string{".git/HEAD": "", "pom.xml": pomHead +
			`<properties><maven.compiler.release>21</maven.compiler.release><maven.compiler.source>17</maven.compiler.source></properties></project>`},
			"src/main/java/p/A.java", 21, false, "maven.compiler.release"},
		{"maven property source 1.8", map[string]string{".git/HEAD": "", "pom.xml": pomHead +
			`<properties><maven.compiler.source>1.8</maven.compiler.source></properties></project>`},
			"src/main/java/p/A.java", 8, false, "maven.compiler.source"},
		{"maven plugin release via a property", map[string]string{".git/HEAD": "", "pom.xml": pomHead +
			`<properties><java.version>25</java.version></properties>
  <build><plugins><plugin><artifactId>maven-compiler-plugin</artifactId>
    <configuration><release>${java.version}</release><compilerArgs><arg>--enable-preview</arg></compilerArgs></configuration>
  </plugin></plugins></build></project>`},
			"src/main/java/p/A.java", 25, true, "maven-compiler-plugin's release"},
		{"maven module inherits its parent's property", map[string]string{".git/HEAD": "",
			"pom.xml":     pomHead + `<properties><maven.compiler.release>22</maven.compiler.release></properties></project>`,
			"sub/pom.xml": pomHead + `<parent><artifactId>x</artifactId></parent></project>`},
			"sub/src/main/java/p/A.java", 22, false, "maven.compiler.release"},
		{"maven unresolved property is unknown", map[string]string{".git/HEAD": "", "pom.xml": pomHead +
			`<properties><maven.compiler.release>${jdk}</maven.compiler.release></properties></project>`},
			"src/A.java", 0, false, "not a Java version"},
		{"maven without a level", map[string]string{".git/HEAD": "", "pom.xml": pomHead + `</project>`},
			"src/A.java", 8, false, "default"},
		{"broken pom is unknown", map[string]string{".git/HEAD": "", "pom.xml": "<project><properties>"},
			"src/A.java", 0, false, "pom.xml"},
		{"gradle toolchain (kotlin)", map[string]string{".git/HEAD": "", "build.gradle.kts": `java {
    toolchain { languageVersion.set(JavaLanguageVersion.of(21)) }
}`}, "src/main/java/A.java", 21, false, "toolchain"},
		{"gradle sourceCompatibility", map[string]string{".git/HEAD": "", "build.gradle": `sourceCompatibility = JavaVersion.VERSION_1_8`},
			"src/main/java/A.java", 8, false, "sourceCompatibility"},
		{"gradle options.release", map[string]string{".git/HEAD": "", "build.gradle": `tasks.withType(JavaCompile) { options.release = 23 }`},
			"src/main/java/A.java", 23, false, "options.release"},
		{"eclipse prefs with preview", map[string]string{".git/HEAD": "", ".settings/org.eclipse.jdt.core.prefs": "eclipse.preferences.version=1\norg.eclipse.jdt.core.compiler.source=24\norg.eclipse.jdt.core.compiler.problem.enablePreviewFeatures=enabled\n"},
			"src/A.java", 24, true, "compiler.source"},
		{"no build file: the JDK in use", map[string]string{".git/HEAD": ""}, "src/A.java", jdk, false, "the JDK in use"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			testtree.Write(t, root, c.files)
			l := FileLevel(filepath.Join(root, filepath.FromSlash(c.file)))
			if l.Release != c.release || l.Preview != c.preview || !strings.Contains(l.From, c.from) {
				t.Errorf("FileLevel = %+v, want release %d preview %v from ~%q", l, c.release, c.preview, c.from)
			}
		})
	}
}

// TestFileLevelFIFO: a FIFO named pom.xml is not opened (its open would
// wait for a writer for good): the level is unknown, saying why.
func TestFileLevelFIFO(t *testing.T) {
	root := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(root, "pom.xml"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := make(chan Level, 1)
	go func() { got <- FileLevel(filepath.Join(root, "src", "A.java")) }()
	select {
	case l := <-got:
		if l.Release != 0 || !strings.Contains(l.From, "not a regular file") {
			t.Errorf("FileLevel = %+v, want unknown: not a regular file", l)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("FileLevel still blocked after 10s: it opened the FIFO")
	}
}

func TestRelease(t *testing.T) {
	dir := t.TempDir()
	testtree.Write(t, dir, map[string]string{"release": "IMPLEMENTOR=\"x\"\nJAVA_VERSION=\"25.0.3\"\n"})
	if r, err := Release(dir); err != nil || r != 25 {
		t.Errorf("Release = %d, %v; want 25", r, err)
	}
	testtree.Write(t, dir, map[string]string{"release": "IMPLEMENTOR=\"x\"\n"})
	if _, err := Release(dir); err == nil {
		t.Error("Release of a file without JAVA_VERSION: no error")
	}
	if _, err := Release(filepath.Join(dir, "missing")); err == nil {
		t.Error("Release of a missing JDK: no error")
	}
}

// TestTrainingSrcZip: the archive of the JDK in use wins over a newer one;
// without it the newest is chosen; a dangling src.zip link is no archive.
func TestTrainingSrcZip(t *testing.T) {
	root := t.TempDir()
	old := jvmDir
	jvmDir = root
	t.Cleanup(func() { jvmDir = old })
	mk := func(name, version string, src bool) string {
		home := filepath.Join(root, name)
		testtree.Write(t, home, map[string]string{"release": `JAVA_VERSION="` + version + `"` + "\n", "bin/java": "#!/bin/sh\n"})
		if err := os.Chmod(filepath.Join(home, "bin", "java"), 0o755); err != nil {
			t.Fatal(err)
		}
		if src {
			testtree.Write(t, home, map[string]string{"lib/src.zip": "PK"})
		} else {
			if err := os.MkdirAll(filepath.Join(home, "lib"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(root, "nowhere", "src.zip"), filepath.Join(home, "lib", "src.zip")); err != nil {
				t.Fatal(err)
			}
		}
		return home
	}
	jdk17 := mk("jdk17", "17.0.2", true)
	mk("jdk25", "25.0.1", true)
	dangling := mk("jdk21", "21.0.1", false)

	t.Setenv("JAVA_HOME", jdk17)
	z, why, ok := TrainingSrcZip()
	if !ok || z.Home != jdk17 || z.Release != 17 || why != "the JDK in use" {
		t.Errorf("with JAVA_HOME=jdk17: %+v %q %v", z, why, ok)
	}
	t.Setenv("JAVA_HOME", dangling)
	z, why, ok = TrainingSrcZip()
	if !ok || z.Release != 25 || !strings.Contains(why, "newest") {
		t.Errorf("with JAVA_HOME on a JDK whose src.zip dangles: %+v %q %v", z, why, ok)
	}
	all := SrcZips()
	for i := 1; i < len(all); i++ {
		if all[i].Release > all[i-1].Release {
			t.Errorf("SrcZips not newest first: %+v", all)
		}
	}
	for _, z := range all {
		if z.Home == dangling {
			t.Errorf("SrcZips lists a dangling src.zip: %+v", z)
		}
	}
}
