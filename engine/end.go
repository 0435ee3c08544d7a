package engine

// end.go judges the model's end token: may the hunk end here? The partial
// program then becomes a whole file, Prefix + generated + Suffix, and a file
// that does not parse cannot compile. The parse is tree-sitter-java's
// (github.com/smacker/go-tree-sitter, the grammar search/units already uses),
// not JDT LS's: JDT LS has no "parse only" request, and a full compile check
// per end token costs what validation costs (about a second). tree-sitter
// parses a file in well under a millisecond per hundred lines.
//
// Strictness (Repilot Definition 3.4: never call a feasible token
// infeasible) rests on one property of the grammar: it accepts every Java
// program javac accepts. Three guards keep the check where that property has
// been tested:
//   - the file as it stands (Prefix + Hunk.Buggy + Suffix) must parse without
//     an error; if it does not (an unusual construct, a syntax-error bug),
//     every end is Unknown for the session;
//   - generated text holding a Unicode escape (\u) is Unknown: javac
//     translates escapes before lexing (JLS 3.3), tree-sitter does not;
//   - only an error of the parse counts (an ERROR node or a MISSING token).
//
// TestEndGrammarAcceptsJDK parses every file of the JDK's java.base sources
// from src.zip and requires no error; TestEndSoundOnBugCorpus checks every
// fixture's fix.

import (
	"context"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/java"
)

// syntaxJudge decides end tokens for one hunk. Not safe for concurrent use
// (one per session, like the session itself).
type syntaxJudge struct {
	h      Hunk
	parser *sitter.Parser
	// checked and usable: whether the file as it stands was parsed, and
	// parsed without error.
	checked, usable bool
}

// parses reports whether text parses as a Java compilation unit without an
// error node or a missing token.
func (j *syntaxJudge) parses(ctx context.Context, text string) (bool, error) {
	if j.parser == nil {
		j.parser = sitter.NewParser()
		j.parser.SetLanguage(java.GetLanguage())
	}
	tree, err := j.parser.ParseCtx(ctx, nil, []byte(text))
	if err != nil {
		return false, err
	}
	defer tree.Close()
	return !tree.RootNode().HasError(), nil
}

// end judges the end of the hunk after generated: Infeasible when the file
// Prefix + generated + Suffix has a syntax error (generated is completed with
// a newline, as the repair loop completes a candidate), Unknown otherwise.
// Errors are ctx's (the parse was cancelled).
func (j *syntaxJudge) end(ctx context.Context, generated string) (Outcome, error) {
	if !j.checked {
		ok, err := j.parses(ctx, j.h.Prefix+j.h.Buggy+j.h.Suffix)
		if err != nil {
			return Unknown, err
		}
		j.checked, j.usable = true, ok
	}
	if !j.usable || strings.Contains(generated, `\u`) {
		return Unknown, nil
	}
	if generated != "" && !strings.HasSuffix(generated, "\n") {
		generated += "\n"
	}
	ok, err := j.parses(ctx, j.h.Prefix+generated+j.h.Suffix)
	if err != nil {
		return Unknown, err
	}
	if !ok {
		return Infeasible, nil
	}
	return Unknown, nil
}

// CheckEnd implements Session: the hunk may end after generated unless the
// whole file would not parse.
func (s *jdtSession) CheckEnd(ctx context.Context, generated string) (Outcome, error) {
	s.checks.Add(1)
	return s.syntax.end(ctx, generated)
}
