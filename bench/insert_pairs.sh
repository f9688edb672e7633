#!/usr/bin/env bash
# The served insert against the embedded one, paired in time (docs/benchmarks.md,
# "Server"). This disk's fsync latency drifts by more than the 0.3 ms being
# measured within minutes, so separate runs cannot be compared: each round
# runs graph_bench's 300 embedded inserts, then 300 served inserts on a
# freshly loaded graph (wrk, bench/wrk/insert.lua), then graph_bench again,
# and compares the served p50 with the mean of the two embedded p50s around
# it. Prints every round and the median of the rounds' differences.
#
#   ./scripts/build.sh graph_bench omnigraph-server
#   ./bench/insert_pairs.sh [ROUNDS]      # default 5; about 45 s per round
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}

embedded_p50() {
  ./build/bench/graph_bench --iterations 300 --cli "" |
    sed -nE 's/^mutate insert one Person .* p50= *([0-9.]+) ms.*/\1/p'
}
served_p50() {  # wrk prints "50%    2.16ms" (or "us" below a millisecond)
  ./build/bench/graph_bench --iterations 1 --cli "" >/dev/null
  OMNIGRAPH_BENCH_RUNS=insert ./bench/server_bench.sh |
    awk '$1 == "50%" { v = $2; if (v ~ /us$/) print v / 1000; else print v + 0 }'
}

differences=()
before=$(embedded_p50)
for round in $(seq 1 "$ROUNDS"); do
  served=$(served_p50)
  after=$(embedded_p50)
  difference=$(awk -v s="$served" -v a="$before" -v b="$after" 'BEGIN { printf "%.3f", s - (a + b) / 2 }')
  echo "round $round: embedded $before ms, served $served ms, embedded $after ms: served - embedded = $difference ms"
  differences+=("$difference")
  before=$after
done
printf '%s\n' "${differences[@]}" | sort -g |
  awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
        printf "median of %d rounds: served - embedded = %.3f ms\n", NR, m }'
