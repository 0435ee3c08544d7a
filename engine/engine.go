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
	"fmt"
	"strings"
	"time"

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

	// ByKind breaks Requests down by what asked (RequestKinds) and gives the
	// wall time each kind spent waiting for JDT LS; nil for engines that
	// do not keep it. EndTime is the wall time of CheckEnd (the parse).
	ByKind  map[string]KindStats
	EndTime time.Duration
}

// String formats s on one line: the counters, then each request kind with
// its count and mean time, then the time in CheckEnd.
func (s Stats) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "checks %d, requests %d, errors %d, cache hits %d;", s.Checks, s.Requests, s.Errors, s.SiteHits)
	for _, k := range RequestKinds {
		if v, ok := s.ByKind[k]; ok {
			fmt.Fprintf(&b, " %s %d (%.1f ms each)", k, v.N, float64(v.Time.Microseconds())/1000/float64(v.N))
		}
	}
	fmt.Fprintf(&b, "; end checks %.1f ms in all", float64(s.EndTime.Microseconds())/1000)
	return b.String()
}

// KindStats is one row of Stats.ByKind: N requests that took Time in all.
type KindStats struct {
	N    int64
	Time time.Duration
}

// RequestKinds name the JDT LS requests of a JDT session (Stats.ByKind):
// a member list at a member site ("member"), the names at a simple name
// ("simple"), the names in scope at the hunk start for one identifier
// ("simple-hunk"), the variables and methods in scope there, once per hunk
// ("simple-hunk-scope", simple.go scopeNames), the probe with the first
// character after an empty simple-name answer ("…-probe"), a receiver's
// declared type (typekey.go, "type"), each again while an Infeasible verdict
// is confirmed ("…-verify"), and the two commands that ask for the
// project's VM and classpath for the type index, once per session that
// needs it ("project-facts", typeindex.go; not completions, counted all
// the same).
var RequestKinds = []string{"member", "simple", "simple-probe", "simple-hunk", "simple-hunk-scope", "simple-hunk-probe", "type",
	"member-verify", "simple-verify", "simple-probe-verify", "simple-hunk-verify", "simple-hunk-scope-verify", "simple-hunk-probe-verify", "type-verify",
	"project-facts"}

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
