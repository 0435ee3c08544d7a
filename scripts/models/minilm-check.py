#!/usr/bin/env python3
"""Check a llama-server serving the converted all-MiniLM-L6-v2 against an
independent numpy implementation of the same model (BERT WordPiece
tokenization, 6 encoder layers, mean pooling) on the safetensors weights.
Exits non-zero when a cosine similarity is below 0.9999.

usage: minilm-check.py MODEL_DIR SERVER_URL
"""
import importlib.util
import json
import math
import re
import sys
import urllib.request
from pathlib import Path

import numpy as np

here = Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("minilm_gguf", here / "minilm-gguf.py")
conv = importlib.util.module_from_spec(spec)
spec.loader.exec_module(conv)

model_dir, url = Path(sys.argv[1]), sys.argv[2]
cfg = json.loads((model_dir / "config.json").read_text())
T = {k[5:] if k.startswith("bert.") else k: v for k, v in conv.read_safetensors(model_dir / "model.safetensors").items()}
vocab = (model_dir / "vocab.txt").read_text(encoding="utf-8").split("\n")[:-1]
ids = {t: i for i, t in enumerate(vocab)}


def wordpiece(word):
    out, s = [], 0
    while s < len(word):
        e, cur = len(word), None
        while s < e:
            sub = word[s:e] if s == 0 else "##" + word[s:e]
            if sub in ids:
                cur = sub
                break
            e -= 1
        if cur is None:
            return ["[UNK]"]
        out.append(cur)
        s = e
    return out


def tokens(text):  # BERT's basic tokenizer for lower-case ASCII text
    words = re.findall(r"[a-z0-9]+|[^a-z0-9\s]", text.lower())
    return ["[CLS]"] + [p for w in words for p in wordpiece(w)] + ["[SEP]"]


def layer_norm(x, g, b, eps=cfg["layer_norm_eps"]):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * g + b


erf = np.vectorize(math.erf)


def embed(text):
    t = [ids[x] for x in tokens(text)]
    n, H = len(t), cfg["num_attention_heads"]
    dh = cfg["hidden_size"] // H
    x = T["embeddings.word_embeddings.weight"][t] + T["embeddings.position_embeddings.weight"][:n] \
        + T["embeddings.token_type_embeddings.weight"][0]
    x = layer_norm(x, T["embeddings.LayerNorm.weight"], T["embeddings.LayerNorm.bias"])
    for layer in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{layer}."
        lin = lambda a, name: a @ T[p + name + ".weight"].T + T[p + name + ".bias"]
        q, k, v = (lin(x, "attention.self." + n_).reshape(n, H, dh).transpose(1, 0, 2) for n_ in ("query", "key", "value"))
        a = q @ k.transpose(0, 2, 1) / math.sqrt(dh)
        a = np.exp(a - a.max(-1, keepdims=True))
        a /= a.sum(-1, keepdims=True)
        c = lin((a @ v).transpose(1, 0, 2).reshape(n, H * dh), "attention.output.dense")
        x = layer_norm(x + c, T[p + "attention.output.LayerNorm.weight"], T[p + "attention.output.LayerNorm.bias"])
        h = lin(x, "intermediate.dense")
        h = lin(0.5 * h * (1 + erf(h / math.sqrt(2))), "output.dense")
        x = layer_norm(x + h, T[p + "output.LayerNorm.weight"], T[p + "output.LayerNorm.bias"])
    return x.mean(0)


texts = ["read a file", "def parse_http_header(line): key, value = line.split(':')",
         "Return the number of elements in this deque."]
req = urllib.request.Request(url + "/v1/embeddings", data=json.dumps({"input": texts, "model": "m"}).encode(),
                             headers={"Content-Type": "application/json"})
got = [d["embedding"] for d in json.load(urllib.request.urlopen(req, timeout=60))["data"]]
ok = True
for text, g in zip(texts, got):
    r, g = embed(text), np.array(g)
    cos = float(r @ g / np.linalg.norm(r) / np.linalg.norm(g))
    print(f"minilm-check.py: {text[:40]!r}: cosine(numpy, llama-server) = {cos:.6f}")
    ok = ok and cos > 0.9999
sys.exit(0 if ok else 1)
