package engine

import (
	"strings"
	"testing"
)

// TestVerifyKeepsOwnTextMemberList: a prune that also rests on a
// simple-name list (two answers) asks that list again in Check's verifying
// pass, but not a member list JDT LS answered for this site's own text
// (Origin): one answer suffices for it (TestPruneOnOwnAnswerConfirmsSharedList),
// and asking it again repeated the same request on the same text. A list
// shared from another site is still asked again at this one.
func TestVerifyKeepsOwnTextMemberList(t *testing.T) {
	f := newFakePeer()
	s := fakeSession(t, f)
	checkAll(t, s, []checkCase{{ind + "lo = names.add(priorCount", ")", Infeasible}})
	got := strings.Join(f.requests(), ",")
	if strings.Count(got, "simple:priorCount") != 2 {
		t.Errorf("requests %v, want two answers for the simple name", got)
	}
	if strings.Count(got, "member:names") != 1 {
		t.Errorf("requests %v, want the member list of this text asked once", got)
	}
}
