package repair

import "testing"

// TestCandidateSetMerge: the buggy hunk's program is dropped and counted;
// equivalent spellings merge into one candidate at the first one's place,
// with the summed count, the first sample, and the text of the better
// scored (the earlier on a tie).
func TestCandidateSetMerge(t *testing.T) {
	site := hunkSite{Prefix: "class A {\n  void f() {\n", Buggy: "    int x = 1;\n", Suffix: "  }\n}\n"}
	s := newCandidateSet(newEquivKeyer(site), site.Buggy)
	st := &Stats{}
	type want struct {
		j                int
		added, respelled bool
	}
	for _, c := range []struct {
		cand candidate
		want want
	}{
		{candidate{text: "    int x  = 1;\n", sample: 0, count: 1, logProb: -1}, want{-1, false, false}}, // the buggy hunk, spelled otherwise
		{candidate{text: "    int x = 2;\n", sample: 1, count: 1, logProb: -3}, want{0, true, false}},
		{candidate{text: "    int y = 2;\n", sample: 2, count: 1, logProb: -2}, want{1, true, false}},
		{candidate{text: "    int x =2;\n", sample: 3, count: 1, logProb: -3}, want{0, false, false}},  // a tie: the earlier text stays
		{candidate{text: "    int x = 2 ;\n", sample: 4, count: 1, logProb: -1}, want{0, false, true}}, // better scored: its text
	} {
		j, added, respelled := s.merge(c.cand, st)
		if got := (want{j, added, respelled}); got != c.want {
			t.Errorf("merge(%q) = %+v, want %+v", c.cand.text, got, c.want)
		}
	}
	if st.SameAsBuggy != 1 || len(s.cands) != 2 {
		t.Fatalf("SameAsBuggy %d, %d candidates; want 1, 2", st.SameAsBuggy, len(s.cands))
	}
	if c := s.cands[0]; c.text != "    int x = 2 ;\n" || c.count != 3 || c.sample != 1 || c.logProb != -1 {
		t.Errorf("merged candidate %+v, want the text of sample 4, count 3, first sample 1", c)
	}
	if got := dedupe([]candidate{{text: "    int x = 1;\n", count: 1}, {text: "    int y = 2;\n", count: 1}}, s.keys, site.Buggy, st); len(got) != 1 || st.Unique != 1 || st.SameAsBuggy != 2 {
		t.Errorf("dedupe: %d candidates, Unique %d, SameAsBuggy %d; want 1, 1, 2", len(got), st.Unique, st.SameAsBuggy)
	}
}
