// Package lexical is the lexical retrieval stream of semantic search: BM25
// over code-aware terms (package tokenize) of five fields of each unit: its
// name (with its container), signature, doc comment, code and path.
//
// Two backends implement Index:
//   - Bleve: github.com/blevesearch/bleve/v2 (scorch, in memory) with its
//     "bm25" scoring model and our analyzer registered as a bleve tokenizer;
//   - BM25: a small in-memory inverted index with Okapi BM25F scoring
//     (Robertson and Zaragoza, "The Probabilistic Relevance Framework: BM25
//     and Beyond", 2009, section 3.6): per-field weighted term frequencies and
//     lengths, k1 = 1.2, b = 0.75, idf = ln(1 + (N - df + 0.5)/(df + 0.5)),
//     the name field normalised by its own length with b = 0.3 (BM25.NameB).
//
// Why two: bleve v2.6.3's "bm25" is not Okapi BM25. It takes sqrt(tf) as the
// term frequency, estimates the average field length as ceil(distinct terms
// in the field / documents) (search/searcher/search_term.go,
// bm25ScoreMetrics) instead of the mean number of tokens, multiplies each
// term's score by a query norm, and scales disjunctions by a coordination
// factor (matched/total clauses). `repilot-lsp bench search` measures both on
// the same units; the engine uses the backend named in its config, BM25 by
// default because it measured better (Success@10 57.0% vs 49.1% on the
// Python standard library, 60.2% vs 57.3% on JDK java.util, same analyzer
// and weights: search/README.md) and because its term dictionary allows
// run-together name expansion and the name boost (BM25.Expand,
// BM25.NameBoost).
//
// The BM25 backend can also expand a query with what the repository's own
// doc comments teach (Assoc, assoc.go): the name terms that co-occur with
// each query word in documented units, and a reweighting of query words by
// how often the docs' word also appears in the code it documents. Queries
// can exclude units from those statistics (BM25.SearchExcluding), so that a
// benchmark's target never informs its own query.
package lexical

import (
	"context"
	"strings"

	"github.com/repilot-lsp/repilot-lsp/search/units"
)

// Hit is one ranked unit: its ID and the backend's score (higher is better;
// scores of different backends are not comparable).
type Hit struct {
	ID    string
	Score float64
}

// Index is a lexical index of units. Implementations are safe for concurrent
// use; a Search sees every Upsert and Delete that returned before it began.
type Index interface {
	// Upsert adds units, replacing those with the same ID.
	Upsert(us []units.Unit) error
	// Delete removes units by ID; unknown IDs are ignored.
	Delete(ids []string) error
	// Search returns at most k units, best first. A query with no indexable
	// term returns no hits and no error.
	Search(ctx context.Context, query string, k int) ([]Hit, error)
	// Len is the number of units indexed.
	Len() int
	// Name identifies the backend in reports ("bm25", "bleve").
	Name() string
}

// Field is one indexed part of a unit.
type Field int

// The indexed fields of a unit.
const (
	FieldName      Field = iota // name and container
	FieldSignature              // declaration up to the body
	FieldDoc                    // doc comment
	FieldCode                   // code without the doc
	FieldPath                   // file path
	NumFields
)

var fieldNames = [NumFields]string{"name", "signature", "doc", "code", "path"}

func (f Field) String() string { return fieldNames[f] }

// Weights are per-field multipliers of term frequency and length (BM25F) or
// query boosts (bleve). DefaultWeights were set a priori; on the Python
// standard library, other name, signature, code and path weights moved
// Success@10 by less than 1.5 points either way (search/README.md).
type Weights [NumFields]float64

// DefaultWeights favour the name: a query word that is a part of the unit's
// name is stronger evidence than one in its body.
var DefaultWeights = Weights{FieldName: 3, FieldSignature: 1, FieldDoc: 1, FieldCode: 1, FieldPath: 0.5}

// MaxCodeBytes bounds the code indexed per unit (32 KiB).
const MaxCodeBytes = 32 << 10

// fields returns the text of each field of u.
func fields(u *units.Unit) [NumFields]string {
	code := u.Code
	if len(code) > MaxCodeBytes {
		code = code[:MaxCodeBytes]
	}
	p := u.Path
	if i := strings.LastIndexByte(p, '.'); i > strings.LastIndexByte(p, '/') {
		p = p[:i] // the extension says nothing
	}
	name := u.Name + " " + u.Container
	if u.Kind == units.Constructor && u.Container != "" {
		name = u.Container // its name is its class's: once, not twice
	}
	return [NumFields]string{
		FieldName:      name,
		FieldSignature: u.Signature,
		FieldDoc:       u.Doc,
		FieldCode:      code,
		FieldPath:      p,
	}
}
