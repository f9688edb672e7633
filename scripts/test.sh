#!/usr/bin/env bash
# Installs dependencies, builds, and runs every test: unit, integration, Lance
# interop (real Lance 8 through npm) and the shared corpus/case tests when
# ../shared exists. Ends with ctest's summary line.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
./scripts/build.sh
cd build
ctest --output-on-failure -j "${OMNIGRAPH_TEST_JOBS:-2}"
