#!/usr/bin/env bash
# Configures and builds into ./build (Ninja, RelWithDebInfo, ccache when present).
set -euo pipefail
cd "$(dirname "$0")/.."
# ccache keys on paths relative to this checkout (and not on its
# directory), so a fresh clone anywhere reuses the objects of another.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
if [ ! -f build/build.ninja ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
ninja -C build -j "${OMNIGRAPH_BUILD_JOBS:-2}" "$@"
