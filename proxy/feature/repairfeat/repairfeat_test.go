package repairfeat

// repairfeat_test.go checks the repair feature's line arithmetic and edits,
// table-driven; the feature over the wire is tested with the proxy
// (proxy/features_test.go, proxy/stream_test.go).

import (
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/repilot-lsp/repilot-lsp/proxy"
	"github.com/repilot-lsp/repilot-lsp/textpos"
)

func rng(sl, sc, el, ec uint32) *protocol.Range {
	return &protocol.Range{Start: protocol.Position{Line: sl, Character: sc}, End: protocol.Position{Line: el, Character: ec}}
}

func TestHunkLines(t *testing.T) {
	cases := []struct {
		r          *protocol.Range
		start, end int
	}{
		{rng(5, 0, 6, 0), 6, 6},  // a whole line, ending at character 0 of the next
		{rng(5, 4, 5, 9), 6, 6},  // within one line
		{rng(5, 4, 7, 1), 6, 8},  // ends inside line 7
		{rng(5, 0, 8, 0), 6, 8},  // three whole lines
		{rng(5, 12, 6, 0), 6, 6}, // from the end of a line to the next line's start
	}
	for _, c := range cases {
		if s, e := hunkLines(*c.r); s != c.start || e != c.end {
			t.Errorf("%v: lines %d-%d, want %d-%d", *c.r, s, e, c.start, c.end)
		}
	}
}

func TestHunkEdit(t *testing.T) {
	cases := []struct {
		text       string
		start, end int
		hunk       string
		want       string
	}{
		{"a\nb\nc\n", 2, 2, "B\n", "a\nB\nc\n"},
		{"a\nb\nc\n", 1, 3, "x\n", "x\n"},
		{"a\nb\nc", 3, 3, "C\n", "a\nb\nC"},                   // no final newline stays absent
		{"a\nb\nc\n", 2, 2, "", "a\nc\n"},                     // deletion
		{"a\r\nb\r\nc", 3, 3, "C\r\n", "a\r\nb\r\nC"},         // nor with "\r\n" line ends
		{"a\r\nb\r\nc\r\n", 2, 2, "B\r\n", "a\r\nB\r\nc\r\n"}, // "\r\n" kept
		{"a\rb\rc\r", 2, 2, "B\r", "a\rB\rc\r"},               // lone "\r" ends lines (LSP 3.17)
		{"a\rb\rc", 3, 3, "C\r", "a\rb\rC"},
	}
	for _, c := range cases {
		doc := proxy.Document{URI: "file:///x.java", Version: 4, Text: c.text}
		mp := textpos.New(c.text)
		for _, versioned := range []bool{true, false} {
			we := hunkEdit(doc, mp, c.start, c.end, c.hunk, versioned)
			var te protocol.TextEdit
			if versioned {
				if *we.DocumentChanges[0].TextDocument.Version != 4 {
					t.Errorf("version %d", *we.DocumentChanges[0].TextDocument.Version)
				}
				te = we.DocumentChanges[0].Edits[0]
			} else {
				te = we.Changes["file:///x.java"][0]
			}
			s, _ := mp.Offset(proxy.ToTextpos(te.Range.Start))
			e, _ := mp.Offset(proxy.ToTextpos(te.Range.End))
			if got := c.text[:s] + te.NewText + c.text[e:]; got != c.want {
				t.Errorf("%q lines %d-%d -> %q: got %q, want %q", c.text, c.start, c.end, c.hunk, got, c.want)
			}
		}
	}
}

// TestLineSpan checks how messages name a hunk's lines: one line is "line
// N", not "lines N-N".
func TestLineSpan(t *testing.T) {
	for _, c := range []struct {
		start, end int
		want       string
	}{{30, 30, "line 30"}, {30, 32, "lines 30-32"}} {
		if got := lineSpan(c.start, c.end); got != c.want {
			t.Errorf("lineSpan(%d, %d) = %q, want %q", c.start, c.end, got, c.want)
		}
	}
	if got := firstLine("  \n", 7, 7); got != "delete line 7" {
		t.Errorf("firstLine of a blank hunk = %q", got)
	}
}

// recProgress records a progress's reports.
type recProgress struct {
	mu   sync.Mutex
	msgs []string
}

func (r *recProgress) Report(msg string, _ int) {
	r.mu.Lock()
	r.msgs = append(r.msgs, msg)
	r.mu.Unlock()
}
func (r *recProgress) End(string) {}
func (r *recProgress) got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.msgs...)
}

// TestWaitNotices: a repair waiting for its backends says so, with the time
// waited, until the Repairer's first report, and never after it; stop ends
// the notices.
func TestWaitNotices(t *testing.T) {
	pr := &recProgress{}
	began := time.Now().Add(-40 * time.Second) // the wait counts from the repair's start
	report, stop := waitNotices(pr, began, 10*time.Millisecond, 10*time.Millisecond)
	deadline := time.Now().Add(5 * time.Second)
	for len(pr.got()) < 2 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	report("sampling 1/20", 0)
	time.Sleep(50 * time.Millisecond)
	got := pr.got()
	if len(got) < 3 || got[len(got)-1] != "sampling 1/20" {
		t.Fatalf("reports %q: want waiting notices, then the Repairer's, last", got)
	}
	for _, m := range got[:len(got)-1] {
		if !strings.HasPrefix(m, "waiting for JDT LS (40s)") && !strings.HasPrefix(m, "waiting for JDT LS (41s)") {
			t.Errorf("notice %q, want \"waiting for JDT LS (40s)\"", m)
		}
	}
	stop()
	stop()
	report("validating candidate 1", -1)
	if got := pr.got(); got[len(got)-1] != "validating candidate 1" {
		t.Errorf("a report after stop is lost: %q", got)
	}

	// A Repairer that reports at once: no notice.
	pr = &recProgress{}
	report, stop = waitNotices(pr, time.Now(), 20*time.Millisecond, 20*time.Millisecond)
	report("sampling 1/20", 0)
	time.Sleep(60 * time.Millisecond)
	stop()
	if got := pr.got(); len(got) != 1 {
		t.Errorf("reports %q: want only the Repairer's", got)
	}
}
