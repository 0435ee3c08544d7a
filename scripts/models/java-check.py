#!/usr/bin/env python3
"""Checks a llama-server serving a model written by train-java.py:

1. Forward pass: an independent numpy implementation of the same network
   (the equations of train-java.py) on the GGUF's own tensors gives the
   server's top-5 next-token log-probabilities after a FIM prompt (within
   0.01 nats). This proves the weights mean in llama.cpp what they meant in
   training (tensor layout, rotary embedding, norms).
2. End of the middle: completions of FIM prompts cut from Java code the
   model was not trained on (a few lines of example code below), greedy and
   sampled as the repair loop samples (temperature 1, top-k 20, top-p 0.95,
   --samples seeds per prompt), end with the end-of-sequence token within
   --max-tokens; prints how many did.

usage: java-check.py MODEL.gguf SERVER_ROOT_URL LLAMA_SRC [--min-ended N]
Exits non-zero when (1) fails or fewer than --min-ended sampled middles ended.
"""
import argparse
import json
import math
import os
import sys
import urllib.error
import urllib.request

PROMPTS = [
    ("public class Counter {\n    private int count;\n\n    public void increment() {\n", "    }\n\n    public int get() {\n        return count;\n    }\n}\n"),
    ("import java.util.List;\n\nclass Stats {\n    static int sum(List<Integer> xs) {\n        int s = 0;\n        for (int x : xs) {\n", "        }\n        return s;\n    }\n}\n"),
    ("class Range {\n    final int lo, hi;\n\n    Range(int lo, int hi) {\n        this.lo = lo;\n", "    }\n\n    boolean contains(int x) {\n        return lo <= x && x < hi;\n    }\n}\n"),
    ("class Names {\n    static boolean isBlank(String s) {\n", "    }\n}\n"),
    ("import java.util.Map;\nimport java.util.HashMap;\n\nclass WordCount {\n    final Map<String, Integer> counts = new HashMap<>();\n\n    void add(String w) {\n", "    }\n}\n"),
    ("class Stack {\n    private final int[] items = new int[16];\n    private int size;\n\n    int pop() {\n        if (size == 0) {\n            throw new IllegalStateException(\"empty\");\n        }\n", "    }\n}\n"),
]
BEGIN, HOLE, END = "<｜fim▁begin｜>", "<｜fim▁hole｜>", "<｜fim▁end｜>"


def post(url, path, body):
    req = urllib.request.Request(url + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=120) as r:
        return json.load(r)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("url")
    ap.add_argument("llama_src")
    ap.add_argument("--min-ended", type=int, default=1)
    ap.add_argument("--max-tokens", type=int, default=48)
    ap.add_argument("--samples", type=int, default=4)
    a = ap.parse_args()
    sys.path.insert(0, os.path.join(a.llama_src, "gguf-py"))
    import numpy as np
    import gguf

    r = gguf.GGUFReader(a.model)
    T = {t.name: np.array(t.data, dtype=np.float64) for t in r.tensors}
    d = T["token_embd.weight"].shape[1]
    H = int(r.fields["llama.attention.head_count"].contents())
    L = int(r.fields["llama.block_count"].contents())
    hd = d // H
    eps = float(r.fields["llama.attention.layer_norm_rms_epsilon"].contents())

    def rms(x, w):
        return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * w

    def forward(ids):
        t = len(ids)
        h = T["token_embd.weight"][ids]
        inv = 10000.0 ** (-np.arange(0, hd, 2) / hd)
        ang = np.arange(t)[:, None] * inv[None, :]
        c, s = np.cos(ang), np.sin(ang)

        def rope(x):
            x0, x1 = x[..., 0::2], x[..., 1::2]
            return np.stack([x0 * c - x1 * s, x0 * s + x1 * c], -1).reshape(x.shape)

        mask = np.triu(np.full((t, t), -np.inf), 1)
        for i in range(L):
            p = f"blk.{i}."
            n = rms(h, T[p + "attn_norm.weight"])
            q, k, v = ((n @ T[p + f"attn_{x}.weight"].T).reshape(t, H, hd).transpose(1, 0, 2) for x in "qkv")
            q, k = rope(q), rope(k)
            att = q @ k.transpose(0, 2, 1) / math.sqrt(hd) + mask
            att = np.exp(att - att.max(-1, keepdims=True))
            att /= att.sum(-1, keepdims=True)
            h = h + (att @ v).transpose(1, 0, 2).reshape(t, d) @ T[p + "attn_output.weight"].T
            n = rms(h, T[p + "ffn_norm.weight"])
            g = n @ T[p + "ffn_gate.weight"].T
            h = h + ((g / (1 + np.exp(-g))) * (n @ T[p + "ffn_up.weight"].T)) @ T[p + "ffn_down.weight"].T
        lg = rms(h, T["output_norm.weight"])[-1] @ T["output.weight"].T
        lg = lg - lg.max()
        return lg - math.log(np.exp(lg).sum())

    prefix, suffix = PROMPTS[0]
    ids = post(a.url, "/tokenize", {"content": BEGIN + prefix + HOLE + suffix + END, "add_special": True, "parse_special": True})["tokens"]
    lp = forward(ids)
    mine = [(int(i), float(lp[i])) for i in np.argsort(-lp)[:5]]
    res = post(a.url, "/completion", {"prompt": ids, "n_predict": 1, "n_probs": 5, "temperature": 0})
    theirs = [(x["id"], x["logprob"]) for x in res["completion_probabilities"][0]["top_logprobs"]]
    ok = [m[0] for m in mine] == [t[0] for t in theirs] and all(abs(m[1] - t[1]) < 0.01 for m, t in zip(mine, theirs))
    print(f"java-check.py: forward pass numpy {[(i, round(x, 3)) for i, x in mine]} vs llama-server "
          f"{[(i, round(x, 3)) for i, x in theirs]}: {'agree' if ok else 'DISAGREE'}", file=sys.stderr)

    def complete(prompt, body):
        try:
            res = post(a.url, "/completion", dict({"prompt": prompt, "n_predict": a.max_tokens, "cache_prompt": False}, **body))
        except urllib.error.HTTPError as e:
            # llama.cpp answers 500 when the output ends inside a UTF-8
            # sequence: that middle did not end either.
            return f"(HTTP {e.code})", False
        return res["content"], res.get("stop_type") == "eos" or res.get("stopped_eos") is True

    greedy = sampled = 0
    for n, (prefix, suffix) in enumerate(PROMPTS):
        prompt = BEGIN + prefix + HOLE + suffix + END
        text, stop = complete(prompt, {"temperature": 0})
        greedy += stop
        print(f"java-check.py: greedy middle {text!r} ({'ended' if stop else 'ran to the limit'})", file=sys.stderr)
        for k in range(a.samples):
            text, stop = complete(prompt, {"temperature": 1.0, "top_k": 20, "top_p": 0.95, "min_p": 0.0, "seed": 1000 * n + k})
            sampled += stop
            if stop:
                print(f"java-check.py: sampled middle that ended: {text!r}", file=sys.stderr)
    print(f"java-check.py: ended with the end token within {a.max_tokens} tokens: {greedy} of {len(PROMPTS)} greedy, "
          f"{sampled} of {len(PROMPTS) * a.samples} sampled middles", file=sys.stderr)
    if not ok or sampled < a.min_ended:
        sys.exit(1)


if __name__ == "__main__":
    main()
