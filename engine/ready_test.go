package engine

// ready_test.go pins awaitCurrent (jdt.go), StartJDT's wait for a shadow
// server that answers on the text it was last sent, against a fake server
// that answers as JDT LS 1.60 did after its start: first for an earlier
// version of the document, then with empty lists.

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/javalex"
	"github.com/repilot-lsp/repilot-lsp/jdtls"
	"github.com/repilot-lsp/repilot-lsp/textpos"
)

// lagPeer answers completions on readyText's texts: at a name, the locals
// "repilotReady<k>" of the text it answers on; after a dot, String's
// members. Its first stale answers are computed on the text before the
// last change, the next empty answers are empty lists.
type lagPeer struct {
	prev, text   string
	stale, empty int
	asked        int // completion requests
}

func (p *lagPeer) Err() error { return nil }

func (p *lagPeer) Change(uri, text string) (int, error) {
	if text != p.text {
		p.prev, p.text = p.text, text
	}
	return 1, nil
}

func (p *lagPeer) Completion(ctx context.Context, uri string, pos textpos.Position) (*jdtls.CompletionList, error) {
	p.asked++
	text := p.text
	switch {
	case p.stale > 0:
		p.stale--
		text = p.prev
	case p.empty > 0:
		p.empty--
		return &jdtls.CompletionList{}, nil
	}
	m := textpos.New(text)
	caret, err := m.Offset(pos)
	if err != nil {
		return nil, err
	}
	start := caret
	for start > 0 && javalex.IsIdentPart(rune(text[start-1])) {
		start--
	}
	item := func(name string) jdtls.CompletionItem {
		return jdtls.CompletionItem{Name: name, Kind: 6, Label: name,
			Edit: &jdtls.TextEdit{Range: jdtls.Range{Start: m.Position(start), End: pos}, NewText: name}}
	}
	l := &jdtls.CompletionList{}
	if start > 0 && text[start-1] == '.' {
		l.Items = append(l.Items, item("charAt"), item("length"))
		return l, nil
	}
	if i := strings.Index(text, "String repilotReady"); i >= 0 {
		j := i + len("String ")
		k := j
		for k < len(text) && javalex.IsIdentPart(rune(text[k])) {
			k++
		}
		l.Items = append(l.Items, item(text[j:k]))
	}
	return l, nil
}

// TestAwaitCurrentOutlastsStaleAndEmptyAnswers: awaitCurrent returns only
// once a version's own local is listed and String's members too; an answer
// computed on the earlier text (another local at the same caret) and empty
// answers do not end the wait. A server that never answers on the current
// text ends it at the bound with errNotCurrent.
func TestAwaitCurrentOutlastsStaleAndEmptyAnswers(t *testing.T) {
	const base = "package demo;\n\nclass Greeter {\n}\n"
	ctx := context.Background()
	for _, c := range []struct{ stale, empty, asked int }{
		{0, 0, 2}, // a server that is current: one try, two requests
		{1, 0, 3}, // try 1's name is asked on the opened text (past its end), try 2 passes
		{1, 3, 6}, // then tries 2-4 are answered with nothing at the name, try 5 passes
	} {
		p := &lagPeer{text: base, stale: c.stale, empty: c.empty}
		if err := awaitCurrent(ctx, p, "file:///demo/Greeter.java", base, time.Second, time.Minute, time.Millisecond); err != nil {
			t.Errorf("stale %d, empty %d: %v", c.stale, c.empty, err)
		}
		if p.asked != c.asked {
			t.Errorf("stale %d, empty %d: %d requests, want %d", c.stale, c.empty, p.asked, c.asked)
		}
	}
	// Every answer one version behind: the local listed is the last
	// version's, never this one's.
	behind := &alwaysStale{lagPeer{text: base}}
	err := awaitCurrent(ctx, behind, "file:///demo/Greeter.java", base, time.Second, 50*time.Millisecond, time.Millisecond)
	if !errors.Is(err, errNotCurrent) {
		t.Errorf("a server always one version behind: %v, want errNotCurrent", err)
	}
	if behind.asked < 2 {
		t.Errorf("%d requests to a server always behind, want several tries", behind.asked)
	}
}

// alwaysStale answers every completion on the text before the last change.
type alwaysStale struct{ lagPeer }

func (p *alwaysStale) Completion(ctx context.Context, uri string, pos textpos.Position) (*jdtls.CompletionList, error) {
	p.stale = 1
	return p.lagPeer.Completion(ctx, uri, pos)
}
