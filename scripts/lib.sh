# lib.sh: helpers sourced by the scripts in this folder (not run on its own).
# Defines: root (the repository root), cache (REPILOT_CACHE or
# ~/.cache/repilot-lsp), step/info/warn/die for messages on stderr, and
# need TOOL HINT to fail early with an install hint.

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="${REPILOT_CACHE:-$HOME/.cache/repilot-lsp}"
_me="$(basename "$0")"

step() { printf '\n==> %s\n' "$*" >&2; }
info() { printf '    %s\n' "$*" >&2; }
warn() { printf '%s: warning: %s\n' "$_me" "$*" >&2; }
die() { printf '%s: error: %s\n' "$_me" "$*" >&2; exit 1; }

# need TOOL HINT: fail with HINT when TOOL is not on PATH.
need() {
  command -v "$1" >/dev/null 2>&1 || die "$1 not found on PATH. $2"
}

# java_major prints the major version of the java on PATH (or $JAVA_HOME).
java_major() {
  local java=java
  if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then java="$JAVA_HOME/bin/java"; fi
  "$java" -version 2>&1 | sed -n 's/.*version "\([0-9]*\)[."].*/\1/p' | head -1
}
