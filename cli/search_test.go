package cli

// search_test.go runs "search" and "bench search" end to end on a small
// project (offline: the lexical stream).

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/repilot-lsp/repilot-lsp/internal/testtree"
	"github.com/repilot-lsp/repilot-lsp/search"
	"github.com/repilot-lsp/repilot-lsp/search/bench"
	"github.com/repilot-lsp/repilot-lsp/search/dense"
	"github.com/repilot-lsp/repilot-lsp/search/lexical"
	"github.com/repilot-lsp/repilot-lsp/search/llm"
)

func searchProject(t *testing.T) string {
	t.Helper()
	files := map[string]string{
		"src/app/Dates.java": `package app;
public class Dates {
    /** Parses an ISO date string into a calendar date. */
    public static Date parseIsoDate(String text) {
        String[] parts = text.split("-");
        return new Date(parts[0], parts[1], parts[2]);
    }
    /** Formats a duration in seconds as hours and minutes. */
    public static String formatDuration(long seconds) {
        long h = seconds / 3600;
        return h + "h" + (seconds % 3600) / 60 + "m";
    }
}`,
		"tools/retry.py": `def retry_with_backoff(call, attempts=5):
    """Call a function again after failures, waiting longer each time."""
    delay = 0.1
    for _ in range(attempts):
        try:
            return call()
        except OSError:
            time.sleep(delay)
            delay *= 2
`,
	}
	return testtree.New(t, files)
}

// testSearchFlags are the defaults with the cache inside the project.
func testSearchFlags(root string) SearchFlags {
	f := defaultSearchFlags(root)
	f.CacheDir = filepath.Join(root, ".cache-test")
	return f
}

// TestOneSearchConfig: the editor ("serve"), "search" and "bench search"
// without flags configure the engine alike, with search.DefaultTuning (the
// editor once ran BM25F with name b = 0 from a struct literal that copied
// the flag defaults and missed one).
func TestOneSearchConfig(t *testing.T) {
	for _, env := range []string{llm.EnvChatURL, llm.EnvChatModel, llm.EnvEmbedURL, llm.EnvEmbedModel, EnvSearchTests} {
		t.Setenv(env, "")
	}
	t.Setenv("REPILOT_CACHE", t.TempDir())
	root := searchProject(t)
	editor, err := editorSearchConfig(root)
	if err != nil {
		t.Fatal(err)
	}
	parse := func(add func(*pflag.FlagSet)) {
		t.Helper()
		fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
		add(fs)
		if err := fs.Parse([]string{"--project", root}); err != nil {
			t.Fatal(err)
		}
	}
	var sf searchCmdFlags
	parse(sf.AddFlags)
	cli, err := sf.Config()
	if err != nil {
		t.Fatal(err)
	}
	var bf benchSearchFlags
	parse(func(fs *pflag.FlagSet) { bf.SearchFlags.AddFlags(fs); bf.TuningFlags.AddFlags(fs) })
	bcfg, err := bf.Config()
	if err != nil {
		t.Fatal(err)
	}
	tuning, err := bf.Tuning()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(editor, cli) || !reflect.DeepEqual(cli, bcfg) {
		t.Errorf("configurations differ:\neditor %+v\nsearch %+v\nbench  %+v", editor, cli, bcfg)
	}
	if !reflect.DeepEqual(tuning, search.DefaultTuning()) {
		t.Errorf("bench search's default tuning %+v,\nwant search.DefaultTuning() %+v", tuning, search.DefaultTuning())
	}
	// What the editor's engine runs with, not only what it was given.
	e, err := search.New(editor)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if got := *e.Config().Tuning; !reflect.DeepEqual(got, search.DefaultTuning()) || got.NameB != lexical.DefaultNameB {
		t.Errorf("editor engine's tuning %+v, want search.DefaultTuning()", got)
	}
}

func TestSearchCommand(t *testing.T) {
	root := searchProject(t)
	var out, errOut bytes.Buffer
	f := searchCmdFlags{SearchFlags: testSearchFlags(root), k: 3, jsonOut: true}
	if err := runSearch(context.Background(), f, "parse a date from a string", &out, &errOut); err != nil {
		t.Fatal(err)
	}
	var res struct {
		Hits []SearchHitJSON `json:"hits"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if len(res.Hits) == 0 || res.Hits[0].Name != "Dates.parseIsoDate" || res.Hits[0].Path != "src/app/Dates.java" ||
		res.Hits[0].Range.Start.Line != 3 || res.Hits[0].Score <= 0 {
		t.Errorf("hits %+v", res.Hits)
	}
	if !strings.Contains(errOut.String(), "indexed 2 files, 4 units") {
		t.Errorf("progress: %q", errOut.String())
	}
	// Text output, second run from the cache.
	out.Reset()
	errOut.Reset()
	f.jsonOut = false
	if err := runSearch(context.Background(), f, "retry with exponential backoff", &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), " 1. tools/retry.py:1:1  match  51%") || !strings.Contains(errOut.String(), "(2 files from cache)") {
		t.Errorf("text output %q, progress %q", out.String(), errOut.String())
	}
	// One rare word of five: a weak best hit is called so.
	out.Reset()
	if err := runSearch(context.Background(), f, "parse quantum chromodynamics lattice gauge", &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "no strong match") || !strings.Contains(out.String(), "Dates.parseIsoDate") {
		t.Errorf("weak match output %q", out.String())
	}
}

// TestSearchEmptyProject: a folder without code (a wrong --project) was
// answered "no code unit shares a word with the query ... try other words",
// which sends the user to rephrase a query that cannot match anything.
func TestSearchEmptyProject(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "notes.txt"), []byte("parse a date\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	f := searchCmdFlags{SearchFlags: testSearchFlags(root), k: 3}
	if err := runSearch(context.Background(), f, "parse a date", &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if want := "no results: " + root + " holds no Java, Python or Go code to search"; !strings.HasPrefix(out.String(), want) {
		t.Errorf("output %q, want it to start %q", out.String(), want)
	}
}

func TestSearchFlagErrors(t *testing.T) {
	root := searchProject(t)
	for _, c := range []struct {
		mutate func(*SearchFlags)
		want   string
	}{
		{func(f *SearchFlags) { f.Project = filepath.Join(root, "nope") }, "is not a directory"},
		{func(f *SearchFlags) { f.Streams = "lexical,magic" }, "--streams: search: unknown stream"},
		// The value may come from the environment: the message names it.
		{func(f *SearchFlags) { f.Tests = "maybe" }, "--tests: search: unknown test policy \"maybe\""},
		{func(f *SearchFlags) { f.Streams, f.EmbedURL, f.ChatURL = "dense", "", "" }, "--streams dense: no stream can run (lexical needs no model; dense needs --embed-url"},
		{func(f *SearchFlags) { f.Streams, f.EmbedURL, f.ChatURL = "rerank", "", "" }, "--streams rerank: no stream can run"},
		// The URL may come from the environment: the message names both.
		{func(f *SearchFlags) { f.EmbedURL = "http://127.0.0.1:1/v1" }, "--embed-url (env REPILOT_SEARCH_EMBED_URL) needs --embed-model (env REPILOT_SEARCH_EMBED_MODEL)"},
		{func(f *SearchFlags) { f.ChatURL = "http://127.0.0.1:1/v1" }, "--chat-url (env REPILOT_SEARCH_CHAT_URL) needs --chat-model (env REPILOT_SEARCH_CHAT_MODEL)"},
		// A server that is down: the error says how to search without it.
		{func(f *SearchFlags) { f.EmbedURL, f.EmbedModel = "http://127.0.0.1:1/v1", "m" }, "--streams lexical searches without it"},
	} {
		f := searchCmdFlags{SearchFlags: testSearchFlags(root), k: 3}
		c.mutate(&f.SearchFlags)
		err := runSearch(context.Background(), f, "x", &bytes.Buffer{}, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("want error containing %q, got %v", c.want, err)
		}
	}
}

// TestSearchLexicalSkipsEmbeddings: with an embeddings server that is down
// (set in the environment, say), --streams lexical still searches: the
// embeddings server is not asked.
func TestSearchLexicalSkipsEmbeddings(t *testing.T) {
	root := searchProject(t)
	f := searchCmdFlags{SearchFlags: testSearchFlags(root), k: 3}
	f.EmbedURL, f.EmbedModel, f.Streams = "http://127.0.0.1:1/v1", "m", "lexical"
	var out, errOut bytes.Buffer
	if err := runSearch(context.Background(), f, "x", &out, &errOut); err != nil {
		t.Fatalf("--streams lexical with a server that is down: %v\n%s", err, errOut.String())
	}
	if strings.Contains(errOut.String(), "embedded") {
		t.Errorf("the units were embedded: %s", errOut.String())
	}
}

func TestBenchSearchCommand(t *testing.T) {
	root := searchProject(t)
	var out bytes.Buffer
	f := benchSearchFlags{SearchFlags: testSearchFlags(root), jsonOut: true, perQuery: true, quiet: true}
	if err := runBenchSearch(context.Background(), f, &out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	var rep bench.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	// The three documented functions have 3+ code lines and 3+ query words;
	// each query finds its target first in so small a project.
	if rep.Queries != 3 || len(rep.Streams) != 2 || rep.Streams[0].Stream != "lexical" || rep.Streams[0].Success1 != 1 {
		t.Errorf("report %+v", rep)
	}
	for _, r := range rep.Results {
		if strings.Contains(r.Query, "@") || r.Ranks["lexical"] != 1 {
			t.Errorf("result %+v", r)
		}
	}
}

func TestBenchSearchTuningFlagErrors(t *testing.T) {
	root := searchProject(t)
	for _, c := range []struct {
		mutate func(*TuningFlags)
		want   string
	}{
		{func(f *TuningFlags) { f.Weights = "name=x" }, "--weights"},
		{func(f *TuningFlags) { f.Analyzer = "stem,bogus" }, "--analyzer"},
		{func(f *TuningFlags) { f.StreamW = "lexical" }, "--stream-weights"},
		{func(f *TuningFlags) { t := search.DefaultTuning(); t.Fusion = "borda"; f.tuning = &t }, "--fusion"},
		// A missing --queries file is named by its flag (before: "open
		// /nonexistent/q.jsonl: no such file or directory").
		{func(*TuningFlags) {}, "--queries: open /nonexistent/q.jsonl"},
	} {
		f := benchSearchFlags{SearchFlags: testSearchFlags(root), quiet: true}
		if strings.HasPrefix(c.want, "--queries") {
			f.queries = "/nonexistent/q.jsonl"
		}
		c.mutate(&f.TuningFlags)
		err := runBenchSearch(context.Background(), f, &bytes.Buffer{}, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("want error containing %q, got %v", c.want, err)
		}
	}
}

// TestEmbedPrefixFlags: the dense stream takes the model's own query
// prefix unless --embed-query-prefix says otherwise ("" for none).
func TestEmbedPrefixFlags(t *testing.T) {
	root := searchProject(t)
	for _, c := range []struct {
		args []string
		q, d string
	}{
		{[]string{"--embed-model", "bge-small-en-v1.5"}, dense.BGEQueryInstruction, ""},
		{[]string{"--embed-model", "all-MiniLM-L6-v2"}, "", ""},
		{[]string{"--embed-model", "bge-small-en-v1.5", "--embed-query-prefix", ""}, "", ""},
		{[]string{"--embed-model", "x", "--embed-query-prefix", "q: ", "--embed-doc-prefix", "p: "}, "q: ", "p: "},
	} {
		var f searchCmdFlags
		fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
		f.AddFlags(fs)
		args := append([]string{"--project", root, "--no-cache", "--embed-url", "http://127.0.0.1:1/v1"}, c.args...)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		cfg, err := f.Config()
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Dense.QueryPrefix != c.q || cfg.Dense.DocPrefix != c.d {
			t.Errorf("%v: prefixes %q, %q; want %q, %q", c.args, cfg.Dense.QueryPrefix, cfg.Dense.DocPrefix, c.q, c.d)
		}
	}
	// --embed-batch sizes both the store's batches and the requests.
	var f searchCmdFlags
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	f.AddFlags(fs)
	if err := fs.Parse([]string{"--project", root, "--no-cache", "--embed-url", "http://127.0.0.1:1/v1", "--embed-model", "m", "--embed-batch", "4"}); err != nil {
		t.Fatal(err)
	}
	cfg, err := f.Config()
	if err != nil {
		t.Fatal(err)
	}
	if emb, ok := cfg.Embedder.(*llm.OpenAIEmbedder); !ok || emb.Batch != 4 || cfg.Dense.Batch != 4 {
		t.Errorf("--embed-batch 4: embedder %#v, store batch %d", cfg.Embedder, cfg.Dense.Batch)
	}
	f.EmbedBatch = 0
	if _, err := f.Config(); err == nil {
		t.Error("--embed-batch 0 accepted")
	}
}

// TestSearchRefusesNonPositiveK: -k 0 and -k -1 used to be replaced by the
// default, 10, without a word; they are refused naming the flag.
func TestSearchRefusesNonPositiveK(t *testing.T) {
	root := searchProject(t)
	for _, k := range []int{0, -1} {
		f := searchCmdFlags{SearchFlags: testSearchFlags(root), k: k}
		var out bytes.Buffer
		err := runSearch(context.Background(), f, "x", &out, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), "-k") {
			t.Errorf("-k %d: err = %v; want an error naming -k", k, err)
		}
		if out.Len() != 0 {
			t.Errorf("-k %d printed results: %q", k, out.String())
		}
	}
	f := searchCmdFlags{SearchFlags: testSearchFlags(root), k: 1}
	if err := runSearch(context.Background(), f, "x", &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
		t.Errorf("-k 1: %v", err)
	}
}

// TestSearchBoundsQueryLength: the editor clips a query to
// search.MaxQueryBytes, the command line took any (a 63 KB query took
// 0.5-0.7 s on the Python standard library, warm). A longer one is refused before indexing, naming
// the bound; one at the bound searches.
func TestSearchBoundsQueryLength(t *testing.T) {
	root := searchProject(t)
	f := searchCmdFlags{SearchFlags: testSearchFlags(root), k: 3}
	var out, errOut bytes.Buffer
	err := runSearch(context.Background(), f, strings.Repeat("parse a date ", 500), &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "6499 bytes") || !strings.Contains(err.Error(), "4000 bytes") {
		t.Errorf("a 6,500-byte query: err = %v; want one naming its length and the 4000-byte bound", err)
	}
	if out.Len() != 0 || strings.Contains(errOut.String(), "indexed") {
		t.Errorf("a refused query indexed or printed: stdout %q, stderr %q", out.String(), errOut.String())
	}
	at := "parse a date " + strings.Repeat("x", search.MaxQueryBytes-len("parse a date "))
	if err := runSearch(context.Background(), f, at, &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
		t.Errorf("a query at the bound: %v", err)
	}
}

// TestSearchTestsPolicyNamesItsSource: a bad test policy names where it
// came from: $REPILOT_SEARCH_TESTS for the editor (which has no --tests) and
// for the CLI without the flag, --tests when given. Before, the editor's
// error named --tests.
func TestSearchTestsPolicyNamesItsSource(t *testing.T) {
	t.Setenv("REPILOT_CACHE", t.TempDir())
	root := searchProject(t)
	t.Setenv(EnvSearchTests, "bogus")
	if _, err := editorSearchConfig(root); err == nil || !strings.Contains(err.Error(), "$"+EnvSearchTests) {
		t.Errorf("editor: err = %v; want it to name $%s", err, EnvSearchTests)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--project", root}, "$" + EnvSearchTests},
		{[]string{"--project", root, "--tests", "wrong"}, "--tests"},
	} {
		var sf searchCmdFlags
		fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
		sf.AddFlags(fs)
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		if _, err := sf.Config(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err = %v; want it to name %s", c.args, err, c.want)
		}
	}
}

// TestSearchModelURLsAreChecked: a chat or embeddings URL that is not an
// http(s) URL is refused before indexing, naming the flag and its variable
// and never the URL's password. Before, the search indexed, then each
// stream failed with Go's "unsupported protocol scheme", naming neither.
func TestSearchModelURLsAreChecked(t *testing.T) {
	t.Setenv("REPILOT_CACHE", t.TempDir())
	root := searchProject(t)
	for _, c := range []struct {
		set  func(*SearchFlags)
		want string
	}{
		{func(f *SearchFlags) { f.ChatURL, f.ChatModel = "localhost:8080", "m" }, "--chat-url (env " + llm.EnvChatURL + ")"},
		{func(f *SearchFlags) { f.ChatURL, f.ChatModel = "ftp://u:secret@h/v1", "m" }, "--chat-url (env " + llm.EnvChatURL + ")"},
		{func(f *SearchFlags) { f.EmbedURL, f.EmbedModel = "127.0.0.1:8081/v1", "m" }, "--embed-url (env " + llm.EnvEmbedURL + ")"},
	} {
		f := testSearchFlags(root)
		c.set(&f)
		if _, err := f.Config(); err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "secret") {
			t.Errorf("err = %v; want an error naming %s, without the password", err, c.want)
		}
	}
}

// TestSearchChatContext: --chat-context (env REPILOT_SEARCH_CHAT_CONTEXT)
// reaches the chat model's fit (hosted APIs report no context, and got the
// 4,096-token default with no way to change it); a value that is not a
// whole number of at least 1,024 tokens is refused before indexing, with
// or without a chat server, naming the flag or the variable it came from.
func TestSearchChatContext(t *testing.T) {
	t.Setenv("REPILOT_CACHE", t.TempDir())
	root := searchProject(t)
	parse := func(args ...string) (search.Config, error) {
		t.Helper()
		var sf searchCmdFlags
		fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
		sf.AddFlags(fs)
		if err := fs.Parse(append([]string{"--project", root}, args...)); err != nil {
			t.Fatal(err)
		}
		return sf.Config()
	}
	server := []string{"--chat-url", "http://127.0.0.1:1/v1", "--chat-model", "m"}
	cfg, err := parse(append(server, "--chat-context", "32768")...)
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := cfg.Chat.(*llm.OpenAIChat); !ok || c.ContextTokens() != 32768 {
		t.Errorf("chat %#v: want an OpenAIChat with a context of 32768 tokens", cfg.Chat)
	}
	if cfg, err := parse(server...); err != nil || cfg.Chat.(*llm.OpenAIChat).ContextTokens() != 0 {
		t.Errorf("no --chat-context: %v; want the server's report (0)", err)
	}
	for _, c := range []struct {
		args []string
		env  string
		want string
	}{
		{[]string{"--chat-context", "512"}, "", `--chat-context "512"`},
		{append(server, "--chat-context", "32k"), "", `--chat-context "32k"`},
		{nil, "lots", `$` + llm.EnvChatContext + ` "lots"`},
		{append(server, "--chat-context", "-1"), "8192", `--chat-context "-1"`},
	} {
		t.Setenv(llm.EnvChatContext, c.env)
		if _, err := parse(c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q with $%s=%q: err = %v; want it to name %s", c.args, llm.EnvChatContext, c.env, err, c.want)
		}
	}
	t.Setenv(llm.EnvChatContext, "8192")
	if cfg, err := parse(server...); err != nil || cfg.Chat.(*llm.OpenAIChat).ContextTokens() != 8192 {
		t.Errorf("$%s=8192: %v", llm.EnvChatContext, err)
	}
	if cfg, err := editorSearchConfig(root); err != nil || cfg.Chat != nil {
		t.Errorf("editor without a chat server: %v", err)
	}
}
