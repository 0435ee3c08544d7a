// Package jdtls finds, launches and talks to Eclipse JDT LS, the Java language
// server behind the proxy and the completion engine.
//
// launch.go turns an install directory (the server/ folder of npm coc-java, see
// docs/recipes.md and scripts/install-jdtls.sh) into a process command line.
package jdtls

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"

	"github.com/repilot-lsp/repilot-lsp/internal/cachedir"
	"github.com/repilot-lsp/repilot-lsp/internal/proc"
)

// EnvHome names the environment variable that points at a JDT LS install
// (the folder holding plugins/ and config_linux/). The --jdtls flag wins over it.
const EnvHome = "REPILOT_JDTLS_HOME"

// CacheDir is the project's cache root, cachedir.Root: $REPILOT_CACHE, else
// ~/.cache/repilot-lsp (a temporary directory when there is no home). JDT LS,
// engine and proxy state, and model caches live below it.
func CacheDir() string { return cachedir.Root() }

// DefaultHome is where scripts/install-jdtls.sh puts JDT LS 1.20:
// CacheDir()/jdtls-1.20.0.
func DefaultHome() string { return filepath.Join(CacheDir(), "jdtls-1.20.0") }

// ResolveHome picks the install directory: flag if non-empty, else $REPILOT_JDTLS_HOME,
// else DefaultHome. It returns an error that says how to install JDT LS when the
// directory holds no Equinox launcher jar.
func ResolveHome(flag string) (string, error) {
	home := flag
	if home == "" {
		home = os.Getenv(EnvHome)
	}
	if home == "" {
		home = DefaultHome()
	}
	if _, err := launcherJar(home); err != nil {
		return "", fmt.Errorf("no JDT LS at %s (%v): run scripts/install-jdtls.sh, or point --jdtls or $%s at a JDT LS install", home, err, EnvHome)
	}
	return home, nil
}

func launcherJar(home string) (string, error) {
	m, _ := filepath.Glob(filepath.Join(home, "plugins", "org.eclipse.equinox.launcher_*.jar"))
	if len(m) == 0 {
		return "", fmt.Errorf("plugins/org.eclipse.equinox.launcher_*.jar not found")
	}
	sort.Strings(m)
	return m[len(m)-1], nil
}

// JavaBinary returns the java executable: $JAVA_HOME/bin/java when
// JAVA_HOME is set, else java on PATH. A JAVA_HOME without bin/java is an
// error that names it, as in Maven and Gradle, rather than a silent switch to
// another Java.
func JavaBinary() (string, error) {
	if jh := os.Getenv("JAVA_HOME"); jh != "" {
		p := filepath.Join(jh, "bin", "java")
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("JAVA_HOME=%s has no bin/java: point it at a JDK 17 or newer, or unset it to use java on PATH", jh)
		}
		return p, nil
	}
	p, err := exec.LookPath("java")
	if err != nil {
		return "", fmt.Errorf("no java runtime found (set JAVA_HOME or put java 17+ on PATH): %w", err)
	}
	return p, nil
}

// Command returns the command that starts JDT LS from home with its
// configuration and workspace data under stateDir (created; config_linux is
// copied there because JDT LS writes into its configuration directory).
// heapMB bounds the Java heap (-Xmx); 0 means 1024; jvmArgs are further JVM
// options (before -jar, after this function's own). The command runs under
// a supervisor (proc.Supervise): JDT LS and every process it starts, also
// one that leaves its process group (Gradle's daemon calls setsid), end
// with the caller however it ends, even by SIGKILL; stop it with proc.Stop.
// The command's process is the supervisor's, its exit status JDT LS's.
// Errors: no equinox launcher jar under home/plugins, no java (JavaBinary),
// or stateDir's configuration folder could not be made.
func Command(home, stateDir string, heapMB int, jvmArgs ...string) (*exec.Cmd, error) {
	jar, err := launcherJar(home)
	if err != nil {
		return nil, err
	}
	java, err := JavaBinary()
	if err != nil {
		return nil, err
	}
	if heapMB <= 0 {
		heapMB = 1024
	}
	cfg := filepath.Join(stateDir, "config")
	if _, err := os.Stat(filepath.Join(cfg, "config.ini")); err != nil {
		if err := os.MkdirAll(cfg, 0o755); err != nil {
			return nil, err
		}
		if err := os.CopyFS(cfg, os.DirFS(filepath.Join(home, "config_linux"))); err != nil {
			return nil, fmt.Errorf("copying JDT LS configuration: %w", err)
		}
	}
	data := filepath.Join(stateDir, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		return nil, err
	}
	args := []string{
		"-Declipse.application=org.eclipse.jdt.ls.core.id1",
		"-Dosgi.bundles.defaultStartLevel=4",
		"-Declipse.product=org.eclipse.jdt.ls.core.product",
		"-Dlog.level=ERROR",
		fmt.Sprintf("-Xmx%dm", heapMB),
		"-XX:+UseParallelGC", "-XX:GCTimeRatio=4", "-XX:AdaptiveSizePolicyWeight=90",
		"-Dsun.zip.disableMemoryMapping=true",
		"--add-modules=ALL-SYSTEM",
		"--add-opens", "java.base/java.util=ALL-UNNAMED",
		"--add-opens", "java.base/java.lang=ALL-UNNAMED",
	}
	args = append(args, jvmArgs...)
	args = append(args, "-jar", jar, "-configuration", cfg, "-data", data)
	cmd := exec.Command(java, args...)
	proc.Supervise(cmd)
	if cmd.Err != nil {
		return nil, cmd.Err
	}
	return cmd, nil
}
