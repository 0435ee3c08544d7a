package engine

import (
	"strings"
	"testing"
)

// TestColumnZeroNextLine: when the line after the hunk starts at column 0
// with an identifier, the engine still decides member names (it separates
// the suffix from the caret with a newline), where it used to answer
// unknown because JDT LS's edit ranges ran past the caret. Simple names
// there are not recovered: JDT LS's lists for "names.add(s" and
// "names.add(fooBar" stayed unknown in two runs.
func TestColumnZeroNextLine(t *testing.T) {
	eng, root := sharedJDT(t)
	h, _ := hunkAt(t, root, "src/demo/Main.java", "names.add(g.getName());")
	h.Suffix = strings.TrimLeft(h.Suffix, " ") // "System.out.println(..." at column 0
	if !strings.HasPrefix(h.Suffix, "System.") {
		t.Fatalf("suffix %q", h.Suffix[:20])
	}
	s, err := eng.Open(ctxT(t), h)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	settle(t, s)
	runChecks(t, s, []checkCase{
		{ind + "g.", "greet", Feasible},
		{ind + "g.", "gxx", Infeasible},
		{ind + "names.add(g.", "getName", Feasible},
	})
	if st := s.Stats(); st.Errors != 0 {
		t.Errorf("answers rejected: %s", describe(st))
	}
}
