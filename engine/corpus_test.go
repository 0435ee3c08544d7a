package engine

// corpus_test.go holds what the corpus soundness tests (soundness_test.go,
// subword_test.go) share: one JDT LS over copies of every fixture's project
// (testdata/bugs), started on first use and stopped after the tests, and
// forceFix, which forces a fixture's developer fix through a session token by
// token and fails the test for every token pruned (Repilot Definition 3.4).

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/corpus"
	"github.com/repilot-lsp/repilot-lsp/jdtls"
)

const corpusDir = "../testdata/bugs"

// modernDir holds fixtures whose fixes use Java 17-25 syntax, each in a
// Maven project set to its level (TestSoundnessModernFixtures).
const modernDir = "testdata/modern"

// corpusEngine is one JDT LS over copies of every fixture's project, shared
// by the corpus tests and stopped after them (cleanups).
var corpusEngine struct {
	once  sync.Once
	eng   *JDT
	bugs  []corpus.Bug
	roots []string
	// modern and modernRoots are modernDir's fixtures and their project
	// copies, workspace folders of the same JDT LS.
	modern      []corpus.Bug
	modernRoots []string
	err         error
	took        time.Duration
}

// corpusJDT returns the corpus engine, the fixtures and their project copies
// (roots[i] is bugs[i]'s), starting JDT LS on first use; it fails t when JDT
// LS does not start.
func corpusJDT(t testing.TB) (*JDT, []corpus.Bug, []string) {
	t.Helper()
	home := jdtHome(t)
	c := &corpusEngine
	c.once.Do(func() {
		c.bugs, c.err = corpus.Load(corpusDir)
		if c.err != nil {
			return
		}
		base, err := tempDir("repilot-engine-corpus-")
		if err != nil {
			c.err = err
			return
		}
		c.modern, c.err = corpus.Load(modernDir)
		if c.err != nil {
			return
		}
		copyAll := func(bugs []corpus.Bug, dir string) ([]string, error) {
			var roots []string
			for _, b := range bugs {
				dst := filepath.Join(base, dir, b.ID)
				if err := os.CopyFS(dst, os.DirFS(b.ProjectDir())); err != nil {
					return nil, err
				}
				roots = append(roots, dst)
			}
			return roots, nil
		}
		if c.roots, c.err = copyAll(c.bugs, "bugs"); c.err != nil {
			return
		}
		if c.modernRoots, c.err = copyAll(c.modern, "modern"); c.err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
		defer cancel()
		began := time.Now()
		c.eng, c.err = StartJDT(ctx, jdtls.Options{Home: home, Root: c.roots[0], Folders: append(c.roots[1:], c.modernRoots...),
			StateDir: filepath.Join(base, ".state"), Stderr: os.Stderr, HeapMB: 2048,
			Settings: map[string]any{"java.import.maven.offline.enabled": true}},
			WithRequestTimeout(2*time.Minute))
		c.took = time.Since(began)
		if c.eng != nil {
			eng := c.eng
			cleanups = append(cleanups, func() { eng.Close() })
		}
	})
	if c.err != nil {
		t.Fatalf("starting JDT LS on the bug corpus: %v", c.err)
	}
	return c.eng, c.bugs, c.roots
}

// openFixture opens a session on fixture b's buggy lines in its project copy
// root (the hunk the fix replaces).
func openFixture(ctx context.Context, t testing.TB, eng *JDT, b corpus.Bug, root string) Session {
	t.Helper()
	path := filepath.Join(root, filepath.FromSlash(b.File))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	prefix, buggy, suffix, err := corpus.Split(string(data), b.StartLine, b.EndLine)
	if err != nil {
		t.Fatalf("%s: %v", b.ID, err)
	}
	s, err := eng.Open(ctx, Hunk{URI: jdtls.FileURI(path), Prefix: prefix, Buggy: buggy, Suffix: suffix})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// forced counts the answers of one forceFix.
type forced struct {
	checks, feasible, unknown int
}

// forceFix checks toks, the tokens of b's fix in order, one by one in s (a
// fresh session on b's hunk) and fails t for each token answered Infeasible;
// split names the kind of tokens in messages. After each token that ends
// inside (or right before) an identifier of the fix, Complete there must,
// when it knows the names, list that identifier: Algorithm 3 must not
// complete towards a wrong name.
func forceFix(ctx context.Context, t testing.TB, s Session, b corpus.Bug, split string, toks []string) forced {
	t.Helper()
	var n forced
	gen := ""
	for _, tok := range toks {
		out, err := s.Check(ctx, gen, tok)
		if err != nil {
			t.Fatalf("%s: Check(%q, %q): %v", b.ID, gen, tok, err)
		}
		n.checks++
		switch out {
		case Infeasible:
			t.Errorf("%s (%s tokens): the fix's token %q after %q was pruned", b.ID, split, tok, gen)
		case Feasible:
			n.feasible++
		case Unknown:
			n.unknown++
		}
		gen += tok
		if word := wordAt(b.FixedHunk, len(gen)); word != "" {
			c, err := s.Complete(ctx, gen)
			if err != nil {
				t.Fatalf("%s: Complete(%q): %v", b.ID, gen, err)
			}
			if c.Known && !contains(c.Names, word) {
				t.Errorf("%s: Complete(%q) = %q, lacks the fix's %q", b.ID, gen, c.Names, word)
			}
		}
	}
	return n
}

// addStats adds a session's counters to a total.
func addStats(total *Stats, st Stats) {
	total.Checks += st.Checks
	total.Requests += st.Requests
	total.Errors += st.Errors
	total.SiteHits += st.SiteHits
}

// wordAt returns the identifier of s that contains (or starts at) offset i.
func wordAt(s string, i int) string {
	j := i
	for j < len(s) && isWordByte(s[j]) {
		j++
	}
	k := i
	for k > 0 && isWordByte(s[k-1]) {
		k--
	}
	return s[k:j]
}

func isWordByte(b byte) bool {
	return b == '_' || b == '$' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
}
