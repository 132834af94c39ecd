#!/usr/bin/env bash
# Builds llama.cpp's `llama-server` once per machine for the engine test tier
# (packages/wire/tests/engine/). The source is llama.cpp as shipped inside the pinned npm package
# node-llama-cpp (a git bundle at package/llama/gitRelease.bundle); nothing of it is kept in this
# repository. The binary goes to a cache directory outside the checkout:
#   ${DSH_ENGINE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dsh/llama-server}/<pin>/llama-server
# A later run with the same pin reuses it and exits at once; a new pin builds into a new directory.
# The build happens in a temporary directory beside the target and is renamed into place at the end,
# so a killed build never leaves a half binary behind.
# Prints the binary's path on stdout (everything else goes to stderr); `--path` prints it without
# building (the engine test tier asks where the binary is).
# Cost: about 10.5 minutes on two idle cores, 632 MB peak; the binary is about 15 MB.
set -euo pipefail

# The whole script is one function, read before it runs: editing the file during a build cannot change
# what the running build does next.
main() {

  pin="node-llama-cpp@3.22.1"
  cache_root="${DSH_ENGINE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dsh/llama-server}"
  target="$cache_root/$pin"
  binary="$target/llama-server"

  if [ "${1:-}" = --path ]; then
    echo "$binary"
    exit 0
  fi

  if [ -x "$binary" ]; then
    echo "$binary"
    exit 0
  fi

  for tool in npm git cmake tar c++; do
    command -v "$tool" >/dev/null 2>&1 || { echo "error: building llama-server needs '$tool' on PATH" >&2; exit 1; }
  done

  mkdir -p "$cache_root"
  work="$(mktemp -d "$cache_root/.build-XXXXXX")"
  trap 'rm -rf "$work"' EXIT

  echo "building llama-server from $pin into $target (first run on this machine: about 10 minutes on two cores)" >&2
  started=$(date +%s)

  (cd "$work" && npm pack --silent "$pin" >/dev/null)
  tar -xzf "$work"/node-llama-cpp-*.tgz -C "$work" package/llama/gitRelease.bundle
  git clone --quiet "$work/package/llama/gitRelease.bundle" "$work/src"
  commit="$(git -C "$work/src" rev-parse HEAD)"

  generator=()
  command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
  cmake -S "$work/src" -B "$work/build" "${generator[@]}" \
    -DCMAKE_BUILD_TYPE=Release \
    -DLLAMA_BUILD_SERVER=ON -DGGML_NATIVE=OFF \
    -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_UI=OFF \
    -DLLAMA_OPENSSL=OFF -DBUILD_SHARED_LIBS=OFF \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF >&2
  cmake --build "$work/build" --target llama-server -j "${DSH_ENGINE_JOBS:-2}" >&2

  mkdir -p "$work/out"
  cp "$work/build/bin/llama-server" "$work/out/llama-server"
  printf '%s\n%s\n' "$pin" "$commit" > "$work/out/SOURCE"
  echo "built in $(( $(date +%s) - started )) s from llama.cpp $commit" >&2
  rm -rf "$target"
  mv "$work/out" "$target"
  echo "$binary"
}

main "$@"
exit
