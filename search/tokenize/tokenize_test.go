package tokenize

import (
	"reflect"
	"strings"
	"testing"
)

func TestSplit(t *testing.T) {
	cases := map[string]string{
		"parseHTTPRequest_v2": "parse HTTP Request v2",
		"HTTPServer":          "HTTP Server",
		"getX":                "get X",
		"snake_case_name":     "snake case name",
		"__init__":            "init",
		"Base64Encoder":       "Base64 Encoder",
		"utf8":                "utf8",
		"ABC":                 "ABC",
		"$jacoco_Data":        "jacoco Data",
		"größeÄnderung":       "größe Änderung",
	}
	for in, want := range cases {
		if got := strings.Join(Split(in, nil), " "); got != want {
			t.Errorf("Split(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAnalyzer(t *testing.T) {
	got := Default.Terms("Returns the parsedValues of getHTTPHeaders() in a list_of_items.", nil)
	want := []string{"return", "parsedvalues", "pars", "valu", "gethttpheaders", "get", "http", "header", "list_of_items", "list", "of", "item"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	plain := Analyzer{}.Terms("getValue x", nil)
	if !reflect.DeepEqual(plain, []string{"get", "value", "x"}) {
		t.Errorf("zero analyzer: %q", plain)
	}
	toks := Default.Tokens("a fooBar baz")
	if len(toks) != 4 || toks[0].Pos != 0 || toks[3] != (Token{"baz", 1}) {
		t.Errorf("positions: %+v", toks)
	}
}

// TestStopParts: stop words inside multi-part identifiers are kept as terms
// (a predicate "is", a conversion "to"), stop words of prose are dropped,
// and DropStopParts restores the old behaviour.
func TestStopParts(t *testing.T) {
	got := Default.Terms("Tests if it is empty: isEmpty toArray", nil)
	want := []string{"test", "empti", "isempty", "is", "empti", "toarray", "to", "arrai"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	a := Default
	a.DropStopParts = true
	got = a.Terms("isEmpty toArray", nil)
	want = []string{"isempty", "empti", "toarray", "arrai"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("DropStopParts: got %q\nwant %q", got, want)
	}
	noStop := Analyzer{Stop: false, MinLen: 2}
	if got := noStop.Terms("is isEmpty", nil); !reflect.DeepEqual(got, []string{"is", "is", "empty"}) {
		t.Errorf("without Stop: %q", got)
	}
}

func TestSynonyms(t *testing.T) {
	has := func(w, want string) bool {
		for _, s := range Synonyms(w) {
			if s == want {
				return true
			}
		}
		return false
	}
	for _, c := range [][2]string{{"change", "set"}, {"changes", "set"}, {"changing", "update"},
		{"call", "invoke"}, {"cut", "truncate"}, {"lazily", "lazy"}, {"whether", "is"}} {
		if !has(c[0], c[1]) {
			t.Errorf("Synonyms(%q) = %v, want %q among them", c[0], Synonyms(c[0]), c[1])
		}
	}
	if s := Synonyms("xyzzy"); s != nil {
		t.Errorf("Synonyms(xyzzy) = %v, want nil", s)
	}
	for k, vs := range synonyms {
		for _, v := range vs {
			if synonymKey(v) == k {
				t.Errorf("synonyms of %q hold the word itself (%q)", k, v)
			}
		}
	}
}
