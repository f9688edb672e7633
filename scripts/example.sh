#!/usr/bin/env bash
# Installs dependencies, builds the CLI, and runs the main job on the bundled
# example graph (examples/social): init from a .pg schema, load JSONL seed
# data, run read queries, apply mutations, query again, and show the commit
# history. Every step prints its result. Rerunning starts from a fresh graph.
set -euo pipefail
cd "$(dirname "$0")/.."
OMNIGRAPH_SKIP_NPM=1 ./scripts/setup.sh
./scripts/build.sh omnigraph

omnigraph=./build/src/cli/omnigraph
example=examples/social
graph=example-output/social.omni
rm -rf "$graph"
mkdir -p example-output

step() { printf '\n$ omnigraph %s\n' "$*"; "$omnigraph" "$@"; }

step init --schema "$example/schema.pg" "$graph"
step load --data "$example/seed.jsonl" --mode overwrite "$graph"
step query --store "$graph" --query "$example/queries.gq" friends --params '{"name":"alice"}'
step query --store "$graph" --query "$example/queries.gq" friends_of_friends --params '{"name":"alice"}'
step query --store "$graph" --query "$example/queries.gq" headcount
step query --store "$graph" --query "$example/queries.gq" engineers --format jsonl
step mutate --store "$graph" --query "$example/mutations.gq" add_person \
  --params '{"name":"frank","age":31,"company":"globex"}'
step mutate --store "$graph" --query "$example/mutations.gq" befriend --params '{"from":"frank","to":"alice"}'
step mutate --store "$graph" --query "$example/mutations.gq" set_age --params '{"name":"erin","age":38}'
step query --store "$graph" --query "$example/queries.gq" headcount
step query --store "$graph" --query "$example/queries.gq" engineers
step query --store "$graph" -e 'query who_knows_alice() { match { $a: Person { name: "alice" } $p knows $a } return { $p.name } }'
step mutate --store "$graph" --query "$example/mutations.gq" remove_person --params '{"name":"dave"}'
step query --store "$graph" --query "$example/queries.gq" friends_of_friends --params '{"name":"alice"}'
step commit list "$graph"
step snapshot "$graph"
