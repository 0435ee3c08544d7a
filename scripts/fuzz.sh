#!/usr/bin/env bash
# Runs each fuzz target for a bounded time (go native fuzzing), after its
# committed seed corpus (PKG/testdata/fuzz/NAME), which `go test` alone also
# runs as ordinary tests:
#   jsonrpc     FuzzReader            the LSP reader (headers and body)
#   lm/openai   FuzzParseCompletion   logprobs of llama.cpp and OpenAI/vLLM
#   lm/openai   FuzzParseInfill       logprobs of llama.cpp's /infill
#   engine      FuzzCaretContext      the caret-context classification
# A failing input is written under PKG/testdata/fuzz/NAME; commit it with the
# fix. About 2.5 minutes with the default time on 2 shared cores.
#   FUZZTIME   time per target (default 25s)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$root"
need go "Install Go 1.26 or newer"
t=${FUZZTIME:-25s}
rc=0
for target in jsonrpc:FuzzReader lm/openai:FuzzParseCompletion lm/openai:FuzzParseInfill engine:FuzzCaretContext; do
  pkg=${target%%:*}; name=${target#*:}
  info "go test ./$pkg -run '^\$' -fuzz '^$name\$' -fuzztime $t"
  go test "./$pkg" -run '^$' -fuzz "^$name\$" -fuzztime "$t" -parallel 2 || rc=1
done
exit $rc
