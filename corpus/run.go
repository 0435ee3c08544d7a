package corpus

// run.go copies a fixture's project to a scratch directory, applies a hunk
// there, and runs the fixture's test command with its timeout, all through
// internal/sandbox, the copy and run rules repair's validation uses too.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/repilot-lsp/repilot-lsp/internal/sandbox"
)

// CopyProject copies the bug's project tree into dst (created if missing) by
// sandbox.Copy's rule: file modes kept, symbolic links recreated, not
// followed; .git and a build tool's derived entries beside its build file
// (in a Maven project or module: target/, .classpath, .project, .settings/
// and .factorypath; likewise build/ and .gradle/ for Gradle) are not copied,
// so that stale class files cannot make Maven skip a compile; at most
// sandbox.MaxBytes of files.
func (b Bug) CopyProject(dst string) error {
	return sandbox.Copy(context.Background(), b.ProjectDir(), dst)
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
	text, err := os.ReadFile(filepath.Join(dst, filepath.FromSlash(b.File)))
	if err != nil {
		return err
	}
	patched, err := Replace(string(text), b.StartLine, b.EndLine, *hunk)
	if err != nil {
		return err
	}
	return sandbox.WriteFile(dst, b.File, []byte(patched))
}

// TestResult is the outcome of one run of a test command.
type TestResult struct {
	// Passed is true when the command exited with status 0 within the timeout.
	Passed bool
	// ExitCode is the exit status; -1 when the command was killed or did not start.
	ExitCode int
	// TimedOut is true when the timeout (or ctx) ended the command.
	TimedOut bool
	// Output is stdout and stderr interleaved, at most the last
	// sandbox.MaxOutput (64 KiB).
	Output string
	// Duration is the wall time of the run.
	Duration time.Duration
}

// RunTest runs the bug's TestCmd in dir (a project copy, see Materialize)
// with the bug's timeout (sandbox.Run: the command runs in its own process
// group, tied to this process, and the whole group is killed on timeout or
// cancellation, since Maven forks test JVMs). It returns an error only when
// the bug has no TestCmd or the command cannot be started; a failing or
// timed-out command is a TestResult with Passed false.
func (b Bug) RunTest(ctx context.Context, dir string) (TestResult, error) {
	if len(b.TestCmd) == 0 {
		return TestResult{ExitCode: -1}, fmt.Errorf("%s: no test_cmd", b.ID)
	}
	r, err := sandbox.Run(ctx, dir, b.TestCmd, b.Timeout())
	res := TestResult{Passed: r.Passed, ExitCode: r.ExitCode, TimedOut: r.TimedOut, Output: r.Output, Duration: r.Duration}
	switch {
	case err != nil && ctx.Err() != nil:
		res.TimedOut = true
	case err != nil:
		return res, fmt.Errorf("%s: %w", b.ID, err)
	}
	return res, nil
}
