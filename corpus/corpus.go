// Package corpus loads single-hunk bug fixtures in the docs/bug-corpus.md
// format (one folder per bug: bug.json plus the buggy project/ tree) and
// applies, copies and tests them. It is used by the repair tests, by
// "repilot-lsp bench repair" and by scripts/check-corpus.sh, which verifies
// that every fixture's buggy project fails its test command and the fixed one
// passes.
//
// Architecture invariant: any corpus of that shape loads unchanged
// (Defects4J- or QuixBugs-style bugs written elsewhere); nothing here knows
// about LSP, the engine or the model.
package corpus

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/repilot-lsp/repilot-lsp/textpos"
)

// DefaultTimeout bounds a test command whose bug.json sets no timeout_s
// (docs/bug-corpus.md: default 120 seconds).
const DefaultTimeout = 120 * time.Second

// Bug is one fixture: the fields of bug.json, plus Dir, the folder holding it.
type Bug struct {
	// ID names the bug ("BUG-ID"); Load requires it to be non-empty.
	ID string `json:"id"`
	// File is the buggy file, relative to the project directory, with "/"
	// separators.
	File string `json:"file"`
	// StartLine and EndLine are 1-based and inclusive. An insertion has
	// EndLine == StartLine-1: the fix goes before line StartLine.
	StartLine int `json:"start_line"`
	EndLine   int `json:"end_line"`
	// FixedHunk is the developer's fix: the exact replacement text for the
	// buggy lines, newline-terminated, or "" for a deletion.
	FixedHunk string `json:"fixed_hunk"`
	// TestCmd is an argv (never passed through a shell by the tool) run with
	// the project directory as working directory; exit status 0 means the
	// patch is plausible. Empty when the fixture has no test.
	TestCmd []string `json:"test_cmd,omitempty"`
	// TimeoutS bounds TestCmd in seconds; 0 means DefaultTimeout.
	TimeoutS int `json:"timeout_s,omitempty"`

	// Dir is the absolute path of the bug's folder (the one holding bug.json
	// and project/). It is set by Load and LoadBug, not read from JSON.
	Dir string `json:"-"`
}

// ProjectDir returns the absolute path of the buggy project tree.
func (b Bug) ProjectDir() string { return filepath.Join(b.Dir, "project") }

// FilePath returns the absolute path of the buggy file.
func (b Bug) FilePath() string { return filepath.Join(b.ProjectDir(), filepath.FromSlash(b.File)) }

// Timeout returns how long TestCmd may run: TimeoutS seconds, or
// DefaultTimeout when TimeoutS is 0.
func (b Bug) Timeout() time.Duration {
	if b.TimeoutS <= 0 {
		return DefaultTimeout
	}
	return time.Duration(b.TimeoutS) * time.Second
}

// Insertion reports whether the fix only adds lines (EndLine == StartLine-1).
func (b Bug) Insertion() bool { return b.EndLine == b.StartLine-1 }

// Load reads every bug folder directly under dir (a folder holding bug.json),
// validates each against its buggy file (see LoadBug), and returns them sorted
// by ID. Entries that are not folders, and folders without bug.json, are
// ignored. It fails when dir holds no bug, when two bugs share an ID, or when
// any bug is invalid; the error then lists every problem found.
func Load(dir string) ([]Bug, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return nil, err
	}
	var bugs []Bug
	var errs []error
	seen := map[string]string{}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		sub := filepath.Join(abs, e.Name())
		if _, err := os.Stat(filepath.Join(sub, "bug.json")); err != nil {
			continue
		}
		b, err := LoadBug(sub)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if other, dup := seen[b.ID]; dup {
			errs = append(errs, fmt.Errorf("%s: id %q already used by %s", sub, b.ID, other))
			continue
		}
		seen[b.ID] = sub
		bugs = append(bugs, b)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if len(bugs) == 0 {
		return nil, fmt.Errorf("%s: no bug folders (folders with bug.json) found", abs)
	}
	sort.Slice(bugs, func(i, j int) bool { return bugs[i].ID < bugs[j].ID })
	return bugs, nil
}

// LoadBug reads dir/bug.json and checks it against dir/project: id set, file
// present under project/, 1 <= start_line, start_line-1 <= end_line <= the
// file's line count, fixed_hunk empty or newline-terminated, timeout_s not
// negative. Unknown JSON fields are rejected so that a misspelt field name is
// not silently ignored.
func LoadBug(dir string) (Bug, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Bug{}, err
	}
	data, err := os.ReadFile(filepath.Join(abs, "bug.json"))
	if err != nil {
		return Bug{}, err
	}
	var b Bug
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return Bug{}, fmt.Errorf("%s/bug.json: %w", abs, err)
	}
	b.Dir = abs
	if err := b.validate(); err != nil {
		return Bug{}, fmt.Errorf("%s/bug.json: %w", abs, err)
	}
	return b, nil
}

func (b Bug) validate() error {
	if b.ID == "" {
		return errors.New("id is empty")
	}
	if b.File == "" || filepath.IsAbs(b.File) || strings.HasPrefix(filepath.Clean(filepath.FromSlash(b.File)), "..") {
		return fmt.Errorf("file %q must be a path relative to project/", b.File)
	}
	text, err := os.ReadFile(b.FilePath())
	if err != nil {
		return fmt.Errorf("file: %w", err)
	}
	n := textpos.CountLines(string(text))
	if b.StartLine < 1 {
		return fmt.Errorf("start_line %d < 1", b.StartLine)
	}
	if b.EndLine < b.StartLine-1 || b.EndLine > n {
		return fmt.Errorf("lines %d-%d out of range for %s (%d lines; an insertion has end_line = start_line-1)", b.StartLine, b.EndLine, b.File, n)
	}
	if b.Insertion() && b.StartLine > n+1 {
		return fmt.Errorf("insertion before line %d of a %d-line file", b.StartLine, n)
	}
	if b.FixedHunk != "" && !strings.HasSuffix(b.FixedHunk, "\n") {
		return errors.New("fixed_hunk must end with a newline (or be empty for a deletion)")
	}
	if b.TimeoutS < 0 {
		return fmt.Errorf("timeout_s %d < 0", b.TimeoutS)
	}
	return nil
}

// SplitLines is textpos.Lines: text's lines, each keeping its terminator
// ("\n" or "\r\n"); a last line without a terminator is kept as is. "" has
// no lines.
func SplitLines(text string) []string { return textpos.Lines(text) }

// Split cuts text around lines start..end (1-based, inclusive): prefix +
// hunk + suffix == text, hunk being those whole lines with their
// terminators. end == start-1 is an insertion point before line start (hunk
// ""). It fails when the range is out of bounds, or is an insertion after a
// last line without a newline (textpos.LineSpan's rule, which repair uses
// too).
func Split(text string, start, end int) (prefix, hunk, suffix string, err error) {
	from, to, err := textpos.LineSpan(text, start, end)
	if err != nil {
		return "", "", "", err
	}
	return text[:from], text[from:to], text[to:], nil
}

// Hunk returns the text of lines start..end (1-based, inclusive) of text; ""
// when end == start-1 (an insertion point). It fails when the range is out of
// bounds.
func Hunk(text string, start, end int) (string, error) {
	_, hunk, _, err := Split(text, start, end)
	return hunk, err
}

// Replace is textpos.SpliceLines: text with lines start..end (1-based,
// inclusive) replaced by hunk; end == start-1 inserts hunk before line start,
// and hunk "" deletes the lines. hunk is inserted exactly as given (it should
// end with a newline unless it is empty or replaces the file's unterminated
// last line).
func Replace(text string, start, end int, hunk string) (string, error) {
	return textpos.SpliceLines(text, start, end, hunk)
}

// BuggyHunk returns the buggy lines of the fixture's file as it is on disk.
// Errors: the file's read, or lines out of its range (Hunk).
func (b Bug) BuggyHunk() (string, error) {
	text, err := os.ReadFile(b.FilePath())
	if err != nil {
		return "", err
	}
	return Hunk(string(text), b.StartLine, b.EndLine)
}

// Fixed returns the content of the bug's file with FixedHunk applied.
// Errors: the file's read, or lines out of its range (Replace).
func (b Bug) Fixed() (string, error) {
	text, err := os.ReadFile(b.FilePath())
	if err != nil {
		return "", err
	}
	return Replace(string(text), b.StartLine, b.EndLine, b.FixedHunk)
}
