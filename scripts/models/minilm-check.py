#!/usr/bin/env python3
"""Check a llama-server serving the converted all-MiniLM-L6-v2 against an
independent numpy implementation of the same model (BERT WordPiece
tokenization, 6 encoder layers, mean pooling) on the safetensors weights.
Exits non-zero when a cosine similarity is below 0.9999.

usage: minilm-check.py MODEL_DIR SERVER_URL
"""
import importlib.util
import json
import sys
from pathlib import Path

here = Path(__file__).resolve().parent
sys.path.insert(0, str(here))
from bert_ref import Bert, compare  # noqa: E402

spec = importlib.util.spec_from_file_location("minilm_gguf", here / "minilm-gguf.py")
conv = importlib.util.module_from_spec(spec)
spec.loader.exec_module(conv)

model_dir, url = Path(sys.argv[1]), sys.argv[2]
cfg = json.loads((model_dir / "config.json").read_text())
T = {k[5:] if k.startswith("bert.") else k: v for k, v in conv.read_safetensors(model_dir / "model.safetensors").items()}
vocab = (model_dir / "vocab.txt").read_text(encoding="utf-8").split("\n")[:-1]
bert = Bert(T, vocab, cfg["num_attention_heads"], cfg["num_hidden_layers"], cfg["layer_norm_eps"])

texts = ["read a file", "def parse_http_header(line): key, value = line.split(':')",
         "Return the number of elements in this deque."]
sys.exit(0 if compare("minilm-check.py", url, texts, lambda t: bert.hidden(t).mean(0), 60) else 1)
