package corpus

// run.go copies a fixture's project to a scratch directory, applies a hunk
// there, and runs the fixture's test command with its timeout.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// mavenDerived are top-level entries of a Maven project that tools derive
// from pom.xml: the build output, and the Eclipse metadata that JDT LS's
// Maven import (m2e) writes into the project. CopyProject leaves them out of
// a Maven project's copy: stale class files in target/ could make Maven skip
// a compile, and the metadata is rebuilt from the pom anyway.
var mavenDerived = map[string]bool{"target": true, ".classpath": true, ".project": true, ".settings": true, ".factorypath": true}

// CopyProject copies the bug's project tree into dst (created if missing),
// keeping file modes; symbolic links are recreated, not followed. In a Maven
// project (pom.xml at the top), the derived top-level entries target/,
// .classpath, .project, .settings/ and .factorypath are not copied.
func (b Bug) CopyProject(dst string) error {
	src := b.ProjectDir()
	_, err := os.Stat(filepath.Join(src, "pom.xml"))
	maven := err == nil
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		if maven && mavenDerived[rel] {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(target, info.Mode().Perm()|0o700)
		case info.Mode()&fs.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case info.Mode().IsRegular():
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			return os.WriteFile(target, data, info.Mode().Perm()|0o600)
		default:
			return nil
		}
	})
}

// Materialize copies the project into dst and, when hunk is non-nil, writes
// the bug's file with lines StartLine..EndLine replaced by *hunk. A nil hunk
// leaves the buggy project as it is.
func (b Bug) Materialize(dst string, hunk *string) error {
	if err := b.CopyProject(dst); err != nil {
		return err
	}
	if hunk == nil {
		return nil
	}
	path := filepath.Join(dst, filepath.FromSlash(b.File))
	text, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	patched, err := Replace(string(text), b.StartLine, b.EndLine, *hunk)
	if err != nil {
		return err
	}
	return os.WriteFile(path, []byte(patched), 0o644)
}

// TestResult is the outcome of one run of a test command.
type TestResult struct {
	// Passed is true when the command exited with status 0 within the timeout.
	Passed bool
	// ExitCode is the exit status; -1 when the command was killed or did not start.
	ExitCode int
	// TimedOut is true when the timeout (or ctx) ended the command.
	TimedOut bool
	// Output is stdout and stderr interleaved, at most the last 64 KiB.
	Output string
	// Duration is the wall time of the run.
	Duration time.Duration
}

// maxOutput bounds TestResult.Output (the tail is kept: failures print last).
const maxOutput = 64 << 10

// RunTest runs the bug's TestCmd in dir (a project copy, see Materialize)
// with the bug's timeout. The command runs in its own process group, and the
// whole group is killed on timeout or cancellation (Maven forks test JVMs).
// It returns an error only when the bug has no TestCmd or the command cannot
// be started; a failing or timed-out command is a TestResult with Passed false.
func (b Bug) RunTest(ctx context.Context, dir string) (TestResult, error) {
	if len(b.TestCmd) == 0 {
		return TestResult{ExitCode: -1}, fmt.Errorf("%s: no test_cmd", b.ID)
	}
	ctx, cancel := context.WithTimeout(ctx, b.Timeout())
	defer cancel()
	cmd := exec.CommandContext(ctx, b.TestCmd[0], b.TestCmd[1:]...)
	cmd.Dir = dir
	cmd.Stdin = nil
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	err := cmd.Run()
	res := TestResult{Duration: time.Since(start), ExitCode: -1}
	o := out.Bytes()
	if len(o) > maxOutput {
		o = o[len(o)-maxOutput:]
	}
	res.Output = string(o)
	if ctx.Err() != nil {
		res.TimedOut = true
		return res, nil
	}
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		res.Passed, res.ExitCode = true, 0
	case errors.As(err, &exitErr):
		res.ExitCode = exitErr.ExitCode()
	default:
		return res, fmt.Errorf("%s: starting %q: %w", b.ID, b.TestCmd[0], err)
	}
	return res, nil
}
