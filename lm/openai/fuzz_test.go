package openai

// fuzz_test.go: the logprobs decoders of every dialect (llama.cpp's
// /v1/completions "content" shape, the OpenAI legacy shape that vLLM and
// OpenAI send, and llama.cpp's native /infill "completion_probabilities")
// never panic, never produce NaN, and order each position's alternatives
// best first, deterministically. Seeds: testdata/fuzz/Fuzz*.

import (
	"math"
	"reflect"
	"testing"
)

// checkPositions fails on a NaN log-probability or alternatives out of order.
func checkPositions(t *testing.T, pos []position) {
	t.Helper()
	for i, p := range pos {
		if math.IsNaN(p.Sampled.LogProb) {
			t.Fatalf("position %d: sampled log-probability NaN", i)
		}
		for j, a := range p.Top {
			if math.IsNaN(a.LogProb) {
				t.Fatalf("position %d: alternative %d NaN", i, j)
			}
			if j > 0 && a.LogProb > p.Top[j-1].LogProb {
				t.Fatalf("position %d: alternatives not best first: %v", i, p.Top)
			}
		}
	}
}

func FuzzParseCompletion(f *testing.F) {
	for _, s := range []string{
		llamaCompletion("ab", "length", nil, [][][3]any{{{1, "a", -0.1}, {2, "b", -2.0}}, {{3, "b", -0.5}}}),
		`{"choices":[{"text":"ab","finish_reason":"length","logprobs":{"tokens":["a","b"],"token_logprobs":[-0.1,null],"top_logprobs":[{"a":-0.1,"c":-3},{"b":-0.5}]}}]}`,
		`{"choices":[{"text":"a","logprobs":{"content":[{"id":1,"token":"\ufffd","bytes":[226,130],"logprob":-3.4028234663852886e38,"top_logprobs":[]}]}}]}`,
		`{"choices":[{"text":"","logprobs":null}]}`,
		`{"choices":[]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		c, err := parseCompletion(body)
		if err != nil {
			return
		}
		checkPositions(t, c.Positions)
		again, _ := parseCompletion(body)
		if !reflect.DeepEqual(c, again) {
			t.Fatalf("two decodings differ:\n%+v\n%+v", c, again)
		}
	})
}

func FuzzParseInfill(f *testing.F) {
	for _, s := range []string{
		`{"content":"ab","tokens":[1,2],"stop_type":"limit","completion_probabilities":[{"id":1,"token":"a","bytes":[97],"logprob":-0.1,"top_logprobs":[{"id":1,"token":"a","bytes":[97],"logprob":-0.1},{"id":5,"token":"x","logprob":-4}]}]}`,
		`{"content":"","stop_type":"eos","completion_probabilities":null}`,
		`{"content":"a","completion_probabilities":[{"token":"a"}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		c, err := parseInfill(body)
		if err != nil {
			return
		}
		checkPositions(t, c.Positions)
	})
}
