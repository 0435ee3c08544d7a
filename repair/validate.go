package repair

// validate.go checks candidates (Algorithm 1's validation step): a compile
// check through engine.Compiler, then, when the request has a test command,
// the tests in a scratch copy of the project with the patch applied. The
// user's files are only ever read.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/repilot-lsp/repilot-lsp/engine"
	"github.com/repilot-lsp/repilot-lsp/internal/proc"
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
	return nil
}

// DefaultTestTimeout bounds a test command when Request.TestTimeout is 0
// (the bug corpus default, docs/bug-corpus.md).
const DefaultTestTimeout = 120 * time.Second

// testOutputTail is how much of a test command's output a Patch keeps.
const testOutputTail = 4096

// SkipDirs are the directory names not copied into the scratch project for
// tests: version control and the build outputs of Maven (target) and Gradle
// (build). They can be large, and a test command rebuilds what it needs.
var SkipDirs = map[string]bool{".git": true, "target": true, "build": true}

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

// runTests copies root to a scratch directory (skipping SkipDirs), writes
// patched at rel (slash-separated, relative to root) there, and runs argv with
// the copy as working directory. The command runs in its own process group,
// which is killed when ctx ends or timeout passes. A command that cannot start
// is an error; a failing or timed-out command is a result with Passed false.
func runTests(ctx context.Context, root, rel, patched string, argv []string, timeout time.Duration) (TestRun, error) {
	if len(argv) == 0 {
		return TestRun{}, errors.New("empty test command")
	}
	if timeout <= 0 {
		timeout = DefaultTestTimeout
	}
	dir, err := os.MkdirTemp("", "repilot-test-*")
	if err != nil {
		return TestRun{}, err
	}
	defer os.RemoveAll(dir)
	if err := copyTree(ctx, root, dir); err != nil {
		return TestRun{}, fmt.Errorf("copying %s for tests: %w", root, err)
	}
	dst := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return TestRun{}, err
	}
	if err := os.WriteFile(dst, []byte(patched), 0o644); err != nil {
		return TestRun{}, err
	}

	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(tctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	var out tailBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	// Kill the whole group: test commands are often sh -c pipelines whose
	// children would otherwise outlive the timeout; proc.Tie also ends the
	// command if repilot-lsp is killed.
	proc.Tie(cmd)
	cmd.Cancel = func() error { return proc.KillGroup(cmd) }
	cmd.WaitDelay = 2 * time.Second
	err = cmd.Run()
	res := TestRun{Passed: err == nil, Output: out.String()}
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return res, ctx.Err()
	case tctx.Err() != nil:
		res.TimedOut = true
		res.Output += fmt.Sprintf("\n[repilot: test command timed out after %s]", timeout)
	default:
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			return res, fmt.Errorf("running test command %q: %w", argv[0], err)
		}
	}
	return res, nil
}

// copyTree copies the regular files, directories and symbolic links of src
// into dst, skipping directories named in SkipDirs.
func copyTree(ctx context.Context, src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if rel == "." {
			return nil
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			if SkipDirs[d.Name()] {
				return filepath.SkipDir
			}
			return os.MkdirAll(target, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case d.Type().IsRegular():
			return copyFile(p, target)
		}
		return nil // sockets, devices: not part of a project
	})
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	info, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, info.Mode().Perm()|0o200)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// tailBuffer keeps the last testOutputTail bytes written to it.
type tailBuffer struct {
	buf     bytes.Buffer
	dropped bool
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.buf.Write(p)
	if over := t.buf.Len() - 2*testOutputTail; over > 0 {
		t.buf.Next(over)
		t.dropped = true
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	b := t.buf.Bytes()
	if len(b) > testOutputTail {
		b = b[len(b)-testOutputTail:]
		t.dropped = true
	}
	s := string(b)
	if t.dropped {
		s = "…" + s
	}
	return strings.TrimRight(s, "\n")
}
