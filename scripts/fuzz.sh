#!/usr/bin/env bash
# Runs each fuzz target for a bounded time (go native fuzzing), after its
# committed seed corpus (PKG/testdata/fuzz/NAME), which `go test` alone also
# runs as ordinary tests:
#   jsonrpc     FuzzReader            the LSP reader (headers and body)
#   lm/openai   FuzzParseCompletion   logprobs of llama.cpp and OpenAI/vLLM
#   lm/openai   FuzzParseInfill       logprobs of llama.cpp's /infill
#   engine      FuzzCaretContext      the caret-context classification
# A failing input is written under PKG/testdata/fuzz/NAME; commit it with the
# fix. About 1 minute with the defaults on 2 cores.
#   FUZZTIME   time per target (default 25s)
#   FUZZLANES  targets fuzzed at once, one worker each (default 2)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$root"
need go "Install Go 1.26 or newer"
t=${FUZZTIME:-25s}
lanes=${FUZZLANES:-2}
targets=(jsonrpc:FuzzReader lm/openai:FuzzParseCompletion lm/openai:FuzzParseInfill engine:FuzzCaretContext)
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
# fuzz_one TARGET: one target with one fuzzing worker, its output to a log.
fuzz_one() {
  local pkg=${1%%:*} name=${1#*:}
  go test "./$pkg" -run '^$' -fuzz "^$name\$" -fuzztime "$t" -parallel 1 >"$logs/$name.log" 2>&1
}
# The targets run $lanes at a time, one worker each: the same wall time per
# target as one run with $lanes workers, and the whole step $lanes times
# shorter; each target gets about 1/$lanes of the executions it would get
# alone.
rc=0
pids=(); names=()
for target in "${targets[@]}"; do
  name=${target#*:}
  info "go test ./${target%%:*} -run '^\$' -fuzz '^$name\$' -fuzztime $t -parallel 1"
  fuzz_one "$target" & pids+=($!); names+=("$name")
  if [ "${#pids[@]}" -ge "$lanes" ]; then
    wait "${pids[0]}" || { rc=1; warn "${names[0]} FAILED"; }
    cat "$logs/${names[0]}.log" >&2
    pids=("${pids[@]:1}"); names=("${names[@]:1}")
  fi
done
for i in "${!pids[@]}"; do
  wait "${pids[$i]}" || { rc=1; warn "${names[$i]} FAILED"; }
  cat "$logs/${names[$i]}.log" >&2
done
exit $rc
