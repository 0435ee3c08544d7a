package lexical

import (
	"encoding/binary"
	"runtime"
	"strings"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/search/tokenize"
)

// TestReadStateBoundsAllocation: a damaged count of terms or documents in
// a saved state allocates at most 20 times the state's size before the
// decoding fails (each count is checked against the fewest bytes an item
// takes; a count of one byte per item made 97 and 181 times).
func TestReadStateBoundsAllocation(t *testing.T) {
	const size = 4 << 20
	for _, c := range []struct {
		name  string
		count uint64
		docs  bool
	}{
		{"terms, a byte each", size, false},
		{"terms, 6 bytes each", size / 6, false},
		{"docs, a byte each", size, true},
		{"docs, 14 bytes each", size / 14, true},
	} {
		var b []byte
		if c.docs {
			b = binary.AppendUvarint(nil, 0)   // no terms
			b = append(b, make([]byte, 16)...) // the two totals
			b = binary.AppendUvarint(b, 0)     // alive
		}
		b = binary.AppendUvarint(b, c.count)
		data := string(b) + strings.Repeat("\x00", size)
		x := NewBM25(tokenize.Default, DefaultWeights)
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		x.ReadState(data)
		runtime.ReadMemStats(&m1)
		if got := float64(m1.TotalAlloc-m0.TotalAlloc) / size; got > 20 {
			t.Errorf("%s: allocated %.0f times the state's size", c.name, got)
		}
	}
}
