package cli

import (
	"testing"

	"github.com/repilot-lsp/repilot-lsp/inline"
)

// whyNothing names the samples rejected with no error on the inserted lines
// next to the rejected ones, and the other endings by their counts.
func TestWhyNothingCountsRejectedElsewhere(t *testing.T) {
	before := inline.Stats{Rejected: 3, RejectedElsewhere: 1, Unparsable: 2}
	after := inline.Stats{Rejected: 5, RejectedElsewhere: 2, Unparsable: 3, ChecksCut: 1}
	want := "rejected 2, of them only elsewhere 1, unparsable 1, check cut (deadline)"
	if got := whyNothing(before, after); got != want {
		t.Errorf("whyNothing = %q, want %q", got, want)
	}
	if got := whyNothing(after, after); got != "no sample" {
		t.Errorf("whyNothing with no change = %q, want %q", got, "no sample")
	}
}
