package cli

// bench_test.go checks the bug selection shared by bench repair and bench
// engine (corpusFlags) and bench inline's carets (linePositions).

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/bench/enginebench"
	"github.com/repilot-lsp/repilot-lsp/javalex"
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
	// Run outside the repository's root, the default corpus is not found:
	// the error names the flag and where the default is.
	_, err = corpusFlags{dir: defaultCorpus}.load()
	if err == nil || !strings.Contains(err.Error(), "--corpus testdata/bugs is not a directory") || !strings.Contains(err.Error(), "relative to the repository's root") {
		t.Errorf("a missing corpus: %v", err)
	}
}

// With mid set, every bench inline caret sits inside an identifier of the
// statement (after mid(n) of its n bytes) and the text removed is the rest
// of the line from there; without, carets follow whole tokens.
func TestLinePositionsMidIdentifier(t *testing.T) {
	src := "class A {\n  void f() {\n    StringBuilder sb = new StringBuilder();\n    sb.append(x);\n  }\n}\n"
	whole := linePositions("A.java", src, nil)
	mid := linePositions("A.java", src, func(n int) int { return 1 })
	if len(whole) == 0 || len(mid) == 0 {
		t.Fatalf("positions: %d after whole tokens, %d inside identifiers; want some of each", len(whole), len(mid))
	}
	var got []string
	for _, p := range mid {
		if !javalex.IsIdentPart(rune(src[p.caret-1])) || !javalex.IsIdentPart(rune(src[p.caret])) {
			t.Errorf("caret %d (%q|%q) is not inside an identifier", p.caret, src[p.caret-3:p.caret], src[p.caret:p.caret+3])
		}
		got = append(got, p.removed())
	}
	// "x" has one byte: no caret inside it.
	want := []string{"tringBuilder sb = new StringBuilder();", "b = new StringBuilder();", "tringBuilder();", "b.append(x);", "ppend(x);"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("removed texts %q, want %q", got, want)
	}
	for _, p := range whole {
		if javalex.IsIdentPart(rune(src[p.caret])) && javalex.IsIdentPart(rune(src[p.caret-1])) {
			t.Errorf("caret %d inside an identifier without mid", p.caret)
		}
	}
}

// TestInlinePositionsOpensOnlyRegularFiles: bench inline's caret picking
// skips a FIFO named like a Java file (its open waited for a writer for
// good) and does not read a file over its bound (a sparse 256 MiB one was
// read whole before being skipped).
func TestInlinePositionsOpensOnlyRegularFiles(t *testing.T) {
	root := writeProject(t)
	fifo := filepath.Join(root, "src/F.java")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	huge := filepath.Join(root, "src/Huge.java")
	if err := os.WriteFile(huge, []byte("class Huge {\n  int f() {\n    return 1;\n  }\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(huge, 256<<20); err != nil {
		t.Fatal(err)
	}
	type result struct {
		ps  []inlinePos
		err error
	}
	done := make(chan result, 1)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	go func() {
		ps, err := inlinePositions(root, 100, 100, 1, false)
		done <- result{ps, err}
	}()
	select {
	case r := <-done:
		runtime.ReadMemStats(&after)
		if r.err != nil {
			t.Fatal(r.err)
		}
		for _, p := range r.ps {
			if filepath.Base(p.file) != "A.java" {
				t.Errorf("a caret in %s", p.file)
			}
		}
		if len(r.ps) == 0 {
			t.Error("no caret in A.java")
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > 64<<20 {
			t.Errorf("allocated %d MiB: the file over the bound was read", n>>20)
		}
	case <-time.After(20 * time.Second):
		// Let the blocked open return before failing.
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		t.Fatal("inlinePositions still blocked after 20s: it opened the FIFO")
	}
}

// TestSoundnessErr: bench engine's verdict fails on a pruned fix token and on
// a fix end pruned before its mutation, and only then; it is the same call in
// text and --json mode (before, --json exited 0 whatever was pruned).
func TestSoundnessErr(t *testing.T) {
	if err := soundnessErr(&enginebench.Report{}); err != nil {
		t.Fatalf("clean report: %v", err)
	}
	pruned := &enginebench.Report{Soundness: enginebench.Soundness{Pruned: 1}}
	if err := soundnessErr(pruned); err == nil || !strings.Contains(err.Error(), "1 unmutated") {
		t.Fatalf("pruned token: %v", err)
	}
	early := &enginebench.Report{Member: enginebench.KindResult{Early: 2}}
	if err := soundnessErr(early); err == nil || !strings.Contains(err.Error(), "2 before a mutation") {
		t.Fatalf("early end: %v", err)
	}
}
