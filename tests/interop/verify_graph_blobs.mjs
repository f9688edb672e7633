// Blob properties of a graph -> Lance (engine.md §1.2, surface.md §1.3):
// after a load and a mutation, and again after `optimize`, real Lance 8
// reads the Blob type's table at its pin and finds the blob v2 struct field
// (extension name lance.blob.v2) and, per row, the descriptor the engine's
// value implies (kind 0 with the value's size; an empty blob at a non-zero
// position; NULL as Lance's all-zero descriptor), with every other column
// equal to the export. Lance's own compaction of a copy of the table then
// works, and our reader still reads every value byte for byte.
//   node verify_graph_blobs.mjs WORK_DIR OMNIGRAPH_CLI LANCE_TOOL
import fs from "node:fs";
import path from "node:path";
import { checkRun, cliRunner, dumpWithOurReader, firstDifference, graphManifestTables, openRef, readPinnedTable } from "./common.mjs";

const [dir, cli, tool] = process.argv.slice(2);
const { fail, finish } = checkRun(dir);

const big = Buffer.alloc(100 * 1024);
for (let i = 0; i < big.length; i++) big[i] = (i * 7 + 3) & 0xff;
const b64 = (bytes) => "base64:" + Buffer.from(bytes).toString("base64");
const files = {
  "s.pg": `
node Doc { slug: String @key  body: Blob?  tags: [String]?  emb: Vector(3)?  rank: I32? }
node Tag { label: String @key }
`,
  "seed.jsonl": [
    { type: "Doc", data: { slug: "a", body: b64(Buffer.from("hello world")), rank: 1, tags: ["x", "y"] } },
    { type: "Doc", data: { slug: "b", body: "base64:", emb: [1, 2, 3] } },
    { type: "Doc", data: { slug: "c", body: null } },
    { type: "Doc", data: { slug: "d", body: b64(big) } },
    { type: "Doc", data: { slug: "e", body: b64(Buffer.from(Array.from({ length: 256 }, (_, i) => i))) } },
    { type: "Doc", data: { slug: "f" } },
    { type: "Tag", data: { label: "t" } },
  ].map((r) => JSON.stringify(r)).join("\n") + "\n",
  "m.gq": `query put($slug: String, $body: Blob?) { insert Doc { slug: $slug, body: $body } }`,
};
for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
const graph = path.join(dir, "g");
const run = cliRunner(cli);
run(["init", "--schema", path.join(dir, "s.pg"), graph]);
run(["load", "--data", path.join(dir, "seed.jsonl"), "--mode", "overwrite", graph]);
run(["mutate", "--store", graph, "--query", path.join(dir, "m.gq"), "put", "--params",
     JSON.stringify({ slug: "g", body: b64(Buffer.from("from a mutation")) })]);

// The engine's rows by table key, as export prints them.
function exportRows() {
  const byType = {};
  for (const line of run(["export", graph]).split("\n")) {
    if (!line) continue;
    const r = JSON.parse(line);
    (byType[`node:${r.type}`] ??= []).push(r.data);
  }
  return byType;
}
const bodyBytes = (body) => (body === null || body === undefined ? null : Buffer.from(body.slice(7), "base64"));
const bySlug = (rows) => new Map(rows.map((r) => [r.slug, r]));

let round = 0;
async function verify(stage, compactCopy) {
  const lanceDir = path.join(dir, `lance-${round++}`);
  const { db, tables } = await graphManifestTables(graph, lanceDir);
  const exported = exportRows();
  let n = 0;
  for (const t of tables) {
    const label = `${stage} ${t.table_key}`;
    const name = `t${n++}`;
    let read;
    try {
      read = await readPinnedTable(db, lanceDir, graph, t, name);
    } catch (e) {
      fail(`${label}: Lance could not read the pinned version: ${e.message}`);
      continue;
    }
    const engine = bySlug(exported[t.table_key] ?? []);
    if (t.table_key === "node:Tag") {
      const d = firstDifference(exported["node:Tag"], read.rows.map((r) => ({ id: r.id, label: r.label })), "rows");
      if (d) fail(`${label}: ${d}`);
      continue;
    }
    const table = await openRef(db, name, read.ref);
    const body = (await table.schema()).fields.find((f) => f.name === "body");
    if (!body || String(body.type) !== "Struct<{data:LargeBinary, uri:Utf8}>" ||
        body.metadata.get("ARROW:extension:name") !== "lance.blob.v2") {
      fail(`${label}: body is ${body && body.type} with ${body && JSON.stringify([...body.metadata])}`);
    }
    if (read.rows.length !== engine.size) fail(`${label}: Lance read ${read.rows.length} rows, the engine has ${engine.size}`);
    for (const row of read.rows) {
      const want = engine.get(row.slug);
      if (!want) {
        fail(`${label}: Lance reads an unknown row ${row.slug}`);
        continue;
      }
      const bytes = bodyBytes(want.body);
      const d = row.body;
      if (bytes === null) {
        if (d.kind !== 0 || d.position !== "0" || d.size !== "0") fail(`${label} ${row.slug}: NULL reads as ${JSON.stringify(d)}`);
      } else {
        if (d.kind !== 0 || d.size !== String(bytes.length) || d.blob_uri !== "" || d.blob_id !== 0) {
          fail(`${label} ${row.slug}: descriptor ${JSON.stringify(d)} for ${bytes.length} bytes`);
        }
        if (bytes.length === 0 && d.position === "0") fail(`${label} ${row.slug}: an empty blob at position 0`);
      }
      for (const c of ["id", "rank", "tags", "emb"]) {
        const diff = firstDifference(want[c] ?? null, row[c], `${row.slug}.${c}`);
        if (diff) fail(`${label}: ${diff}`);
      }
    }
    console.log(`ok ${label}: Lance read ${read.rows.length} rows at ${read.version} with their blob descriptors`);
    if (!compactCopy) continue;
    // Lance's own compaction of this copy, then our reader on the result.
    await table.restore();
    const latest = await db.openTable(name);
    const stats = await latest.optimize();
    if (stats.compaction.fragmentsRemoved < 2) fail(`${label}: Lance compacted nothing: ${JSON.stringify(stats)}`);
    const dumped = dumpWithOurReader(tool, lanceDir, name, {});
    if (dumped.status !== 0) {
      fail(`${label}: our reader after Lance's compaction: ${dumped.stderr}`);
      continue;
    }
    for (const row of dumped.rows) {
      const bytes = bodyBytes(engine.get(row.slug)?.body);
      const want = bytes === null ? null : bytes.toString("hex");
      if (row.body !== want) fail(`${label} ${row.slug}: after Lance's compaction our reader reads ${String(row.body).slice(0, 40)}`);
    }
    if (dumped.rows.length !== engine.size) fail(`${label}: our reader reads ${dumped.rows.length} rows after Lance's compaction`);
    else console.log(`ok ${label}: after Lance's compaction our reader reads every value exactly`);
  }
}

await verify("after load", true);
run(["optimize", graph]);
await verify("after optimize", false);
finish("graph Blob properties -> Lance interop: all checks passed");
