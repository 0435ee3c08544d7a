package engine

// end.go judges the model's end token: may the hunk end here? The partial
// program then becomes a whole file, Prefix + generated + Suffix, and a file
// that does not parse cannot compile. The parse is tree-sitter-java's
// (github.com/smacker/go-tree-sitter, the grammar search/units already uses),
// not JDT LS's: JDT LS has no "parse only" request, and a full compile check
// per end token costs what validation costs (about a second). The check
// reparses incrementally from the buggy file's tree: 4-7 ms on a 5,794-line
// file against 110-170 ms for a parse from scratch (BenchmarkEndCheck, one
// loaded 2-core run each).
//
// Strictness (Repilot Definition 3.4: never call a feasible token
// infeasible) rests on one property of the grammar: it accepts every Java
// program javac accepts at the file's language level. Four guards keep the
// check where that property has been tested:
//   - the file's language level (javaenv.FileLevel: the build file's
//     release or source, else the JDK in use) must be one the grammar is
//     verified for, EndCheckLevels; preview features, an unknown level and
//     every other level switch the check off;
//   - the file as it stands (Prefix + Hunk.Buggy + Suffix) must parse without
//     an error; if it does not (an unusual construct, a syntax-error bug),
//     every end is Unknown for the session;
//   - generated text holding a Unicode escape (\u) is Unknown: javac
//     translates escapes before lexing (JLS 3.3), tree-sitter does not;
//   - only an error of the parse counts (an ERROR node or a MISSING token).
//
// Why the levels stop at 20: the grammar (tree-sitter-java as vendored by
// go-tree-sitter, and the newest release on npm, 0.23.5, alike) rejects
// Java 21's qualified record patterns (case Shape.Circle(double r) ->) and
// Java 22's case labels with several patterns (case Circle _, Square _ ->),
// and Java 25's statements before super(...) and import module
// declarations; TestEndGrammarAcceptsJDK finds the first two in JDK 25's
// own sources. Java 18-20 added no syntax outside preview features, so they
// parse as 17 does.
//
// TestEndGrammarAcceptsJDK parses every file of each JDK source archive on
// the machine at a verified level (java.base of JDK 17: no error allowed)
// and records where newer ones fail; TestEndSoundOnBugCorpus and
// TestSoundnessModernFixtures check the fixtures' fixes, the latter at Java
// 17-25 levels (engine/testdata/modern); TestEndIncrementalMatchesFullParse
// checks the incremental reparse against a parse from scratch.

import (
	"context"
	"fmt"
	"strings"
	"time"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/java"

	"github.com/repilot-lsp/repilot-lsp/javaenv"
	"github.com/repilot-lsp/repilot-lsp/jdtls"
)

// EndCheckLevels are the Java language levels, as feature releases, at
// which the grammar is verified to accept every program javac accepts, and
// so the end check is on: 7 to 20 without preview features (see the file
// comment for the evidence and for why it stops at 20).
var EndCheckLevels = struct{ Min, Max int }{7, 20}

// EndCheckOn reports whether the end check is on for files at level l, and
// when it is not, why (for logs: "Java 22 (pom.xml: ...) is above 20, the
// newest level the end check's grammar is verified for").
func EndCheckOn(l javaenv.Level) (bool, string) {
	switch {
	case l.Release == 0:
		return false, "the language level is unknown: " + l.From
	case l.Preview:
		return false, l.String() + ": preview syntax is not verified"
	case l.Release < EndCheckLevels.Min:
		return false, fmt.Sprintf("%s is below %d, the oldest level the end check's grammar is verified for", l, EndCheckLevels.Min)
	case l.Release > EndCheckLevels.Max:
		return false, fmt.Sprintf("%s is above %d, the newest level the end check's grammar is verified for", l, EndCheckLevels.Max)
	}
	return true, ""
}

// syntaxJudge decides end tokens for one hunk. Not safe for concurrent use
// (one per session, like the session itself).
type syntaxJudge struct {
	h Hunk
	// level is the file's language level; the check is off unless
	// EndCheckOn(level).
	level  javaenv.Level
	parser *sitter.Parser
	// checked and base: whether the file as it stands was parsed, and its
	// tree when it parsed without error (nil otherwise: the check is off).
	// Each end check edits a copy of base and reparses incrementally, which
	// re-reads only the hunk's neighbourhood (BenchmarkEndCheck).
	checked bool
	base    *sitter.Tree
}

// parse parses text as a Java compilation unit, incrementally from old when
// old is not nil (old must already carry the edit that made text). Errors
// are ctx's, checked before the parse.
//
// The parse itself is not given ctx: go-tree-sitter's ParseCtx watches a
// cancellable ctx from a goroutine that may set the parser's cancel flag
// after the parse has returned, and nothing clears the flag then, so every
// later parse with this session's parser would fail (search/units has the
// same rule). One parse is bounded by the file's size.
func (j *syntaxJudge) parse(ctx context.Context, old *sitter.Tree, text string) (*sitter.Tree, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if j.parser == nil {
		j.parser = sitter.NewParser()
		j.parser.SetLanguage(java.GetLanguage())
	}
	return j.parser.ParseCtx(context.Background(), old, []byte(text))
}

// parses reports whether text parses without an error node or a missing
// token.
func (j *syntaxJudge) parses(ctx context.Context, text string) (bool, error) {
	tree, err := j.parse(ctx, nil, text)
	if err != nil {
		return false, err
	}
	defer tree.Close()
	return !tree.RootNode().HasError(), nil
}

// end judges the end of the hunk after generated: Unknown at a level the
// grammar is not verified for; else Infeasible when the file
// Prefix + generated + Suffix has a syntax error (generated is completed with
// a newline, as the repair loop completes a candidate), Unknown otherwise.
// Errors are ctx's (the parse was cancelled).
func (j *syntaxJudge) end(ctx context.Context, generated string) (Outcome, error) {
	if on, _ := EndCheckOn(j.level); !on {
		return Unknown, nil
	}
	if !j.checked {
		tree, err := j.parse(ctx, nil, j.h.Prefix+j.h.Buggy+j.h.Suffix)
		if err != nil {
			return Unknown, err
		}
		j.checked = true
		if tree.RootNode().HasError() {
			tree.Close()
		} else {
			j.base = tree
		}
	}
	if j.base == nil || strings.Contains(generated, `\u`) {
		return Unknown, nil
	}
	if generated != "" && !strings.HasSuffix(generated, "\n") {
		generated += "\n"
	}
	old := j.base.Copy()
	defer old.Close()
	start := EndPoint(sitter.Point{}, j.h.Prefix)
	old.Edit(sitter.EditInput{
		StartIndex:  uint32(len(j.h.Prefix)),
		OldEndIndex: uint32(len(j.h.Prefix) + len(j.h.Buggy)),
		NewEndIndex: uint32(len(j.h.Prefix) + len(generated)),
		StartPoint:  start,
		OldEndPoint: EndPoint(start, j.h.Buggy),
		NewEndPoint: EndPoint(start, generated),
	})
	tree, err := j.parse(ctx, old, j.h.Prefix+generated+j.h.Suffix)
	if err != nil {
		return Unknown, err
	}
	defer tree.Close()
	if tree.RootNode().HasError() {
		return Infeasible, nil
	}
	return Unknown, nil
}

// EndPoint is the tree-sitter point (row, byte column) reached from p after
// text: what an incremental reparse (sitter.EditInput) needs for the end of
// inserted text. inline/syntax.go uses it too.
func EndPoint(p sitter.Point, text string) sitter.Point {
	if n := strings.Count(text, "\n"); n > 0 {
		return sitter.Point{Row: p.Row + uint32(n), Column: uint32(len(text) - strings.LastIndexByte(text, '\n') - 1)}
	}
	return sitter.Point{Row: p.Row, Column: p.Column + uint32(len(text))}
}

// fileLevel is the language level of the file at uri (javaenv.FileLevel),
// unknown when uri is not a file URI.
func fileLevel(uri string) javaenv.Level {
	path, err := jdtls.URIPath(uri)
	if err != nil {
		return javaenv.Level{From: err.Error()}
	}
	return javaenv.FileLevel(path)
}

// CheckEnd implements Session: the hunk may end after generated unless the
// whole file would not parse.
func (s *jdtSession) CheckEnd(ctx context.Context, generated string) (Outcome, error) {
	s.checks.Add(1)
	defer func(began time.Time) { s.endTime.Add(int64(time.Since(began))) }(time.Now())
	return s.syntax.end(ctx, generated)
}
