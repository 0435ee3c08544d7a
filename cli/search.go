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
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/repilot-lsp/repilot-lsp/proxy"
	"github.com/repilot-lsp/repilot-lsp/search"
	"github.com/repilot-lsp/repilot-lsp/search/index"
	"github.com/repilot-lsp/repilot-lsp/search/lexical"
	"github.com/repilot-lsp/repilot-lsp/search/llm"
	"github.com/repilot-lsp/repilot-lsp/search/tokenize"
	"github.com/repilot-lsp/repilot-lsp/textpos"
)

// SearchFlags configure the search engine; AddFlags registers them.
type SearchFlags struct {
	Project    string
	CacheDir   string
	NoCache    bool
	Lexical    string
	Streams    string
	ChatURL    string
	ChatModel  string
	EmbedURL   string
	EmbedModel string
	Depth      int
	RerankTopN int
	Weights    string
	K1, B      float64
	Expand     float64
	NameBoost  float64
	Analyzer   string
	EmbedChars int
	RRFK       float64
	StreamW    string
	// Association expansion (lexical.Assoc): doc words -> name terms.
	AssocWeight   float64
	AssocMinPair  int
	AssocTop      int
	AssocLift     float64
	AssocSentence bool
	AssocReweight float64
	ShortFields   bool
	NameB         float64
}

// AddFlags registers the engine flags on fs. Model flags default to the
// REPILOT_SEARCH_* environment variables (package search/llm).
func (f *SearchFlags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&f.Project, "project", "", "project root directory (required)")
	fs.StringVar(&f.CacheDir, "cache-dir", "", "index and embedding cache (default $REPILOT_CACHE/search/<project> or ~/.cache/repilot-lsp/search/<project>)")
	fs.BoolVar(&f.NoCache, "no-cache", false, "keep no cache: parse and embed everything")
	fs.StringVar(&f.Lexical, "lexical", "bm25", "lexical backend: bm25 (hand-written BM25F) or bleve")
	fs.StringVar(&f.Streams, "streams", "all", "streams to run: comma-separated lexical,dense,augment,generate,rerank or all (streams without a model are off)")
	fs.StringVar(&f.ChatURL, "chat-url", os.Getenv(llm.EnvChatURL), "OpenAI-compatible chat server for augmentation, generation and reranking, e.g. http://127.0.0.1:8080/v1 (env "+llm.EnvChatURL+")")
	fs.StringVar(&f.ChatModel, "chat-model", os.Getenv(llm.EnvChatModel), "chat model name (env "+llm.EnvChatModel+")")
	fs.StringVar(&f.EmbedURL, "embed-url", os.Getenv(llm.EnvEmbedURL), "OpenAI-compatible embeddings server for the dense streams (env "+llm.EnvEmbedURL+")")
	fs.StringVar(&f.EmbedModel, "embed-model", os.Getenv(llm.EnvEmbedModel), "embedding model name (env "+llm.EnvEmbedModel+")")
	fs.IntVar(&f.EmbedChars, "embed-max-chars", 2000, "bytes of each unit sent to the embedding model (all-MiniLM-L6-v2 reads 256 tokens: about 1000)")
	fs.IntVar(&f.Depth, "depth", 100, "results per stream that enter fusion")
	fs.Float64Var(&f.RRFK, "rrf-k", 60, "reciprocal rank fusion constant k")
	fs.StringVar(&f.StreamW, "stream-weights", "", `RRF weights by stream, e.g. "lexical=2,dense=1" (unnamed streams: 1)`)
	fs.IntVar(&f.RerankTopN, "rerank-top", 20, "fused candidates the reranker sees")
	fs.StringVar(&f.Weights, "weights", "", `lexical field weights, e.g. "name=3,signature=1,doc=1,code=1,path=0.5" (unnamed fields keep their default)`)
	fs.Float64Var(&f.K1, "bm25-k1", lexical.BM25K1, "BM25 k1 (bm25 backend)")
	fs.Float64Var(&f.B, "bm25-b", lexical.BM25B, "BM25 b (bm25 backend)")
	fs.Float64Var(&f.Expand, "expand", lexical.DefaultExpand, "weight of run-together name expansion (bm25 backend; 0: off)")
	fs.StringVar(&f.Analyzer, "analyzer", "stem,stop,compounds,abbrev", "tokenizer switches: any of stem, stop, compounds, abbrev (comma-separated; \"none\" for none)")
	fs.Float64Var(&f.NameBoost, "name-boost", lexical.DefaultNameBoost, "score boost for units whose name the query covers (bm25 backend; 0: off)")
	fs.Float64Var(&f.AssocWeight, "assoc", lexical.DefaultAssocWeight, "query weight of the name terms the workspace's doc comments associate with each query word (bm25 backend; 0: off)")
	fs.IntVar(&f.AssocMinPair, "assoc-min-pair", lexical.DefaultAssocMinPair, "documented units a word and a name term must share to associate")
	fs.IntVar(&f.AssocTop, "assoc-top", lexical.DefaultAssocTop, "associated terms per query word")
	fs.Float64Var(&f.AssocLift, "assoc-lift", lexical.DefaultAssocLift, "least lift P(term|word)/P(term) of an association")
	fs.BoolVar(&f.AssocSentence, "assoc-sentence", false, "learn associations from the first doc sentence only")
	fs.Float64Var(&f.AssocReweight, "assoc-reweight", lexical.DefaultAssocReweight, "exponent of query-word reweighting by how often the docs' word meets the code it documents (bm25 backend; 0: off)")
	fs.BoolVar(&f.ShortFields, "bm25f-short", false, "exempt name and signature from BM25F length normalisation (bm25 backend)")
	fs.Float64Var(&f.NameB, "bm25-name-b", lexical.DefaultNameB, "BM25F b of the name field, normalised by its own length (bm25 backend; negative: the unit's length and --bm25-b)")
}

// parseWeights reads "field=w,..." over the default weights.
func parseWeights(s string) (*lexical.Weights, error) {
	w := lexical.DefaultWeights
	if strings.TrimSpace(s) == "" {
		return &w, nil
	}
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

// Config turns the flags into a search.Config. Without --chat-url and
// --embed-url only the lexical stream runs (offline).
func (f *SearchFlags) Config() (search.Config, error) {
	if f.Project == "" {
		return search.Config{}, errors.New("--project is required")
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
		return search.Config{}, err
	}
	weights, err := parseWeights(f.Weights)
	if err != nil {
		return search.Config{}, err
	}
	an := tokenize.Analyzer{MinLen: 2}
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
			return search.Config{}, fmt.Errorf("--analyzer: unknown switch %q", sw)
		}
	}
	k1, b, expand, nameBoost, nameB := f.K1, f.B, f.Expand, f.NameBoost, f.NameB
	cfg := search.Config{Root: root, Lexical: f.Lexical, Streams: streams, Depth: f.Depth, RerankTopN: f.RerankTopN,
		Weights: weights, K1: &k1, B: &b, Expand: &expand, NameBoost: &nameBoost, NameB: &nameB, Analyzer: &an,
		Assoc: &search.AssocConfig{Weight: f.AssocWeight, MinPair: f.AssocMinPair, Top: f.AssocTop, Lift: f.AssocLift,
			Sentence: f.AssocSentence, Reweight: f.AssocReweight}, ShortFields: f.ShortFields}
	cfg.Dense.MaxChars = f.EmbedChars
	cfg.RRFK = f.RRFK
	if strings.TrimSpace(f.StreamW) != "" {
		cfg.StreamWeights = map[string]float64{}
		for _, kv := range strings.Split(f.StreamW, ",") {
			k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
			x, err := strconv.ParseFloat(v, 64)
			if !ok || err != nil || x < 0 {
				return cfg, fmt.Errorf("--stream-weights: bad entry %q (want stream=number)", kv)
			}
			cfg.StreamWeights[k] = x
		}
	}
	switch {
	case f.NoCache:
	case f.CacheDir != "":
		cfg.CacheDir = f.CacheDir
	default:
		cfg.CacheDir = search.DefaultCacheDir(root)
	}
	if f.EmbedURL != "" {
		if f.EmbedModel == "" {
			return cfg, errors.New("--embed-url needs --embed-model")
		}
		if cfg.Embedder, err = llm.NewEmbedder(llm.Config{BaseURL: f.EmbedURL, Model: f.EmbedModel}); err != nil {
			return cfg, err
		}
	}
	if f.ChatURL != "" {
		if f.ChatModel == "" {
			return cfg, errors.New("--chat-url needs --chat-model")
		}
		if cfg.Chat, err = llm.NewChat(llm.Config{BaseURL: f.ChatURL, Model: f.ChatModel}); err != nil {
			return cfg, err
		}
	}
	return cfg, nil
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
		Use:   `search --project DIR "query" [flags]`,
		Short: "Semantic search in a project: ranked code units for a query",
		Long: `search finds the functions, methods and classes of a project (Java, Python,
Go) that match a query in natural language or code, and prints them ranked,
with path, range, score and a snippet.

Offline (no model flags) it ranks with BM25 over code-aware terms. With an
OpenAI-compatible embeddings server (--embed-url) it adds dense retrieval; with
a chat server (--chat-url) it adds query augmentation with repository context,
code generated from the query, and reranking (the RepoRift pipeline). The
streams are fused by reciprocal rank fusion; --streams switches them.

The index is cached (--cache-dir): a second run parses and embeds only files
that changed. Progress goes to stderr, results to stdout.`,
		Example: `  repilot-lsp search --project . "parse a date from a string"
  repilot-lsp search --project ~/src/app --json -k 5 "retry an HTTP request with backoff"
  repilot-lsp search --project . --embed-url http://127.0.0.1:8081/v1 --embed-model minilm "cache eviction"`,
		Args: func(cmd *cobra.Command, args []string) error {
			if strings.TrimSpace(strings.Join(args, " ")) == "" {
				return errors.New(`no query: give it after the flags, e.g. repilot-lsp search --project . "parse a date"`)
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

// SearchHitJSON is one hit of "search --json"; the LSP command returns the
// same shape with a URI.
type SearchHitJSON struct {
	Path      string         `json:"path"`
	Range     RangeJSON      `json:"range"`
	Score     float64        `json:"score"`
	Name      string         `json:"name"`
	Kind      string         `json:"kind"`
	Signature string         `json:"signature"`
	Snippet   string         `json:"snippet"`
	Ranks     map[string]int `json:"ranks"`
}

// RangeJSON is an LSP Range (zero-based lines, UTF-16 characters).
type RangeJSON struct {
	Start textpos.Position `json:"start"`
	End   textpos.Position `json:"end"`
}

func runSearch(ctx context.Context, f searchCmdFlags, query string, stdout, stderr io.Writer) (err error) {
	cfg, err := f.Config()
	if err != nil {
		return err
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
	if err := e.Build(ctx, func(p index.Progress) {
		if p.Done {
			fmt.Fprintf(stderr, "indexed %s, %s (%s from cache)\n", plural(p.Files, "file", "files"), plural(p.Units, "unit", "units"), plural(p.Reused, "file", "files"))
		}
	}); err != nil {
		return err
	}
	if err := e.SyncEmbeddings(ctx, func(done, total int) {
		if done%256 < 32 || done == total {
			fmt.Fprintf(stderr, "embedded %d/%d units\n", done, total)
		}
	}); err != nil {
		return fmt.Errorf("embedding the project: %w", err)
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
			"errors": res.Errors,
		})
	}
	if len(res.Hits) == 0 {
		fmt.Fprintln(stdout, "no results: no code unit shares a word with the query (common words such as \"the\" "+
			"and \"of\" do not count); try other words, or add --embed-url for search by meaning")
		return nil
	}
	for i, h := range res.Hits {
		u := h.Unit
		fmt.Fprintf(stdout, "%2d. %s:%d:%d  %.3f  %s %s\n", i+1, u.Path, u.Start.Line+1, u.Start.Character+1, h.Score, u.Kind, u.QualifiedName())
		fmt.Fprintf(stdout, "    %s\n", u.Signature)
		for _, l := range strings.Split(u.Snippet(3), "\n")[1:] {
			fmt.Fprintf(stdout, "    %s\n", l)
		}
	}
	return nil
}

func hitJSON(h search.Hit) SearchHitJSON {
	u := h.Unit
	return SearchHitJSON{Path: u.Path, Range: RangeJSON{u.Start, u.End}, Score: h.Score, Name: u.QualifiedName(),
		Kind: string(u.Kind), Signature: u.Signature, Snippet: u.Snippet(8), Ranks: h.Ranks}
}

// searchExtension is the "Semantic search in repo" feature of serve. Models
// come from the REPILOT_SEARCH_* environment (package search/llm); with none,
// search is lexical. Caches go to search.DefaultCacheDir(root).
func searchExtension() proxy.Extension {
	return proxy.NewSearchExtension(func(root string) (*search.Engine, error) {
		f := SearchFlags{Project: root, Lexical: "bm25", Streams: "all", Depth: 100, RerankTopN: 20,
			K1: lexical.BM25K1, B: lexical.BM25B, Expand: lexical.DefaultExpand, NameBoost: lexical.DefaultNameBoost,
			Analyzer: "stem,stop,compounds,abbrev", EmbedChars: 2000, RRFK: 60, AssocWeight: lexical.DefaultAssocWeight,
			AssocReweight: lexical.DefaultAssocReweight,
			ChatURL:       os.Getenv(llm.EnvChatURL), ChatModel: os.Getenv(llm.EnvChatModel),
			EmbedURL: os.Getenv(llm.EnvEmbedURL), EmbedModel: os.Getenv(llm.EnvEmbedModel)}
		cfg, err := f.Config()
		if err != nil {
			return nil, err
		}
		return search.New(cfg)
	})
}
