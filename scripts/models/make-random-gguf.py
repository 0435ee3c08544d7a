#!/usr/bin/env python3
"""Writes a tiny llama-architecture GGUF model with random weights around a
real tokenizer shipped in llama.cpp/models (ggml-vocab-*.gguf), for tests and
benchmarks of the OpenAI-compatible backend against a real llama-server.

The text it generates is meaningless, but everything the server does is real:
the tokenizer (with the family's FIM and end-of-generation tokens), prompt
processing, the prompt cache, sampling and logprobs. Weights are drawn from a
seeded generator, so the same arguments give the same file.

Usage: make-random-gguf.py --llama-src DIR --vocab deepseek-coder --out FILE
       [--embd 64 --layers 2 --heads 4 --ff 172 --ctx 16384 --seed 1
        --logit-scale 3.0]

--logit-scale sets the standard deviation of the output logits: higher makes
the next-token distribution peakier (a few tokens hold most of the mass, as
with a trained model); 0 would make it uniform.

Needs numpy (Debian: python3-numpy) and gguf-py from the llama.cpp tree.
"""

import argparse
import os
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--llama-src", required=True, help="llama.cpp source tree (has gguf-py/ and models/)")
    ap.add_argument("--vocab", default="deepseek-coder", help="models/ggml-vocab-NAME.gguf to take the tokenizer from")
    ap.add_argument("--out", required=True)
    ap.add_argument("--name", default="", help="general.name (default: repilot-random-VOCAB)")
    ap.add_argument("--embd", type=int, default=64)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--ff", type=int, default=172)
    ap.add_argument("--ctx", type=int, default=16384)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--logit-scale", type=float, default=3.0)
    a = ap.parse_args()

    sys.path.insert(0, os.path.join(a.llama_src, "gguf-py"))
    try:
        import numpy as np
    except ImportError:
        sys.exit("make-random-gguf.py: numpy is missing (Debian: apt-get install -y python3-numpy; or pip install numpy)")
    import gguf

    vocab_path = os.path.join(a.llama_src, "models", f"ggml-vocab-{a.vocab}.gguf")
    if not os.path.exists(vocab_path):
        sys.exit(f"make-random-gguf.py: no tokenizer file {vocab_path}")
    reader = gguf.GGUFReader(vocab_path)
    n_vocab = len(reader.fields["tokenizer.ggml.tokens"].data)
    if a.embd % a.heads:
        sys.exit("make-random-gguf.py: --embd must be a multiple of --heads")

    arch = "llama"
    name = a.name or f"repilot-random-{a.vocab}"
    tmp = a.out + ".tmp"
    w = gguf.GGUFWriter(tmp, arch)
    w.add_name(name)
    w.add_context_length(a.ctx)
    w.add_embedding_length(a.embd)
    w.add_block_count(a.layers)
    w.add_feed_forward_length(a.ff)
    w.add_head_count(a.heads)
    w.add_head_count_kv(a.heads)
    w.add_rope_dimension_count(a.embd // a.heads)
    w.add_rope_freq_base(10000.0)
    w.add_layer_norm_rms_eps(1e-6)
    w.add_vocab_size(n_vocab)
    w.add_file_type(gguf.LlamaFileType.MOSTLY_F16)

    # Copy the tokenizer exactly: every tokenizer.* key with its GGUF type.
    for key, field in reader.fields.items():
        if not key.startswith("tokenizer."):
            continue
        vtype = field.types[0]
        if vtype == gguf.GGUFValueType.ARRAY:
            w.add_key_value(key, field.contents(), vtype, sub_type=field.types[-1])
        else:
            w.add_key_value(key, field.contents(), vtype)

    rng = np.random.default_rng(a.seed)
    d, ff = a.embd, a.ff

    def mat(rows, cols, std):
        return (rng.standard_normal((rows, cols)) * std).astype(np.float16)

    # numpy shape (rows, cols) is GGUF/ggml ne = [cols, rows].
    w.add_tensor("token_embd.weight", mat(n_vocab, d, 1.0))
    for i in range(a.layers):
        p = f"blk.{i}."
        w.add_tensor(p + "attn_norm.weight", np.ones(d, dtype=np.float32))
        w.add_tensor(p + "attn_q.weight", mat(d, d, d ** -0.5))
        w.add_tensor(p + "attn_k.weight", mat(d, d, d ** -0.5))
        w.add_tensor(p + "attn_v.weight", mat(d, d, d ** -0.5))
        w.add_tensor(p + "attn_output.weight", mat(d, d, 0.5 * d ** -0.5))
        w.add_tensor(p + "ffn_norm.weight", np.ones(d, dtype=np.float32))
        w.add_tensor(p + "ffn_gate.weight", mat(ff, d, d ** -0.5))
        w.add_tensor(p + "ffn_up.weight", mat(ff, d, d ** -0.5))
        w.add_tensor(p + "ffn_down.weight", mat(d, ff, 0.5 * ff ** -0.5))
    w.add_tensor("output_norm.weight", np.ones(d, dtype=np.float32))
    # The final RMS norm makes the hidden state's entries ~unit variance, so
    # logits have standard deviation logit_scale.
    w.add_tensor("output.weight", mat(n_vocab, d, a.logit_scale * d ** -0.5))

    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    os.replace(tmp, a.out)
    params = n_vocab * d * 2 + a.layers * (4 * d * d + 3 * d * ff)
    print(f"make-random-gguf.py: {a.out}: {name}, {params / 1e6:.1f}M parameters, vocab {n_vocab}", file=sys.stderr)


if __name__ == "__main__":
    main()
