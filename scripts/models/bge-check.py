#!/usr/bin/env python3
"""Check a llama-server serving the converted bge-small-en-v1.5 against an
independent numpy forward pass of the ONNX file's weights (BERT WordPiece
tokenization, 12 encoder layers, CLS pooling), with and without the model's
query instruction. Exits non-zero when a cosine similarity is below 0.9999.

usage: bge-check.py MODEL.onnx TOKENIZER.json SERVER_URL
"""
import importlib.util
import re
import sys
from pathlib import Path

here = Path(__file__).resolve().parent
sys.path.insert(0, str(here))
from bert_ref import Bert, compare  # noqa: E402

spec = importlib.util.spec_from_file_location("bge_gguf", here / "bge-gguf.py")
conv = importlib.util.module_from_spec(spec)
spec.loader.exec_module(conv)

onnx, tokenizer, url = sys.argv[1], sys.argv[2], sys.argv[3]
T, H, EPS = conv.bert_weights(*conv.read_onnx(onnx))
layers = 1 + max(int(m.group(1)) for k in T if (m := re.match(r"encoder\.layer\.(\d+)\.", k)))
bert = Bert(T, conv.vocab_of(tokenizer), H, layers, EPS)

prefix = "Represent this sentence for searching relevant passages: "
texts = [prefix + "read a file", "def parse_http_header(line): key, value = line.split(':')",
         "Return the number of elements in this deque.", prefix + "grow the table when it is full"]
sys.exit(0 if compare("bge-check.py", url, texts, lambda t: bert.hidden(t)[0], 120) else 1)  # CLS pooling
