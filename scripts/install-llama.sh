#!/usr/bin/env bash
# Builds llama.cpp's llama-server (and llama-quantize) from the llama.cpp
# source that npm's node-llama-cpp ships as a git bundle (no GitHub access is
# needed; see docs/recipes.md), into a stable cache directory outside the
# clone keyed by version, so repeated runs and CI reuse it. Idempotent: a
# finished build is detected by its .complete marker and not rebuilt.
# Prints the absolute path of the llama-server binary on stdout (progress goes
# to stderr). The llama.cpp source tree stays next to the build at
# "$dest/src" (scripts/models/ uses its gguf-py and models/ggml-vocab-*.gguf).
#   REPILOT_CACHE        cache root (default: $HOME/.cache/repilot-lsp)
#   NODE_LLAMA_CPP       npm version of node-llama-cpp (default 3.21.1)
#   LLAMA_JOBS           parallel compile jobs (default 2)
set -euo pipefail
case "${1:-}" in -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;; esac
ver="${NODE_LLAMA_CPP:-3.21.1}"
cache="${REPILOT_CACHE:-$HOME/.cache/repilot-lsp}"
dest="$cache/llama.cpp/node-llama-cpp-$ver"
bin="$dest/src/build/bin/llama-server"
if [ -f "$dest/.complete" ] && [ -x "$bin" ]; then echo "$bin"; exit 0; fi

for tool in cmake git npm c++; do
  if ! command -v "$tool" >/dev/null; then
    echo "install-llama.sh: $tool is missing (Debian: apt-get install -y cmake git npm g++)" >&2
    exit 1
  fi
done

mkdir -p "$cache/llama.cpp"
# One build at a time: a second caller waits for the first and reuses it.
exec 9>"$cache/llama.cpp/.lock"
flock 9
if [ -f "$dest/.complete" ] && [ -x "$bin" ]; then echo "$bin"; exit 0; fi

work="$cache/llama.cpp/.build-$ver.$$"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work"
start=$(date +%s)
echo "install-llama.sh: fetching node-llama-cpp@$ver from npm" >&2
( cd "$work" && npm pack --silent "node-llama-cpp@$ver" >/dev/null && mkdir nlc && tar xzf "node-llama-cpp-$ver.tgz" -C nlc )
git clone --quiet "$work/nlc/package/llama/gitRelease.bundle" "$work/src" >&2
rm -rf "$work/nlc" "$work/node-llama-cpp-$ver.tgz"
echo "install-llama.sh: building llama-server (several minutes on 2 cores)" >&2
cmake -S "$work/src" -B "$work/src/build" -DCMAKE_BUILD_TYPE=Release \
  -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_CURL=OFF \
  -DLLAMA_OPENSSL=OFF -DGGML_NATIVE=OFF -DBUILD_SHARED_LIBS=OFF >&2
cmake --build "$work/src/build" --target llama-server llama-quantize -j "${LLAMA_JOBS:-2}" >&2
"$work/src/build/bin/llama-server" --version >&2 || true
rm -rf "$dest"
mkdir -p "$dest"
mv "$work/src" "$dest/src"
echo "built in $(( $(date +%s) - start ))s on $(date -u +%FT%TZ)" > "$dest/.complete"
echo "install-llama.sh: built in $(( $(date +%s) - start ))s" >&2
echo "$bin"
