// This file defines the receiver-type component: the member names that
// follow "x." when the file declares x's type, learnt from the training
// data's declarations and member accesses.

package ngram

import (
	"cmp"
	"slices"

	"github.com/repilot-lsp/repilot-lsp/javalex"
)

// Receiver-type component. After "i < readings." the n-gram model sees the
// receiver's name, which the training data has rarely or never seen, and
// falls back to the names this file calls on it (get, add, isEmpty) and to
// "any member". That readings is a List, declared a few lines up, says
// more: lists are asked for their size. Code completion systems condition
// on the receiver's static type for this reason (Bruch, Monperrus and
// Mezini, "Learning from examples to improve code completion systems",
// FSE 2009). The n-gram model has no types, but a file's declarations give
// most receivers' declared type by their text:
//
//	T x =   T x;   T x,   T x)   T x :   (a field, local, parameter, for-each)
//
// with T a simple or qualified name, optionally with type arguments; arrays
// are left out. Training counts, for every "x . m" whose receiver x is
// declared so in the same file (not after another ".", so a simple name),
// the pair (T, m) by T's simple name. For a type T with c(T) >=
// typedMinCount accesses,
//
//	P_type(m | T) = c(T, m) / c(T),
//
// over its typedTop most frequent members (a truncated distribution, so
// that Next can propose all of it). In a session, after "x ." with x
// declared in FIM.Prefix or FIM.Suffix as a T the model knows, it is mixed
// into the model's part of the distribution with weight
//
//	λ(T) = typedWeight · c(T)/(c(T) + typedKappa).
//
// Weight and κ were chosen on held-out JDK modules, with the model trained
// on java.base: at 1,028 "x ." positions of 120 files of java.sql,
// java.logging and java.net.http whose receiver the file declares, the mean
// log-probability of the member written was -4.79 nats without the
// component and -4.59, -4.54, -4.52, -4.52, -4.55 with weight 0.15, 0.3,
// 0.4 (κ 10), 0.5 and 0.7 (κ 5 and 20 within 0.01 of each other); the
// member was among the top 10 candidates 63% of the time without it and
// 68-69% with it. TestTypedHeldOut checks the gain on java.util's model.
var (
	typedWeight = 0.4
	typedKappa  = 10.0
)

const (
	typedTop      = 128
	typedMinCount = 10
)

// typeMemberCounts counts (type, member) pairs by text.
type typeMemberCounts map[string]map[string]uint32

// add counts the member accesses of one file's stream tokens whose
// receiver the file declares.
func (tc typeMemberCounts) add(texts []string, kinds []javalex.Kind) {
	decl := declaredTypes(texts, kinds)
	if len(decl) == 0 {
		return
	}
	for i := 2; i < len(texts); i++ {
		if texts[i-1] != "." || kinds[i] != javalex.Ident || kinds[i-2] != javalex.Ident {
			continue
		}
		if i >= 3 && texts[i-3] == "." {
			continue // a qualified receiver (a.x.m): x's type is a.x's
		}
		t, ok := decl[texts[i-2]]
		if !ok {
			continue
		}
		m := tc[t]
		if m == nil {
			m = map[string]uint32{}
			tc[t] = m
		}
		m[texts[i]]++
	}
}

// merge adds o's counts to tc.
func (tc typeMemberCounts) merge(o typeMemberCounts) {
	for t, ms := range o {
		m := tc[t]
		if m == nil {
			m = make(map[string]uint32, len(ms))
			tc[t] = m
		}
		for k, c := range ms {
			m[k] += c
		}
	}
}

// declFollowers are the tokens after "T x" that make it a declaration of x.
var declFollowers = map[string]bool{"=": true, ";": true, ",": true, ")": true, ":": true}

// declaredTypes maps each name declared "T x" in the stream tokens (texts,
// kinds; NEWLINE tokens allowed) to T's simple name; a name declared twice
// keeps its last type. Arrays ("T[] x") are left out.
func declaredTypes(texts []string, kinds []javalex.Kind) map[string]string {
	code := make([]int, 0, len(texts)) // indexes of code tokens (no NEWLINE)
	for i, t := range texts {
		if t != newlineText {
			code = append(code, i)
		}
	}
	out := map[string]string{}
	for n := 1; n+1 < len(code); n++ {
		x, next := code[n], code[n+1]
		if kinds[x] != javalex.Ident || !declFollowers[texts[next]] {
			continue
		}
		j := n - 1
		if t := texts[code[j]]; t == ">" || t == ">>" || t == ">>>" {
			j = typeArgsStart(texts, kinds, code, j) - 1 // the name before "<"
		}
		if j < 0 || kinds[code[j]] != javalex.Ident {
			continue
		}
		out[texts[x]] = texts[code[j]]
	}
	return out
}

// typeArgsStart returns the index in code of the "<" that opens the type
// arguments closed at code[j], or -1 when the tokens before are not type
// arguments (a comparison, or more than typeArgsMax tokens).
func typeArgsStart(texts []string, kinds []javalex.Kind, code []int, j int) int {
	depth := 0
	for stop := max(-1, j-typeArgsMax); j > stop; j-- {
		k := code[j]
		if !typeArgToken(texts[k], kinds[k]) {
			return -1
		}
		switch texts[k] {
		case ">":
			depth++
		case ">>":
			depth += 2
		case ">>>":
			depth += 3
		case "<":
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// typeArgsMax bounds the tokens of a type argument list walked back over.
const typeArgsMax = 24

// typeArgToken reports whether a token may appear in type arguments (the
// same token set as typeArgBrackets in copy.go).
func typeArgToken(text string, kind javalex.Kind) bool {
	switch text {
	case "<", ">", ">>", ">>>", ",", ".", "?", "[", "]", "&":
		return true
	}
	return kind == javalex.Ident || kind == javalex.Keyword && typeKeyword(text)
}

// declaredIn is declaredTypes over the concatenation of runs of stream
// tokens (a session's prefix and suffix).
func declaredIn(runs ...[]streamTok) map[string]string {
	var texts []string
	var kinds []javalex.Kind
	for _, r := range runs {
		for _, t := range r {
			texts = append(texts, t.Text)
			kinds = append(kinds, t.Kind)
		}
	}
	return declaredTypes(texts, kinds)
}

// typedStats is P_type(· | T) by type name, members as model ids.
type typedStats struct {
	byType map[string][]memberEntry
	total  map[string]float64 // c(T)
}

// memberEntry is one member name and its probability.
type memberEntry struct {
	id uint32
	p  float64
}

// newTypedStats keeps the types with c(T) >= typedMinCount and their
// typedTop most frequent members that the vocabulary has (ids from ids).
func newTypedStats(tc typeMemberCounts, ids map[string]uint32) *typedStats {
	ts := &typedStats{byType: map[string][]memberEntry{}, total: map[string]float64{}}
	for t, ms := range tc {
		var es []memberEntry
		total := 0.0
		for m, c := range ms {
			total += float64(c)
			if id, ok := ids[m]; ok && id >= numSpecial {
				es = append(es, memberEntry{id, float64(c)})
			}
		}
		if total < typedMinCount || len(es) == 0 {
			continue
		}
		slices.SortFunc(es, func(a, b memberEntry) int {
			if c := cmp.Compare(b.p, a.p); c != 0 {
				return c
			}
			return cmp.Compare(a.id, b.id)
		})
		es = es[:min(len(es), typedTop)]
		sum := 0.0
		for _, e := range es {
			sum += e.p
		}
		for i := range es {
			es[i].p /= sum
		}
		ts.byType[t] = es
		ts.total[t] = total
	}
	return ts
}

// at returns P_type(· | T) and its weight λ(T), or nil and 0 when the model
// knows no members of T.
func (ts *typedStats) at(t string) ([]memberEntry, float64) {
	if ts == nil {
		return nil, 0
	}
	es := ts.byType[t]
	if es == nil {
		return nil, 0
	}
	c := ts.total[t]
	return es, typedWeight * c / (c + typedKappa)
}
