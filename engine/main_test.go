package engine

// main_test.go starts the JDT LS that this package's integration tests share
// (one per test package, started on first use) on a temporary copy of
// testdata/project, and stops it after the tests.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/internal/realpart"
	"github.com/repilot-lsp/repilot-lsp/jdtls"
	"github.com/repilot-lsp/repilot-lsp/textpos"
)

var shared struct {
	once sync.Once
	eng  *JDT
	root string // the project copy
	err  error
	took time.Duration
	// optCalls counts the calls of an option given to the shared start
	// (TestStartJDTAppliesOptionsOnce).
	optCalls int
}

var cleanups []func()

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.eng != nil {
		_ = shared.eng.Close()
	}
	// Last in, first out, as defer runs: a server registered after its
	// directory is closed before the directory is removed (JDT LS writes
	// its workspace metadata while it shuts down, and would leave a .state
	// behind in a directory already removed).
	for i := len(cleanups) - 1; i >= 0; i-- {
		cleanups[i]()
	}
	os.Exit(code)
}

// jdtHome returns the JDT LS install, or skips/fails the test as the team
// rule says: fail with how to install it, unless REPILOT_SKIP_JDTLS=1.
func jdtHome(t testing.TB) string {
	t.Helper()
	home, err := jdtls.ResolveHome("")
	realpart.JDTLS.Require(t, err)
	return home
}

// tempDir is a directory removed after all tests (t.TempDir would vanish with
// the first test while the shared server still uses it).
func tempDir(pattern string) (string, error) {
	d, err := os.MkdirTemp("", pattern)
	if err == nil {
		cleanups = append(cleanups, func() { os.RemoveAll(d) })
	}
	return d, err
}

// copyProject copies a testdata project to a fresh directory, so that JDT LS
// never writes into the repository.
func copyProject(src string) (string, error) {
	d, err := tempDir("repilot-engine-project-")
	if err != nil {
		return "", err
	}
	if err := os.CopyFS(d, os.DirFS(src)); err != nil {
		return "", err
	}
	return d, nil
}

// sharedJDT returns the package's engine, starting it on first use.
func sharedJDT(t testing.TB) (*JDT, string) {
	t.Helper()
	home := jdtHome(t)
	shared.once.Do(func() {
		root, err := copyProject("testdata/project")
		if err != nil {
			shared.err = err
			return
		}
		state, err := tempDir("repilot-engine-state-")
		if err != nil {
			shared.err = err
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		began := time.Now()
		// A generous request timeout: on a loaded machine the first answers
		// (JDK indexing) can exceed the default, and a timeout is Unknown.
		shared.eng, shared.err = StartJDT(ctx, jdtls.Options{Home: home, Root: root, StateDir: state, Stderr: os.Stderr},
			WithRequestTimeout(2*time.Minute), func(*jdtConfig) { shared.optCalls++ })
		shared.took = time.Since(began)
		shared.root = root
	})
	if shared.err != nil {
		t.Fatalf("starting the shared JDT LS: %v", shared.err)
	}
	return shared.eng, shared.root
}

// hunkAt splits file (relative to root) around its first line containing
// marker: the hunk is that whole line.
func hunkAt(t testing.TB, root, file, marker string) (Hunk, string) {
	t.Helper()
	path := filepath.Join(root, filepath.FromSlash(file))
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	i := strings.Index(text, marker)
	if i < 0 {
		t.Fatalf("%s has no %q", file, marker)
	}
	start := strings.LastIndex(text[:i], "\n") + 1
	end := i + strings.Index(text[i:], "\n") + 1
	return Hunk{URI: jdtls.FileURI(path), Prefix: text[:start], Suffix: text[end:]}, text[start:end]
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func describe(st Stats) string {
	return fmt.Sprintf("checks=%d requests=%d errors=%d site-cache-hits=%d", st.Checks, st.Requests, st.Errors, st.SiteHits)
}

// settle waits, at most 2 minutes, until the shadow JDT LS answers a
// completion in s's document for the text it was last sent, before a test
// requires decisions from s's first requests. JDT LS 1.60 answers the first
// completion after a document's didOpen for the opened text at times (an
// item ending at 13:5, at 13:27, not at the caret). Measured here with step
// 5b's command: TestSoundnessMemberListsAcrossOperators's first request on
// Main.java was answered so in 2 of 6 runs; with a request on Main.java
// asked first, right after the start, that request was not answered for
// its text in 3 of 4 runs and the test's own first request, in a new
// didOpen, once more in 1 of 4. The engine reads such an answer as unknown
// (Stats.Errors, a decision lost), or, where its edit ranges happen to end at
// the caret, cannot tell it apart. Each try declares a new local
// repilotSettle<k> at the hunk start and completes "repilotSettle" after
// it: only the text sent lists that local. The requests are s's (counted in
// its Stats.Requests as "simple-hunk", never cached); a note on stderr says
// how many tries it took when more than one; past the bound the test goes
// on (and decides).
func settle(t testing.TB, s Session) {
	t.Helper()
	js := s.(*jdtSession)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for try := 1; ctx.Err() == nil; try++ {
		local := fmt.Sprintf("repilotSettle%d", try)
		head := js.h.Prefix + "        String " + local + " = \"\";\n        repilotSettle"
		text := head + ";\n" + js.h.Suffix
		m := textpos.New(text)
		l, err := js.request(ctx, "simple-hunk", text, m.Position(len(head)))
		if err == nil {
			if ml, ok := newSimpleList(l, text, m, len(head)-len("repilotSettle"), len(head)); ok && contains(ml.Names, local) {
				if try > 1 {
					fmt.Fprintf(os.Stderr, "engine tests: %s answered for the text sent on try %d\n", t.Name(), try)
				}
				return
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(500 * time.Millisecond):
		}
	}
	fmt.Fprintf(os.Stderr, "engine tests: %s: JDT LS did not answer for the text sent in 2 minutes\n", t.Name())
}

// TestStartJDTAppliesOptionsOnce: StartJDT applies each option once. It used
// to apply them twice (once for jdtls.Options.ShortLived, again in NewJDT),
// harmless for today's setters but wrong for any option with an effect.
func TestStartJDTAppliesOptionsOnce(t *testing.T) {
	sharedJDT(t)
	if shared.optCalls != 1 {
		t.Errorf("StartJDT called an option %d times, want 1", shared.optCalls)
	}
}
