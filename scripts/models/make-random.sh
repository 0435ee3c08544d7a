#!/usr/bin/env bash
# Makes (once) a tiny random-weight llama-architecture GGUF model around a real
# tokenizer from llama.cpp/models, for tests and benchmarks against a real
# llama-server, and prints its path. The file is cached under
# $REPILOT_CACHE/models, keyed by the vocabulary and a hash of the generator
# script, so changing make-random-gguf.py makes a new file.
#   $1             vocabulary: deepseek-coder (default; FIM tokens) or
#                  starcoder, refact, ...
#   $2             shape: tiny (default: 4.2M parameters, 9.6 MB, for tests)
#                  or small (59M parameters, 118 MB: per-token compute that
#                  shows in benchmarks)
#   REPILOT_CACHE  cache root (default: $HOME/.cache/repilot-lsp)
# Builds llama.cpp first if needed (scripts/install-llama.sh): the generator
# uses the gguf-py package and tokenizer files of that source tree.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
vocab="${1:-deepseek-coder}"
shape="${2:-tiny}"
case "$shape" in
  tiny)  dims=(--embd 64 --layers 2 --heads 4 --ff 172) ;;
  small) dims=(--embd 512 --layers 8 --heads 8 --ff 1408) ;;
  *) echo "make-random.sh: unknown shape $shape (tiny, small)" >&2; exit 2 ;;
esac
cache="${REPILOT_CACHE:-$HOME/.cache/repilot-lsp}"
server=$("$here/../install-llama.sh")
src=$(cd "$(dirname "$server")/../.." && pwd)   # <src>/build/bin/llama-server
hash=$(sha256sum "$here/make-random-gguf.py" | cut -c1-10)
suffix=""
[ "$shape" = tiny ] || suffix="-$shape"
out="$cache/models/repilot-random-$vocab$suffix-$hash.gguf"
if [ -f "$out" ]; then echo "$out"; exit 0; fi
mkdir -p "$cache/models"
py=""
for p in python3 /usr/bin/python3; do
  if command -v "$p" >/dev/null && "$p" -c 'import numpy' 2>/dev/null; then py="$p"; break; fi
done
if [ -z "$py" ]; then
  echo "make-random.sh: no python3 with numpy (Debian: apt-get install -y python3-numpy; or pip install numpy)" >&2
  exit 1
fi
"$py" "$here/make-random-gguf.py" --llama-src "$src" --vocab "$vocab" --out "$out" \
  --name "repilot-random-$vocab$suffix" "${dims[@]}" >&2
echo "$out"
