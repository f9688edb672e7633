#!/usr/bin/env bash
# omnigraph-server benchmarks (docs/benchmarks.md, "Server"): keep-alive
# POST /query 1-hop and POST /mutate one-node insert measured with wrk
# (Debian's load generator) against graph_bench's 100k/500k graph, and the
# server's RSS with four such graphs open.
#
#   ./scripts/build.sh graph_bench omnigraph-server
#   ./build/bench/graph_bench --iterations 1 --cli ""     # (re)builds bench-scratch/graph/bench.omni
#   ./bench/server_bench.sh [SECONDS]
# OMNIGRAPH_BENCH_DIR moves the scratch data (e.g. /dev/shm/ogb for the CPU part).
# OMNIGRAPH_BENCH_RUNS=insert serves g1 alone and runs only the insert run
# (bench/insert_pairs.sh alternates it with graph_bench's embedded inserts).
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_RUN=${1:-10}
SCRATCH=${OMNIGRAPH_BENCH_DIR:-bench-scratch}
GRAPH=$SCRATCH/graph/bench.omni
ROOT=$SCRATCH/server
[ -d "$GRAPH" ] || { echo "run ./build/bench/graph_bench --iterations 1 --cli \"\" first" >&2; exit 1; }

rm -rf "$ROOT" && mkdir -p "$ROOT/graphs" "$ROOT/__cluster"
# g1 is graph_bench's graph itself, as its load left it (fsynced, one
# fragment per table), so the served inserts start from the state
# graph_bench's embedded inserts start from: run graph_bench with
# --iterations 1 just before this script. g2-g4 are copies, for the RSS of
# four open graphs.
ln -s "$(cd "$GRAPH" && pwd)" "$ROOT/graphs/g1.omni"
resources="\"graph.g1\":{\"digest\":\"bench\"},"
RUNS=${OMNIGRAPH_BENCH_RUNS:-all}
COPIES="g2 g3 g4"
[ "$RUNS" = insert ] && COPIES=""
for g in $COPIES; do
  cp -a "$GRAPH" "$ROOT/graphs/$g.omni"
  resources+="\"graph.$g\":{\"digest\":\"bench\"},"
done
# Flush the copies now: their dirty pages written back during the insert
# run would slow every fsync the inserts make.
sync
cat > "$ROOT/__cluster/state.json" <<JSON
{"version":1,"state_revision":1,"applied_revision":{"config_digest":null,"resources":{${resources%,}}},
 "resource_statuses":{},"approval_records":{},"recovery_records":{},"observations":{}}
JSON

./build/src/server/omnigraph-server --cluster "$ROOT" --bind 127.0.0.1:0 --unauthenticated \
  >"$ROOT/server.out" 2>"$ROOT/server.err" &
PID=$!
trap 'kill $PID 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
  ADDR=$(sed -n 's/^OMNIGRAPH_LISTEN_ADDR=//p' "$ROOT/server.out")
  [ -n "$ADDR" ] && break
  sleep 0.1
done
URL="http://$ADDR"
echo "server $URL (pid $PID), $(ls "$ROOT/graphs" | wc -l) graphs open: RSS $(( $(ps -o rss= -p $PID) / 1024 )) MiB"

run() {  # run LABEL THREADS CONNECTIONS SCRIPT
  echo "== $1 (wrk -t$2 -c$3 -d${SECONDS_PER_RUN}s)"
  wrk -t"$2" -c"$3" -d"${SECONDS_PER_RUN}s" --latency -s "bench/wrk/$4" "$URL" |
    grep -E "requests in|Requests/sec|^ +50%|^ +90%|^ +99%|Non-2xx|Socket errors"
}
if [ "$RUNS" = all ]; then
  run "warm-up" 1 4 query.lua >/dev/null
  run "query 1-hop, one keep-alive connection" 1 1 query.lua
  run "query 1-hop, 8 keep-alive connections" 2 8 query.lua
fi
# Every insert adds a fragment and inserts slow as fragments pile up
# (docs/benchmarks.md), so the run stops after as many inserts as
# graph_bench makes (bench/wrk/insert.lua: 300).
SECONDS_PER_RUN=10 run "mutate insert (300), one keep-alive connection" 1 1 insert.lua
echo "after the runs: RSS $(( $(ps -o rss= -p $PID) / 1024 )) MiB"
