# lib.sh: helpers sourced by the scripts in this folder (not run on its own).
# Defines: root (the repository root), cache (REPILOT_CACHE or
# ~/.cache/repilot-lsp), step/info/warn/die for messages on stderr,
# help_if_asked for -h/--help, and need TOOL HINT to fail early with an
# install hint.

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="${REPILOT_CACHE:-$HOME/.cache/repilot-lsp}"
_me="$(basename "$0")"

step() { printf '\n==> %s\n' "$*" >&2; }
info() { printf '    %s\n' "$*" >&2; }
warn() { printf '%s: warning: %s\n' "$_me" "$*" >&2; }
die() { printf '%s: error: %s\n' "$_me" "$*" >&2; exit 1; }

# help_if_asked "$@": with -h or --help before any "--", print the calling
# script's header comment (from its second line to "set -euo pipefail") and
# exit 0. Before, the scripts without it ran in full when asked for help
# (check-vscode-e2e.sh built the server and started code-server).
help_if_asked() {
  local a
  for a in "$@"; do
    case "$a" in
    --) return 0 ;;
    -h | --help)
      sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    esac
  done
}

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
