package soak

// soak_test.go tests the harness without JDT LS: the typist's edits
// replayed the way a server applies incremental changes must give the
// editor's text, and the symbols it expects must name what the text holds
// there; the agreement check must notice a lost or reordered edit; /proc
// parsing and the tree walk; percentiles.

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/textpos"
)

const cart = `package demo;

/** A cart. */
public class Cart {
    private int n;

    public void add(int k) {
        n += k;
    }

    public int size() {
        return n;
    }
}
`

// baseline is what JDT LS reports for cart (hierarchical documentSymbol,
// as JDT LS 1.20 gives it: the package, then the class and its members).
func baseline() []DocSymbol {
	r := func(l0, c0, l1, c1 int) Range {
		return Range{Start: textpos.Position{Line: l0, Character: c0}, End: textpos.Position{Line: l1, Character: c1}}
	}
	return []DocSymbol{
		{Name: "demo", Kind: 4, Range: r(0, 0, 0, 13), SelectionRange: r(0, 8, 0, 12)},
		{Name: "Cart", Kind: 5, Range: r(2, 0, 13, 1), SelectionRange: r(3, 13, 3, 17), Children: []DocSymbol{
			{Name: "n", Kind: 8, Range: r(4, 4, 4, 18), SelectionRange: r(4, 16, 4, 17)},
			{Name: "add(int)", Kind: 6, Range: r(6, 4, 8, 5), SelectionRange: r(6, 16, 6, 19)},
			{Name: "size()", Kind: 6, Range: r(10, 4, 12, 5), SelectionRange: r(10, 15, 10, 19)},
		}},
	}
}

// apply applies one incremental change as a server does.
func apply(t *testing.T, text string, c Change) string {
	t.Helper()
	m := textpos.New(text)
	a, err := m.Offset(c.Range.Start)
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.Offset(c.Range.End)
	if err != nil {
		t.Fatal(err)
	}
	return text[:a] + c.Text + text[b:]
}

// checkNames checks that each expected symbol's selection range holds
// its name in the editor's text, and each method's range ends at a '}'.
func checkNames(t *testing.T, d *Doc) {
	t.Helper()
	m := textpos.New(d.Text)
	for _, s := range d.allSyms() {
		name := s.Path[strings.LastIndexByte(s.Path, '/')+1:]
		name, _, _ = strings.Cut(name, "(")
		if got := d.Text[s.SelStart:s.SelEnd]; got != name {
			t.Fatalf("symbol %s at %v: the text there is %q", s.Path, m.Position(s.SelStart), got)
		}
		if s.Kind == 6 && d.Text[s.REnd-1] != '}' {
			t.Fatalf("method %s's range does not end at its '}': %q", s.Path, d.Text[s.RStart:s.REnd])
		}
	}
}

func TestTypistReplaysExactly(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		d := NewDoc("file:///Cart.java", "Cart.java", cart)
		if err := d.SetBaseline(baseline()); err != nil {
			t.Fatal(err)
		}
		if d.Class != "Cart" {
			t.Fatalf("edited class %q, want Cart", d.Class)
		}
		server := cart
		version := d.Version
		ty := &Typist{Rng: rand.New(rand.NewPCG(seed, 1)), MaxMembers: 5,
			Send: func(dd *Doc, cs []Change) {
				if dd.Version != version+1 {
					t.Fatalf("version %d after %d", dd.Version, version)
				}
				version = dd.Version
				for _, c := range cs {
					server = apply(t, server, c)
				}
			}}
		for i := 0; i < 40; i++ {
			ty.Act(d)
			if server != d.Text {
				t.Fatalf("seed %d, action %d: the server's text differs from the editor's:\n%s\n---\n%s", seed, i, server, d.Text)
			}
			checkNames(t, d)
		}
		if ty.Typed == 0 || ty.Deleted == 0 || ty.Retyped == 0 {
			t.Fatalf("seed %d: typed %d, deleted %d, retyped %d: some action never ran", seed, ty.Typed, ty.Deleted, ty.Retyped)
		}
		// The file's own symbols keep their text; the expectation lists them
		// and the soak's methods.
		want := d.Expected()
		if len(want) != 5+len(d.members) {
			t.Fatalf("%d expected symbols, want %d", len(want), 5+len(d.members))
		}
	}
}

func TestExpectedMatchesBaselineBeforeEdits(t *testing.T) {
	d := NewDoc("file:///Cart.java", "Cart.java", cart)
	if err := d.SetBaseline(baseline()); err != nil {
		t.Fatal(err)
	}
	missing, extra := Diff(flatten(baseline()), d.Expected())
	if len(missing)+len(extra) > 0 {
		t.Fatalf("missing %v extra %v", missing, extra)
	}
}

// TestCheckSeesALostEdit types methods, drops or swaps one change on the
// server's side, and requires the server's symbols (simulated from the
// server's text: the editor's expectation for it, recomputed) to differ.
func TestCheckSeesALostEdit(t *testing.T) {
	for _, mode := range []string{"lost", "reordered", "doubled"} {
		t.Run(mode, func(t *testing.T) {
			d := NewDoc("file:///Cart.java", "Cart.java", cart)
			if err := d.SetBaseline(baseline()); err != nil {
				t.Fatal(err)
			}
			var changes [][]Change
			ty := &Typist{Rng: rand.New(rand.NewPCG(7, 1)), Send: func(_ *Doc, cs []Change) { changes = append(changes, cs) }}
			for ty.Typed < 2 {
				ty.Act(d)
			}
			server := cart
			k := len(changes) / 2
			for i := 0; i < len(changes); i++ {
				cs := changes[i]
				switch {
				case mode == "lost" && i == k:
					continue
				case mode == "reordered" && i == k:
					cs = changes[k+1]
				case mode == "reordered" && i == k+1:
					cs = changes[k]
				case mode == "doubled" && i == k:
					cs = append(append([]Change(nil), cs...), cs...)
				}
				for _, c := range cs {
					server = apply(t, server, c)
				}
			}
			if server == d.Text {
				t.Skipf("the %s change left the same text (%+v)", mode, changes[k])
			}
			// The server's symbols: the methods of its text, found the way
			// JDT LS reports them (name and closing brace of each one-line
			// method).
			got := oneLineMethods(server)
			want := oneLineMethods(d.Text)
			if fmt.Sprint(got) == fmt.Sprint(want) {
				t.Fatalf("a %s change is invisible to the symbols:\nserver %q\neditor %q", mode, server, d.Text)
			}
		})
	}
}

// oneLineMethods lists "name line:start-end" (UTF-16 columns of the
// first non-blank character and after the last '}') of each soak method in
// text, and where the class's range ends (after the file's last '}'): the
// parts of a documentSymbol the check compares.
func oneLineMethods(text string) []string {
	out := []string{fmt.Sprint("class end ", textpos.New(text).Position(strings.LastIndex(text, "}")+1))}
	for i, line := range strings.Split(text, "\n") {
		j := strings.Index(line, "soak")
		k := strings.Index(line, "() {")
		if j < 0 || k < j {
			continue
		}
		m := textpos.New(line)
		start := len(line) - len(strings.TrimLeft(line, " "))
		out = append(out, fmt.Sprintf("%s %d:%d-%d", line[j:k], i, m.Position(start).Character, m.Position(strings.LastIndex(line, "}")+1).Character))
	}
	return out
}

func TestDiff(t *testing.T) {
	missing, extra := Diff([]symLine{"a", "b", "b"}, []symLine{"b", "c"})
	if fmt.Sprint(missing) != "[c]" || fmt.Sprint(extra) != "[a b]" {
		t.Fatalf("missing %v extra %v", missing, extra)
	}
}

func TestProcParsing(t *testing.T) {
	procs := []procInfo{{ID: procID{1, 0}, PPID: 0}, {ID: procID{10, 0}, PPID: 1}, {ID: procID{11, 0}, PPID: 10},
		{ID: procID{12, 0}, PPID: 11, State: "Z"}, {ID: procID{13, 0}, PPID: 10}, {ID: procID{20, 0}, PPID: 1}}
	var got []int
	for _, p := range descendants(procs, 10) {
		got = append(got, p.ID.PID)
	}
	if fmt.Sprint(got) != "[11 13]" {
		t.Fatalf("descendants of 10: %v", got)
	}
	// This process is alive, with its real start time; another start time
	// is another process.
	self, ok := readProc(os.Getpid())
	if !ok || self.RSSKiB <= 0 || self.Threads <= 0 || self.Comm == "" || self.Cmdline == "" || !alive(self.ID) {
		t.Fatalf("reading /proc for this process: %+v %v", self, ok)
	}
	if alive(procID{self.ID.PID, self.ID.Start + 1}) {
		t.Fatal("a reused pid counted as the same process")
	}
}

func TestPercentile(t *testing.T) {
	xs := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	if p := percentile(xs, 50); p != 5 {
		t.Fatalf("p50 %v", p)
	}
	if p := percentile(xs, 95); p != 10 {
		t.Fatalf("p95 %v", p)
	}
	if p := percentile(nil, 50); p != 0 {
		t.Fatalf("p50 of none %v", p)
	}
}
