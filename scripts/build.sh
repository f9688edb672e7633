#!/usr/bin/env bash
# Configures and builds into ./build (Ninja, RelWithDebInfo, ccache when present).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f build/build.ninja ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
ninja -C build -j "${OMNIGRAPH_BUILD_JOBS:-2}" "$@"
