// Package units cuts source files into code units, the things semantic search
// ranks: functions, methods, constructors and classes (and Go types), each
// with its signature, doc comment, doc-free code, path and range. Parsing uses
// the tree-sitter grammars of github.com/smacker/go-tree-sitter (Java, Python,
// Go).
//
// Architecture invariant: this package knows no LSP beyond textpos positions,
// does no IO, and never fails on broken input: a file that does not parse
// yields the units tree-sitter could still recover (tree-sitter is
// error-tolerant), possibly none.
package units

import (
	"path"
	"strings"

	"github.com/repilot-lsp/repilot-lsp/textpos"
)

// Kind says what a unit is.
type Kind string

// Unit kinds.
const (
	Function    Kind = "function"    // a top-level function (Python def, Go func)
	Method      Kind = "method"      // a function declared in a class or with a receiver
	Constructor Kind = "constructor" // a Java constructor
	Class       Kind = "class"       // a class, interface, enum, record, annotation or Go type
)

// Unit is one searchable piece of code.
//
// Code never contains the unit's own doc comment (Java Javadoc before the
// declaration, Python docstring as the first statement, Go comment lines
// above the declaration): Doc holds it, cleaned of comment markup. For a Class
// unit, Code is an outline (the header and the signatures of its members), not
// the whole body, so that a class does not repeat its methods' text.
type Unit struct {
	// ID is stable across edits that do not rename or reorder same-named
	// declarations: "path#Container.Name" with "#k" appended for the k-th
	// (k >= 2) declaration of the same qualified name in the file (overloads).
	ID        string `json:"id"`
	Path      string `json:"path"` // slash-separated, relative to the workspace root
	Lang      string `json:"lang"` // "java", "python" or "go"
	Kind      Kind   `json:"kind"`
	Name      string `json:"name"`
	Container string `json:"container,omitempty"` // enclosing classes, dot-separated
	Signature string `json:"signature"`           // declaration up to its body, whitespace collapsed
	Doc       string `json:"doc,omitempty"`       // cleaned doc comment
	Code      string `json:"code"`                // source without the doc comment (class: outline)
	// Range of the declaration (without a preceding doc comment) in LSP
	// positions (UTF-16) and in byte offsets of the file text.
	Start     textpos.Position `json:"start"`
	End       textpos.Position `json:"end"`
	StartByte int              `json:"startByte"`
	EndByte   int              `json:"endByte"`
}

// QualifiedName is Container.Name (or Name for a top-level unit).
func (u *Unit) QualifiedName() string {
	if u.Container == "" {
		return u.Name
	}
	return u.Container + "." + u.Name
}

// WithoutDoc returns a copy of u with Doc cleared (Code already lacks it).
func (u Unit) WithoutDoc() Unit {
	u.Doc = ""
	return u
}

// Text is the text a retrieval stream sees for the unit: signature, doc and
// code, separated by newlines. Doc-free units give signature and code only.
func (u *Unit) Text() string {
	var b strings.Builder
	b.Grow(len(u.Signature) + len(u.Doc) + len(u.Code) + 2)
	b.WriteString(u.Signature)
	b.WriteByte('\n')
	if u.Doc != "" {
		b.WriteString(u.Doc)
		b.WriteByte('\n')
	}
	b.WriteString(u.Code)
	return b.String()
}

// MaxSnippetLineBytes bounds each line of a Snippet: a minified or
// generated file's one line can be megabytes, and a snippet goes into the
// search command's result, the CLI's output and the reranking prompt.
const MaxSnippetLineBytes = 240

// Snippet returns at most maxLines lines of the unit's code, for display;
// a line longer than MaxSnippetLineBytes is cut there (on a character
// boundary) and ends with "…", as does a snippet with lines left out.
func (u *Unit) Snippet(maxLines int) string {
	s := u.Code
	var b strings.Builder
	for n := 0; ; n++ {
		if maxLines > 0 && n == maxLines {
			b.WriteString("\n…")
			return b.String()
		}
		line, rest, more := strings.Cut(s, "\n")
		if n > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(clip(line, MaxSnippetLineBytes))
		if !more {
			return b.String()
		}
		s = rest
	}
}

// MaxShownSignatureBytes bounds ShownSignature.
const MaxShownSignatureBytes = 400

// ShownSignature is Signature for display (search results, the reranking
// prompt), cut at MaxShownSignatureBytes with "…": a parameter annotation
// can hold a string of any length on one line (a megabyte measured). The
// index keeps the whole signature.
func (u *Unit) ShownSignature() string { return clip(u.Signature, MaxShownSignatureBytes) }

// LangOf returns the language of a file by its extension ("java", "python",
// "go"), or "" when units cannot be extracted from it.
func LangOf(file string) string {
	switch path.Ext(file) {
	case ".java":
		return "java"
	case ".py":
		return "python"
	case ".go":
		return "go"
	}
	return ""
}

// Languages lists the languages Extract supports.
var Languages = []string{"java", "python", "go"}
