package enginebench

import (
	"reflect"
	"strings"
	"testing"
)

// TestRunStateRestore: a fixture cut short by Ctrl-C is taken back out of
// the report: what it added to the soundness counts, PrunedAt, Notes,
// Mutants and the kinds is undone, and what came before stays.
func TestRunStateRestore(t *testing.T) {
	rep := &Report{Soundness: Soundness{Hunks: 1, Checks: 10, PrunedAt: []string{"a"}}, Notes: []string{"n1"},
		Mutants: []MutantResult{{Bug: "one"}}}
	kinds := map[Kind]*KindResult{MemberTypo: {Kind: MemberTypo, Sites: 2, Mutants: 1}, NewType: {Kind: NewType}}
	wantRep := &Report{Soundness: rep.Soundness, Notes: []string{"n1"}, Mutants: []MutantResult{{Bug: "one"}}}
	wantRep.Soundness.PrunedAt = []string{"a"}
	wantKinds := map[Kind]KindResult{MemberTypo: *kinds[MemberTypo], NewType: *kinds[NewType]}

	st := saveRun(rep, kinds)
	rep.Soundness.Hunks++
	rep.Soundness.Checks += 7
	rep.Soundness.PrunedAt = append(rep.Soundness.PrunedAt, "b")
	rep.Notes = append(rep.Notes, "n2")
	rep.Mutants = append(rep.Mutants, MutantResult{Bug: "two"})
	kinds[MemberTypo].Sites++
	kinds[NewType].Mutants++
	st.restore(rep, kinds)

	if !reflect.DeepEqual(rep, wantRep) {
		t.Errorf("report after restore %+v, want %+v", rep, wantRep)
	}
	for k, want := range wantKinds {
		if *kinds[k] != want {
			t.Errorf("%s after restore %+v, want %+v", k, *kinds[k], want)
		}
	}
}

// TestPrintInterrupted: an interrupted report says how far it got.
func TestPrintInterrupted(t *testing.T) {
	for _, c := range []struct {
		rep  Report
		want string
	}{
		{Report{Fixtures: 5, Finished: 2, Interrupted: true}, "engine benchmark: 5 fixtures, seed 0 (interrupted: 2 of 5 fixtures, no speed measurement)\n"},
		{Report{Fixtures: 5, Finished: 5, Interrupted: true, Speed: []Speed{{Mode: "site cache"}}}, "(interrupted in the speed measurement: 1 of 2 modes)\n"},
		{Report{Fixtures: 5, Finished: 5}, "engine benchmark: 5 fixtures, seed 0\n"},
	} {
		var b strings.Builder
		c.rep.Print(&b, false)
		if first, _, _ := strings.Cut(b.String(), "\n"); !strings.HasSuffix(first+"\n", c.want) {
			t.Errorf("first line %q, want it to end %q", first, c.want)
		}
	}
}
