#!/usr/bin/env bash
# Runs each fuzz target for a bounded number of executions (go native
# fuzzing), after its committed seed corpus (PKG/testdata/fuzz/NAME), which
# `go test` alone also runs as ordinary tests:
#   jsonrpc     FuzzReader            the LSP reader (headers and body)
#   lm/openai   FuzzParseCompletion   logprobs of llama.cpp and OpenAI/vLLM
#   lm/openai   FuzzParseInfill       logprobs of llama.cpp's /infill
#   engine      FuzzCaretContext      the caret-context classification
# A failing input is written under PKG/testdata/fuzz/NAME; commit it with the
# fix. About 1 minute with the defaults on 2 cores.
#
# The budget is a count of executions (-fuzztime Nx), each about 20 s of
# fuzzing on a quiet 2-core machine, not a duration: with a duration, Go
# 1.26's fuzzing coordinator can report "context deadline exceeded" and fail
# the target when the time runs out while a worker is mid-execution, with no
# failing input (golang/go#75804, fixed in Go 1.27). CI failed that way once
# on FuzzReader under load. A count has no deadline to race; under load the
# step takes longer instead.
#   FUZZTIME   the budget of every target, as -fuzztime takes it: 100000x,
#              or a duration such as 30s (which may fail as above on Go 1.26)
#   FUZZLANES  targets fuzzed at once, one worker each (default 2)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
help_if_asked "$@"
cd "$root"
need go "Install Go 1.26 or newer"
lanes=${FUZZLANES:-2}
# PKG:TARGET:EXECUTIONS; the counts are about 20 s each at the rates of a
# quiet run with two lanes (23,000, 10,800, 10,600 and 5,800 per second).
targets=(jsonrpc:FuzzReader:450000x lm/openai:FuzzParseCompletion:200000x
  lm/openai:FuzzParseInfill:200000x engine:FuzzCaretContext:120000x)
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
# fuzz_one TARGET: one target with one fuzzing worker, its output to a log.
fuzz_one() {
  local pkg=${1%%:*} rest=${1#*:}
  local name=${rest%%:*} budget=${FUZZTIME:-${rest#*:}}
  go test "./$pkg" -run '^$' -fuzz "^$name\$" -fuzztime "$budget" -parallel 1 >"$logs/$name.log" 2>&1
}
# The targets run $lanes at a time, one worker each: the whole step about
# $lanes times shorter than one target after the other.
rc=0
pids=(); names=()
for target in "${targets[@]}"; do
  rest=${target#*:}; name=${rest%%:*}
  info "go test ./${target%%:*} -run '^\$' -fuzz '^$name\$' -fuzztime ${FUZZTIME:-${rest#*:}} -parallel 1"
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
