package cli

// search.go is "repilot-lsp search": semantic search in a project from the
// command line, and the flags that configure the search engine (shared with
// "bench search" and usable by "serve").

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/repilot-lsp/repilot-lsp/internal/oaihttp"
	lmopenai "github.com/repilot-lsp/repilot-lsp/lm/openai"
	"github.com/repilot-lsp/repilot-lsp/proxy"
	"github.com/repilot-lsp/repilot-lsp/proxy/feature/searchfeat"
	"github.com/repilot-lsp/repilot-lsp/search"
	"github.com/repilot-lsp/repilot-lsp/search/dense"
	"github.com/repilot-lsp/repilot-lsp/search/index"
	"github.com/repilot-lsp/repilot-lsp/search/lexical"
	"github.com/repilot-lsp/repilot-lsp/search/llm"
	"github.com/repilot-lsp/repilot-lsp/search/tokenize"
	"github.com/repilot-lsp/repilot-lsp/search/units"
	"github.com/repilot-lsp/repilot-lsp/textpos"
)

// SearchFlags are the user's settings of the search engine: the project,
// caches, streams and models. "search" and "bench search" register them;
// the editor ("serve") takes the same defaults (defaultSearchFlags) with the
// models from the environment. The ranking parameters are not here: they
// have one default (search.DefaultTuning), which only "bench search" can
// change (TuningFlags).
type SearchFlags struct {
	Project   string
	CacheDir  string
	NoCache   bool
	Streams   string
	ChatURL   string
	ChatModel string
	// ChatContext is the chat server's context for one request, in tokens
	// (llm.Config.ContextTokens), as given: empty for what the server
	// reports (llama-server's /props, vLLM's max_model_len), else
	// lm/openai's DefaultContextTokens, 4,096; hosted APIs report none.
	ChatContext string
	EmbedURL    string
	EmbedModel  string
	EmbedChars  int
	// EmbedBatch is the number of texts per embedding request: each must
	// finish within the client's time limit (120 s), so a slow CPU server
	// needs a smaller one.
	EmbedBatch int
	// EmbedQueryPrefix and EmbedDocPrefix go before each query and unit
	// sent to the embedding model; "auto" (the default) takes the known
	// model's (dense.PrefixesFor: bge's query instruction, e5's "query: ").
	EmbedQueryPrefix string
	EmbedDocPrefix   string
	Tests            string
}

// autoPrefix is the EmbedQueryPrefix and EmbedDocPrefix value that means
// "the model's own" (dense.PrefixesFor).
const autoPrefix = "auto"

// EnvSearchTests sets the editor's and the CLI's default test policy
// (below, include or exclude: search.TestPolicy).
const EnvSearchTests = "REPILOT_SEARCH_TESTS"

// defaultSearchFlags are the defaults of SearchFlags, the one place they
// are written: AddFlags registers them and the editor uses them as they
// are. Model settings come from the REPILOT_SEARCH_* environment (package
// search/llm).
func defaultSearchFlags(project string) SearchFlags {
	tests := os.Getenv(EnvSearchTests)
	if tests == "" {
		tests = string(search.TestsBelow)
	}
	return SearchFlags{Project: project, Streams: "all", EmbedChars: 2000, EmbedBatch: 32, Tests: tests,
		EmbedQueryPrefix: autoPrefix, EmbedDocPrefix: autoPrefix,
		ChatURL: os.Getenv(llm.EnvChatURL), ChatModel: os.Getenv(llm.EnvChatModel), ChatContext: os.Getenv(llm.EnvChatContext),
		EmbedURL: os.Getenv(llm.EnvEmbedURL), EmbedModel: os.Getenv(llm.EnvEmbedModel)}
}

// AddFlags registers the engine flags on fs with defaultSearchFlags' values.
func (f *SearchFlags) AddFlags(fs *pflag.FlagSet) {
	d := defaultSearchFlags("")
	fs.StringVar(&f.Project, "project", d.Project, projectFlagHelp)
	fs.StringVar(&f.CacheDir, "cache-dir", d.CacheDir, "index and embedding cache (default $REPILOT_CACHE/search/<project> or ~/.cache/repilot-lsp/search/<project>)")
	fs.BoolVar(&f.NoCache, "no-cache", d.NoCache, "keep no cache: parse and embed everything")
	fs.StringVar(&f.Streams, "streams", d.Streams, "streams to run: comma-separated lexical,dense,augment,generate,rerank or all (streams without a model are off)")
	fs.StringVar(&f.ChatURL, "chat-url", d.ChatURL, "OpenAI-compatible chat server for augmentation, generation and reranking, e.g. http://127.0.0.1:8080/v1 (env "+llm.EnvChatURL+")")
	fs.StringVar(&f.ChatModel, "chat-model", d.ChatModel, "chat model name (env "+llm.EnvChatModel+")")
	fs.StringVar(&f.ChatContext, "chat-context", d.ChatContext, "the chat server's context for one request, in tokens, that augmentation, generation and reranking prompts are fitted to (llama-server: -c divided by -np; env "+llm.EnvChatContext+"; empty: what the server reports, llama-server's /props or vLLM's max_model_len, else "+strconv.Itoa(lmopenai.DefaultContextTokens)+")")
	fs.StringVar(&f.EmbedURL, "embed-url", d.EmbedURL, "OpenAI-compatible embeddings server for the dense streams (env "+llm.EnvEmbedURL+")")
	fs.StringVar(&f.EmbedModel, "embed-model", d.EmbedModel, "embedding model name (env "+llm.EnvEmbedModel+")")
	fs.IntVar(&f.EmbedChars, "embed-max-chars", d.EmbedChars, "bytes of each unit sent to the embedding model (all-MiniLM-L6-v2 reads 256 tokens: about 1000)")
	fs.IntVar(&f.EmbedBatch, "embed-batch", d.EmbedBatch, "texts per embedding request (each request must answer within 120 s: lower it for a slow server)")
	fs.StringVar(&f.EmbedQueryPrefix, "embed-query-prefix", d.EmbedQueryPrefix, "text before each query sent to the embedding model; auto: the model's own, by its name (bge-*-en-v1.5: \""+dense.BGEQueryInstruction+"\"; e5: \"query: \"; others: none)")
	fs.StringVar(&f.EmbedDocPrefix, "embed-doc-prefix", d.EmbedDocPrefix, "text before each unit sent to the embedding model; auto: the model's own (e5: \"passage: \"; others: none)")
	fs.StringVar(&f.Tests, "tests", d.Tests, "test code (src/test, tests/, *Test.java, test_*.py, *_test.go, ...): below (ranked after main code unless the query says \"test\"), include (ranked like main code) or exclude (env "+EnvSearchTests+")")
}

// TuningFlags are "bench search"'s flags over search.DefaultTuning: the
// research knobs, to measure a variant against the defaults.
type TuningFlags struct {
	Weights  string
	Analyzer string
	StreamW  string
	tuning   *search.Tuning // the flags' targets; nil before AddFlags
}

// AddFlags registers the tuning flags on fs, with DefaultTuning's values.
func (f *TuningFlags) AddFlags(fs *pflag.FlagSet) {
	t := search.DefaultTuning()
	f.tuning = &t
	fs.IntVar(&t.Depth, "depth", t.Depth, "results per stream that enter fusion")
	fs.StringVar(&t.Fusion, "fusion", t.Fusion, "how streams combine: rrf (reciprocal rank fusion, --rrf-k) or convex (weighted sum of each stream's min-max normalised scores)")
	fs.Float64Var(&t.RRFK, "rrf-k", t.RRFK, "reciprocal rank fusion constant k")
	fs.StringVar(&f.StreamW, "stream-weights", "", `fusion weights by stream, e.g. "lexical=2,dense=1" (unnamed streams: 1)`)
	fs.IntVar(&t.RerankTopN, "rerank-top", t.RerankTopN, "fused candidates the reranker sees")
	fs.Float64Var(&t.DenseMargin, "dense-margin", t.DenseMargin, "fuse the dense stream's first unit first when its cosine leads the stream's second by at least this (0: off)")
	fs.IntVar(&t.LoneLeaderAt, "lone-leader-at", t.LoneLeaderAt, "move a stream's first unit that no other stream ranks (within --depth) up to this place of the fused ranking (0: off)")
	fs.BoolVar(&t.MembersFirst, "members-first", t.MembersFirst, "in the first 10 fused hits, rank a class just below its best-ranked member (not a constructor), unless the query starts with an article")
	fs.BoolVar(&t.ConstructorsLast, "constructors-last", t.ConstructorsLast, "with --members-first, rank a constructor just below the best-ranked other member of its class in the first 10 fused hits")
	fs.BoolVar(&t.GettersLast, "getters-last", t.GettersLast, "move trivial getters (a method that only returns a field) to the end of the first 10 fused hits")
	fs.BoolVar(&t.FuseOverloads, "fuse-overloads", t.FuseOverloads, "fuse the streams' rankings of overload sets (a set ranks where its best member does in each stream) rather than of units")
	fs.StringVar(&f.Weights, "weights", "", `lexical field weights, e.g. "name=3,signature=1,doc=1,code=1,path=0.5" (unnamed fields keep their default)`)
	fs.Float64Var(&t.K1, "bm25-k1", t.K1, "BM25 k1")
	fs.Float64Var(&t.B, "bm25-b", t.B, "BM25 b")
	fs.Float64Var(&t.Expand, "expand", t.Expand, "weight of run-together name expansion (0: off)")
	fs.StringVar(&f.Analyzer, "analyzer", "", "tokenizer switches: any of stem, stop, compounds, abbrev (comma-separated; \"none\" for none; default: all four)")
	fs.Float64Var(&t.NameBoost, "name-boost", t.NameBoost, "score boost for units whose name the query covers (0: off)")
	fs.Float64Var(&t.Synonyms, "synonyms", t.Synonyms, "query weight of the words identifiers use for the query's words (\"change\" -> set, update; 0: off)")
	fs.Float64Var(&t.SynonymCover, "synonym-cover", t.SynonymCover, "credit of a name word covered by a synonym of a query word in the name boost (a query word's: 1)")
	fs.Float64Var(&t.Proximity, "proximity", t.Proximity, "lexical stream: multiply the score of each of the first 30 hits by 1 + this × the share of the query's neighbouring word pairs its name, signature and doc hold as a phrase (0: off)")
	fs.Float64Var(&t.Assoc.Weight, "assoc", t.Assoc.Weight, "query weight of the name terms the workspace's doc comments associate with each query word (0: off)")
	fs.IntVar(&t.Assoc.MinPair, "assoc-min-pair", t.Assoc.MinPair, "documented units a word and a name term must share to associate")
	fs.IntVar(&t.Assoc.Top, "assoc-top", t.Assoc.Top, "associated terms per query word")
	fs.Float64Var(&t.Assoc.Lift, "assoc-lift", t.Assoc.Lift, "least lift P(term|word)/P(term) of an association")
	fs.BoolVar(&t.Assoc.Sentence, "assoc-sentence", t.Assoc.Sentence, "learn associations from the first doc sentence only")
	fs.Float64Var(&t.Assoc.Reweight, "assoc-reweight", t.Assoc.Reweight, "exponent of query-word reweighting by how often the docs' word meets the code it documents (0: off)")
	fs.BoolVar(&t.ShortFields, "bm25f-short", t.ShortFields, "exempt name and signature from BM25F length normalisation")
	fs.Float64Var(&t.NameB, "bm25-name-b", t.NameB, "BM25F b of the name field, normalised by its own length (negative: the unit's length and --bm25-b)")
}

// Tuning returns the tuning the flags describe (DefaultTuning with the
// flags given applied).
func (f *TuningFlags) Tuning() (search.Tuning, error) {
	t := search.DefaultTuning()
	if f.tuning != nil {
		t = *f.tuning
	}
	if strings.TrimSpace(f.Weights) != "" {
		w, err := parseWeights(f.Weights)
		if err != nil {
			return t, err
		}
		t.Weights = *w
	}
	if f.Analyzer != "" {
		an := tokenize.Analyzer{MinLen: t.Analyzer.MinLen}
		for _, sw := range strings.Split(f.Analyzer, ",") {
			switch strings.TrimSpace(sw) {
			case "stem":
				an.Stem = true
			case "stop":
				an.Stop = true
			case "compounds":
				an.Compounds = true
			case "abbrev":
				an.Abbrev = true
			case "none", "":
			default:
				return t, fmt.Errorf("--analyzer: unknown switch %q", sw)
			}
		}
		t.Analyzer = an
	}
	switch t.Fusion {
	case search.FusionRRF, search.FusionConvex:
	default:
		return t, fmt.Errorf("--fusion: unknown rule %q (want %s or %s)", t.Fusion, search.FusionRRF, search.FusionConvex)
	}
	if strings.TrimSpace(f.StreamW) != "" {
		t.StreamWeights = map[string]float64{}
		for _, kv := range strings.Split(f.StreamW, ",") {
			k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
			x, err := strconv.ParseFloat(v, 64)
			if !ok || err != nil || x < 0 {
				return t, fmt.Errorf("--stream-weights: bad entry %q (want stream=number)", kv)
			}
			t.StreamWeights[k] = x
		}
	}
	return t, nil
}

// parseWeights reads "field=w,..." over the default weights.
func parseWeights(s string) (*lexical.Weights, error) {
	w := lexical.DefaultWeights
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		x, err := strconv.ParseFloat(v, 64)
		if !ok || err != nil || x < 0 {
			return nil, fmt.Errorf("--weights: bad entry %q (want field=number)", kv)
		}
		found := false
		for fld := lexical.Field(0); fld < lexical.NumFields; fld++ {
			if fld.String() == k {
				w[fld], found = x, true
			}
		}
		if !found {
			return nil, fmt.Errorf("--weights: unknown field %q (want name, signature, doc, code, path)", k)
		}
	}
	return &w, nil
}

// Config turns the flags into a search.Config with the default tuning.
// Without --chat-url and --embed-url only the lexical stream runs
// (offline).
func (f *SearchFlags) Config() (search.Config, error) {
	if f.Project == "" {
		p, err := defaultProject()
		if err != nil {
			return search.Config{}, err
		}
		f.Project = p
	}
	root, err := filepath.Abs(f.Project)
	if err != nil {
		return search.Config{}, err
	}
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		return search.Config{}, fmt.Errorf("--project %s is not a directory", f.Project)
	}
	streams, err := search.ParseStreams(f.Streams)
	if err != nil {
		return search.Config{}, fmt.Errorf("--streams: %w", err)
	}
	tests, err := search.ParseTestPolicy(f.Tests)
	if err != nil {
		// Named where it came from: the editor has no --tests, only the
		// variable (defaultSearchFlags).
		name := "--tests"
		if v := os.Getenv(EnvSearchTests); v != "" && v == f.Tests {
			name = "$" + EnvSearchTests
		}
		return search.Config{}, fmt.Errorf("%s: %w", name, err)
	}
	cfg := search.Config{Root: root, Streams: streams, Tests: tests}
	cfg.Dense.MaxChars = f.EmbedChars
	switch {
	case f.NoCache:
	case f.CacheDir != "":
		cfg.CacheDir = f.CacheDir
	default:
		cfg.CacheDir = search.DefaultCacheDir(root)
	}
	if err := checkServerURL(f.EmbedURL, "--embed-url (env "+llm.EnvEmbedURL+")"); err != nil {
		return cfg, err
	}
	if err := checkServerURL(f.ChatURL, "--chat-url (env "+llm.EnvChatURL+")"); err != nil {
		return cfg, err
	}
	nctx, err := f.chatContext()
	if err != nil {
		return cfg, err
	}
	if f.EmbedURL != "" {
		if f.EmbedModel == "" {
			return cfg, errors.New("--embed-url (env " + llm.EnvEmbedURL + ") needs --embed-model (env " + llm.EnvEmbedModel + ")")
		}
		if f.EmbedBatch < 1 {
			return cfg, fmt.Errorf("--embed-batch %d: need at least 1", f.EmbedBatch)
		}
		emb, err := llm.NewEmbedder(llm.Config{BaseURL: f.EmbedURL, Model: f.EmbedModel})
		if err != nil {
			return cfg, err
		}
		emb.Batch = f.EmbedBatch
		cfg.Embedder = emb
		cfg.Dense.Batch = f.EmbedBatch
		q, d := dense.PrefixesFor(f.EmbedModel)
		if f.EmbedQueryPrefix != autoPrefix {
			q = f.EmbedQueryPrefix
		}
		if f.EmbedDocPrefix != autoPrefix {
			d = f.EmbedDocPrefix
		}
		cfg.Dense.QueryPrefix, cfg.Dense.DocPrefix = q, d
	}
	if f.ChatURL != "" {
		if f.ChatModel == "" {
			return cfg, errors.New("--chat-url (env " + llm.EnvChatURL + ") needs --chat-model (env " + llm.EnvChatModel + ")")
		}
		if cfg.Chat, err = llm.NewChat(llm.Config{BaseURL: f.ChatURL, Model: f.ChatModel, ContextTokens: nctx}); err != nil {
			return cfg, err
		}
	}
	// A stream without its model is off; when that leaves none, say which
	// model the streams asked for need, rather than failing at query time.
	if !streams.Lexical && !(streams.Dense && cfg.Embedder != nil) && !((streams.Augment || streams.Generate) && cfg.Chat != nil) {
		return cfg, fmt.Errorf("--streams %s: no stream can run (lexical needs no model; dense needs --embed-url; augment and generate need --chat-url; rerank only reorders the others)", f.Streams)
	}
	return cfg, nil
}

// minChatContext is the least --chat-context taken, in tokens: the
// reply's 512 tokens and the chat template's room need more.
const minChatContext = 1024

// chatContext returns --chat-context (or $REPILOT_SEARCH_CHAT_CONTEXT) in
// tokens, 0 when empty. It is checked with or without a chat server (a
// typo is not ignored until one is set). Error: not a whole number of at
// least minChatContext tokens, naming the flag or the variable the value
// came from.
func (f *SearchFlags) chatContext() (int, error) {
	v := strings.TrimSpace(f.ChatContext)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < minChatContext {
		name := "--chat-context"
		if e := os.Getenv(llm.EnvChatContext); e != "" && e == f.ChatContext {
			name = "$" + llm.EnvChatContext
		}
		return 0, fmt.Errorf("%s %q: want a context of at least %d tokens (llama-server: -c divided by -np)", name, f.ChatContext, minChatContext)
	}
	return n, nil
}

type searchCmdFlags struct {
	SearchFlags
	k       int
	jsonOut bool
	quiet   bool
}

func init() {
	var f searchCmdFlags
	cmd := &cobra.Command{
		Use:   `search [--project DIR] "query" [flags]`,
		Short: "Semantic search in a project: ranked code units for a query",
		Long: `search finds the functions, methods and classes of a project (Java, Python,
Go) that match a query in natural language or code, and prints them ranked,
with path, range, score and a snippet. The order is the fused rank; "match" is
how much of the query a result contains (rarer words weigh more), a 0-100%
figure that compares across queries, so a lower-ranked result may match more
words; "no strong match" means no result reaches 30%.

Offline (no model flags) it ranks with BM25 over code-aware terms. With an
OpenAI-compatible embeddings server (--embed-url) it adds dense retrieval; with
a chat server (--chat-url) it adds query augmentation with repository context,
code generated from the query, and reranking (the RepoRift pipeline). The
streams are fused by reciprocal rank fusion; --streams switches them.

The index is cached (--cache-dir): a second run parses and embeds only files
that changed, and reads the analysed lexical index back when no file did. Progress goes to stderr, results to stdout.`,
		Example: `  repilot-lsp search "parse a date from a string"
  repilot-lsp search --project ~/src/app --json -k 5 "retry an HTTP request with backoff"
  repilot-lsp search --project . --embed-url http://127.0.0.1:8081/v1 --embed-model minilm "cache eviction"`,
		Args: func(cmd *cobra.Command, args []string) error {
			if strings.TrimSpace(strings.Join(args, " ")) == "" {
				return errors.New(`no query: give it after the flags, e.g. repilot-lsp search "parse a date"`)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSearch(cmd.Context(), f, strings.Join(args, " "), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f.AddFlags(cmd.Flags())
	cmd.Flags().IntVarP(&f.k, "k", "k", 10, "number of results")
	cmd.Flags().BoolVar(&f.jsonOut, "json", false, "print JSON")
	cmd.Flags().BoolVar(&f.quiet, "quiet", false, "no progress on stderr")
	Root.AddCommand(cmd)
}

// SearchHitJSON is one hit of "search --json": where the unit is, then what
// the editor's search command shows too (search.HitView; the command has
// an LSP Location instead of Path and Range).
type SearchHitJSON struct {
	Path  string    `json:"path"`
	Range RangeJSON `json:"range"`
	search.HitView
}

// RangeJSON is an LSP Range (zero-based lines, UTF-16 characters).
type RangeJSON struct {
	Start textpos.Position `json:"start"`
	End   textpos.Position `json:"end"`
}

func runSearch(ctx context.Context, f searchCmdFlags, query string, stdout, stderr io.Writer) (err error) {
	if f.k < 1 {
		// search.Query would replace it with its default, 10, silently.
		return fmt.Errorf("-k %d: want at least 1 result", f.k)
	}
	// Before indexing: the editor clips a longer query, the command line
	// says so (search.MaxQueryBytes).
	if err := search.CheckQueryLen(query); err != nil {
		return err
	}
	defaulted := f.Project == ""
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	if defaulted && !f.quiet {
		fmt.Fprintln(stderr, projectChosen(cfg.Root))
	}
	// No stream that reads embeddings (dense, and the dense halves of
	// augment and generate, which need a chat server) is on: leave the
	// embeddings server alone, so that --streams lexical searches while
	// $REPILOT_SEARCH_EMBED_URL names a server that is down.
	if st := cfg.Streams; !st.Dense && !((st.Augment || st.Generate) && cfg.Chat != nil) {
		cfg.Embedder = nil
	}
	// A one-shot run keeps its analysed index for the next (the editor
	// keeps its engine instead, and searches while it indexes).
	cfg.Persist = true
	if os.Getenv("GOGC") == "" {
		// A warm run reads about 20 MB of caches for 10,000 units and
		// exits: collecting at 5x the live heap instead of 2x saves a
		// quarter of its CPU (search/README.md); a cold run's peak memory
		// stayed the same (300 MB on java.util).
		defer debug.SetGCPercent(debug.SetGCPercent(400))
	}
	ctx, interrupted, stop := withSignals(ctx)
	defer stop()
	defer func() { err = interrupted(err) }()
	if f.quiet {
		stderr = io.Discard
	}
	e, err := search.New(cfg)
	if err != nil {
		return err
	}
	defer e.Close()
	indexed := -1 // the units indexed, once the index is built
	if err := e.Build(ctx, func(p index.Progress) {
		if p.Done {
			indexed = p.Units
			fmt.Fprintf(stderr, "indexed %s, %s (%s from cache)\n", plural(p.Files, "file", "files"), plural(p.Units, "unit", "units"), plural(p.Reused, "file", "files"))
			if p.TooLarge > 0 {
				fmt.Fprintf(stderr, "skipped %s over %d MiB (not read)\n", plural(p.TooLarge, "file", "files"), units.MaxFileBytes>>20)
			}
			if p.Unreadable > 0 {
				fmt.Fprintf(stderr, "skipped %s that could not be read (%s)\n", plural(p.Unreadable, "file", "files"), p.FirstUnreadable)
			}
		}
	}); errors.Is(err, index.ErrCacheNotSaved) {
		// The index is whole; only the next run starts cold.
		fmt.Fprintf(stderr, "warning: %v (the next search indexes again)\n", err)
	} else if err != nil {
		return err
	}
	if err := e.SyncEmbeddings(ctx, func(done, total int) {
		if done%256 < 32 || done == total {
			fmt.Fprintf(stderr, "embedded %d/%d units\n", done, total)
		}
	}); err != nil {
		// The server may have come from the environment: say how to search
		// without it.
		return fmt.Errorf("embedding the project: %w (the embeddings server is --embed-url or $%s; --streams lexical searches without it)", err, llm.EnvEmbedURL)
	}
	if err := e.EmbeddingCacheErr(); err != nil {
		fmt.Fprintf(stderr, "warning: embedding cache not saved: %v (the next search embeds those units again)\n", err)
	}
	res, err := e.Search(ctx, search.Query{Text: query, K: f.k})
	if err != nil {
		return err
	}
	for name, msg := range res.Errors {
		fmt.Fprintf(stderr, "stream %s failed: %s\n", name, msg)
	}
	if f.jsonOut {
		hits := make([]SearchHitJSON, 0, len(res.Hits))
		for _, h := range res.Hits {
			hits = append(hits, hitJSON(h))
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{
			"query": query, "hits": hits, "augmented": res.Augmented, "generated": res.Generated,
			"errors": res.Errors, "strong": res.Strong(),
		})
	}
	if len(res.Hits) == 0 && indexed == 0 {
		fmt.Fprintf(stdout, "no results: %s holds no Java, Python or Go code to search (is --project the project's root?)\n", f.Project)
		return nil
	}
	if len(res.Hits) == 0 {
		fmt.Fprintln(stdout, "no results: no code unit shares a word with the query (common words such as \"the\" "+
			"and \"of\" do not count); try other words, or add --embed-url for search by meaning")
		return nil
	}
	if !res.Strong() {
		fmt.Fprintf(stdout, "no strong match: no result contains %.0f%% of the query's words (weighted by rarity); the closest:\n", 100*search.StrongMatch)
	}
	for i, h := range res.Hits {
		u := h.Unit
		fmt.Fprintf(stdout, "%2d. %s:%d:%d  match %3.0f%%  %s %s\n", i+1, u.Path, u.Start.Line+1, u.Start.Character+1, 100*h.Match, u.Kind, u.QualifiedName())
		fmt.Fprintf(stdout, "    %s\n", u.ShownSignature())
		for _, o := range h.Overloads {
			fmt.Fprintf(stdout, "    %s  (overload, line %d)\n", o.ShownSignature(), o.Start.Line+1)
		}
		for _, l := range strings.Split(u.Snippet(3), "\n")[1:] {
			fmt.Fprintf(stdout, "    %s\n", l)
		}
	}
	return nil
}

func hitJSON(h search.Hit) SearchHitJSON {
	return SearchHitJSON{Path: h.Unit.Path, Range: RangeJSON{h.Unit.Start, h.Unit.End}, HitView: h.View()}
}

// checkServerURL returns an error naming the setting name when raw is set
// but not an http(s) URL with a host (the HTTP client would fail each
// request with "unsupported protocol scheme", naming no setting); the URL
// is shown without its password.
func checkServerURL(raw, name string) error {
	if raw == "" {
		return nil
	}
	if u, err := url.Parse(strings.TrimRight(raw, "/")); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%s %q: want an http(s) URL with its version path, e.g. http://127.0.0.1:8080/v1", name, oaihttp.SafeURL(raw))
	}
	return nil
}

// editorSearchConfig is the configuration of the editor's search in root:
// the defaults of "search" (defaultSearchFlags, search.DefaultTuning) with
// the models from the REPILOT_SEARCH_* environment and the caches in
// search.DefaultCacheDir(root).
func editorSearchConfig(root string) (search.Config, error) {
	f := defaultSearchFlags(root)
	return f.Config()
}

// searchExtension is the "Semantic search in repo" feature of serve
// (editorSearchConfig).
func searchExtension() proxy.Extension {
	return searchfeat.New(func(root string) (*search.Engine, error) {
		cfg, err := editorSearchConfig(root)
		if err != nil {
			return nil, err
		}
		return search.New(cfg)
	})
}
