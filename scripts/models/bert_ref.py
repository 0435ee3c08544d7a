"""A numpy reference forward pass of a BERT encoder, independent of
llama.cpp, and the comparison with llama-server's /v1/embeddings: what
minilm-check.py (mean pooling) and bge-check.py (CLS pooling) check a
converted embedding model with.
"""
import json
import math
import re
import urllib.request

import numpy as np

erf = np.vectorize(math.erf)


class Bert:
    """A BERT encoder over weights T (names without the "bert." prefix), its
    WordPiece vocab (a list, index = token id), heads attention heads, layers
    encoder layers and layer-norm epsilon eps."""

    def __init__(self, T, vocab, heads, layers, eps):
        self.T, self.heads, self.layers, self.eps = T, heads, layers, eps
        self.ids = {t: i for i, t in enumerate(vocab)}

    def wordpiece(self, word):
        out, s = [], 0
        while s < len(word):
            e, cur = len(word), None
            while s < e:
                sub = word[s:e] if s == 0 else "##" + word[s:e]
                if sub in self.ids:
                    cur = sub
                    break
                e -= 1
            if cur is None:
                return ["[UNK]"]
            out.append(cur)
            s = e
        return out

    def tokens(self, text):  # BERT's basic tokenizer for lower-case ASCII text
        words = re.findall(r"[a-z0-9]+|[^a-z0-9\s]", text.lower())
        return ["[CLS]"] + [p for w in words for p in self.wordpiece(w)] + ["[SEP]"]

    def layer_norm(self, x, g, b):
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + self.eps) * g + b

    def hidden(self, text):
        """The last layer's states of text's tokens, shape (tokens, hidden)."""
        T, H = self.T, self.heads
        t = [self.ids[x] for x in self.tokens(text)]
        n = len(t)
        dh = T["embeddings.word_embeddings.weight"].shape[1] // H
        x = T["embeddings.word_embeddings.weight"][t] + T["embeddings.position_embeddings.weight"][:n] \
            + T["embeddings.token_type_embeddings.weight"][0]
        x = self.layer_norm(x, T["embeddings.LayerNorm.weight"], T["embeddings.LayerNorm.bias"])
        for layer in range(self.layers):
            p = f"encoder.layer.{layer}."
            lin = lambda a, name: a @ T[p + name + ".weight"].T + T[p + name + ".bias"]
            q, k, v = (lin(x, "attention.self." + n_).reshape(n, H, dh).transpose(1, 0, 2) for n_ in ("query", "key", "value"))
            a = q @ k.transpose(0, 2, 1) / math.sqrt(dh)
            a = np.exp(a - a.max(-1, keepdims=True))
            a /= a.sum(-1, keepdims=True)
            c = lin((a @ v).transpose(1, 0, 2).reshape(n, H * dh), "attention.output.dense")
            x = self.layer_norm(x + c, T[p + "attention.output.LayerNorm.weight"], T[p + "attention.output.LayerNorm.bias"])
            h = lin(x, "intermediate.dense")
            h = lin(0.5 * h * (1 + erf(h / math.sqrt(2))), "output.dense")
            x = self.layer_norm(x + h, T[p + "output.LayerNorm.weight"], T[p + "output.LayerNorm.bias"])
        return x


def compare(name, url, texts, embed, timeout):
    """Asks llama-server at url for texts' embeddings and prints each one's
    cosine similarity with embed(text); True when every one is above 0.9999."""
    req = urllib.request.Request(url + "/v1/embeddings", data=json.dumps({"input": texts, "model": "m"}).encode(),
                                 headers={"Content-Type": "application/json"})
    got = [d["embedding"] for d in json.load(urllib.request.urlopen(req, timeout=timeout))["data"]]
    ok = True
    for text, g in zip(texts, got):
        r, g = embed(text), np.array(g)
        cos = float(r @ g / np.linalg.norm(r) / np.linalg.norm(g))
        print(f"{name}: {text[-40:]!r}: cosine(numpy, llama-server) = {cos:.6f}")
        ok = ok and cos > 0.9999
    return ok
