package lexical

import (
	"fmt"
	"runtime"
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
		name := fmt.Sprintf("readValue%d", i)
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
	if per := (after.TotalAlloc - before.TotalAlloc) / n; per > 5000 {
		t.Errorf("Upsert allocated %d bytes a unit for one-line methods, want at most 5000 (a term map a unit: 8,000)", per)
	}
	if x.Len() != n {
		t.Errorf("Len %d, want %d", x.Len(), n)
	}
	// The terms still count: every unit has "value".
	if got := x.df[x.termIDs[valueTerm()]]; got != n {
		t.Errorf("df(value) = %d, want %d", got, n)
	}
}

// valueTerm is the analysed term of "value".
func valueTerm() string {
	t, _ := tokenize.Default.Part("value")
	return t
}
