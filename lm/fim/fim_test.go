package fim

// fim_test.go checks each template's prompt against its family's published
// format, the name guessing, and token classification.

import "testing"

func TestPrompts(t *testing.T) {
	const p, s = "int f() {\n  return ", ";\n}\n"
	cases := []struct{ name, want string }{
		{"qwen", "<|fim_prefix|>" + p + "<|fim_suffix|>" + s + "<|fim_middle|>"},
		{"deepseek", "<｜fim▁begin｜>" + p + "<｜fim▁hole｜>" + s + "<｜fim▁end｜>"},
		{"starcoder", "<fim_prefix>" + p + "<fim_suffix>" + s + "<fim_middle>"},
		{"codellama", "<PRE> " + p + " <SUF>" + s + " <MID>"},
		{"codestral", "[SUFFIX]" + s + "[PREFIX]" + p},
		{"none", p},
	}
	for _, c := range cases {
		tpl, err := ByName(c.name)
		if err != nil {
			t.Fatal(err)
		}
		if got := tpl.Prompt(p, s); got != c.want {
			t.Errorf("%s: Prompt = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestByNameAliasesAndErrors(t *testing.T) {
	for alias, want := range map[string]string{
		"Qwen2.5-Coder": "qwen", "deepseek-coder": "deepseek", "StarCoder2": "starcoder",
		"code-llama": "codellama", "mistral": "codestral", " QWEN ": "qwen",
	} {
		tpl, err := ByName(alias)
		if err != nil || tpl.Name != want {
			t.Errorf("ByName(%q) = %q, %v; want %q", alias, tpl.Name, err, want)
		}
	}
	if _, err := ByName("gpt-4o"); err == nil {
		t.Error("ByName(gpt-4o): want an error for an unknown family")
	}
}

func TestGuess(t *testing.T) {
	cases := map[string]string{
		"Qwen2.5-Coder-1.5B-Instruct-Q8_0.gguf": "qwen",
		"deepseek-coder:6.7b-base":              "deepseek",
		"bigcode/starcoder2-3b":                 "starcoder",
		"codellama-7b-code.Q4_K_M.gguf":         "codellama",
		"codestral-22b-v0.1":                    "codestral",
		"repilot-random-deepseek-coder":         "deepseek",
	}
	for model, want := range cases {
		tpl, ok := Guess(model)
		if !ok || tpl.Name != want {
			t.Errorf("Guess(%q) = %q, %v; want %q", model, tpl.Name, ok, want)
		}
	}
	if tpl, ok := Guess("gpt-3.5-turbo-instruct"); ok || tpl.Name != "none" {
		t.Errorf("Guess(gpt-3.5) = %q, %v; want none, false", tpl.Name, ok)
	}
}

func TestClassify(t *testing.T) {
	q, _ := ByName("qwen")
	for text, want := range map[string]Kind{
		"<|endoftext|>": EndOfMiddle, "<|file_sep|>": EndOfMiddle, "<|fim_pad|>": EndOfMiddle,
		"<|fim_prefix|>": Drop, "<|fim_middle|>": Drop,
		"return": Text, " x": Text, "": Text,
	} {
		if got := q.Classify(text); got != want {
			t.Errorf("qwen.Classify(%q) = %v, want %v", text, got, want)
		}
	}
	d, _ := ByName("deepseek")
	if d.Classify("<|EOT|>") != EndOfMiddle || d.Classify("<｜fim▁hole｜>") != Drop {
		t.Error("deepseek: EOT must end the middle and fim hole must be dropped")
	}
}
