package soak

// doc.go is the editor's side of one open document: its text and version,
// the incremental changes that editing sends (LSP 3.17
// "TextDocumentContentChangeEvent" with a range), and the symbols the text
// must have, kept as byte offsets that move with every edit, so that at any
// quiet moment the symbols JDT LS reports can be compared with the ones
// the editor's text implies.

import (
	"fmt"
	"sort"
	"strings"

	"github.com/repilot-lsp/repilot-lsp/jdtls"
	"github.com/repilot-lsp/repilot-lsp/textpos"
)

// Change is one incremental content change: the range, in the text before
// the change, and its replacement.
type Change struct {
	Range Range  `json:"range"`
	Text  string `json:"text"`
}

// Range is an LSP range (zero-based lines, UTF-16 characters): jdtls's.
type Range = jdtls.Range

// expSym is a symbol the editor's text must have, as JDT LS's
// hierarchical documentSymbol reports it: Path is the names from the
// top-level type down, joined by "/"; offsets are bytes into the current
// text.
type expSym struct {
	Path             string
	Kind             int
	RStart, REnd     int // the symbol's range
	SelStart, SelEnd int // its selectionRange (the name)
}

// Doc is one document as the editor holds it.
type Doc struct {
	URI     string
	Rel     string // the file's path relative to the project
	Text    string
	Version int
	// Class is the path of the top-level class the soak types members
	// into; "" for a document that is only read.
	Class string

	syms    []*expSym          // the file's own symbols, moved by every edit
	members map[string]*member // the soak's complete members, by name
	// repairMark is the start of the line repairs ask for, once chosen;
	// edits move it like the symbols.
	repairMark *int
}

// member is a method the soak typed in full.
type member struct {
	name string
	sym  *expSym
}

// NewDoc returns a document at version 1.
func NewDoc(uri, rel, text string) *Doc {
	return &Doc{URI: uri, Rel: rel, Text: text, Version: 1, members: map[string]*member{}}
}

// replace replaces bytes [a, b) of the text with s and returns the change to
// send. Tracked offsets at or after b move by the length difference; one
// strictly inside (a, b) would mean the soak deleted text it does not own,
// which the editing code never does (it panics: a bug in the soak).
func (d *Doc) replace(a, b int, s string) Change {
	m := textpos.New(d.Text)
	c := Change{Range: Range{Start: m.Position(a), End: m.Position(b)}, Text: s}
	d.Text = d.Text[:a] + s + d.Text[b:]
	delta := len(s) - (b - a)
	move := func(x *int) {
		switch {
		case *x >= b:
			*x += delta
		case *x > a:
			panic(fmt.Sprintf("soak: an edit of [%d,%d) cut through tracked offset %d", a, b, *x))
		}
	}
	for _, sy := range d.allSyms() {
		move(&sy.RStart)
		move(&sy.REnd)
		move(&sy.SelStart)
		move(&sy.SelEnd)
	}
	if d.repairMark != nil {
		move(d.repairMark)
	}
	return c
}

func (d *Doc) allSyms() []*expSym {
	out := append([]*expSym(nil), d.syms...)
	for _, m := range d.members {
		out = append(out, m.sym)
	}
	return out
}

// DocSymbol is JDT LS's hierarchical documentSymbol (LSP 3.17
// "DocumentSymbol"), the fields the soak compares.
type DocSymbol struct {
	Name           string      `json:"name"`
	Kind           int         `json:"kind"`
	Range          Range       `json:"range"`
	SelectionRange Range       `json:"selectionRange"`
	Children       []DocSymbol `json:"children"`
}

// symLine is one symbol in the comparable form: path, kind, range and
// selection range as "line:char".
type symLine string

// flatten lists syms and their children as symLines, sorted.
func flatten(syms []DocSymbol) []symLine {
	var out []symLine
	var walk func(prefix string, ss []DocSymbol)
	walk = func(prefix string, ss []DocSymbol) {
		for _, s := range ss {
			path := prefix + s.Name
			out = append(out, symLine(fmt.Sprintf("%s kind=%d range=%s sel=%s", path, s.Kind, fmtRange(s.Range), fmtRange(s.SelectionRange))))
			walk(path+"/", s.Children)
		}
	}
	walk("", syms)
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func fmtRange(r Range) string {
	return fmt.Sprintf("%d:%d-%d:%d", r.Start.Line, r.Start.Character, r.End.Line, r.End.Character)
}

// SetBaseline records what JDT LS reported for the unedited text as the
// symbols the text must keep; later edits move them. It also picks the
// class the soak edits: the last top-level symbol, when it is a class
// (kind 5) whose closing brace stands alone on the file's last non-blank
// line; otherwise the document is only read. The error names the first
// symbol with a position outside the text (textpos.Mapper.Offset's error).
func (d *Doc) SetBaseline(syms []DocSymbol) error {
	m := textpos.New(d.Text)
	off := func(p textpos.Position) (int, error) { return m.Offset(p) }
	var walk func(prefix string, ss []DocSymbol) error
	walk = func(prefix string, ss []DocSymbol) error {
		for _, s := range ss {
			e := &expSym{Path: prefix + s.Name, Kind: s.Kind}
			var err error
			for _, x := range []struct {
				p   textpos.Position
				dst *int
			}{{s.Range.Start, &e.RStart}, {s.Range.End, &e.REnd}, {s.SelectionRange.Start, &e.SelStart}, {s.SelectionRange.End, &e.SelEnd}} {
				if *x.dst, err = off(x.p); err != nil {
					return fmt.Errorf("symbol %s: %w", e.Path, err)
				}
			}
			d.syms = append(d.syms, e)
			if err := walk(e.Path+"/", s.Children); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk("", syms); err != nil {
		return err
	}
	d.Class = ""
	if n := len(syms); n > 0 && syms[n-1].Kind == 5 {
		last := d.syms[0]
		for _, s := range d.syms {
			if s.Path == syms[n-1].Name {
				last = s
			}
		}
		close := last.REnd - 1
		if close >= 0 && close < len(d.Text) && d.Text[close] == '}' &&
			strings.TrimSpace(d.Text[lineStart(d.Text, close):close]) == "" &&
			strings.TrimSpace(d.Text[close+1:]) == "" {
			d.Class = last.Path
		}
	}
	return nil
}

// lineStart returns the offset of the start of the line holding off.
func lineStart(text string, off int) int {
	return strings.LastIndexByte(text[:off], '\n') + 1
}

// Expected returns the symbols the current text must have, in the form of
// flatten.
func (d *Doc) Expected() []symLine {
	m := textpos.New(d.Text)
	var out []symLine
	for _, s := range d.allSyms() {
		r := Range{Start: m.Position(s.RStart), End: m.Position(s.REnd)}
		sel := Range{Start: m.Position(s.SelStart), End: m.Position(s.SelEnd)}
		out = append(out, symLine(fmt.Sprintf("%s kind=%d range=%s sel=%s", s.Path, s.Kind, fmtRange(r), fmtRange(sel))))
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// Members returns the names of the soak's complete members, sorted.
func (d *Doc) Members() []string {
	var out []string
	for n := range d.members {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// insertionPoints returns the offsets where a new member may go: the start
// of the line after each member of the edited class (its own and the
// soak's), and the start of the class's closing line.
func (d *Doc) insertionPoints() []int {
	if d.Class == "" {
		return nil
	}
	seen := map[int]bool{}
	var out []int
	add := func(o int) {
		if !seen[o] {
			seen[o] = true
			out = append(out, o)
		}
	}
	for _, s := range d.allSyms() {
		switch {
		case s.Path == d.Class:
			add(lineStart(d.Text, s.REnd-1))
		case strings.HasPrefix(s.Path, d.Class+"/") && !strings.Contains(s.Path[len(d.Class)+1:], "/"):
			if i := strings.IndexByte(d.Text[s.REnd:], '\n'); i >= 0 {
				add(s.REnd + i + 1)
			}
		}
	}
	sort.Ints(out)
	return out
}

// Diff compares got with want (both sorted symLines) and returns what is
// missing from got and what got has that want lacks.
func Diff(got, want []symLine) (missing, extra []symLine) {
	g := map[symLine]int{}
	for _, s := range got {
		g[s]++
	}
	for _, s := range want {
		if g[s] > 0 {
			g[s]--
		} else {
			missing = append(missing, s)
		}
	}
	for _, s := range got {
		if g[s] > 0 {
			g[s]--
			extra = append(extra, s)
		}
	}
	return missing, extra
}
