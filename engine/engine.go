// Package engine is the completion engine of Repilot (Wei, Xia, Zhang, FSE
// 2023, Definitions 3.3 and 3.4): given a partial program and a caret, it
// returns the identifiers that may continue the program there, or *unknown*.
// It is strict: it may answer unknown, but never calls a feasible token
// infeasible. The repair loop asks it whether a language-model token is
// feasible (Algorithm 2, GuidedPrune) and what text is certain to follow
// (Algorithm 3, ActivelyComplete).
//
// The engine drives its own JDT LS ("the shadow server"), never the editor's:
// a partial patch is never seen by the user's editor, and user edits are never
// reordered by engine traffic.
//
// Architecture invariant: engine speaks in file text and byte offsets; LSP
// positions are converted only at its JDT LS boundary.
package engine

import (
	"context"

	"github.com/repilot-lsp/repilot-lsp/jdtls"
)

// Outcome is the engine's verdict on a token (Repilot section 3.2).
type Outcome int

const (
	// Unknown: the engine cannot tell; the token is accepted.
	Unknown Outcome = iota
	// Feasible: the engine has proof the token can continue to a compilable program.
	Feasible
	// Infeasible: no compilable program continues this way; the token is pruned.
	Infeasible
)

func (o Outcome) String() string {
	switch o {
	case Feasible:
		return "feasible"
	case Infeasible:
		return "infeasible"
	}
	return "unknown"
}

// Hunk is the site of one repair: a Java file's text split around the buggy
// lines. URI is the file's file:// URI; Prefix and Suffix are exact text; the
// partial program for generated text g is Prefix + g + Suffix, with the caret
// after g. Buggy is the text the hunk replaces (the buggy lines, "" for an
// insertion): Prefix + Buggy + Suffix is the file as it stands, which
// CheckEnd parses once to confirm that its parser handles the file.
type Hunk struct {
	URI    string
	Prefix string
	Suffix string
	Buggy  string
}

// Completions is the engine's answer at a caret: the identifier names that may
// follow (prefix-filtered, case-sensitive), or Known=false for unknown.
type Completions struct {
	Known bool
	Names []string
}

// Stats counts engine work for reports: decisions made and JDT LS requests sent.
type Stats struct {
	Checks   int64 // Check calls
	Requests int64 // requests sent to JDT LS (completion, hover, ...)
	Errors   int64 // JDT LS requests that failed or timed out (answered Unknown)
	SiteHits int64 // member lists answered from the per-site cache
}

// Session checks tokens for one hunk. It is used by one goroutine at a time.
type Session interface {
	// Check decides whether appending token to generated keeps the partial
	// program feasible. Errors (JDT LS died, ctx cancelled) are returned; the
	// caller must not treat an error as Infeasible.
	Check(ctx context.Context, generated, token string) (Outcome, error)
	// CheckEnd decides whether the hunk may end after generated (the model's
	// end token): Infeasible when the file Prefix + generated + Suffix cannot
	// parse. Errors as for Check.
	CheckEnd(ctx context.Context, generated string) (Outcome, error)
	// Complete returns the completions at the end of generated: when the caret
	// is inside an identifier in a strict position, the names that extend it.
	Complete(ctx context.Context, generated string) (Completions, error)
	// Stats returns counters since the session started.
	Stats() Stats
	// Close releases the session (closes the shadow document).
	Close() error
}

// Engine opens sessions.
type Engine interface {
	Open(ctx context.Context, h Hunk) (Session, error)
}

// ErrUnparsable is wrapped by CompileErrors' error when the compiler could
// not build a syntax tree of the text and so reports nothing for it (JDT LS:
// jdtls.ErrNoAST).
var ErrUnparsable = jdtls.ErrNoAST

// CompileError is one error-severity diagnostic of a whole file. Line is
// 1-based; Message is the compiler's text.
type CompileError struct {
	Line    int
	Message string
}

// Compiler reports the compile errors of a file's text as JDT LS diagnoses it
// (publishDiagnostics with severity Error, LSP 3.17 "PublishDiagnosticsParams").
// Validation compares a patched file's errors with the buggy file's.
// An error wrapping ErrUnparsable means the text is malformed beyond what
// the compiler can report on: it does not compile.
type Compiler interface {
	CompileErrors(ctx context.Context, uri, text string) ([]CompileError, error)
}
