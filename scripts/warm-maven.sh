#!/usr/bin/env bash
# Downloads into the local Maven repository (~/.m2/repository) every plugin and
# library that the Maven projects under testdata/bugs/ and example/ need, so
# that their test_cmd ("mvn -B -q -o test") runs offline. Two steps: the
# warm-up project in scripts/maven-warmup/ runs one JUnit 4 test (this fetches
# the compiler and surefire plugins and surefire's JUnit 4 provider, which is
# only resolved when tests run), then maven-dependency-plugin's go-offline runs
# on a copy of each fixture's pom. Idempotent: a stamp keyed by the poms'
# content under $REPILOT_CACHE/maven-warm/ skips the work next time.
#   REPILOT_CACHE   cache root (default: $HOME/.cache/repilot-lsp)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
help_if_asked "$@"
need mvn "Debian: apt-get install -y maven"
need java "Install Java 17 or newer (Debian: apt-get install -y openjdk-17-jdk-headless)"

cd "$root"
mapfile -t poms < <(find testdata/bugs example -path '*/project/pom.xml' 2>/dev/null | sort)
key=$(cat scripts/maven-warmup/pom.xml "${poms[@]}" | sha256sum | cut -c1-16)
stamp="$cache/maven-warm/$key"
m2="$HOME/.m2/repository"
if [ -f "$stamp" ] && [ -f "$m2/junit/junit/4.13.2/junit-4.13.2.jar" ]; then
  info "Maven dependencies of ${#poms[@]} projects already cached (stamp $stamp)"
  exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# mvn DIR ARGS...: runs Maven quietly in DIR; its output is shown only when it fails.
mvn_in() {
  local dir=$1; shift
  (cd "$dir" && mvn -B -q "$@") >"$tmp/mvn.log" 2>&1 || { cat "$tmp/mvn.log" >&2; return 1; }
}
start=$(date +%s)
info "fetching plugins and the JUnit 4 provider (scripts/maven-warmup)"
cp -r scripts/maven-warmup "$tmp/warmup"
mvn_in "$tmp/warmup" test || die "the Maven warm-up project failed (is Maven Central reachable?)"
for pom in "${poms[@]}"; do
  info "resolving $(dirname "$pom")"
  d="$tmp/$(echo "$pom" | tr / _)"
  mkdir -p "$d"
  cp "$pom" "$d/pom.xml"
  mvn_in "$d" org.apache.maven.plugins:maven-dependency-plugin:3.6.1:go-offline ||
    die "could not resolve the dependencies of $pom"
done
info "checking that the warm-up project now builds offline"
rm -rf "$tmp/warmup/target"
mvn_in "$tmp/warmup" -o test || die "offline Maven build failed after warm-up"
mkdir -p "$(dirname "$stamp")"
date -u +%FT%TZ > "$stamp"
info "Maven cache warm for ${#poms[@]} projects in $(( $(date +%s) - start ))s"
