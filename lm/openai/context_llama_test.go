package openai

// context_llama_test.go: a repair's prompt on a real llama-server whose
// context is smaller than the file (-c 512, a 230-line file): the prompt is
// fitted to the server's context, so Next and Propose answer instead of
// HTTP 400 "exceeds the available context size".

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/lm"
	"github.com/repilot-lsp/repilot-lsp/lm/openai/llamatest"
)

// longJava returns a Java file of about lines lines split around a hunk in
// its middle: the text before it and after it.
func longJava(lines int) (prefix, suffix string) {
	var b strings.Builder
	b.WriteString("package demo;\n\nimport java.util.List;\n\npublic class Long {\n")
	for i := 0; len(strings.Split(b.String(), "\n")) < lines/2; i++ {
		fmt.Fprintf(&b, "    int f%d(List<Integer> xs) {\n        return xs.get(%d) + %d;\n    }\n\n", i, i%3, i)
	}
	b.WriteString("    int target(int[] a) {\n")
	prefix = b.String()
	b.Reset()
	b.WriteString("        return a[0];\n    }\n\n")
	for i := 0; len(strings.Split(b.String(), "\n")) < lines/2; i++ {
		fmt.Fprintf(&b, "    String g%d(String s) {\n        return s.trim() + \"%d\";\n    }\n\n", i, i)
	}
	b.WriteString("}\n")
	return prefix, b.String()
}

func TestLlamaSmallContextLongFile(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	srv := llamatest.StartRandom(ctx, t, "deepseek-coder", "tiny", llamatest.Options{Ctx: 512, Threads: 1})
	prefix, suffix := longJava(230)
	const budget = 64
	for _, c := range []struct {
		name string
		cfg  Config
	}{
		{"template", Config{}},
		{"infill", Config{FIM: FIMInfill}},
		{"token by token", Config{NoSpeculate: true}},
	} {
		c.cfg.BaseURL = srv.URL
		m, err := New(c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		s, err := m.Start(ctx, lm.FIM{Prefix: prefix, Suffix: suffix, Indent: "        ", Buggy: "        return a[1];\n", MaxTokens: budget})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		// One sample of the repair's budget: proposals (or single tokens)
		// until the budget or the end token.
		gen, n := "", 0
		for n < budget {
			var toks []lm.Candidate
			if sp, ok := s.(lm.Speculator); ok {
				steps, err := sp.Propose(ctx, gen, lm.ProposeOptions{MaxTokens: budget - n, K: 5, Temperature: 1, Seed: uint64(n)})
				if err != nil {
					t.Fatalf("%s: Propose after %d tokens: %v", c.name, n, err)
				}
				for _, st := range steps {
					if st.Chosen < 0 {
						break
					}
					toks = append(toks, st.Token)
				}
			}
			if len(toks) == 0 {
				top, err := s.Next(ctx, gen, 5)
				if err != nil {
					t.Fatalf("%s: Next after %d tokens: %v", c.name, n, err)
				}
				if len(top) == 0 {
					t.Fatalf("%s: no candidates after %d tokens", c.name, n)
				}
				toks = top[:1]
			}
			end := false
			for _, tk := range toks {
				gen += tk.Text
				n++
				end = end || tk.End
			}
			if end {
				break
			}
		}
		if m.ContextTokens() != 512 {
			t.Errorf("%s: fitted to %d tokens, want llama-server's 512 (GET /props)", c.name, m.ContextTokens())
		}
		t.Logf("%s: a sample of %d tokens (%d bytes) on a %d+%d-byte file with -c 512", c.name, n, len(gen), len(prefix), len(suffix))
	}
}
