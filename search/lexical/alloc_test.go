package lexical

import (
	"runtime"
	"strings"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/search/tokenize"
	"github.com/repilot-lsp/repilot-lsp/search/units"
)

// TestUpsertManySmallUnits: a batch of one-line methods (a generated file of
// 60,000 of them is 2 MB) costs the index about what their terms need, not
// a term map per unit kept until the batch is merged (4 KiB a unit, most of
// the heap when such a file was indexed).
func TestUpsertManySmallUnits(t *testing.T) {
	const n = 20000
	us := make([]units.Unit, n)
	for i := range us {
		name := "readValue" + suffix(i)
		us[i] = units.Unit{ID: "Big.java#Big." + name, Path: "Big.java", Lang: "java", Kind: units.Method,
			Name: name, Container: "Big", Signature: "int " + name + "(int x)", Code: "int " + name + "(int x){return x;}"}
	}
	x := NewBM25(tokenize.Default, DefaultWeights)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if err := x.Upsert(us); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / n; per > 6000 {
		t.Errorf("Upsert allocated %d bytes a unit for one-line methods, want at most 6000 (with a term map a unit: 9,000)", per)
	}
	if x.Len() != n {
		t.Errorf("Len %d, want %d", x.Len(), n)
	}
	// The terms still count: every unit has "value".
	if id, ok := x.termIDs[valueTerm()]; !ok || x.df[id] != n {
		t.Errorf("value: term %v, want df %d", ok, n)
	}
	last, _ := tokenize.Default.Part(strings.ToLower(suffix(n - 1)))
	if id, ok := x.termIDs[last]; !ok || x.df[id] != 1 {
		t.Errorf("%s: term %v, want df 1", last, ok)
	}
}

// suffix names unit i with letters ("Ab": one more name part).
func suffix(i int) string {
	b := []byte{'A' + byte(i%26)}
	for i /= 26; i > 0; i /= 26 {
		b = append(b, 'a'+byte(i%26))
	}
	return string(b)
}

// valueTerm is the analysed term of "value" (a stem).
func valueTerm() string {
	t, _ := tokenize.Default.Part("value")
	return t
}
