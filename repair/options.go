package repair

// options.go defines the defaults of Algorithm 1's knobs and the paper's
// ablation variants (Repilot, Table 3).

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/repilot-lsp/repilot-lsp/javalex"
)

// Default values of Options (see DefaultOptions).
const (
	DefaultSamples     = 20
	DefaultTopK        = 20
	DefaultTemperature = 1.0
	DefaultTopP        = 0.95
	DefaultMaxTokens   = 64
	DefaultKeepTop     = 5
)

// DefaultOptions returns the full Repilot configuration: pruning, memoization
// and active completion on; 20 samples; top-k 20; temperature 1.0; top-p 0.95;
// at most 64 tokens (fewer for short hunks: TokenBudget), 16 KiB and 200 lines per hunk (the last two changed by
// $REPILOT_MAX_HUNK_BYTES and $REPILOT_MAX_HUNK_LINES); 5 patches kept;
// one sample at a time.
//
// Temperature 1.0 samples the model's own distribution; top-p 0.95 cuts only
// the long tail. Measured on testdata/bugs with the embedded n-gram model (20
// samples per bug, full variant, seed 0), lower temperatures made samples
// repeat without making them compile more often: temperature 1.0, 0.5 and 0.3
// gave 192, 146 and 88 unique candidates, of which 5, 4 and 2 compiled, on 3,
// 2 and 2 of the 15 bugs.
func DefaultOptions() Options {
	return Options{
		Samples:        DefaultSamples,
		Temperature:    DefaultTemperature,
		TopP:           DefaultTopP,
		TopK:           DefaultTopK,
		MaxTokens:      DefaultMaxTokens,
		Prune:          true,
		Memo:           true,
		ActiveComplete: true,
		KeepTop:        DefaultKeepTop,
		Concurrency:    1,
		MaxHunkBytes:   envInt(EnvMaxHunkBytes, DefaultMaxHunkBytes),
		MaxHunkLines:   envInt(EnvMaxHunkLines, DefaultMaxHunkLines),
	}
}

// withDefaults fills in defaults: the zero Options is DefaultOptions; otherwise
// each numeric field that is zero (or out of range) takes its default and the
// three switches are kept as given. A negative Temperature is treated as 0
// (greedy: always the most likely feasible token).
func (o Options) withDefaults() Options {
	if o == (Options{}) {
		o = DefaultOptions()
	}
	if o.Samples <= 0 {
		o.Samples = DefaultSamples
	}
	if o.TopK <= 0 {
		o.TopK = DefaultTopK
	}
	if o.Temperature < 0 {
		o.Temperature = 0
	}
	if o.TopP <= 0 || o.TopP > 1 {
		o.TopP = DefaultTopP
	}
	if o.MaxTokens <= 0 {
		o.MaxTokens = DefaultMaxTokens
	}
	if o.KeepTop <= 0 {
		o.KeepTop = DefaultKeepTop
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 1
	}
	if o.MaxHunkBytes <= 0 {
		o.MaxHunkBytes = envInt(EnvMaxHunkBytes, DefaultMaxHunkBytes)
	}
	if o.MaxHunkLines <= 0 {
		o.MaxHunkLines = envInt(EnvMaxHunkLines, DefaultMaxHunkLines)
	}
	return o
}

// The hunk-scaled token budget (Options.TokenBudget): a sample of a hunk
// whose buggy lines hold n Java tokens may take BudgetPerToken*n +
// BudgetSlack tokens, at least BudgetFloor, at most MaxTokens.
//
// Chosen by measurement on three bugs of testdata/bugs with the embedded
// n-gram model (20 samples, seed 0, full; bench/README.md): no completed
// candidate took more than the buggy hunk's Java tokens + 7 (a fix of one or
// two lines keeps about the length of the lines it replaces; the n-gram
// model's tokens are Java tokens plus line breaks and indentation), while 45%
// of the samples ran to the 64-token limit and spent 77% of all sampled
// tokens there. Twice the hunk plus 16 leaves room for longer fixes and for
// subword tokenizers.
const (
	BudgetPerToken = 2
	BudgetSlack    = 16
	BudgetFloor    = 24
)

// TokenBudget returns the tokens one sample of the hunk buggy may take:
// MaxTokens when FixedBudget is set, else the hunk-scaled budget above. An
// insertion (buggy "") gets BudgetFloor. A sample at the budget is
// truncated as at MaxTokens (Stats.Truncated).
func (o Options) TokenBudget(buggy string) int {
	o = o.withDefaults()
	if o.FixedBudget {
		return o.MaxTokens
	}
	n := 0
	for _, t := range javalex.Lex(buggy) {
		if !t.Kind.IsComment() {
			n++
		}
	}
	return min(o.MaxTokens, max(BudgetFloor, BudgetPerToken*n+BudgetSlack))
}

// Bounds on one generated hunk: a sample that grows past either is discarded
// like one that reaches MaxTokens (Stats.Truncated). Tokens are bounded by
// the model client (lm/openai: 1 KiB each), but active completion appends
// JDT LS's completions, so the hunk is bounded on its own too.
const (
	DefaultMaxHunkBytes = 16 << 10
	DefaultMaxHunkLines = 200
	EnvMaxHunkBytes     = "REPILOT_MAX_HUNK_BYTES" // changes DefaultMaxHunkBytes
	EnvMaxHunkLines     = "REPILOT_MAX_HUNK_LINES" // changes DefaultMaxHunkLines
)

// CheckEnv returns an error naming $REPILOT_MAX_HUNK_BYTES or
// $REPILOT_MAX_HUNK_LINES when one is set to anything but a positive
// integer (DefaultOptions would take the default in its place without a
// word); nil when both are unset or good. The commands call it before they
// start anything.
func CheckEnv() error {
	for _, name := range []string{EnvMaxHunkBytes, EnvMaxHunkLines} {
		if v := os.Getenv(name); v != "" {
			if n, err := strconv.Atoi(v); err != nil || n <= 0 {
				return fmt.Errorf("$%s=%q: want a positive integer (unset: %d)", name, v, map[string]int{EnvMaxHunkBytes: DefaultMaxHunkBytes, EnvMaxHunkLines: DefaultMaxHunkLines}[name])
			}
		}
	}
	return nil
}

// envInt is the positive integer in $name, else def.
func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// overHunkBounds reports a generated hunk over MaxHunkBytes or MaxHunkLines
// (their defaults when zero).
func (o Options) overHunkBounds(generated string) bool {
	maxBytes, maxLines := o.MaxHunkBytes, o.MaxHunkLines
	if maxBytes <= 0 {
		maxBytes = DefaultMaxHunkBytes
	}
	if maxLines <= 0 {
		maxLines = DefaultMaxHunkLines
	}
	return len(generated) > maxBytes || strings.Count(generated, "\n") > maxLines
}

// Variants lists the names accepted by WithVariant, weakest first (Table 3).
var Variants = []string{"base", "prune", "prune+memo", "full"}

// WithVariant returns o with Prune, Memo and ActiveComplete set for one of the
// paper's ablation variants: "base" (plain sampling), "prune" (GuidedPrune),
// "prune+memo" (plus section 4.3 memoization) or "full" (plus Algorithm 3,
// active completion). Other fields are kept. An unknown name is an error.
func (o Options) WithVariant(name string) (Options, error) {
	if o == (Options{}) {
		o = DefaultOptions()
	}
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "base":
		o.Prune, o.Memo, o.ActiveComplete = false, false, false
	case "prune":
		o.Prune, o.Memo, o.ActiveComplete = true, false, false
	case "prune+memo":
		o.Prune, o.Memo, o.ActiveComplete = true, true, false
	case "full", "":
		o.Prune, o.Memo, o.ActiveComplete = true, true, true
	default:
		return o, fmt.Errorf("unknown variant %q (want one of %s)", name, strings.Join(Variants, ", "))
	}
	return o, nil
}

// Variant names the ablation variant o selects ("base", "prune", "prune+memo",
// "full"), or describes an unusual combination ("memo", "prune+active", ...).
func (o Options) Variant() string {
	switch {
	case !o.Prune && !o.Memo && !o.ActiveComplete:
		return "base"
	case o.Prune && !o.Memo && !o.ActiveComplete:
		return "prune"
	case o.Prune && o.Memo && !o.ActiveComplete:
		return "prune+memo"
	case o.Prune && o.Memo && o.ActiveComplete:
		return "full"
	}
	var parts []string
	if o.Prune {
		parts = append(parts, "prune")
	}
	if o.Memo {
		parts = append(parts, "memo")
	}
	if o.ActiveComplete {
		parts = append(parts, "active")
	}
	return strings.Join(parts, "+")
}
