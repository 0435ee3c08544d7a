#!/usr/bin/env bash
# Verifies every bug fixture in testdata/bugs/ and example/ (format:
# docs/bug-corpus.md): the buggy project fails its test_cmd, because it does
# not compile inside the hunk or because a test fails, and with fixed_hunk
# applied (in a scratch copy) it compiles and passes. Warms the Maven cache
# first (scripts/warm-maven.sh). The work is the Go test
# corpus.TestVerifyFixtures; it prints a table of the fixtures at the end.
#   CORPUS_PARALLEL   fixtures checked at once (default 2)
#   MAVEN_OPTS        when unset: -XX:TieredStopAtLevel=1 -XX:+UseSerialGC
#                     for Maven's own JVM (each mvn run here is short: the
#                     C1 compiler only and the serial collector halve its CPU
#                     time; the tests' JVMs that surefire forks are not
#                     affected, and the build and the tests are the same)
#   REPILOT_CORPUS_DIRS  other corpora to check instead (':'-separated;
#                        relative to the current directory)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
help_if_asked "$@"
need go "Install Go 1.26 or newer"
need javac "Install a Java 17+ JDK"
export MAVEN_OPTS="${MAVEN_OPTS--XX:TieredStopAtLevel=1 -XX:+UseSerialGC}"
# Relative corpus paths are taken from the caller's directory.
if [ -n "${REPILOT_CORPUS_DIRS:-}" ]; then
  abs=()
  IFS=: read -r -a dirs <<< "$REPILOT_CORPUS_DIRS"
  for d in "${dirs[@]}"; do abs+=("$(cd "$d" && pwd)"); done
  REPILOT_CORPUS_DIRS=$(IFS=:; echo "${abs[*]}")
  export REPILOT_CORPUS_DIRS
fi
cd "$root"
step "warming the Maven cache for the fixtures"
scripts/warm-maven.sh
step "verifying the bug fixtures (buggy fails, fixed passes)"
start=$(date +%s)
set +e
REPILOT_VERIFY_CORPUS=1 go test ./corpus -run 'TestFixturesWellFormed|TestVerifyFixtures' -count=1 -v \
  -parallel "${CORPUS_PARALLEL:-2}" -timeout 30m 2>&1 |
  grep -v -E '^=== (RUN|PAUSE|CONT)'
status=${PIPESTATUS[0]}
set -e
info "corpus check took $(( $(date +%s) - start ))s (exit $status)"
exit "$status"
