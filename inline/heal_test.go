package inline

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/engine"
	"github.com/repilot-lsp/repilot-lsp/lm"
)

func TestPartialIdent(t *testing.T) {
	for _, c := range []struct{ prefix, want string }{
		{"  StringBuilder sb = new S", "S"},
		{"  x = a.getV", "getV"},
		{"  x = _a1", "_a1"},
		{"  x = $y", "$y"},
		{"  return", "return"}, // a keyword too: the model may write it whole
		{"  x = é", "é"},
		{"  x = new ", ""},
		{"  x = f(", ""},
		{"  x = 0x1F", ""}, // a number, not an identifier
		{"  x = 12", ""},
		{`  s = "abc`, ""}, // in a string
		{"  // see Foo", ""},
		{"  /* Foo", ""},
		{"", ""},
	} {
		if got := partialIdent(c.prefix); got != c.want {
			t.Errorf("partialIdent(%q) = %q, want %q", c.prefix, got, c.want)
		}
	}
}

func TestHealOK(t *testing.T) {
	for _, c := range []struct {
		heal, generated string
		cand            lm.Candidate
		want            bool
	}{
		{"Str", "", lm.Candidate{Text: "StringBuilder"}, true}, // extends it
		{"Str", "", lm.Candidate{Text: "Str"}, true},           // is it
		{"Str", "", lm.Candidate{Text: "St"}, true},            // a prefix of it
		{"Str", "St", lm.Candidate{Text: "ring"}, true},
		{"Str", "St", lm.Candidate{Text: "r"}, true},
		{"Str", "", lm.Candidate{Text: " Str"}, false},
		{"Str", "", lm.Candidate{Text: "tring"}, false}, // the remainder alone
		{"Str", "", lm.Candidate{Text: "Foo"}, false},
		{"Str", "", lm.Candidate{Text: ""}, false},
		{"Str", "St", lm.Candidate{End: true}, false},           // ends before the typed part is written
		{"Str", "St", lm.Candidate{Text: "r", End: true}, true}, // ends with it written
		{"Str", "Str", lm.Candidate{Text: "Foo"}, true},         // covered: anything
		{"", "", lm.Candidate{Text: "x"}, true},
		{"", "", lm.Candidate{End: true}, true},
	} {
		if got := healOK(c.heal, c.generated, c.cand); got != c.want {
			t.Errorf("healOK(%q, %q, %+v) = %v, want %v", c.heal, c.generated, c.cand, got, c.want)
		}
	}
}

// tableModel proposes from a table keyed by the text generated so far (the
// end token where the table has no entry) and records the FIM prefix it
// was started with.
type tableModel struct {
	next   map[string][]lm.Candidate
	mu     sync.Mutex
	prefix string
}

func (m *tableModel) Name() string { return "table" }
func (m *tableModel) Start(_ context.Context, fim lm.FIM) (lm.Session, error) {
	m.mu.Lock()
	m.prefix = fim.Prefix
	m.mu.Unlock()
	return tableSession{m}, nil
}

type tableSession struct{ m *tableModel }

func (s tableSession) Next(_ context.Context, generated string, _ int) ([]lm.Candidate, error) {
	if d, ok := s.m.next[generated]; ok {
		return d, nil
	}
	return []lm.Candidate{{End: true}}, nil
}

// hunkEngine answers Unknown to everything and records the hunks it opens.
type hunkEngine struct {
	mu    sync.Mutex
	hunks []engine.Hunk
}

func (e *hunkEngine) Open(_ context.Context, h engine.Hunk) (engine.Session, error) {
	e.mu.Lock()
	e.hunks = append(e.hunks, h)
	e.mu.Unlock()
	return okSession{}, nil
}

const healDoc = "class A {\n  String f() {\n    StringBuilder sb = new S\n  }\n}\n"

// A caret right after "new S": the model's prompt ends before "S", its
// best first token (the remainder alone, which no tokenizer would write
// after "new ") is not drawn, and the suggestion is the generated
// "StringBuilder();" less the typed "S", inserted at the caret.
func TestTokenHealingAtPartialIdentifier(t *testing.T) {
	m := &tableModel{next: map[string][]lm.Candidate{
		"": {
			{Text: "tringBuilder", LogProb: -0.1},
			{Text: "Foo", LogProb: -0.3},
			{End: true, LogProb: -0.4},
			{Text: "S", LogProb: -2},
		},
		"S":             {{Text: "tringBuilder", LogProb: -0.1}, {End: true, LogProb: -3}},
		"StringBuilder": {{Text: "();", LogProb: -0.1}},
	}}
	var compiled []string
	var mu sync.Mutex
	c := &funcCompiler{f: func(text string) []engine.CompileError {
		mu.Lock()
		compiled = append(compiled, text)
		mu.Unlock()
		return nil
	}}
	eng := &hunkEngine{}
	s := NewService(func(ctx context.Context, _ string, fn func(Backends) error) error {
		return fn(Backends{Model: m, Engine: eng, Compiler: c})
	}, Options{})
	off := strings.Index(healDoc, "new S") + len("new S")
	got, err := s.Suggest(context.Background(), Request{URI: "file:///A.java", Text: healDoc, Offset: off, Trigger: Invoked})
	if err != nil || got == nil {
		t.Fatalf("Suggest = %+v, %v; want a suggestion", got, err)
	}
	if got.Text != "tringBuilder();" || got.Offset != off {
		t.Errorf("suggestion %q at %d, want %q at the caret %d", got.Text, got.Offset, "tringBuilder();", off)
	}
	if want := healDoc[:off-1]; m.prefix != want {
		t.Errorf("model prompt ends %q, want it to end before the typed S", m.prefix[max(0, len(m.prefix)-12):])
	}
	if len(eng.hunks) != 1 || eng.hunks[0].Prefix != healDoc[:off-1] {
		t.Errorf("engine hunks %d, want one whose prefix ends before the typed S", len(eng.hunks))
	}
	want := healDoc[:off] + "tringBuilder();" + healDoc[off:]
	if len(compiled) == 0 || compiled[0] != want {
		t.Errorf("compile checks %q, want the document with the suggestion inserted at the caret first", compiled)
	}
}

// A model that never writes the typed part shows nothing: the remainder it
// proposes first is not drawn (with the prompt cut before "S" it would read
// "new tringBuilder();"), and a suggestion that only writes the typed part
// again is blank.
func TestTokenHealingNeverShowsUnhealedText(t *testing.T) {
	off := strings.Index(healDoc, "new S") + len("new S")
	c := &funcCompiler{f: func(string) []engine.CompileError { return nil }}
	for name, m := range map[string]lm.Model{
		"remainder only": &scriptModel{middle: "tringBuilder();"},
		"typed part only": &tableModel{next: map[string][]lm.Candidate{
			"":  {{Text: "S", LogProb: -0.1}},
			"S": {{End: true, LogProb: -0.1}},
		}},
	} {
		s := newTestService(m, c, Options{})
		got, err := s.Suggest(context.Background(), Request{URI: "file:///A.java", Text: healDoc, Offset: off, Trigger: Invoked})
		if err != nil || got != nil {
			t.Errorf("%s: Suggest = %+v, %v; want nothing shown", name, got, err)
		}
	}
}

// topKModel is tableModel answering at most k candidates, as models do.
type topKModel struct{ tableModel }

func (m *topKModel) Start(ctx context.Context, fim lm.FIM) (lm.Session, error) {
	s, _ := m.tableModel.Start(ctx, fim)
	return topKSession{s}, nil
}

type topKSession struct{ lm.Session }

func (s topKSession) Next(ctx context.Context, generated string, k int) ([]lm.Candidate, error) {
	d, err := s.Session.Next(ctx, generated, k)
	if k > 0 && len(d) > k {
		d = d[:k]
	}
	return d, err
}

// A healing step asks the model for more than TopK candidates: the only one
// that writes the typed "S" is its 31st.
func TestTokenHealingLooksBeyondTopK(t *testing.T) {
	var first []lm.Candidate
	for i := range 30 {
		first = append(first, lm.Candidate{Text: fmt.Sprintf("x%d", i), LogProb: -1 - float64(i)/100})
	}
	first = append(first, lm.Candidate{Text: "StringBuilder", LogProb: -5})
	m := &topKModel{tableModel{next: map[string][]lm.Candidate{
		"":              first,
		"StringBuilder": {{Text: "();", LogProb: -0.1}},
	}}}
	c := &funcCompiler{f: func(string) []engine.CompileError { return nil }}
	s := newTestService(m, c, Options{TopK: 20})
	off := strings.Index(healDoc, "new S") + len("new S")
	got, err := s.Suggest(context.Background(), Request{URI: "file:///A.java", Text: healDoc, Offset: off})
	if err != nil || got == nil || got.Text != "tringBuilder();" {
		t.Fatalf("Suggest = %+v, %v; want tringBuilder();", got, err)
	}
}

// A name typed whole whose only copy was in the cut prompt: the model
// proposes nothing that writes it, and the typed part itself is offered as
// the first token, so the sample continues after it as without healing.
func TestTokenHealingOffersTheTypedPart(t *testing.T) {
	m := &tableModel{next: map[string][]lm.Candidate{
		"":    {{Text: "Foo", LogProb: -0.1}, {Text: "Bar", LogProb: -0.7}},
		"Sbx": {{Text: ".x();", LogProb: -0.1}},
	}}
	c := &funcCompiler{f: func(string) []engine.CompileError { return nil }}
	s := newTestService(m, c, Options{})
	doc := "class A {\n  void f() {\n    Sbx\n  }\n}\n"
	off := strings.Index(doc, "Sbx") + 3
	got, err := s.Suggest(context.Background(), Request{URI: "file:///A.java", Text: doc, Offset: off})
	if err != nil || got == nil || got.Text != ".x();" {
		t.Fatalf("Suggest = %+v, %v; want .x();", got, err)
	}
	d := withTyped([]lm.Candidate{{Text: "Sbxy", LogProb: -0.5}, {End: true, LogProb: -2}}, "Sbx")
	if len(d) != 3 || d[2] != (lm.Candidate{Text: "Sbx", LogProb: -2}) {
		t.Errorf("withTyped = %+v, want Sbx added last at -2", d)
	}
	if d := withTyped([]lm.Candidate{{Text: "Sbx", LogProb: -0.5}}, "Sbx"); len(d) != 1 {
		t.Errorf("withTyped = %+v, want it unchanged when the model proposes the typed part", d)
	}
}
