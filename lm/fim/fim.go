// Package fim holds the fill-in-the-middle (FIM) prompt templates of the code
// model families Repilot talks to through a raw-prompt completion API: how a
// prefix and a suffix become one prompt after which the model writes the
// middle, and which special tokens end the middle (or must never appear in it).
//
// Each template follows its model's published FIM format:
//
//	qwen       Qwen2.5-Coder    <|fim_prefix|>P<|fim_suffix|>S<|fim_middle|>
//	deepseek   DeepSeek-Coder   <｜fim▁begin｜>P<｜fim▁hole｜>S<｜fim▁end｜>
//	starcoder  StarCoder(2)     <fim_prefix>P<fim_suffix>S<fim_middle>
//	codellama  Code Llama       <PRE> P <SUF>S <MID>
//	codestral  Codestral        [SUFFIX]S[PREFIX]P
//	none       any model        P (left to right: the suffix is not shown)
//
// llama.cpp's /infill endpoint, which formats the prompt on the server from the
// model's own FIM tokens, is chosen in lm/openai's configuration, not here.
//
// Architecture invariant: templates are pure string functions; they know no
// HTTP and no tokenizer.
package fim

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Template is one model family's FIM format.
type Template struct {
	// Name is the key used in configuration ("qwen", "deepseek", ...).
	Name string
	// Family names the models in human terms, for help texts.
	Family string
	// End lists the texts of the tokens that end the middle: the end-of-text
	// token and the family's other end-of-generation tokens (file separator,
	// FIM padding). A next-token candidate with one of these texts is the
	// end-of-middle candidate (lm.Candidate.End).
	End []string
	// Control lists the texts of the other special tokens of the format (the
	// FIM markers themselves). They never belong in a middle: a candidate with
	// one of these texts is dropped from the distribution.
	Control []string

	format func(prefix, suffix string) string
}

// Prompt returns the raw completion prompt for a FIM context: after it, the
// model's continuation is the middle. The result is exact text including the
// family's special-token markers; servers parse them as special tokens in a
// raw prompt (llama.cpp, vLLM).
func (t Template) Prompt(prefix, suffix string) string { return t.format(prefix, suffix) }

// Kind classifies a next-token text under this template.
type Kind int

const (
	// Text is ordinary text: appended to the middle as is.
	Text Kind = iota
	// EndOfMiddle ends the middle (an end-of-generation token).
	EndOfMiddle
	// Drop is a FIM control token that never belongs in a middle.
	Drop
)

// Classify says what a token text means under t (see End and Control).
func (t Template) Classify(text string) Kind {
	switch {
	case slices.Contains(t.End, text):
		return EndOfMiddle
	case slices.Contains(t.Control, text):
		return Drop
	}
	return Text
}

var templates = map[string]Template{
	"qwen": {
		Name:    "qwen",
		Family:  "Qwen2.5-Coder",
		End:     []string{"<|endoftext|>", "<|fim_pad|>", "<|file_sep|>", "<|repo_name|>", "<|im_end|>"},
		Control: []string{"<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>", "<|im_start|>"},
		format: func(p, s string) string {
			return "<|fim_prefix|>" + p + "<|fim_suffix|>" + s + "<|fim_middle|>"
		},
	},
	"deepseek": {
		Name:    "deepseek",
		Family:  "DeepSeek-Coder",
		End:     []string{"<｜end▁of▁sentence｜>", "<|EOT|>"},
		Control: []string{"<｜fim▁begin｜>", "<｜fim▁hole｜>", "<｜fim▁end｜>", "<｜begin▁of▁sentence｜>"},
		format: func(p, s string) string {
			return "<｜fim▁begin｜>" + p + "<｜fim▁hole｜>" + s + "<｜fim▁end｜>"
		},
	},
	"starcoder": {
		Name:    "starcoder",
		Family:  "StarCoder, StarCoder2",
		End:     []string{"<|endoftext|>", "<file_sep>"},
		Control: []string{"<fim_prefix>", "<fim_suffix>", "<fim_middle>", "<fim_pad>", "<repo_name>", "<filename>"},
		format: func(p, s string) string {
			return "<fim_prefix>" + p + "<fim_suffix>" + s + "<fim_middle>"
		},
	},
	"codellama": {
		Name:    "codellama",
		Family:  "Code Llama",
		End:     []string{"<EOT>", "</s>"},
		Control: []string{"<PRE>", "<SUF>", "<MID>", "<s>"},
		// Meta's format: a space after <PRE> and before <SUF> and <MID>; the
		// tokenizer folds the space after <PRE> into the prefix's first token.
		format: func(p, s string) string {
			return "<PRE> " + p + " <SUF>" + s + " <MID>"
		},
	},
	"codestral": {
		Name:    "codestral",
		Family:  "Codestral",
		End:     []string{"</s>"},
		Control: []string{"[SUFFIX]", "[PREFIX]", "[MIDDLE]", "<s>"},
		// Mistral's FIM: suffix first, then the prefix, which the middle
		// continues directly.
		format: func(p, s string) string {
			return "[SUFFIX]" + s + "[PREFIX]" + p
		},
	},
	"none": {
		Name:   "none",
		Family: "any model (no FIM: left-to-right from the prefix)",
		End:    []string{"<|endoftext|>", "</s>", "<|EOT|>", "<EOT>"},
		format: func(p, _ string) string { return p },
	},
}

// Names returns the template names accepted by ByName, sorted.
func Names() []string {
	names := make([]string, 0, len(templates))
	for n := range templates {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ByName returns the template called name (case-insensitive; also accepts a
// few aliases: "qwen2.5-coder", "deepseek-coder", "starcoder2", "code-llama",
// "mistral"). An unknown name is an error listing the known ones.
func ByName(name string) (Template, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	if t, ok := templates[n]; ok {
		return t, nil
	}
	if t, ok := Guess(n); ok && t.Name != "none" {
		return t, nil
	}
	return Template{}, fmt.Errorf("unknown FIM template %q (want one of %s)", name, strings.Join(Names(), ", "))
}

// familyHints maps substrings of model names (lower case) to templates, most
// specific first: "deepseek-coder" must not match "coder" of Qwen, and
// "codellama" contains "llama" only as part of it.
var familyHints = []struct{ hint, template string }{
	{"deepseek", "deepseek"},
	{"qwen", "qwen"},
	{"starcoder", "starcoder"},
	{"star-coder", "starcoder"},
	{"codellama", "codellama"},
	{"code-llama", "codellama"},
	{"code_llama", "codellama"},
	{"codestral", "codestral"},
	{"mistral", "codestral"},
}

// Guess picks a template from a model name or GGUF file name such as
// "Qwen2.5-Coder-1.5B-Q8_0.gguf" or "deepseek-coder:6.7b-base". It reports
// false (and returns "none") when no family is recognised.
func Guess(model string) (Template, bool) {
	m := strings.ToLower(model)
	for _, h := range familyHints {
		if strings.Contains(m, h.hint) {
			return templates[h.template], true
		}
	}
	return templates["none"], false
}
