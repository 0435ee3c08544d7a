package cli

// corpus_integration_test.go checks issue 2's corpus criterion end to end:
// for every fixture of testdata/bugs, "repair" (full variant, embedded
// n-gram model, real JDT LS as completion engine and compiler) returns at
// least one compilable patch, and for some of them the developer's exact
// fix is among the candidates. It takes a few minutes (a JDT LS per
// project, Maven projects imported from the offline cache that
// scripts/warm-maven.sh fills).

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/corpus"
	"github.com/repilot-lsp/repilot-lsp/repair"
)

// corpusSeeds are tried in turn, per fixture, until one gives a compilable
// patch: one seed's 20 samples may all miss on a hard fixture, but a
// pipeline that cannot compile-check, prune or copy fails every seed.
var corpusSeeds = []int64{0, 1, 2}

// knownGaps are fixtures for which the embedded n-gram model finds no
// compilable patch yet. They run with the first seed only; the test logs the
// gap, and fails once one of them gets a compilable patch, so that the entry
// is removed. None at present: sensor-list-array-access, the last one, gets
// one since the receiver-type component (lm/ngram/typed.go) proposes
// readings.size() and the engine prunes names after names and calls.
var knownGaps = map[string]bool{}

func TestEveryFixtureGetsCompilablePatch(t *testing.T) {
	r := realRepairer(t)
	bugs, err := corpus.Load("../testdata/bugs")
	if err != nil {
		t.Fatal(err)
	}
	if len(bugs) < 10 {
		t.Fatalf("%d fixtures; issue 2 asks for at least 10", len(bugs))
	}
	exact := 0
	var summary []string
	for _, b := range bugs {
		text, err := os.ReadFile(b.FilePath())
		if err != nil {
			t.Fatal(err)
		}
		var (
			compilable *repair.Patch
			found      bool
			seedUsed   int64
			unique     int
		)
		seeds := corpusSeeds
		if knownGaps[b.ID] {
			seeds = seeds[:1]
		}
		for _, seed := range seeds {
			o := repair.DefaultOptions()
			o.Seed, o.KeepTop = seed, 1<<30
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
			res, err := r.Repair(ctx, repair.Request{Root: b.ProjectDir(), File: b.FilePath(), Text: string(text),
				StartLine: b.StartLine, EndLine: b.EndLine, Options: o}, nil)
			cancel()
			if err != nil {
				t.Fatalf("%s seed %d: %v", b.ID, seed, err)
			}
			unique, seedUsed = len(res.Candidates), seed
			for i, p := range res.Candidates {
				if p.Compilable && compilable == nil {
					compilable = &res.Candidates[i]
				}
				if repair.Normalize(p.Hunk) == repair.Normalize(b.FixedHunk) {
					found = true
				}
			}
			if compilable != nil {
				break
			}
		}
		if found {
			exact++
		}
		line := b.ID + ": "
		switch {
		case compilable == nil && knownGaps[b.ID]:
			t.Logf("KNOWN GAP %s: no compilable patch with seed %d (see knownGaps)", b.ID, corpusSeeds[0])
			line += "no compilable patch (known gap)"
		case compilable == nil:
			t.Errorf("%s: no compilable patch with seeds %v", b.ID, corpusSeeds)
			line += "no compilable patch"
		default:
			if knownGaps[b.ID] {
				t.Errorf("%s now gets a compilable patch: remove it from knownGaps", b.ID)
			}
			line += "compilable " + strings.TrimSpace(firstLine(compilable.Hunk))
		}
		summary = append(summary, fmt.Sprintf("%s (seed %d, %d unique, exact fix among them: %v)", line, seedUsed, unique, found))
	}
	t.Logf("per fixture:\n  %s", strings.Join(summary, "\n  "))
	if exact == 0 {
		t.Error("the developer's exact fix was among the candidates of no fixture")
	}
	t.Logf("exact fix among the candidates for %d of %d fixtures", exact, len(bugs))
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
