package lexical

// bleve.go is the bleve backend: a scorch index held in memory, one text
// field per unit field analysed by package tokenize (registered as the bleve
// tokenizer "repilot_code"), scored with bleve's "bm25" model; queries are a
// disjunction of one match query per field, boosted by the field weight.

import (
	"context"
	"fmt"
	"sync"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/registry"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/repilot-lsp/repilot-lsp/search/tokenize"
	"github.com/repilot-lsp/repilot-lsp/search/units"
)

const bleveTokenizer = "repilot_code"

func init() {
	err := registry.RegisterTokenizer(bleveTokenizer, func(config map[string]interface{}, _ *registry.Cache) (analysis.Tokenizer, error) {
		var a tokenize.Analyzer
		a.Stem, _ = config["stem"].(bool)
		a.Stop, _ = config["stop"].(bool)
		a.Compounds, _ = config["compounds"].(bool)
		if m, ok := config["min_len"].(float64); ok {
			a.MinLen = int(m)
		}
		return bleveAnalyzer{a}, nil
	})
	if err != nil {
		panic(err)
	}
}

// bleveAnalyzer adapts tokenize.Analyzer to bleve's Tokenizer.
type bleveAnalyzer struct{ a tokenize.Analyzer }

func (b bleveAnalyzer) Tokenize(text []byte) analysis.TokenStream {
	var ts analysis.TokenStream
	b.a.Each(string(text), func(term string, pos int) {
		ts = append(ts, &analysis.Token{Term: []byte(term), Position: pos + 1, Type: analysis.AlphaNumeric})
	})
	return ts
}

// Bleve is the bleve-backed Index.
type Bleve struct {
	w   Weights
	idx bleve.Index
	mu  sync.Mutex // serialises batches (bleve is safe, but Len must match)
	n   map[string]struct{}
}

// NewBleve returns an empty in-memory bleve index using the analyzer and
// field weights given.
func NewBleve(an tokenize.Analyzer, w Weights) (*Bleve, error) {
	im := bleve.NewIndexMapping()
	im.ScoringModel = "bm25"
	if err := im.AddCustomTokenizer("code", map[string]interface{}{
		"type": bleveTokenizer, "stem": an.Stem, "stop": an.Stop, "compounds": an.Compounds, "min_len": float64(an.MinLen),
	}); err != nil {
		return nil, err
	}
	if err := im.AddCustomAnalyzer("code", map[string]interface{}{
		"type": custom.Name, "tokenizer": "code", "token_filters": []string{},
	}); err != nil {
		return nil, err
	}
	dm := mapping.NewDocumentStaticMapping()
	for f := Field(0); f < NumFields; f++ {
		fm := mapping.NewTextFieldMapping()
		fm.Analyzer = "code"
		fm.Store = false
		fm.IncludeInAll = false
		fm.IncludeTermVectors = false
		fm.DocValues = false
		dm.AddFieldMappingsAt(f.String(), fm)
	}
	im.DefaultMapping = dm
	im.DefaultAnalyzer = "code"
	idx, err := bleve.NewUsing("", im, scorch.Name, scorch.Name, nil)
	if err != nil {
		return nil, fmt.Errorf("lexical: bleve index: %w", err)
	}
	return &Bleve{w: w, idx: idx, n: map[string]struct{}{}}, nil
}

// Name implements Index.
func (x *Bleve) Name() string { return "bleve" }

// Len implements Index.
func (x *Bleve) Len() int {
	x.mu.Lock()
	defer x.mu.Unlock()
	return len(x.n)
}

// Upsert implements Index.
func (x *Bleve) Upsert(us []units.Unit) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	b := x.idx.NewBatch()
	for i := range us {
		fs := fields(&us[i])
		doc := make(map[string]interface{}, NumFields)
		for f, text := range fs {
			if text != "" {
				doc[Field(f).String()] = text
			}
		}
		if err := b.Index(us[i].ID, doc); err != nil {
			return err
		}
		x.n[us[i].ID] = struct{}{}
	}
	return x.idx.Batch(b)
}

// Delete implements Index.
func (x *Bleve) Delete(ids []string) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	b := x.idx.NewBatch()
	for _, id := range ids {
		b.Delete(id)
		delete(x.n, id)
	}
	return x.idx.Batch(b)
}

// Search implements Index.
func (x *Bleve) Search(ctx context.Context, q string, k int) ([]Hit, error) {
	if k <= 0 {
		return nil, nil
	}
	var qs []query.Query
	for f := Field(0); f < NumFields; f++ {
		if x.w[f] == 0 {
			continue
		}
		m := bleve.NewMatchQuery(q)
		m.SetField(f.String())
		m.SetBoost(x.w[f])
		qs = append(qs, m)
	}
	req := bleve.NewSearchRequestOptions(bleve.NewDisjunctionQuery(qs...), k, 0, false)
	res, err := x.idx.SearchInContext(ctx, req)
	if err != nil {
		return nil, err
	}
	out := make([]Hit, len(res.Hits))
	for i, h := range res.Hits {
		out[i] = Hit{h.ID, h.Score}
	}
	return out, nil
}

// Close releases the index.
func (x *Bleve) Close() error { return x.idx.Close() }
