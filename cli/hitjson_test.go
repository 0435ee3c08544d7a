package cli

import (
	"encoding/json"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/search"
	"github.com/repilot-lsp/repilot-lsp/search/units"
	"github.com/repilot-lsp/repilot-lsp/textpos"
)

// TestHitJSONShape pins the JSON of a "search --json" hit, field by field
// and in order: the fields of search.HitView sit flat after path and range,
// as when the struct listed them itself.
func TestHitJSONShape(t *testing.T) {
	u := units.Unit{Path: "src/A.java", Kind: units.Method, Name: "f", Container: "A", Signature: "int f(int x)",
		Code: "int f(int x) {\n  return x;\n}", Start: textpos.Position{Line: 1, Character: 2}, End: textpos.Position{Line: 3, Character: 3}}
	o := u
	o.Signature = "int f()"
	h := search.Hit{Unit: u, Score: 1, Match: 0.5, Ranks: map[string]int{"lexical": 1}, Overloads: []units.Unit{o}}
	b, err := json.Marshal(hitJSON(h))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"path":"src/A.java","range":{"start":{"line":1,"character":2},"end":{"line":3,"character":3}},` +
		`"score":1,"match":0.5,"name":"A.f","kind":"method","signature":"int f(int x)",` +
		`"snippet":"int f(int x) {\n  return x;\n}","ranks":{"lexical":1},"overloads":["int f()"]}`
	if string(b) != want {
		t.Errorf("hit JSON\n got %s\nwant %s", b, want)
	}
}
