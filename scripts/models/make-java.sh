#!/usr/bin/env bash
# Makes (once) a tiny Java code model trained here, and prints its path: a
# llama-architecture GGUF around the real DeepSeek-Coder tokenizer, trained on
# fill-in-the-middle examples cut from the JDK's own Java sources (Debian's
# openjdk-17-source src.zip), so that, unlike the random-weight test model, it
# follows the FIM format and ends a middle with its end-of-sequence token.
# Weak (a few million parameters, minutes of CPU), but its hunks end, so
# "bench repair" gets patches from llama-server.
#
# Cached as $REPILOT_CACHE/models/repilot-java-deepseek-coder-<hash>.gguf, the
# hash covering what determines the weights: java-fim-data.py, train-java.py
# and the settings below. Not used by the default test run: training took
# 26 minutes here (200 steps, on 2 cores shared with other jobs).
#
# Before caching, java-check.py checks that llama.cpp computes what training
# computed (an independent numpy forward pass on the GGUF agrees with
# llama-server) and that at least one of 24 sampled middles ends with the end
# token. As measured (settings below): greedy middles never ended within 48
# tokens, 4 of 24 sampled ones did; Java-shaped text, no real repair ability.
#   REPILOT_CACHE        cache root (default: $HOME/.cache/repilot-lsp)
#   JAVA_SRC_ZIP         JDK sources (default /usr/lib/jvm/openjdk-17/lib/src.zip;
#                        Debian: apt-get install openjdk-17-source)
#   JAVA_MODEL_STEPS     training steps (default 200)
#   JAVA_MODEL_EXAMPLES  FIM examples (default 2000)
# Needs: scripts/install-llama.sh's build (llama-server tokenizes), python3
# with torch and numpy (Debian: apt-get install --no-install-recommends
# python3-torch python3-numpy libopenblas0-pthread).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache="${REPILOT_CACHE:-$HOME/.cache/repilot-lsp}"
srczip="${JAVA_SRC_ZIP:-/usr/lib/jvm/openjdk-17/lib/src.zip}"
steps="${JAVA_MODEL_STEPS:-200}"
examples="${JAVA_MODEL_EXAMPLES:-2000}"
settings="steps=$steps examples=$examples prefix=800 suffix=400 seq=384 batch=4 embd=64 layers=2 heads=4 ff=172 seed=1"
hash=$( { cat "$here/java-fim-data.py" "$here/train-java.py"; echo "$settings"; } | sha256sum | cut -c1-10)
out="$cache/models/repilot-java-deepseek-coder-$hash.gguf"
if [ -f "$out" ]; then echo "$out"; exit 0; fi
[ -f "$srczip" ] || { echo "make-java.sh: no JDK sources at $srczip (Debian: apt-get install openjdk-17-source)" >&2; exit 1; }
py=""
for p in /usr/bin/python3 python3; do
  if command -v "$p" >/dev/null && "$p" -c 'import torch, numpy' 2>/dev/null; then py="$p"; break; fi
done
[ -n "$py" ] || { echo "make-java.sh: no python3 with torch and numpy (Debian: apt-get install --no-install-recommends python3-torch python3-numpy libopenblas0-pthread)" >&2; exit 1; }
server=$("$here/../install-llama.sh")
src=$(cd "$(dirname "$server")/../.." && pwd)
vocab_model=$("$here/make-random.sh" deepseek-coder tiny)
mkdir -p "$cache/models"
work=$(mktemp -d)
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
port=$("$py" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$server" -m "$vocab_model" --host 127.0.0.1 --port "$port" -c 2048 -t 1 -np 1 >"$work/server.log" 2>&1 &
pid=$!
for _ in $(seq 1 300); do
  curl -sf "http://127.0.0.1:$port/health" >/dev/null 2>&1 && break
  sleep 0.2
done
"$py" "$here/java-fim-data.py" --src-zip "$srczip" --out "$work/fim.txt" --examples "$examples" \
  --prefix-chars 800 --suffix-chars 400 --seed 1
start=$(date +%s)
"$py" "$here/train-java.py" --llama-src "$src" --data "$work/fim.txt" --tokenize-url "http://127.0.0.1:$port" \
  --out "$out.tmp" --steps "$steps" --seq 384 --batch 4 --embd 64 --layers 2 --heads 4 --ff 172 --seed 1 \
  --threads "$(nproc)"
echo "make-java.sh: trained in $(( $(date +%s) - start ))s ($settings)" >&2
# Check before caching: llama.cpp computes what training computed, and greedy
# middles end with the end token.
kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true
"$server" -m "$out.tmp" --host 127.0.0.1 --port "$port" -c 2048 -t 1 -np 1 >"$work/check.log" 2>&1 &
pid=$!
for _ in $(seq 1 300); do
  curl -sf "http://127.0.0.1:$port/health" >/dev/null 2>&1 && break
  sleep 0.2
done
"$py" "$here/java-check.py" "$out.tmp" "http://127.0.0.1:$port" "$src" --min-ended 1 || {
  echo "make-java.sh: the trained model failed its check; not cached (kept at $out.failed)" >&2
  mv "$out.tmp" "$out.failed"
  exit 1
}
mv "$out.tmp" "$out"
echo "$out"
