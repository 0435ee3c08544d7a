package soak

// edit.go types like a user: whole methods a few characters at a time, with
// typos corrected by backspace, methods deleted by backspace or as a whole
// line, and return values retyped. Every action leaves the document with
// complete methods only, so the symbols it must have are known between
// actions (Doc.Expected).

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"unicode/utf8"
)

// Typist edits Docs. Its callbacks do the I/O, so the same code runs
// against the proxy and in unit tests.
type Typist struct {
	Rng *rand.Rand
	// Send sends one didChange of d (d.Version is already the new version).
	Send func(d *Doc, changes []Change)
	// Pause waits between keystrokes.
	Pause func()
	// AtCaret is called after each piece typed, with the caret's offset.
	AtCaret func(d *Doc, caret int)
	// MaxMembers caps the soak's methods per document (default 12): at the
	// cap, Act deletes instead of typing.
	MaxMembers int

	next int // the next member number
	// Counts of what was done.
	Typed, Deleted, Retyped, Typos, MultiChange, Pieces int
}

func (t *Typist) send(d *Doc, cs ...Change) {
	d.Version++
	if len(cs) > 1 {
		t.MultiChange++
	}
	t.Pieces++
	t.Send(d, cs)
}

func (t *Typist) pause() {
	if t.Pause != nil {
		t.Pause()
	}
}

// Act does one editing action on d, chosen at random: type a new method,
// delete one of the soak's methods, or retype one's return value. It
// returns a one-line description. A read-only document is left alone.
func (t *Typist) Act(d *Doc) string {
	if d.Class == "" {
		return "nothing (read-only document)"
	}
	max := t.MaxMembers
	if max == 0 {
		max = 12
	}
	n := len(d.members)
	r := t.Rng.IntN(10)
	switch {
	case n > 0 && (n >= max || r < 3):
		return t.deleteMember(d)
	case n > 0 && r < 5:
		return t.retype(d)
	default:
		return t.typeMember(d)
	}
}

// memberText returns the text of method n (a whole line, indented) and
// where its name starts within it. Odd methods return a string with
// characters outside the BMP, so that UTF-16 positions matter.
func memberText(n int) (text string, nameAt int) {
	name := fmt.Sprintf("soak%d", n)
	if n%2 == 1 {
		return fmt.Sprintf("    String %s() { return \"é😀 %d\"; }\n", name, n), len("    String ")
	}
	return fmt.Sprintf("    int %s() { return %d; }\n", name, n), len("    int ")
}

// typeMember types a new method at one of d's insertion points.
func (t *Typist) typeMember(d *Doc) string {
	pts := d.insertionPoints()
	at := pts[t.Rng.IntN(len(pts))]
	t.next++
	n := t.next
	text, nameAt := memberText(n)
	name := fmt.Sprintf("soak%d", n)
	caret := at
	for rest := text; rest != ""; {
		k := 1 + t.Rng.IntN(6)
		piece := firstRunes(rest, k)
		rest = rest[len(piece):]
		if t.Rng.IntN(12) == 0 { // a typo, taken back with backspace
			t.Typos++
			if t.Rng.IntN(2) == 0 {
				c1 := d.replace(caret, caret, "x")
				c2 := d.replace(caret, caret+1, "")
				t.send(d, c1, c2)
			} else {
				t.send(d, d.replace(caret, caret, "x"))
				t.pause()
				t.send(d, d.replace(caret, caret+1, ""))
			}
		}
		t.send(d, d.replace(caret, caret, piece))
		caret += len(piece)
		t.pause()
		if t.AtCaret != nil {
			t.AtCaret(d, caret)
		}
	}
	lineEnd := at + len(text) - 1 // the '\n'
	d.members[name] = &member{name: name, sym: &expSym{
		Path: d.Class + "/" + name + "()", Kind: 6,
		RStart: at + 4, REnd: lineEnd,
		SelStart: at + nameAt, SelEnd: at + nameAt + len(name),
	}}
	t.Typed++
	return fmt.Sprintf("typed %s in %s", name, d.Rel)
}

// deleteMember deletes one of the soak's methods: as a whole line, or by
// backspace from the end of its line, one to four characters at a time.
func (t *Typist) deleteMember(d *Doc) string {
	names := d.Members()
	name := names[t.Rng.IntN(len(names))]
	m := d.members[name]
	delete(d.members, name)
	start := lineStart(d.Text, m.sym.RStart)
	end := m.sym.REnd + strings.IndexByte(d.Text[m.sym.REnd:], '\n') + 1
	t.Deleted++
	if t.Rng.IntN(3) == 0 {
		t.send(d, d.replace(start, end, ""))
		t.pause()
		return fmt.Sprintf("deleted the line of %s in %s", name, d.Rel)
	}
	for end > start {
		k := 1 + t.Rng.IntN(4)
		from := end
		for i := 0; i < k && from > start; i++ {
			_, size := utf8.DecodeLastRuneInString(d.Text[start:from])
			from -= size
		}
		t.send(d, d.replace(from, end, ""))
		end = from
		t.pause()
	}
	return fmt.Sprintf("deleted %s in %s by backspace", name, d.Rel)
}

// retype replaces the return value of one of the soak's methods in one
// change, as a paste over a selection does.
func (t *Typist) retype(d *Doc) string {
	names := d.Members()
	name := names[t.Rng.IntN(len(names))]
	m := d.members[name]
	body := d.Text[m.sym.RStart:m.sym.REnd]
	i := strings.Index(body, "return ")
	j := strings.LastIndex(body, ";")
	if i < 0 || j < i {
		panic(fmt.Sprintf("soak: method %s lost its return statement: %q", name, body))
	}
	a, b := m.sym.RStart+i+len("return "), m.sym.RStart+j
	v := fmt.Sprint(t.Rng.IntN(100000))
	if strings.HasPrefix(d.Text[a:b], "\"") {
		v = fmt.Sprintf("\"ü𝄞 %d\"", t.Rng.IntN(1000))
	}
	t.send(d, d.replace(a, b, v))
	t.pause()
	t.Retyped++
	return fmt.Sprintf("retyped the value of %s in %s", name, d.Rel)
}

// firstRunes returns the first k runes of s (all of s if shorter).
func firstRunes(s string, k int) string {
	i := 0
	for n := 0; n < k && i < len(s); n++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}
