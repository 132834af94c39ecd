#!/usr/bin/env bash
# One entry point for a fresh machine that has only Node.js and npm:
#   bash scripts/dsh.sh demo   install, then run the main job on the bundled example deployment
#   bash scripts/dsh.sh test   install, then type-check, build and run every test
# It provides Yarn 4 through corepack (registry read from npm's config, never written down),
# installs the workspace from the committed yarn.lock, then runs the matching `yarn` script.
set -euo pipefail
cd "$(dirname "$0")/.."

task="${1:-}"
case "$task" in
  demo|test|bench) shift ;;
  *) echo "usage: bash scripts/dsh.sh demo|test|bench [args...]" >&2; exit 2 ;;
esac

bin="$PWD/.yarn-bin"
if ! [ -x "$bin/yarn" ]; then
  mkdir -p "$bin"
  registry="$(npm config get registry | sed 's#/*$##')"
  COREPACK_NPM_REGISTRY="$registry" COREPACK_ENABLE_DOWNLOAD_PROMPT=0 \
    corepack enable --install-directory "$bin" yarn
fi
export PATH="$bin:$PATH"
export COREPACK_NPM_REGISTRY="${COREPACK_NPM_REGISTRY:-$(npm config get registry | sed 's#/*$##')}"
export COREPACK_ENABLE_DOWNLOAD_PROMPT=0

# Installs a Debian package the tests need when it is missing (as root), or says how and stops:
# need_package <package> <what needs it> <the variable that points at one instead>.
need_package() {
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing $1 for $2 (apt-get)" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update >&2
    apt-get install -y "$1" >&2
  else
    echo "error: $2 need $1, which is not installed: run 'apt-get update && apt-get install -y $1' as root (or set $3)" >&2
    exit 1
  fi
}

# The browser tests (packages/cli/tests/html-browser.spec.ts) drive Debian's chromium, never a
# downloaded browser (about two minutes to install).
if [ "$task" = test ] && ! command -v chromium >/dev/null 2>&1 && [ -z "${DSH_CHROMIUM:-}" ]; then
  need_package chromium "the browser tests" "DSH_CHROMIUM to a Chromium binary"
fi

# The conversation-store tests (packages/store-postgres) run against a real PostgreSQL server, which
# scripts/postgres.sh starts in a scratch folder.
if [ "$task" = test ] && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && [ -z "${DSH_POSTGRES_SOCKET:-}" ]; then
  need_package postgresql "the conversation-store tests" "DSH_POSTGRES_SOCKET to a running server's socket folder"
fi

# The engine tier (scripts/tests/engine.spec.ts) runs llama.cpp's server, built once per machine into a
# cache outside the checkout (about 10 minutes on two cores the first time; seconds to check later).
if [ "$task" = test ]; then
  bash scripts/engine/build-llama-server.sh >/dev/null
fi

yarn install --immutable >&2
exec yarn "$task" "$@"
