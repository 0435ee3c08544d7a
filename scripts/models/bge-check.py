#!/usr/bin/env python3
"""Check a llama-server serving the converted bge-small-en-v1.5 against an
independent numpy forward pass of the ONNX file's weights (BERT WordPiece
tokenization, 12 encoder layers, CLS pooling), with and without the model's
query instruction. Exits non-zero when a cosine similarity is below 0.9999.

usage: bge-check.py MODEL.onnx TOKENIZER.json SERVER_URL
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
spec = importlib.util.spec_from_file_location("bge_gguf", here / "bge-gguf.py")
conv = importlib.util.module_from_spec(spec)
spec.loader.exec_module(conv)

onnx, tokenizer, url = sys.argv[1], sys.argv[2], sys.argv[3]
T, H, EPS = conv.bert_weights(*conv.read_onnx(onnx))
vocab = conv.vocab_of(tokenizer)
ids = {t: i for i, t in enumerate(vocab)}
layers = 1 + max(int(m.group(1)) for k in T if (m := re.match(r"encoder\.layer\.(\d+)\.", k)))


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


def layer_norm(x, g, b):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + EPS) * g + b


erf = np.vectorize(math.erf)


def embed(text):
    t = [ids[x] for x in tokens(text)]
    n = len(t)
    dh = T["embeddings.word_embeddings.weight"].shape[1] // H
    x = T["embeddings.word_embeddings.weight"][t] + T["embeddings.position_embeddings.weight"][:n] \
        + T["embeddings.token_type_embeddings.weight"][0]
    x = layer_norm(x, T["embeddings.LayerNorm.weight"], T["embeddings.LayerNorm.bias"])
    for layer in range(layers):
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
    return x[0]  # CLS pooling


prefix = "Represent this sentence for searching relevant passages: "
texts = [prefix + "read a file", "def parse_http_header(line): key, value = line.split(':')",
         "Return the number of elements in this deque.", prefix + "grow the table when it is full"]
req = urllib.request.Request(url + "/v1/embeddings", data=json.dumps({"input": texts, "model": "m"}).encode(),
                             headers={"Content-Type": "application/json"})
got = [d["embedding"] for d in json.load(urllib.request.urlopen(req, timeout=120))["data"]]
ok = True
for text, g in zip(texts, got):
    r, g = embed(text), np.array(g)
    cos = float(r @ g / np.linalg.norm(r) / np.linalg.norm(g))
    print(f"bge-check.py: {text[-40:]!r}: cosine(numpy, llama-server) = {cos:.6f}")
    ok = ok and cos > 0.9999
sys.exit(0 if ok else 1)
