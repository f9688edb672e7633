// Graph branches -> Lance: real Lance 8 reads every table of a graph
// branch at the exact version the branch pins, and main's tables at main's
// pins, and finds exactly the rows the engine serves.
//
// The omnigraph CLI builds a graph, forks `feature`, and writes on both
// branches (insert, update, delete, edge insert). Lance then reads the
// `__manifest` dataset itself: main's latest version, and the native
// branches `feature.{ULID}` and `review.{ULID}` (Lance branches; `review`
// forks `feature` and writes nothing). From each `table` row it takes the
// table's location and pin (metadata `staged_version`, a detached Lance
// version, else `last_linear_version`) and opens that table dataset at that
// version. A detached version exceeds 2^53, which lancedb's numeric
// checkout cannot carry, so it is reached through a tag written with the
// exact decimal (as the C++ -> Lance fixture test does). Lance reads a copy
// of the graph so the tags never touch the graph itself.
//   node verify_graph_branch.mjs WORK_DIR OMNIGRAPH_CLI
import fs from "node:fs";
import path from "node:path";
import { checkRun, cliRunner, connect, firstDifference, openRef, readPinnedTable, tableRows } from "./common.mjs";

const [dir, cli] = process.argv.slice(2);
const { fail, finish } = checkRun(dir);

const schema = `
node Person { name: String @key  age: I32? }
node City { name: String @key }
edge Knows: Person -> Person { since: I32? }
`;
const seed = [
  { type: "Person", data: { name: "alice", age: 34 } },
  { type: "Person", data: { name: "bob", age: 29 } },
  { type: "Person", data: { name: "carol", age: 41 } },
  { type: "Person", data: { name: "dave", age: 25 } },
  { edge: "Knows", from: "alice", to: "bob", data: { since: 2020 } },
];
const mutations = `
query add_person($name: String, $age: I32) { insert Person { name: $name, age: $age } }
query set_age($name: String, $age: I32) { update Person set { age: $age } where name = $name }
query remove_person($name: String) { delete Person where name = $name }
query befriend($from: String, $to: String, $since: I32) { insert Knows { from: $from, to: $to, since: $since } }
`;
fs.writeFileSync(path.join(dir, "schema.pg"), schema);
fs.writeFileSync(path.join(dir, "seed.jsonl"), seed.map((r) => JSON.stringify(r)).join("\n") + "\n");
fs.writeFileSync(path.join(dir, "mutations.gq"), mutations);
const graph = path.join(dir, "g");

const run = cliRunner(cli);
const mutate = (branch, name, params) =>
  run(["mutate", "--store", graph, "--query", path.join(dir, "mutations.gq"), "--branch", branch, name,
       "--params", JSON.stringify(params)]);

run(["init", "--schema", path.join(dir, "schema.pg"), graph]);
run(["load", "--data", path.join(dir, "seed.jsonl"), "--mode", "overwrite", graph]);
run(["branch", "create", "--store", graph, "--from", "main", "feature"]);
mutate("feature", "add_person", { name: "zoe", age: 22 });
mutate("feature", "set_age", { name: "bob", age: 30 });
mutate("feature", "remove_person", { name: "carol" });
mutate("feature", "befriend", { from: "alice", to: "zoe", since: 2026 });
mutate("main", "add_person", { name: "mona", age: 50 });
// A branch of a branch with no write of its own: its native ref clones
// feature's __manifest version, and its pins are feature's.
run(["branch", "create", "--store", graph, "--from", "feature", "review"]);

// What each branch must hold, by table key: user columns only (the
// projection compared), ordered by the first listed column.
const expected = {
  main: {
    "node:Person": [
      { name: "alice", age: 34 }, { name: "bob", age: 29 }, { name: "carol", age: 41 },
      { name: "dave", age: 25 }, { name: "mona", age: 50 },
    ],
    "node:City": [],
    "edge:Knows": [{ src: "alice", dst: "bob", since: 2020 }],
  },
  feature: {
    "node:Person": [
      { name: "alice", age: 34 }, { name: "bob", age: 30 }, { name: "dave", age: 25 }, { name: "zoe", age: 22 },
    ],
    "node:City": [],
    "edge:Knows": [{ src: "alice", dst: "bob", since: 2020 }, { src: "alice", dst: "zoe", since: 2026 }],
  },
};
expected.review = expected.feature;

// The engine's own view, to compare whole rows (ids included) with Lance.
function exportRows(branch) {
  const byType = {};
  for (const line of run(["export", graph, "--branch", branch]).split("\n")) {
    if (!line) continue;
    const r = JSON.parse(line);
    const key = r.type !== undefined ? `node:${r.type}` : `edge:${r.edge}`;
    (byType[key] ??= []).push(r);
  }
  return byType;
}

const project = (rows, columns) =>
  rows
    .map((r) => Object.fromEntries(columns.map((c) => [c, r[c]])))
    .sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));

// Lance reads a copy: tags are written into the copied table datasets.
const lanceDir = path.join(dir, "lance");
fs.mkdirSync(lanceDir);
fs.cpSync(path.join(graph, "__manifest"), path.join(lanceDir, "manifest.lance"), { recursive: true });
const db = await connect(lanceDir);

// The __manifest rows of `branch`, read by Lance (main: its latest version;
// another branch: its native Lance branch `{name}.{ULID}`).
async function manifestRows(branch) {
  const manifest = await db.openTable("manifest");
  if (branch === "main") return tableRows(await manifest.toArrow());
  const natives = Object.keys(await (await manifest.branches()).list()).filter((b) => b.startsWith(branch + "."));
  if (natives.length !== 1) throw new Error(`expected one native branch for ${branch}, found ${JSON.stringify(natives)}`);
  const onBranch = await openRef(db, "manifest", { branch: natives[0] });
  return tableRows(await onBranch.toArrow());
}

let copies = 0;
const pins = {};  // branch -> table key -> the manifest row's pin metadata
for (const branch of ["main", "feature", "review"]) {
  let rows;
  try {
    rows = await manifestRows(branch);
  } catch (e) {
    fail(`${branch}: Lance could not read __manifest: ${e.stack}`);
    continue;
  }
  const tables = rows.filter((r) => r.object_type === "table");
  const keys = tables.map((t) => t.table_key).sort();
  const d = firstDifference(Object.keys(expected[branch]).sort(), keys, "table keys");
  if (d) fail(`${branch}: ${d}`);
  const exported = exportRows(branch);
  for (const t of tables) {
    const label = `${branch} ${t.table_key}`;
    const want = expected[branch][t.table_key];
    if (!want) continue;
    (pins[branch] ??= {})[t.table_key] = t.metadata;
    let lanceRows, version;
    try {
      ({ rows: lanceRows, version } = await readPinnedTable(db, lanceDir, graph, t, `t${copies++}`));
    } catch (e) {
      fail(`${label}: Lance could not read the pinned version: ${e.message}`);
      continue;
    }
    if (String(lanceRows.length) !== String(t.row_count)) {
      fail(`${label}: Lance read ${lanceRows.length} rows, the pin says ${t.row_count}`);
    }
    const columns = Object.keys(want[0] ?? { id: null });
    const diff = firstDifference(want, project(lanceRows, columns), "rows");
    if (diff) {
      fail(`${label}: ${diff}`);
      continue;
    }
    // Whole rows against the engine's export (ids and every property).
    const engine = (exported[t.table_key] ?? []).map((r) =>
      r.edge !== undefined ? { id: r.data?.id ?? r.id, src: r.from, dst: r.to, ...r.data } : r.data);
    const engineColumns = engine.length ? Object.keys(engine[0]) : ["id"];
    const whole = firstDifference(project(engine, engineColumns), project(lanceRows, engineColumns), "rows");
    if (whole) fail(`${label}: Lance and the engine's export disagree: ${whole}`);
    else console.log(`ok ${label}: Lance read ${lanceRows.length} rows at ${version}, identical`);
  }
}
// A fork copies no table: review pins exactly what feature pins.
const pinDiff = firstDifference(pins.feature, pins.review, "pins");
if (pinDiff) fail(`review's pins differ from feature's: ${pinDiff}`);
else console.log("ok review pins exactly feature's table versions");
finish("graph branch -> Lance interop: all checks passed");
