#!/usr/bin/env python3
"""Trains a tiny llama-architecture model on fill-in-the-middle Java text
(scripts/models/java-fim-data.py) and writes it as GGUF around the real
DeepSeek-Coder tokenizer, for scripts/models/make-java.sh: a model that, unlike
the random-weight one, learns the FIM format and ends its middle with the
end-of-sequence token, so repairs through llama-server produce hunks.

The network is exactly what llama.cpp's "llama" architecture computes (RMS
norm, rotary position embedding on adjacent pairs as ggml's normal mode,
causal multi-head attention, SwiGLU feed-forward, untied output), so the
weights are written without conversion. Training: AdamW, linear warm-up then
cosine decay, packed sequences of the tokenized examples, next-token loss on
every position. Seeded, one thread per core.

Tokenizing needs a running llama-server with the same vocabulary (its
/tokenize endpoint parses the FIM and end markers as special tokens):
--tokenize-url http://127.0.0.1:PORT.

Needs torch (Debian: python3-torch), numpy and gguf-py from the llama.cpp tree.
"""

import argparse
import json
import math
import os
import sys
import time
import urllib.request


def tokenize(url, text):
    req = urllib.request.Request(url + "/tokenize", data=json.dumps(
        {"content": text, "add_special": True, "parse_special": True}).encode(),
        headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.load(r)["tokens"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--llama-src", required=True)
    ap.add_argument("--data", required=True, help="java-fim-data.py output")
    ap.add_argument("--tokenize-url", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--name", default="repilot-java-deepseek-coder")
    ap.add_argument("--embd", type=int, default=128)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--ff", type=int, default=344)
    ap.add_argument("--seq", type=int, default=256)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--steps", type=int, default=400)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()

    sys.path.insert(0, os.path.join(a.llama_src, "gguf-py"))
    import numpy as np
    import torch
    import torch.nn.functional as F
    import gguf

    torch.manual_seed(a.seed)
    torch.set_num_threads(a.threads)
    vocab_path = os.path.join(a.llama_src, "models", "ggml-vocab-deepseek-coder.gguf")
    reader = gguf.GGUFReader(vocab_path)
    n_vocab = len(reader.fields["tokenizer.ggml.tokens"].data)
    eos = int(reader.fields["tokenizer.ggml.eos_token_id"].contents())

    # --- data: one example per marker-delimited record, tokenized, packed ---
    text = open(a.data, encoding="utf-8").read()
    end = "<｜end▁of▁sentence｜>"
    examples = [e + end for e in text.split(end) if e]
    began = time.time()
    ids = []
    for e in examples:
        ids.extend(tokenize(a.tokenize_url, e))
    n_eos = sum(1 for t in ids if t == eos)
    print(f"train-java.py: {len(examples)} examples, {len(ids)} tokens ({n_eos} end tokens, id {eos}) "
          f"in {time.time() - began:.0f}s", file=sys.stderr)
    if n_eos < len(examples):
        sys.exit("train-java.py: the end marker was not tokenized as the end-of-sequence token")
    data = torch.tensor(ids, dtype=torch.long)
    n_val = max(a.seq + 1, len(ids) // 20)
    train, val = data[:-n_val], data[-n_val:]

    d, H, L, ff = a.embd, a.heads, a.layers, a.ff
    hd = d // H
    g = torch.Generator().manual_seed(a.seed)

    def init(rows, cols, std):
        return torch.nn.Parameter(torch.randn(rows, cols, generator=g) * std)

    P = {"tok": init(n_vocab, d, 0.02), "out": init(n_vocab, d, d ** -0.5), "onorm": torch.nn.Parameter(torch.ones(d))}
    for i in range(L):
        P[f"{i}.an"] = torch.nn.Parameter(torch.ones(d))
        P[f"{i}.fn"] = torch.nn.Parameter(torch.ones(d))
        for k in ("q", "k", "v"):
            P[f"{i}.{k}"] = init(d, d, d ** -0.5)
        P[f"{i}.o"] = init(d, d, 0.5 * d ** -0.5 / math.sqrt(L))
        P[f"{i}.gate"] = init(ff, d, d ** -0.5)
        P[f"{i}.up"] = init(ff, d, d ** -0.5)
        P[f"{i}.down"] = init(d, ff, 0.5 * ff ** -0.5 / math.sqrt(L))

    eps = 1e-6

    def rms(x, w):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w

    # ggml rope, normal mode: pairs (2j, 2j+1), theta_j = base^(-2j/hd).
    T = a.seq
    inv = 10000.0 ** (-torch.arange(0, hd, 2, dtype=torch.float32) / hd)
    ang = torch.arange(T, dtype=torch.float32)[:, None] * inv[None, :]
    cos, sin = ang.cos(), ang.sin()

    def rope(x):  # x: (B, H, T, hd)
        t = x.shape[2]
        x0, x1 = x[..., 0::2], x[..., 1::2]
        c, s = cos[:t], sin[:t]
        return torch.stack((x0 * c - x1 * s, x0 * s + x1 * c), dim=-1).flatten(-2)

    mask = torch.full((T, T), float("-inf")).triu(1)

    def forward(x):
        B, t = x.shape
        h = P["tok"][x]
        for i in range(L):
            n = rms(h, P[f"{i}.an"])
            q = (n @ P[f"{i}.q"].T).view(B, t, H, hd).transpose(1, 2)
            k = (n @ P[f"{i}.k"].T).view(B, t, H, hd).transpose(1, 2)
            v = (n @ P[f"{i}.v"].T).view(B, t, H, hd).transpose(1, 2)
            q, k = rope(q), rope(k)
            att = (q @ k.transpose(-1, -2)) / math.sqrt(hd) + mask[:t, :t]
            o = (att.softmax(-1) @ v).transpose(1, 2).reshape(B, t, d)
            h = h + o @ P[f"{i}.o"].T
            n = rms(h, P[f"{i}.fn"])
            h = h + (F.silu(n @ P[f"{i}.gate"].T) * (n @ P[f"{i}.up"].T)) @ P[f"{i}.down"].T
        return rms(h, P["onorm"]) @ P["out"].T

    opt = torch.optim.AdamW(P.values(), lr=a.lr, weight_decay=0.01, betas=(0.9, 0.95))
    warm = max(1, a.steps // 20)

    def lr_at(s):
        if s < warm:
            return a.lr * (s + 1) / warm
        return a.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * (s - warm) / max(1, a.steps - warm))))

    def batch(src, n):
        ix = torch.randint(0, len(src) - T - 1, (n,), generator=g)
        x = torch.stack([src[j:j + T] for j in ix])
        y = torch.stack([src[j + 1:j + T + 1] for j in ix])
        return x, y

    def evaluate():
        with torch.no_grad():
            x, y = batch(val, 8)
            logits = forward(x)
            loss = F.cross_entropy(logits.reshape(-1, n_vocab), y.reshape(-1))
            # loss on the end-of-sequence positions only: does it learn to stop?
            m = y == eos
            eos_loss = F.cross_entropy(logits[m], y[m]).item() if m.any() else float("nan")
        return loss.item(), eos_loss

    began = time.time()
    for s in range(a.steps):
        for grp in opt.param_groups:
            grp["lr"] = lr_at(s)
        x, y = batch(train, a.batch)
        loss = F.cross_entropy(forward(x).reshape(-1, n_vocab), y.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(P.values(), 1.0)
        opt.step()
        if s % 25 == 0 or s == a.steps - 1:
            vl, el = evaluate()
            print(f"train-java.py: step {s}/{a.steps} train {loss.item():.3f} val {vl:.3f} "
                  f"val-at-end-token {el:.3f} ({time.time() - began:.0f}s)", file=sys.stderr, flush=True)

    # --- GGUF, as scripts/models/make-random-gguf.py writes it ---
    tmp = a.out + ".tmp"
    w = gguf.GGUFWriter(tmp, "llama")
    w.add_name(a.name)
    w.add_context_length(4096)
    w.add_embedding_length(d)
    w.add_block_count(L)
    w.add_feed_forward_length(ff)
    w.add_head_count(H)
    w.add_head_count_kv(H)
    w.add_rope_dimension_count(hd)
    w.add_rope_freq_base(10000.0)
    w.add_layer_norm_rms_eps(eps)
    w.add_vocab_size(n_vocab)
    w.add_file_type(gguf.LlamaFileType.ALL_F32)
    for key, field in reader.fields.items():
        if not key.startswith("tokenizer."):
            continue
        vtype = field.types[0]
        if vtype == gguf.GGUFValueType.ARRAY:
            w.add_key_value(key, field.contents(), vtype, sub_type=field.types[-1])
        else:
            w.add_key_value(key, field.contents(), vtype)

    def t(name):
        return P[name].detach().numpy().astype(np.float32)

    w.add_tensor("token_embd.weight", t("tok"))
    for i in range(L):
        p = f"blk.{i}."
        w.add_tensor(p + "attn_norm.weight", t(f"{i}.an"))
        w.add_tensor(p + "attn_q.weight", t(f"{i}.q"))
        w.add_tensor(p + "attn_k.weight", t(f"{i}.k"))
        w.add_tensor(p + "attn_v.weight", t(f"{i}.v"))
        w.add_tensor(p + "attn_output.weight", t(f"{i}.o"))
        w.add_tensor(p + "ffn_norm.weight", t(f"{i}.fn"))
        w.add_tensor(p + "ffn_gate.weight", t(f"{i}.gate"))
        w.add_tensor(p + "ffn_up.weight", t(f"{i}.up"))
        w.add_tensor(p + "ffn_down.weight", t(f"{i}.down"))
    w.add_tensor("output_norm.weight", t("onorm"))
    w.add_tensor("output.weight", t("out"))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    os.replace(tmp, a.out)
    vl, el = evaluate()
    print(f"train-java.py: {a.out}: {a.name}, d={d} layers={L}, {a.steps} steps, "
          f"val loss {vl:.3f}, at end tokens {el:.3f}", file=sys.stderr)


if __name__ == "__main__":
    main()
