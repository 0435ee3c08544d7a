package inline

// syntax.go is a local parse before the compile check: a sample whose
// insertion leaves the file with a syntax error that the rest of the file
// does not have is not worth a compile check (100-700 ms of JDT LS, most of
// an automatic request's budget under load), so it is dropped and the next
// sample gets the time. It only ever skips checks: whatever is shown still
// passes the full check (guarantee), so the guarantee does not rest on it.
//
// Why the engine's own end check (engine/end.go) does not do this: it needs
// the file as it stands to parse, and at a caret inside a statement that
// file has the unfinished statement, so the end check is off for the whole
// request. Measured on java.logging/ (tuning set, bench inline at dcbfcdd,
// 144 requests): 31 of the 61 samples that failed the compile check had a
// syntax error (`) {}` where the line needs `;`, a line ending in `,` or
// `+`), and checks of such samples ran into the deadline.
//
// The reference is the document without the caret's line: when it parses
// without an error and the document with the sample inserted does not, the
// error is on the caret's line (the inserted text with the text the user
// typed before it), which the check's rule (a) forbids. The grammar is
// tree-sitter-java's, at the language levels where it is verified to accept
// every program javac accepts (engine.EndCheckOn); text with a Unicode
// escape (which javac translates before lexing) is never judged.

import (
	"context"
	"strings"
	"sync"
	"time"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/java"

	"github.com/repilot-lsp/repilot-lsp/engine"
	"github.com/repilot-lsp/repilot-lsp/javaenv"
	"github.com/repilot-lsp/repilot-lsp/jdtls"
)

// syntaxFilter judges the samples of one request locally. Not safe for
// concurrent use, except that its reference is parsed in the background
// (start).
type syntaxFilter struct {
	head string // the document before the caret's line
	ins  string // inserted before the rest: the caret's line before the caret; the sample goes after it
	tail string // the suffix up to and including its first line break
	rest string // the suffix after its first line break

	done   chan struct{} // closed when base is ready
	base   *sitter.Tree  // the reference's tree; nil: the filter is off
	parser *sitter.Parser
	once   sync.Once

	last     *sitter.Tree // the document with lastText inserted (cannotParse's); nil: none
	lastText string
}

// newSyntaxFilter returns the filter of a caret between prefix and suffix in
// the document at uri, and starts parsing its reference in the background;
// nil when the filter is off (the file's language level is not one the
// grammar is verified for, or the caret's line has a Unicode escape).
func newSyntaxFilter(uri, prefix, suffix string) *syntaxFilter {
	path, err := jdtls.URIPath(uri)
	if err != nil {
		return nil
	}
	if on, _ := engine.EndCheckOn(javaenv.FileLevel(path)); !on {
		return nil
	}
	if len(prefix)+len(suffix) > maxSyntaxBytes {
		return nil
	}
	ls := strings.LastIndexByte(prefix, '\n') + 1
	f := &syntaxFilter{head: prefix[:ls], ins: prefix[ls:], tail: suffix, done: make(chan struct{})}
	if i := strings.IndexByte(suffix, '\n'); i >= 0 {
		f.tail, f.rest = suffix[:i+1], suffix[i+1:]
	}
	if strings.Contains(f.ins, `\u`) || strings.Contains(f.tail, `\u`) {
		return nil
	}
	f.parser = sitter.NewParser()
	f.parser.SetLanguage(java.GetLanguage())
	go func() {
		defer close(f.done)
		// No cancellable context: go-tree-sitter's ParseCtx may set the
		// parser's cancel flag after the parse returned (engine/end.go).
		tree, err := f.parser.ParseCtx(context.Background(), nil, []byte(f.head+f.rest))
		if err != nil {
			return
		}
		if tree.RootNode().HasError() {
			tree.Close() // the rest of the file has a syntax error: off
			return
		}
		f.base = tree
	}()
	return f
}

// maxSyntaxBytes is the largest document the filter parses. Its reference
// is parsed from scratch for every request, in the background and past the
// request's end: on a generated 1 MiB file that parse was a third of a
// request's CPU time (BenchmarkLargeDocument), taken from the request in
// progress on a 2-core machine, and it is rarely done within syntaxWait
// anyway. Above it the filter is off (it only ever saves checks).
const maxSyntaxBytes = 256 << 10

// syntaxWait bounds how long cannotParse waits for the reference's parse
// (a large file's parse from scratch takes 100 ms or more under load, time
// the automatic budget cannot spare: in bench inline under load 25, with an
// experimental build whose first sample took milliseconds, requests on
// LogManager.java ran 0.3-0.4 s past their deadline while the wait had only
// ctx's bound).
var syntaxWait = 50 * time.Millisecond

// cannotParse reports whether the document with text inserted at the caret
// surely has a syntax error on the caret's line: the reference parses
// without an error and the document does not. It waits at most syntaxWait
// for the reference's parse, and not past ctx's end (then false); false
// when the filter is off or text has a Unicode escape. The tree of the
// document with text is kept for reduced (reduce.go) until the next call.
func (f *syntaxFilter) cannotParse(ctx context.Context, text string) bool {
	if f == nil {
		return false
	}
	f.dropLast()
	if strings.Contains(text, `\u`) {
		return false
	}
	wait := time.NewTimer(syntaxWait)
	defer wait.Stop()
	select {
	case <-f.done:
	case <-wait.C:
		return false // the reference is not parsed yet: not judged
	case <-ctx.Done():
		return false
	}
	if f.base == nil || ctx.Err() != nil {
		return false
	}
	ins := f.ins + text + f.tail
	old := f.base.Copy()
	defer old.Close()
	start := engine.EndPoint(sitter.Point{}, f.head)
	old.Edit(sitter.EditInput{
		StartIndex:  uint32(len(f.head)),
		OldEndIndex: uint32(len(f.head)),
		NewEndIndex: uint32(len(f.head) + len(ins)),
		StartPoint:  start,
		OldEndPoint: start,
		NewEndPoint: engine.EndPoint(start, ins),
	})
	tree, err := f.parser.ParseCtx(context.Background(), old, []byte(f.head+ins+f.rest))
	if err != nil {
		return false
	}
	f.last, f.lastText = tree, text
	return tree.RootNode().HasError()
}

// reduced returns the reduced pair (reducedPair) of text inserted at the
// caret, from the tree cannotParse made of it; ok is false when there is
// none (the filter is off, cannotParse did not parse this text) or the
// insertion cannot be reduced.
func (f *syntaxFilter) reduced(text string) (newRed, oldRed string, ok bool) {
	if f == nil || f.last == nil || f.lastText != text {
		return "", "", false
	}
	return reducedPair(f.last.RootNode(), f.head+f.ins, text, f.tail+f.rest)
}

// dropLast releases the tree cannotParse kept.
func (f *syntaxFilter) dropLast() {
	if f.last != nil {
		f.last.Close()
		f.last, f.lastText = nil, ""
	}
}

// close releases the reference's tree once its parse is done (in the
// background when it is still running).
func (f *syntaxFilter) close() {
	if f == nil {
		return
	}
	f.once.Do(func() {
		f.dropLast()
		go func() {
			<-f.done
			if f.base != nil {
				f.base.Close()
			}
			// The parser's C memory (its stack after a parse of the whole
			// document) is otherwise freed only by its finalizer, after a
			// GC that the Go heap alone may not cause for long.
			f.parser.Close()
		}()
	})
}
