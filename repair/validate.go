package repair

// validate.go checks candidates (Algorithm 1's validation step): a compile
// check through engine.Compiler, then, when the request has a test command,
// the tests in a scratch copy of the project with the patch applied. The
// user's files are only ever read.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/repilot-lsp/repilot-lsp/engine"
	"github.com/repilot-lsp/repilot-lsp/internal/sandbox"
)

// checkTestCmd fails when the test command's program cannot be found, before
// any sampling: the command runs in a copy of root, so a relative path with a
// slash is looked up under root, a bare name on PATH (exec.LookPath).
func checkTestCmd(root string, argv []string) error {
	if len(argv) == 0 {
		return nil
	}
	prog := argv[0]
	if strings.Contains(prog, "/") && !filepath.IsAbs(prog) {
		prog = filepath.Join(root, prog)
	}
	if _, err := exec.LookPath(prog); err != nil {
		return fmt.Errorf("test command %q cannot run: %w", argv[0], err)
	}
	return checkBuildFile(root, argv)
}

// buildTools maps a build tool's program name to the files one of which it
// needs in its working directory, and to the flags that point it at a build
// elsewhere (then nothing is checked).
var buildTools = map[string]struct{ files, elsewhere []string }{
	"mvn":     {[]string{"pom.xml"}, []string{"-f", "--file"}},
	"mvnw":    {[]string{"pom.xml"}, []string{"-f", "--file"}},
	"gradle":  {[]string{"build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts"}, []string{"-p", "--project-dir", "-b", "--build-file", "-c", "--settings-file"}},
	"gradlew": {[]string{"build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts"}, []string{"-p", "--project-dir", "-b", "--build-file", "-c", "--settings-file"}},
}

// checkBuildFile fails when argv runs Maven or Gradle in root and root has
// none of the tool's build files: the tool would print its generic help and
// fail on every candidate, minutes later (Maven: "there is no POM in this
// directory"), so no patch could ever pass.
func checkBuildFile(root string, argv []string) error {
	tool, ok := buildTools[filepath.Base(argv[0])]
	if !ok {
		return nil
	}
	for _, a := range argv[1:] {
		for _, f := range tool.elsewhere {
			if a == f || strings.HasPrefix(a, f+"=") || (len(f) == 2 && strings.HasPrefix(a, f) && len(a) > 2) {
				return nil
			}
		}
	}
	for _, f := range tool.files {
		if _, err := os.Stat(filepath.Join(root, f)); err == nil {
			return nil
		}
	}
	return fmt.Errorf("test command %q runs in %s, which has no %s; give --project the folder with the build file, or a test command that fits the project", strings.Join(argv, " "), root, strings.Join(tool.files, " or "))
}

// DefaultTestTimeout bounds a test command when Request.TestTimeout is 0
// (the bug corpus default, docs/bug-corpus.md).
const DefaultTestTimeout = 120 * time.Second

// testOutputTail is how much of a test command's output a Patch keeps.
const testOutputTail = 4096

// newErrors returns the errors of patched that buggy lacks, as "line N:
// message" (docs/bug-corpus.md: "compilable: the patched file has no compile
// errors that the buggy file lacked"). Errors are matched as multisets of
// messages, since line numbers shift when a hunk changes length, with one
// rule on top: only the buggy file's errors outside its hunk (lines
// buggyFrom..buggyTo, 1-based, inclusive; empty for an insertion) can excuse a
// patched error, and an error inside the patched hunk (lines
// patchedFrom..patchedTo) is never excused. Otherwise a candidate that keeps
// the bug's own error in another form (`x.percentOff().percentage` for the
// buggy `x.percentage`, both "percentage cannot be resolved") would count as
// compilable.
func newErrors(buggy, patched []engine.CompileError, buggyFrom, buggyTo, patchedFrom, patchedTo int) []string {
	excusable := map[string]int{}
	for _, e := range buggy {
		if e.Line < buggyFrom || e.Line > buggyTo {
			excusable[e.Message]++
		}
	}
	var out []string
	for _, e := range patched {
		inHunk := e.Line >= patchedFrom && e.Line <= patchedTo
		if !inHunk && excusable[e.Message] > 0 {
			excusable[e.Message]--
			continue
		}
		out = append(out, fmt.Sprintf("line %d: %s", e.Line, e.Message))
	}
	return out
}

// runTests copies root to a sandbox (internal/sandbox: its copy rule leaves
// out .git and build outputs), writes patched at rel (slash-separated,
// relative to root) there, and runs argv with the copy as working directory
// (sandbox.Run: its own process group, killed when ctx ends or timeout
// passes; 0 means DefaultTestTimeout), under lim's scaled limit when lim is
// not nil (testlimit.go). A command that cannot start is an error, and so is
// ctx ending; a failing or timed-out command (at the timeout or at lim's
// limit, each with its note in the output) is a result with Passed false.
// The sandbox is removed before runTests returns.
func runTests(ctx context.Context, root, rel, patched string, argv []string, timeout time.Duration, lim *testLimit) (TestRun, error) {
	if len(argv) == 0 {
		return TestRun{}, errors.New("empty test command")
	}
	if timeout <= 0 {
		timeout = DefaultTestTimeout
	}
	box, err := sandbox.New(ctx, root)
	if err != nil {
		return TestRun{}, fmt.Errorf("copying %s for tests: %w", root, err)
	}
	defer box.Close()
	if err := box.WriteFile(rel, []byte(patched)); err != nil {
		return TestRun{}, err
	}
	rctx, watch, done := lim.begin(ctx)
	r, err := sandbox.RunWatched(rctx, box.Dir, argv, timeout, watch)
	done()
	res := TestRun{Passed: r.Passed, Output: outputTail(r.Output, r.Truncated), TimedOut: r.TimedOut, took: r.Duration, cpu: r.CPU}
	var stop *testLimitStop
	if err != nil && ctx.Err() == nil && errors.As(context.Cause(rctx), &stop) {
		res.Passed, res.TimedOut = false, true
		res.Output += "\n[repilot: " + stop.Error() + "]"
		return res, nil
	}
	if err != nil {
		return res, err
	}
	if r.TimedOut {
		res.Output += fmt.Sprintf("\n[repilot: test command timed out after %s]", timeout)
	}
	return res, nil
}

// outputTail is the last testOutputTail bytes of a test command's output,
// starting with "…" when the output was longer, without trailing newlines.
func outputTail(out string, truncated bool) string {
	if len(out) > testOutputTail {
		out, truncated = out[len(out)-testOutputTail:], true
	}
	if truncated {
		out = "…" + out
	}
	return strings.TrimRight(out, "\n")
}
