package inline

// heal.go is token healing for a caret inside (or right after) an
// identifier: the user typed "new S", and a model asked to continue after
// "S" sees a token boundary no tokenizer would draw there (a subword model
// writes " StringBuilder" whole; the n-gram model's tokens are whole
// identifiers). So the model's prompt is backed up to the identifier's start
// and its first tokens are constrained to write the typed part again (a
// token that is a prefix of it, or starts with it); what is shown is the
// generated text less that part, inserted at the caret.

import (
	"strings"
	"unicode/utf8"

	"github.com/repilot-lsp/repilot-lsp/javalex"
	"github.com/repilot-lsp/repilot-lsp/lm"
)

// healK is how many candidates a healing step asks of the model (at least
// the k asked of it): an identifier the user started is rarely among a
// whole-word model's best 20 tokens after the cut prompt.
const healK = 256

// partialIdent returns the identifier (or keyword) that ends at the end of
// prefix, in code: the longest run of identifier characters before the
// caret that starts with an identifier start ("" after a number such as
// "0x1F", in a literal or comment, or after any other character).
func partialIdent(prefix string) string {
	i := len(prefix)
	for i > 0 {
		r, n := utf8.DecodeLastRuneInString(prefix[:i])
		if r == utf8.RuneError || !javalex.IsIdentPart(r) {
			break
		}
		i -= n
	}
	part := prefix[i:]
	if r, _ := utf8.DecodeRuneInString(part); part == "" || !javalex.IsIdentStart(r) {
		return ""
	}
	if javalex.ContextAt(prefix, len(prefix)) != javalex.Code {
		return ""
	}
	return part
}

// healOK reports whether candidate c may follow generated when the
// generated text must start with heal: once generated covers heal, any; before,
// a token that keeps the text a prefix of heal (not empty, not the end) or
// makes it start with heal.
func healOK(heal, generated string, c lm.Candidate) bool {
	if len(generated) >= len(heal) {
		return true
	}
	t := generated + c.Text
	if strings.HasPrefix(t, heal) {
		return true
	}
	return !c.End && c.Text != "" && strings.HasPrefix(heal, t)
}

// withTyped returns the first step's candidates with the typed part itself
// among them: when the model does not propose it, it is added last (at the
// least likely candidate's probability). A whole-word model (lm.WholeWords)
// cannot write an identifier it never saw, and the cut prompt may hold the
// only copy of a name the user typed whole ("= TypeAdapters|"); with the
// typed part as a token it continues as it would without healing.
func withTyped(dist []lm.Candidate, heal string) []lm.Candidate {
	lp := 0.0
	for _, c := range dist {
		if !c.End && c.Text == heal {
			return dist
		}
		lp = min(lp, c.LogProb)
	}
	return append(dist, lm.Candidate{Text: heal, LogProb: lp})
}
