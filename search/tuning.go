package search

import (
	"maps"

	"github.com/repilot-lsp/repilot-lsp/search/fuse"
	"github.com/repilot-lsp/repilot-lsp/search/lexical"
	"github.com/repilot-lsp/repilot-lsp/search/tokenize"
)

// Tuning holds the ranking parameters of the engine: the lexical stream's
// analyzer, BM25F parameters and doc-mined expansion, and the fusion's
// constants. There is one default, DefaultTuning, used by the editor
// ("serve"), "search" and "bench search" alike; only "bench search" has
// flags to change it, to measure a variant (search/README.md). Values were
// measured on tuning corpora (search/README.md); change them there first.
type Tuning struct {
	// Analyzer turns text into terms (tokenize.Default).
	Analyzer tokenize.Analyzer
	// Weights are the BM25F field weights (lexical.DefaultWeights).
	Weights lexical.Weights
	// K1, B, Expand, NameBoost and NameB are lexical.BM25's fields of the
	// same names (lexical.BM25K1, BM25B, DefaultExpand, DefaultNameBoost,
	// DefaultNameB; NameB < 0 normalises the name by the unit's length).
	K1, B, Expand, NameBoost, NameB float64
	// ShortFields exempts name and signature from BM25F length
	// normalisation (lexical.BM25.ShortFields; off).
	ShortFields bool
	// Synonyms and SynonymCover are lexical.BM25's fields of the same
	// names: the query weight of the identifier words for the query's
	// words (tokenize.Synonyms; 0: off) and their credit in the name boost
	// (lexical.DefaultSynonyms, DefaultSynonymCover).
	Synonyms, SynonymCover float64
	// Proximity is the weight of the phrase boost on the lexical stream's
	// first ProximityDepth hits (proximityBoost): a hit's score is
	// multiplied by 1 + Proximity × the share of the query's neighbouring
	// word pairs that its name, signature and doc hold as a phrase (0:
	// off). Chosen on the tuning sets (search/README.md, session 16).
	Proximity float64
	// Assoc tunes the doc-mined expansion (lexical.Assoc); Weight and
	// Reweight 0 turn it off.
	Assoc AssocConfig
	// Fusion is how the streams' rankings combine: FusionRRF (also "")
	// or FusionConvex.
	Fusion string
	// RRFK is the reciprocal rank fusion constant (fuse.DefaultK = 60).
	RRFK float64
	// StreamWeights are the fusion's weights by stream name (missing: 1).
	StreamWeights map[string]float64
	// Depth is how many results each stream contributes to fusion (100).
	Depth int
	// RerankTopN is how many fused candidates the reranker sees (20).
	RerankTopN int
	// DenseMargin puts the dense stream's first unit first in the fused
	// ranking when its cosine similarity to the query leads the stream's
	// second unit's by at least this much (denseLeaderFirst; 0: off), before
	// the reordering rules below. Reciprocal rank fusion sees ranks only,
	// and gives a unit the dense stream is sure of no more than one it
	// barely prefers. A cosine margin is the model's own scale: chosen for
	// bge-small-en-v1.5 on the tuning sets (search/README.md, session 17).
	DenseMargin float64
	// LoneLeaderAt moves a stream's first unit that no other stream's list
	// holds up to this place (1-based) of the fused ranking when it fused
	// below it (loneLeaders; 0: off), after DenseMargin and before the
	// reordering rules below: one stream's first answer, which the other
	// streams do not rank at all, stays on the first page. Chosen on the
	// tuning sets (search/README.md, session 19).
	LoneLeaderAt int
	// MembersFirst ranks a class unit just below its best-ranked member
	// within the fused ranking's first MembersFirstWindow positions, unless
	// the query names a thing ("a ...", "the ..."): Engine.membersFirst;
	// chosen on the tuning sets (search/README.md, session 13).
	MembersFirst bool
	// ConstructorsLast extends MembersFirst to constructors: within the
	// same window, a constructor (Python __init__/__new__) that no other
	// member of its class ranks above moves to just below the best-ranked
	// one (Engine.membersFirst). A constructor's doc restates its class's,
	// so it matches a question about a method of the class as well as the
	// class unit does.
	ConstructorsLast bool
	// GettersLast moves trivial getters (a method that only returns a
	// field) to the end of the fused ranking's first MembersFirstWindow
	// positions (Engine.gettersLast), unless the query names a thing, as
	// for MembersFirst. Off: it gained on the tuning sets and lost 52 of
	// java.util's 2,616 CodeSearchNet-style questions at Success@1, whose
	// doc sentences often describe a getter ("Returns the number of
	// elements in this list"; search/README.md, session 14).
	GettersLast bool
	// FuseOverloads fuses the streams' rankings of overload sets rather
	// than of units (fuseOverloads): a set ranks in each stream where its
	// best member does, so a set whose members each lead one stream is
	// not split into two weaker results. A set is one hit either way
	// (Hit.Overloads); this changes only where it ranks when several
	// streams are fused. Off: it gained on the tuning sets and lost on
	// Gson's (search/README.md, session 14).
	FuseOverloads bool
}

// DefaultProximity is Tuning.Proximity's default, chosen on the realistic
// tuning sets and the CodeSearchNet-style tuning code bases only
// (search/README.md, session 16): 0.3 and more gained more questions at
// Success@1 but lost some at Success@5.
const DefaultProximity = 0.2

// The fusion rules of Tuning.Fusion.
const (
	// FusionRRF is reciprocal rank fusion (fuse.RRF with Tuning.RRFK).
	FusionRRF = "rrf"
	// FusionConvex is the weighted sum of each stream's min-max normalised
	// scores (fuse.Convex).
	FusionConvex = "convex"
)

// DefaultTuning returns the measured defaults (a fresh copy: the caller
// may change it).
func DefaultTuning() Tuning {
	return Tuning{
		Analyzer:  tokenize.Default,
		Weights:   lexical.DefaultWeights,
		K1:        lexical.BM25K1,
		B:         lexical.BM25B,
		Expand:    lexical.DefaultExpand,
		NameBoost: lexical.DefaultNameBoost,
		NameB:     lexical.DefaultNameB,
		// Chosen on the tuning sets (search/README.md, session 15).
		Synonyms:     lexical.DefaultSynonyms,
		SynonymCover: lexical.DefaultSynonymCover,
		Proximity:    DefaultProximity,
		Assoc: AssocConfig{Weight: lexical.DefaultAssocWeight, MinPair: lexical.DefaultAssocMinPair,
			Top: lexical.DefaultAssocTop, Lift: lexical.DefaultAssocLift, Reweight: lexical.DefaultAssocReweight,
			ReweightMin: lexical.DefaultAssocReweightMin, ReweightMax: lexical.DefaultAssocReweightMax},
		Fusion:       FusionRRF,
		DenseMargin:  DefaultDenseMargin,
		LoneLeaderAt: DefaultLoneLeaderAt,
		RRFK:         fuse.DefaultK,
		Depth:        100,
		RerankTopN:   20,
		MembersFirst: true,
		// Chosen on the tuning sets (search/README.md, session 14);
		// GettersLast and FuseOverloads were chosen there too but lost
		// on a reported set.
		ConstructorsLast: true,
	}
}

// clone returns t with its map copied.
func (t Tuning) clone() Tuning {
	t.StreamWeights = maps.Clone(t.StreamWeights)
	return t
}

// newBM25 is the lexical stream for t.
func (t Tuning) newBM25() (*lexical.BM25, *lexical.Assoc) {
	b := lexical.NewBM25(t.Analyzer, t.Weights)
	b.K1, b.B, b.Expand, b.NameBoost, b.NameB, b.ShortFields = t.K1, t.B, t.Expand, t.NameBoost, t.NameB, t.ShortFields
	b.Synonyms, b.SynonymCover = t.Synonyms, t.SynonymCover
	c := t.Assoc
	if c.Weight <= 0 && c.Reweight <= 0 {
		return b, nil
	}
	a := lexical.NewAssoc(t.Analyzer)
	a.Weight, a.Sentence, a.SelfExp = c.Weight, c.Sentence, c.Reweight
	if c.MinPair > 0 {
		a.MinPair = c.MinPair
	}
	if c.Top > 0 {
		a.Top = c.Top
	}
	if c.Lift > 0 {
		a.Lift = c.Lift
	}
	if c.ReweightMin > 0 {
		a.SelfMin = c.ReweightMin
	}
	if c.ReweightMax > 0 {
		a.SelfMax = c.ReweightMax
	}
	b.Assoc = a
	return b, a
}
