// Schema evolution and maintenance -> Lance: real Lance 8 reads every table
// of main at its pin after `schema apply` (a rename, an added property, a
// dropped property, an added type) and after `optimize`, and finds exactly
// the columns and rows the engine exports.
//   node verify_graph_maintenance.mjs WORK_DIR OMNIGRAPH_CLI
import fs from "node:fs";
import path from "node:path";
import { checkRun, cliRunner, firstDifference, graphManifestTables, readPinnedTable } from "./common.mjs";

const [dir, cli] = process.argv.slice(2);
const { fail, finish } = checkRun(dir);

const files = {
  "v1.pg": `
node Person { name: String @key  age: I32?  city: String? }
edge Knows: Person -> Person { since: I32? }
`,
  "v2.pg": `
node Person { name: String @key  years: I32? @rename_from("age")  email: String? }
node Tag { label: String @key }
edge Knows: Person -> Person { since: I32? }
`,
  "seed.jsonl": [
    { type: "Person", data: { name: "alice", age: 34, city: "paris" } },
    { type: "Person", data: { name: "bob", age: 29 } },
    { type: "Person", data: { name: "carol", age: 41 } },
    { edge: "Knows", from: "alice", to: "bob", data: { since: 2020 } },
  ].map((r) => JSON.stringify(r)).join("\n") + "\n",
  "v1.gq": `
query add($name: String, $age: I32) { insert Person { name: $name, age: $age } }
query remove($name: String) { delete Person where name = $name }
`,
  "v2.gq": `
query set_email($name: String, $email: String) { update Person set { email: $email } where name = $name }
query tag($label: String) { insert Tag { label: $label } }
`,
};
for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
const graph = path.join(dir, "g");

const run = cliRunner(cli);
const mutate = (file, name, params) =>
  run(["mutate", "--store", graph, "--query", path.join(dir, file), name, "--params", JSON.stringify(params)]);

run(["init", "--schema", path.join(dir, "v1.pg"), graph]);
run(["load", "--data", path.join(dir, "seed.jsonl"), "--mode", "overwrite", graph]);
mutate("v1.gq", "add", { name: "dave", age: 25 });
mutate("v1.gq", "remove", { name: "carol" });
run(["schema", "apply", graph, "--schema", path.join(dir, "v2.pg"), "--allow-data-loss"]);
mutate("v2.gq", "set_email", { name: "bob", email: "bob@example.com" });
mutate("v2.gq", "tag", { label: "x" });

// The engine's rows by table key, as export prints them.
function exportRows() {
  const byType = {};
  for (const line of run(["export", graph]).split("\n")) {
    if (!line) continue;
    const r = JSON.parse(line);
    const key = r.type !== undefined ? `node:${r.type}` : `edge:${r.edge}`;
    (byType[key] ??= []).push(r.edge !== undefined ? { id: r.data?.id ?? r.id, src: r.from, dst: r.to, ...r.data } : r.data);
  }
  return byType;
}
const sorted = (rows, columns) =>
  rows
    .map((r) => Object.fromEntries(columns.map((c) => [c, r[c] ?? null])))
    .sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));

// Every table of main read by Lance at its pin, against the export.
let round = 0;
async function verify(stage, expectedColumns) {
  const lanceDir = path.join(dir, `lance-${round++}`);
  const { db, tables } = await graphManifestTables(graph, lanceDir);
  const exported = exportRows();
  const keys = tables.map((t) => t.table_key).sort();
  const d = firstDifference(Object.keys(expectedColumns).sort(), keys, "table keys");
  if (d) fail(`${stage}: ${d}`);
  let n = 0;
  for (const t of tables) {
    const label = `${stage} ${t.table_key}`;
    let read;
    try {
      read = await readPinnedTable(db, lanceDir, graph, t, `t${n++}`);
    } catch (e) {
      fail(`${label}: Lance could not read the pinned version: ${e.message}`);
      continue;
    }
    const cd = firstDifference(expectedColumns[t.table_key], read.columns, "columns");
    if (cd) fail(`${label}: ${cd}`);
    const engine = exported[t.table_key] ?? [];
    if (String(read.rows.length) !== String(engine.length)) {
      fail(`${label}: Lance read ${read.rows.length} rows, the engine exports ${engine.length}`);
      continue;
    }
    const columns = expectedColumns[t.table_key].filter((c) => c !== "id" || t.table_key.startsWith("edge:"));
    const rd = firstDifference(sorted(engine, columns), sorted(read.rows, columns), "rows");
    if (rd) fail(`${label}: Lance and the engine's export disagree: ${rd}`);
    else console.log(`ok ${label}: Lance read ${read.rows.length} rows at ${read.version}, identical`);
  }
}

const evolved = {
  "node:Person": ["id", "email", "name", "years"],
  "node:Tag": ["id", "label"],
  "edge:Knows": ["id", "src", "dst", "since"],
};
await verify("after schema apply", evolved);
run(["optimize", graph]);
await verify("after optimize", evolved);
finish("schema apply / optimize -> Lance interop: all checks passed");
