#!/usr/bin/env bash
# The project's test command (README; CI runs it through .ci/run):
#   1. gofmt: fails listing unformatted files
#   2. go vet ./...
#   3. JDT LS: installs it with scripts/install-jdtls.sh when missing
#   4. Maven: warms the cache for the Maven fixtures (scripts/warm-maven.sh)
#   5. go build ./... and bin/repilot-lsp
#   6. go test ./... (timeout 40m; JDT LS integration tests need JDT LS)
#   7. the bug corpus: every fixture fails buggy and passes fixed
#      (scripts/check-corpus.sh)
#   8. editor plugins: the VS Code extension's unit tests and syntax check
#      (node), the Neovim plugin's headless test (when nvim is installed)
# Fits in about 50 minutes on 2 cores. Stops at the first failing step and
# names it; prints each step's time and a summary at the end.
#   GO_TEST_P          packages tested at once by go test (default 1: each
#                      JDT LS integration package starts a 1 GB server)
#   GO_TEST_FLAGS      extra flags for go test (e.g. -run X, -short)
#   REPILOT_SKIP_JDTLS=1  JDT LS tests skip (and say so) instead of failing
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$root"
need go "Install Go 1.26 or newer"
total_start=$(date +%s)
summary=()

run_step() { # run_step NAME COMMAND...: runs the command as one timed step.
  local name=$1; shift
  step "$name"
  local s; s=$(date +%s)
  if "$@"; then
    summary+=("ok    $(( $(date +%s) - s ))s  $name")
  else
    summary+=("FAIL  $(( $(date +%s) - s ))s  $name")
    print_summary
    die "step failed: $name"
  fi
}
print_summary() {
  step "summary ($(( $(date +%s) - total_start ))s)"
  printf '    %s\n' "${summary[@]}" >&2
}

gofmt_check() {
  local files
  files=$(find . -name '*.go' -not -path './.git/*' -not -path '*/node_modules/*' -print0 | xargs -0 gofmt -l)
  if [ -n "$files" ]; then
    echo "these files are not gofmt-formatted (run gofmt -w on them):" >&2
    echo "$files" >&2
    return 1
  fi
  echo "    all Go files formatted" >&2
}

jdtls_check() {
  if [ -n "${REPILOT_JDTLS_HOME:-}" ]; then
    echo "    using REPILOT_JDTLS_HOME=$REPILOT_JDTLS_HOME" >&2
    return 0
  fi
  if [ "${REPILOT_SKIP_JDTLS:-}" = 1 ]; then
    echo "    REPILOT_SKIP_JDTLS=1: not installing JDT LS; its integration tests will skip" >&2
    return 0
  fi
  echo "    $(scripts/install-jdtls.sh)" >&2
}

build() {
  go build ./... && go build -o bin/repilot-lsp ./cmd/repilot-lsp
}

go_tests() {
  # shellcheck disable=SC2086
  echo "    go test -p ${GO_TEST_P:-1} -count=1 -timeout 40m ${GO_TEST_FLAGS:-} ./..." >&2
  go test -p "${GO_TEST_P:-1}" -count=1 -timeout 40m ${GO_TEST_FLAGS:-} ./...
}

editor_checks() {
  scripts/check-editors.sh
}

run_step "1/8 gofmt" gofmt_check
run_step "2/8 go vet ./..." go vet ./...
run_step "3/8 JDT LS installed" jdtls_check
run_step "4/8 Maven cache for the fixtures" scripts/warm-maven.sh
run_step "5/8 go build" build
run_step "6/8 go test ./..." go_tests
run_step "7/8 bug corpus (buggy fails, fixed passes)" scripts/check-corpus.sh
run_step "8/8 editor plugins" editor_checks
print_summary
