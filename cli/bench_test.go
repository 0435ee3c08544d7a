package cli

// bench_test.go checks the bug selection shared by bench repair and bench
// engine (corpusFlags).

import (
	"strings"
	"testing"
)

func TestCorpusFlagsLoad(t *testing.T) {
	all, err := corpusFlags{dir: "../testdata/bugs"}.load()
	if err != nil || len(all) < 2 {
		t.Fatalf("whole corpus: %d bugs, %v", len(all), err)
	}
	want := []string{all[1].ID, all[0].ID}
	sel, err := corpusFlags{dir: "../testdata/bugs", only: want}.load()
	if err != nil || len(sel) != 2 || sel[0].ID != all[0].ID || sel[1].ID != all[1].ID {
		t.Errorf("--bug %v: %v %v, want both in corpus order", want, sel, err)
	}
	_, err = corpusFlags{dir: "../testdata/bugs", only: []string{all[0].ID, "no-such-bug"}}.load()
	if err == nil || !strings.Contains(err.Error(), "no-such-bug") || strings.Contains(err.Error(), all[0].ID) {
		t.Errorf("an unknown id among known ones: %v, want an error naming only the unknown id", err)
	}
}
