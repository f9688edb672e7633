#!/usr/bin/env bash
# Installs everything the build and the tests need on Debian 12 (run as root).
# Idempotent: apt runs only when a package is missing, npm only when a
# test folder's lockfile changed.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  cmake g++ ninja-build ccache pkg-config python3
  protobuf-compiler libprotobuf-dev
  libroaring-dev libzstd-dev liblz4-dev
  nlohmann-json3-dev libsimdjson-dev libfmt-dev
  libflatbuffers-dev flatbuffers-compiler libxxhash-dev
  libre2-dev libcli11-dev libstemmer-dev libyaml-cpp-dev jq libssl-dev
  libboost1.74-dev libboost-system1.74-dev wrk
  libgtest-dev libgmock-dev libbenchmark-dev
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
command -v node >/dev/null 2>&1 || missing+=(nodejs npm)
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm packages for the Node-driven tests: real Lance 8 (inside
# @lancedb/lancedb 0.31.0) for the interop tests; ajv and
# @cedar-policy/cedar-wasm 4.13.0 for the server contract and policy tests.
# Each folder installs only when its lockfile changed since the last install.
if [ "${OMNIGRAPH_SKIP_NPM:-0}" != "1" ]; then
  for dir in tests/interop tests/server; do
    stamp="$dir/node_modules/.omnigraph-lock"
    if [ ! -f "$stamp" ] || ! cmp -s "$dir/package-lock.json" "$stamp"; then
      echo "setup: installing $dir npm packages" >&2
      (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
      cp "$dir/package-lock.json" "$stamp"
    fi
  done
fi
