// Package lm defines what the Repilot loop needs from a language model: the
// next-token distribution for the middle of a fill-in-the-middle (FIM) context,
// given the text generated so far. Implementations: lm/ngram (embedded,
// offline, pure Go) and, behind the same interface, OpenAI-compatible servers.
//
// Architecture invariant: nothing here knows about LSP, JDT LS or the
// completion engine; the model proposes, the repair loop disposes.
package lm

import "context"

// FIM is a fill-in-the-middle context: the hunk to generate goes between
// Prefix and Suffix (both exact file text). Indent is the leading whitespace of
// the first line of the hunk being replaced; a model uses it to lay out the
// lines it generates. Buggy is the text of the hunk being replaced (whole
// lines, "" for an insertion): like AlphaRepair and Repilot, which show the
// model the buggy line, a model may condition on it, since most fixes are
// small edits of it. A model must not simply return it: the repair loop
// discards a candidate equal to Buggy. Insert says the middle replaces
// nothing (a repair that inserts lines; Buggy is then ""), as opposed to a
// FIM context that does not say what the middle replaces: an inserted hunk
// must leave the brackets of the file as balanced as it found them.
// MaxTokens is the most tokens the caller generates for the middle (0: not
// said): a model whose context is bounded (lm/openai's server) keeps room
// for them when it cuts Prefix and Suffix to fit.
type FIM struct {
	Prefix    string
	Suffix    string
	Indent    string
	Buggy     string
	Insert    bool
	MaxTokens int
}

// Candidate is one possible next token. Text is exactly what is appended to
// the generated text (leading whitespace included). LogProb is the natural log
// of its probability under the model (<= 0). End marks the end-of-middle token:
// choosing it ends the hunk, and its Text is appended first (usually "" or a
// final newline).
type Candidate struct {
	Text    string
	LogProb float64
	End     bool
}

// Model opens decoding sessions. A Model is safe for concurrent use.
type Model interface {
	// Name identifies the model in reports ("ngram-4", "qwen2.5-coder@http://…").
	Name() string
	// Start opens a session for one FIM context.
	Start(ctx context.Context, fim FIM) (Session, error)
}

// Session gives next-token distributions for one FIM context. It is used by one
// goroutine at a time.
type Session interface {
	// Next returns candidates for the token after generated (the text produced
	// so far for the middle), best first, at most k of them (k <= 0: the
	// model's own cut-off). Probabilities need not sum to 1 over the returned
	// list: the caller renormalises over what it keeps. An error means the
	// model failed (server down, cancelled); an empty list means the model has
	// nothing to propose.
	Next(ctx context.Context, generated string, k int) ([]Candidate, error)
}

// WholeWords is implemented by sessions whose identifier tokens are always
// whole identifiers: no later token of theirs continues an identifier that a
// token ended ("i" then "sEmpty" cannot be sampled), as with the n-gram
// model's lexical tokens and unlike subword (BPE) tokens. The repair loop
// then asks the completion engine about a token ending in an identifier as a
// complete name ("readings.i" is pruned although "isEmpty" starts with "i"):
// a prefix feasible only through a continuation the model can never write
// would die one token later (a dead prefix, Repilot section 4.3).
type WholeWords interface {
	Session
	// WholeWords reports whether every identifier token is a whole
	// identifier.
	WholeWords() bool
}
