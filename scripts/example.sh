#!/usr/bin/env bash
# Installs dependencies, builds the CLI, and runs the main job on the bundled
# example graph (examples/social): init from a .pg schema, load JSONL seed
# data, run read queries, apply mutations, query again, then work on a branch
# (fork, write, read it beside main, merge), show a refused conflicting
# merge, and read the graph as of an earlier commit (time travel). Every
# step prints its result. Rerunning starts from a fresh graph.
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

# Branches: fork main, write on the branch, read both, merge back.
before_merge=$("$omnigraph" commit list "$graph" --json | jq -r '.commits[0].graph_commit_id')
step branch create --store "$graph" --from main review
step mutate --store "$graph" --query "$example/mutations.gq" --branch review add_person \
  --params '{"name":"grace","age":29,"company":"acme"}'
step query --store "$graph" --query "$example/queries.gq" headcount --branch review
step query --store "$graph" --query "$example/queries.gq" headcount
step branch merge --store "$graph" review --into main
step query --store "$graph" --query "$example/queries.gq" headcount
step branch list --store "$graph"

# A conflict: both sides change erin's age; the merge is refused, nothing changes.
step branch create --store "$graph" --from main hotfix
step mutate --store "$graph" --query "$example/mutations.gq" --branch hotfix set_age --params '{"name":"erin","age":40}'
step mutate --store "$graph" --query "$example/mutations.gq" set_age --params '{"name":"erin","age":41}'
step branch merge --store "$graph" hotfix --into main || echo "(exit $?: the merge was refused)"

# Time travel: main as of its head before the review merge.
step query --store "$graph" --query "$example/queries.gq" headcount --snapshot "$before_merge"
step commit list "$graph"
