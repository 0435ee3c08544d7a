package repair

// memo.go is Repilot's memoization (Wei, Xia, Zhang, FSE 2023, section 4.3):
// for each (hunk, generated prefix) the tokens the completion engine accepted
// and rejected, the engine's completions there, and the model's distribution
// there; plus the trie of rejected prefixes (prefixes whose every candidate
// token was pruned).
//
// Contract: the memo only saves queries. A cached verdict is the answer the
// engine gave for the same partial program, so for a deterministic engine and
// model a repair with memo on returns exactly the patches of the same repair
// with memo off (tested in loop_test.go). The trie is different in kind: it is
// knowledge the search derives (a dead prefix), not a cached answer, so the
// loop keeps it whenever pruning is on, memo or not, and one per repair so that
// repeating a repair with the same seed repeats its patches.

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/repilot-lsp/repilot-lsp/engine"
	"github.com/repilot-lsp/repilot-lsp/lm"
)

// DefaultMemoSize bounds each of the memo's two caches (entries, one entry per
// distinct generated prefix).
const DefaultMemoSize = 1 << 16

// verdict is what the memo knows about one token at one prefix.
type verdict int

const (
	unseen verdict = iota
	accepted
	rejected
)

type prefixKey struct {
	hunk   string // HunkKey of the partial program around the caret
	prefix string // generated text so far
}

// prefixEntry holds the engine facts for one prefix.
type prefixEntry struct {
	accepted map[string]struct{} // token texts the engine did not prune
	rejected map[string]struct{} // token texts the engine proved infeasible
	complete *engine.Completions // Complete's answer at the end of the prefix
}

// Memo caches engine verdicts and model distributions per (hunk key,
// generated prefix), in two LRU caches of bounded size. It is safe for
// concurrent use.
type Memo struct {
	mu     sync.Mutex // guards the maps inside prefixEntry values
	engine *lru.Cache[prefixKey, *prefixEntry]
	dists  *lru.Cache[prefixKey, []lm.Candidate]
}

// NewMemo returns a memo whose caches hold at most size prefixes each
// (size <= 0: DefaultMemoSize). Evicting a prefix only costs queries later.
func NewMemo(size int) *Memo {
	if size <= 0 {
		size = DefaultMemoSize
	}
	e, err := lru.New[prefixKey, *prefixEntry](size)
	if err != nil { // only for size <= 0, excluded above
		panic(fmt.Sprintf("repair: lru.New(%d): %v", size, err))
	}
	d, err := lru.New[prefixKey, []lm.Candidate](size)
	if err != nil {
		panic(fmt.Sprintf("repair: lru.New(%d): %v", size, err))
	}
	return &Memo{engine: e, dists: d}
}

// HunkKey identifies a partial program: the file URI and the exact text
// around the hunk (hex SHA-256, 32 characters). Extra parts (model name, k)
// distinguish distributions of different models or cut-offs.
func HunkKey(uri, prefix, suffix string, extra ...string) string {
	h := sha256.New()
	for _, s := range append([]string{uri, prefix, suffix}, extra...) {
		fmt.Fprintf(h, "%d:", len(s))
		h.Write([]byte(s))
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// Verdict reports what the engine said about token after prefix in hunk:
// accepted (feasible or unknown), rejected (infeasible), or unseen.
func (m *Memo) Verdict(hunk, prefix, token string) verdict {
	e, ok := m.engine.Get(prefixKey{hunk, prefix})
	if !ok {
		return unseen
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := e.rejected[token]; ok {
		return rejected
	}
	if _, ok := e.accepted[token]; ok {
		return accepted
	}
	return unseen
}

// Record stores the engine's verdict on token after prefix in hunk.
func (m *Memo) Record(hunk, prefix, token string, ok bool) {
	e := m.entry(hunk, prefix)
	m.mu.Lock()
	defer m.mu.Unlock()
	if ok {
		if e.accepted == nil {
			e.accepted = map[string]struct{}{}
		}
		e.accepted[token] = struct{}{}
	} else {
		if e.rejected == nil {
			e.rejected = map[string]struct{}{}
		}
		e.rejected[token] = struct{}{}
	}
}

// Completion returns the engine's cached completions at the end of prefix.
func (m *Memo) Completion(hunk, prefix string) (engine.Completions, bool) {
	e, ok := m.engine.Get(prefixKey{hunk, prefix})
	if !ok {
		return engine.Completions{}, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if e.complete == nil {
		return engine.Completions{}, false
	}
	return *e.complete, true
}

// RecordCompletion stores the engine's completions at the end of prefix.
func (m *Memo) RecordCompletion(hunk, prefix string, c engine.Completions) {
	e := m.entry(hunk, prefix)
	m.mu.Lock()
	defer m.mu.Unlock()
	e.complete = &c
}

func (m *Memo) entry(hunk, prefix string) *prefixEntry {
	k := prefixKey{hunk, prefix}
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.engine.Get(k); ok {
		return e
	}
	e := &prefixEntry{}
	m.engine.Add(k, e)
	return e
}

// Dist returns the cached model distribution after prefix (key from HunkKey
// with the model name and k as extras). The slice must not be modified.
func (m *Memo) Dist(key, prefix string) ([]lm.Candidate, bool) {
	return m.dists.Get(prefixKey{key, prefix})
}

// RecordDist caches the model distribution after prefix.
func (m *Memo) RecordDist(key, prefix string, d []lm.Candidate) {
	m.dists.Add(prefixKey{key, prefix}, d)
}

// Trie is the set of rejected prefixes (section 4.3): generated texts after
// which every candidate token was pruned, so no sample may pass through them.
// It is a byte trie; its size is bounded by the search (at most one prefix per
// sample, each at most MaxTokens tokens long). Not safe for concurrent use.
type Trie struct {
	root  trieNode
	count int
}

type trieNode struct {
	end  bool // a rejected prefix ends here
	kids map[byte]*trieNode
}

// Add records p as a rejected prefix.
func (t *Trie) Add(p string) {
	n := &t.root
	for i := 0; i < len(p); i++ {
		if n.end {
			return // a shorter rejected prefix already covers p
		}
		if n.kids == nil {
			n.kids = map[byte]*trieNode{}
		}
		c := n.kids[p[i]]
		if c == nil {
			c = &trieNode{}
			n.kids[p[i]] = c
		}
		n = c
	}
	if !n.end {
		n.end = true
		n.kids = nil // everything below is covered now
		t.count++
	}
}

// Covers reports whether some rejected prefix is a prefix of s (s itself
// included).
func (t *Trie) Covers(s string) bool {
	n := &t.root
	for i := 0; ; i++ {
		if n.end {
			return true
		}
		if i == len(s) {
			return false
		}
		n = n.kids[s[i]]
		if n == nil {
			return false
		}
	}
}

// Len returns how many Add calls recorded a prefix not already covered.
func (t *Trie) Len() int { return t.count }
