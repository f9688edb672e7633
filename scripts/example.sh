#!/usr/bin/env bash
# Installs dependencies, builds, and runs the main job on the bundled
# example: today the table-store demo (create, append, strict insert, upsert,
# delete, detached commit, tag, branch, scan), printing every result.
set -euo pipefail
cd "$(dirname "$0")/.."
OMNIGRAPH_SKIP_NPM=1 ./scripts/setup.sh
./scripts/build.sh table-demo
mkdir -p example-output
./build/tools/table-demo example-output
