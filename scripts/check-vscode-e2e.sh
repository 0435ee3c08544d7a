#!/usr/bin/env bash
# End-to-end check of the VS Code extension in a real VS Code: code-server
# 4.96.4 (VS Code 1.96 in the browser, npm) driven by Debian's Chromium with
# playwright-core (editors/vscode/e2e/drive.js). The extension in
# editors/vscode is installed into a fresh extensions folder, repilot-lsp is
# built from this tree as its server, the workspace is a copy of
# example/shop-cart-discount with the example's test command as
# repilot.testCommand. The check opens Cart.java, waits for the status item
# to say ready (a click shows the log), selects the buggy line and requires
# the code action menu to show "Repair with Repilot" and "Semantic search in
# repo" beside JDT LS's own actions; then it starts a repair and cancels it
# (the server log must show it), runs the repair to the end, checks the
# patch QuickPick (no patch that does not compile; the fix "compiles, tests
# pass") and its diff preview, applies the fix, undoes it in one step, and
# runs "Repilot: Semantic search in repo" and jumps to a result
# (REPILOT_E2E_REPAIR=0 skips the repair and search steps). Last, ghost text:
# at a prepared caret in Receipt.java an invoked inline suggestion must show,
# Tab must insert it, and javac must compile the project with it. The time is mostly the
# repair; see editors/vscode/README.md for measured runs. The first run also
# installs code-server (npm, native modules built: several minutes).
# Screenshots go to $REPILOT_E2E_OUT when set (vscode-*.png).
#
# Installs what it lacks: chromium (apt-get, as root), and code-server plus
# playwright-core (npm, cached in $REPILOT_CACHE/vscode-e2e, default
# ~/.cache/repilot-lsp/vscode-e2e). Needs JDT LS (scripts/install-jdtls.sh).
# Fails when it cannot run; check-editors.sh skips it only with
# REPILOT_SKIP_VSCODE_E2E=1.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
help_if_asked "$@"
need node "Install Node.js 20 (Debian: apt-get install -y nodejs npm)"
need npm "Install npm (Debian: apt-get install -y npm)"
need go "Install Go (see README)"
cd "$root"

CODE_SERVER_VERSION=4.96.4
PLAYWRIGHT_VERSION=1.49.1
e2e_cache="$cache/vscode-e2e"
jdtls_home="${REPILOT_JDTLS_HOME:-$cache/jdtls-1.20.0}"
[ -d "$jdtls_home/plugins" ] || die "JDT LS not found at $jdtls_home: run scripts/install-jdtls.sh"

chromium_bin="${CHROMIUM:-$(command -v chromium || true)}"
if [ -z "$chromium_bin" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    step "installing chromium (apt-get)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y chromium >/dev/null
    chromium_bin="$(command -v chromium)"
  else
    die "chromium not found: apt-get install -y chromium (or set CHROMIUM)"
  fi
fi

mkdir -p "$e2e_cache"
# code-server from the npm registry only. Its postinstall would run
# `npm install` in lib/vscode, whose shrinkwrap pins @vscode/proxy-agent to a
# GitHub commit, and @vscode/ripgrep's postinstall downloads from GitHub;
# neither host is reachable here. So: unpack the tarball, point that one
# entry at the registry's tarball of the same version, install without
# scripts, build the native modules from source (node-gyp with the system's
# Node headers), and make the links the postinstall makes.
cs_dir="$e2e_cache/code-server-$CODE_SERVER_VERSION"
code_server="$cs_dir/out/node/entry.js"
if [ ! -f "$cs_dir/.repilot-installed" ]; then
  step "installing code-server $CODE_SERVER_VERSION into $cs_dir (npm; builds native modules, a few minutes once)"
  if ! command -v g++ >/dev/null || ! command -v make >/dev/null || [ ! -f /usr/include/gssapi/gssapi.h ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      DEBIAN_FRONTEND=noninteractive apt-get install -y build-essential libkrb5-dev >/dev/null
    else
      die "code-server's native modules need a C++ toolchain and Kerberos headers: apt-get install -y build-essential libkrb5-dev"
    fi
  fi
  export npm_config_nodedir="${npm_config_nodedir:-$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")}"
  [ -f "$npm_config_nodedir/include/node/node_api.h" ] || die "Node headers not found under $npm_config_nodedir/include/node (set npm_config_nodedir)"
  rm -rf "$cs_dir" "$e2e_cache/pack"
  mkdir -p "$e2e_cache/pack"
  ( cd "$e2e_cache/pack" && npm pack --silent "code-server@$CODE_SERVER_VERSION" >/dev/null )
  tar xzf "$e2e_cache/pack/code-server-$CODE_SERVER_VERSION.tgz" -C "$e2e_cache/pack"
  mv "$e2e_cache/pack/package" "$cs_dir"
  rm -rf "$e2e_cache/pack"
  node -e '
    const fs = require("fs"), f = process.argv[1], d = JSON.parse(fs.readFileSync(f, "utf8"));
    for (const [k, v] of Object.entries(d.packages || {})) {
      if (!String(v.resolved || "").startsWith("git+")) continue;
      const name = k.split("node_modules/").pop();
      v.resolved = `https://registry.npmjs.org/${name}/-/${name.split("/").pop()}-${v.version}.tgz`;
      delete v.integrity;
    }
    fs.writeFileSync(f, JSON.stringify(d, null, 2));' "$cs_dir/lib/vscode/npm-shrinkwrap.json"
  npmi() { npm install --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error; }
  ( cd "$cs_dir" && npmi && npm rebuild --loglevel=error argon2 )
  ( cd "$cs_dir/lib/vscode" && npmi &&
    npm rebuild --loglevel=error @vscode/spdlog node-pty @parcel/watcher native-watchdog @vscode/deviceid kerberos &&
    ln -sfn node_modules node_modules.asar &&
    ( cd bin/remote-cli && ln -sfn code-linux.sh code-server ) &&
    ( cd bin/helpers && ln -sfn browser-linux.sh browser.sh ) )
  # Quick open lists files with ripgrep: Debian's, in place of the download.
  if ! command -v rg >/dev/null && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y ripgrep >/dev/null
  fi
  if command -v rg >/dev/null; then
    mkdir -p "$cs_dir/lib/vscode/node_modules/@vscode/ripgrep/bin"
    ln -sfn "$(command -v rg)" "$cs_dir/lib/vscode/node_modules/@vscode/ripgrep/bin/rg"
  fi
  ( cd "$cs_dir/lib/vscode/extensions" && npmi )
  touch "$cs_dir/.repilot-installed"
fi
[ -f "$code_server" ] || die "code-server did not install ($code_server missing)"
if [ ! -f "$e2e_cache/node_modules/playwright-core/package.json" ]; then
  step "installing playwright-core@$PLAYWRIGHT_VERSION into $e2e_cache (npm)"
  ( cd "$e2e_cache" && { [ -f package.json ] || echo '{"private":true}' > package.json; } &&
    npm install --no-audit --no-fund --loglevel=error "playwright-core@$PLAYWRIGHT_VERSION" )
fi

work="$(mktemp -d /tmp/repilot-vscode-e2e.XXXXXX)"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  # The language server (started from $work/bin) and its JDT LS write their
  # state and the search cache under $work while they shut down: wait for
  # every process whose command line names $work to end (15 s at most, then
  # kill what is left), so that the folder is not written again after rm.
  local i
  for i in $(seq 30); do
    pgrep -f "$work/" >/dev/null || break
    sleep 0.5
  done
  pkill -9 -f "$work/" 2>/dev/null || true
  rm -rf "$work" 2>/dev/null || { sleep 3; rm -rf "$work"; }
}
trap cleanup EXIT

step "building repilot-lsp from this tree"
go build -o "$work/bin/repilot-lsp" ./cmd/repilot-lsp

step "installing the extension (editors/vscode) into a fresh extensions folder"
ext="$work/extensions/repilot-lsp.repilot-lsp-0.1.0"
mkdir -p "$ext"
cp -r editors/vscode/package.json editors/vscode/extension.js editors/vscode/inline.js editors/vscode/lib "$ext/"
if [ -d editors/vscode/node_modules/vscode-languageclient ]; then
  cp -r editors/vscode/node_modules "$ext/"
else
  cp editors/vscode/package-lock.json "$ext/"
  ( cd "$ext" && npm ci --omit=dev --no-audit --no-fund --loglevel=error )
fi

# VS Code 1.96 lists user extensions in extensions.json (the profile's
# manifest); an unpacked folder alone is not picked up.
cat > "$work/extensions/extensions.json" <<EOF
[{"identifier":{"id":"repilot-lsp.repilot-lsp"},"version":"0.1.0",
  "location":{"\$mid":1,"path":"$ext","scheme":"file"},
  "relativeLocation":"repilot-lsp.repilot-lsp-0.1.0",
  "metadata":{"installedTimestamp":$(date +%s)000,"source":"vsix","pinned":true}}]
EOF

step "workspace: a copy of example/shop-cart-discount"
cp -r example/shop-cart-discount "$work/workspace"
mkdir -p "$work/user/User"
cat > "$work/user/User/settings.json" <<EOF
{
  "repilot.path": "$work/bin/repilot-lsp",
  "repilot.args": ["--log-file", "$work/repilot.log"],
  "repilot.jdtls.home": "$jdtls_home",
  "repilot.cache": "$work/cache",
  "repilot.testCommand": $(node -e 'process.stdout.write(JSON.stringify(require(process.argv[1]).test_cmd))' "$root/example/shop-cart-discount/bug.json"),
  "security.workspace.trust.enabled": false,
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "telemetry.telemetryLevel": "off",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "update.mode": "none"
}
EOF

port=$(( 20000 + RANDOM % 20000 ))
step "starting code-server $CODE_SERVER_VERSION on 127.0.0.1:$port"
# code-server and its extension host make their IPC sockets (vscode-ipc-*.sock,
# vscode-git-*.sock) under TMPDIR: keep them in $work, which cleanup removes,
# instead of leaving two in /tmp on every run.
mkdir -p "$work/tmp"
TMPDIR="$work/tmp" node "$code_server" --config "$work/config.yaml" --auth none --bind-addr "127.0.0.1:$port" --disable-telemetry --disable-update-check \
  --disable-workspace-trust --disable-getting-started-override \
  --user-data-dir "$work/user" --extensions-dir "$work/extensions" "$work/workspace" >"$work/code-server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 120); do
  if curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1; then break; fi
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/code-server.log" >&2; die "code-server exited"; }
  sleep 0.5
done
curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null || { cat "$work/code-server.log" >&2; die "code-server did not answer"; }

step "driving VS Code with $chromium_bin (playwright-core)"
out="${REPILOT_E2E_OUT:-$work}"
status=0
NODE_PATH="$e2e_cache/node_modules" CHROMIUM="$chromium_bin" REPILOT_E2E_OUT="$out" \
  REPILOT_E2E_REPAIR="${REPILOT_E2E_REPAIR:-1}" REPILOT_E2E_SERVER_LOG="$work/repilot.log" REPILOT_E2E_WORKSPACE="$work/workspace" \
  REPILOT_E2E_FIX="$(node -e 'process.stdout.write(require(process.argv[1]).fixed_hunk.trim())' "$root/example/shop-cart-discount/bug.json")" \
  timeout "${REPILOT_E2E_TIMEOUT_S:-600}" node editors/vscode/e2e/drive.js \
  "http://127.0.0.1:$port/?folder=$work/workspace" "Cart.java" 30 || status=$?
if [ "$status" != 0 ]; then
  warn "VS Code end-to-end check FAILED (status $status); logs follow"
  tail -n 40 "$work/repilot.log" >&2 2>/dev/null || true
  tail -n 20 "$work/code-server.log" >&2 || true
  [ "$out" = "$work" ] && trap - EXIT && warn "kept $work (screenshots, logs)"
  exit 1
fi
info "VS Code end-to-end check passed"
