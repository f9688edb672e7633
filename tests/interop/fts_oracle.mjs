// Full-text analysis against real Lance: the same documents are searched
// with Lance's FTS index (default tokenizer settings) and with `search()` in
// an omnigraph graph; every query must match the same documents (§2.7).
//   node fts_oracle.mjs WORK_DIR OMNIGRAPH_CLI
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import * as lancedb from "@lancedb/lancedb";

const [dir, cli] = process.argv.slice(2);
fs.rmSync(dir, { recursive: true, force: true });
fs.mkdirSync(dir, { recursive: true });

// Stemming, stop words, accents, case, digits, punctuation, non-Latin
// scripts and a token too long to index.
const docs = [
  ["d01", "The quick brown foxes are running"],
  ["d02", "Neural networks learn representations"],
  ["d03", "Café au lait, s'il vous plaît"],
  ["d04", "Straße und Œuvre: naïve façade"],
  ["d05", "Machine-learning models; v2.0 released in 2024"],
  ["d06", "数据库 系统 and ДАННЫЕ"],
  ["d07", "It is what it is, and there it was"],
  ["d08", "Having learned nothing, he runs"],
  ["d09", "supercalifragilisticexpialidociousnessandmore words"],
  ["d10", "Organization organizes organized organs"],
  ["d11", "GENERALLY generous generation"],
  ["d12", "Łódź, Zürich and São Paulo"],
];
const queries = [
  "fox", "running", "runs", "learning", "network", "cafe", "CAFÉ", "plait", "strasse", "oeuvre",
  "naive", "facade", "machine", "learn", "v2", "2024", "released", "数据库", "данные", "the",
  "it is was", "what there", "nothing", "organ", "organization", "general", "generation",
  "lodz", "zurich", "sao", "supercalifragilisticexpialidociousnessandmore", "words", "and",
  "have", "he", "what", "being", "its", "will",
];

// Lance: FTS index with default parameters.
const db = await lancedb.connect(path.join(dir, "lance"));
const table = await db.createTable("docs", docs.map(([id, text]) => ({ id, text })));
await table.createIndex("text", { config: lancedb.Index.fts() });
const lanceHits = {};
for (const q of queries) {
  const rows = await table.search(q, "fts", "text").select(["id", "_score"]).limit(100).toArray();
  lanceHits[q] = rows.map((r) => r.id).sort();
}

// Omnigraph: the same documents as nodes, searched with search().
const graph = path.join(dir, "graph.omni");
fs.writeFileSync(path.join(dir, "schema.pg"), "node Doc { slug: String @key  text: String @index }\n");
fs.writeFileSync(
  path.join(dir, "docs.jsonl"),
  docs.map(([slug, text]) => JSON.stringify({ type: "Doc", data: { slug, text } })).join("\n") + "\n",
);
const run = (args) => {
  const r = spawnSync(cli, args, { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`omnigraph ${args.join(" ")} failed: ${r.stderr}`);
  return r.stdout;
};
run(["init", "--schema", path.join(dir, "schema.pg"), graph]);
run(["load", "--data", path.join(dir, "docs.jsonl"), "--mode", "overwrite", graph]);
const source = "query q($q: String) { match { $d: Doc  search($d.text, $q) } return { $d.slug } }";
let failures = 0;
for (const q of queries) {
  const out = run(["query", "--store", graph, "-e", source, "--params", JSON.stringify({ q }), "--format", "jsonl"]);
  const ours = out
    .split("\n")
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line))
    .filter((row) => row.kind !== "metadata")
    .map((row) => row["d.slug"])
    .sort();
  const theirs = lanceHits[q];
  if (JSON.stringify(ours) !== JSON.stringify(theirs)) {
    console.error(`query ${JSON.stringify(q)}: Lance matched [${theirs}], omnigraph matched [${ours}]`);
    ++failures;
  }
}
if (failures > 0) process.exit(1);
console.log(`fts: ${queries.length} queries over ${docs.length} documents match Lance`);
