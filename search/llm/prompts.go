package llm

// prompts.go holds the three chat tasks of the RepoRift pipeline and the
// parsing of their answers: query augmentation with repository context,
// code generation from the query, and reranking of fused candidates.

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// RepoContext is what the model is told about the repository when it
// augments a query (RepoRift section 3.1 gives the model the repository's
// description; we give what an editor has offline: the README, package names
// and the names of the symbols the lexical stream finds for the query).
type RepoContext struct {
	Readme   string   // an excerpt of the README
	Packages []string // package / module names
	Symbols  []string // qualified names of possibly related units
	Lang     string   // the main language of the repository ("java", "python", "go")
}

// MaxReadme bounds the README excerpt in prompts (bytes).
const MaxReadme = 1500

func (rc RepoContext) render() string {
	var b strings.Builder
	if rc.Lang != "" {
		fmt.Fprintf(&b, "Language: %s\n", rc.Lang)
	}
	if r := strings.TrimSpace(rc.Readme); r != "" {
		if len(r) > MaxReadme {
			r = clipUTF8(r, MaxReadme) + " …"
		}
		fmt.Fprintf(&b, "README (excerpt):\n%s\n\n", r)
	}
	if len(rc.Packages) > 0 {
		fmt.Fprintf(&b, "Packages: %s\n", strings.Join(rc.Packages, ", "))
	}
	if len(rc.Symbols) > 0 {
		fmt.Fprintf(&b, "Symbols that may be related: %s\n", strings.Join(rc.Symbols, ", "))
	}
	return b.String()
}

const augmentSystem = `You help a developer search their code repository. Rewrite the search query
into a precise description of the code they are looking for, in the vocabulary of
this repository: say what the function or class does, its likely inputs and
outputs, and the identifiers it probably uses or is named by (use names from the
repository context when they fit). Answer with the rewritten query only: at most
four sentences of plain text, no code block, no preamble.`

// Augment asks the model to rewrite query with the repository context
// (RepoRift's query augmentation). The answer is trimmed; an empty answer is
// an error.
func Augment(ctx context.Context, c Chat, query string, rc RepoContext) (string, error) {
	user, err := fitUser(ctx, c, augmentSystem, rc.render(), query, func(h, t string) string { return h + "\nSearch query: " + t })
	if err != nil {
		return "", err
	}
	out, err := c.Complete(ctx, augmentSystem, user)
	if err != nil {
		return "", err
	}
	out = strings.TrimSpace(stripThink(out))
	out = strings.TrimPrefix(out, "Rewritten query:")
	out = strings.TrimSpace(out)
	if out == "" {
		return "", fmt.Errorf("llm: augmentation: empty answer")
	}
	return out, nil
}

const generateSystem = `You write code for a developer who is searching their repository for it.
Write the %[1]s code that the description asks for, as it would appear in this
repository: one function or method, or a small class, with helper functions if
they are natural. Use the repository's names where they fit. Answer with one
fenced %[1]s code block and nothing else.`

// Generate asks the model for code that does what query describes
// (RepoRift's code generation stream). It returns the code without fences;
// an answer with no code is an error.
func Generate(ctx context.Context, c Chat, query string, rc RepoContext) (string, error) {
	lang := rc.Lang
	if lang == "" {
		lang = "java"
	}
	system := fmt.Sprintf(generateSystem, lang)
	user, err := fitUser(ctx, c, system, rc.render(), query, func(h, t string) string { return h + "\nDescription: " + t })
	if err != nil {
		return "", err
	}
	out, err := c.Complete(ctx, system, user)
	if err != nil {
		return "", err
	}
	code := ExtractCode(stripThink(out))
	if strings.TrimSpace(code) == "" {
		return "", fmt.Errorf("llm: generation: no code in the answer")
	}
	return code, nil
}

var fence = regexp.MustCompile("(?s)```[A-Za-z0-9_+-]*[ \t]*\n(.*?)(?:```|$)")

// ExtractCode returns the contents of the fenced code blocks of a model
// answer, joined by blank lines; an answer without fences is returned
// trimmed (models sometimes answer with bare code).
func ExtractCode(answer string) string {
	ms := fence.FindAllStringSubmatch(answer, -1)
	if len(ms) == 0 {
		return strings.TrimSpace(answer)
	}
	var parts []string
	for _, m := range ms {
		if s := strings.TrimRight(m[1], " \t\n"); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n\n")
}

var thinkBlock = regexp.MustCompile(`(?s)<think>.*?</think>`)

// stripThink removes the reasoning blocks some models emit.
func stripThink(s string) string { return thinkBlock.ReplaceAllString(s, "") }

// Candidate is one unit shown to the reranker.
type Candidate struct {
	Path      string
	Signature string
	Snippet   string // the first lines of code
}

const rerankSystem = `You rank search results for a developer searching their code repository.
You get the search query and numbered candidate code units. Order the candidates
from most to least relevant to the query: the best is the unit that implements
what the query describes. Answer with a JSON array of the candidate numbers, best
first, for example [3, 1, 2]. Include every candidate you find relevant; leave out
none that might be. No other text.`

// MaxSnippet bounds each candidate's code in the rerank prompt (bytes).
const MaxSnippet = 600

// Rerank asks the model to order candidates for query (RepoRift's
// re-ranking step). It returns candidate indices (0-based), best first,
// each at most once; candidates the model leaves out are not in the result.
func Rerank(ctx context.Context, c Chat, query string, cands []Candidate) ([]int, error) {
	var b strings.Builder
	for i, cd := range cands {
		snip := cd.Snippet
		if len(snip) > MaxSnippet {
			snip = clipUTF8(snip, MaxSnippet) + " …"
		}
		fmt.Fprintf(&b, "\n[%d] %s\n%s\n%s\n", i+1, cd.Path, cd.Signature, snip)
	}
	// The best candidates come first: a list too long for the server's
	// context keeps its start.
	user, err := fitUser(ctx, c, rerankSystem, query, b.String(), func(h, t string) string {
		return "Search query: " + h + "\n\nCandidates:\n" + t
	})
	if err != nil {
		return nil, err
	}
	out, err := c.Complete(ctx, rerankSystem, user)
	if err != nil {
		return nil, err
	}
	order := ParseRanking(stripThink(out), len(cands))
	if len(order) == 0 {
		return nil, fmt.Errorf("llm: rerank: no candidate numbers in the answer")
	}
	return order, nil
}

// fitUser returns the user message join(head, tail), fitted to c's server's
// context when c is a Fitter (OpenAIChat: a long query or candidate list
// would otherwise be refused with HTTP 400): head keeps its end, tail its
// start. Errors: ctx's.
func fitUser(ctx context.Context, c Chat, system, head, tail string, join func(head, tail string) string) (string, error) {
	if f, ok := c.(Fitter); ok {
		h, t, err := f.FitUser(ctx, system, head, tail, join)
		if err != nil {
			return "", err
		}
		head, tail = h, t
	}
	return join(head, tail), nil
}

var number = regexp.MustCompile(`\d+`)

// ParseRanking reads 1-based candidate numbers from an answer, in order,
// keeping the first occurrence of each number in 1..n, and returns them
// 0-based. It prefers the first [...] list when there is one.
func ParseRanking(answer string, n int) []int {
	if i := strings.IndexByte(answer, '['); i >= 0 {
		if j := strings.IndexByte(answer[i:], ']'); j > 0 {
			answer = answer[i : i+j+1]
		}
	}
	seen := map[int]bool{}
	var out []int
	for _, m := range number.FindAllString(answer, -1) {
		k, err := strconv.Atoi(m)
		if err != nil || k < 1 || k > n || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, k-1)
	}
	return out
}
