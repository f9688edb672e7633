// Blob v2 columns, C++ <-> Lance (engine.md §1.2): `lance-tool write-blobs`
// writes a table whose `payload` is a blob v2 column (bytes, empty, NULL,
// an external URI, 100 KiB, a managed value that looks like a reference)
// over two fragments of many pages. Real Lance 8 must
//   - report the field as the blob v2 struct {data, uri} with the
//     lance.blob.v2 extension name;
//   - scan each row's descriptor with the right kind, size and URI (an
//     empty blob at a non-zero position; a NULL row as the all-zero
//     descriptor, which is how Lance 8 reports NULL blobs);
// and after Lance appends rows (one stored in a packed sidecar) and after
// Lance's own compaction, our reader must still read every cell exactly
// (NULL and empty distinct).
//   node verify_blob_files.mjs WORK_DIR LANCE_TOOL
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { checkRun, connect, dumpWithOurReader, firstDifference, ipcBuffer, tableRows } from "./common.mjs";

const [dir, tool] = process.argv.slice(2);
const { fail, finish } = checkRun(dir);
const written = spawnSync(tool, ["write-blobs", dir], { encoding: "utf8" });
if (written.status !== 0) {
  console.error(`lance-tool write-blobs exited ${written.status}: ${written.stderr}`);
  process.exit(1);
}
const fixture = JSON.parse(fs.readFileSync(path.join(dir, "blobs.json"), "utf8"));
if (fixture.data_format !== "2.2") fail(`the table's data format is ${fixture.data_format}, expected 2.2`);
const expected = fixture.rows;

const db = await connect(dir);
const table = await db.openTable("blobs");
const schema = await table.schema();
const payload = schema.fields.find((f) => f.name === "payload");
if (!payload) {
  fail("Lance sees no payload field");
} else {
  const children = payload.type.children?.map((c) => `${c.name}:${c.type}`).join(",");
  if (children !== "data:LargeBinary,uri:Utf8") fail(`payload is ${payload.type}, expected Struct<data, uri>`);
  if (payload.metadata.get("ARROW:extension:name") !== "lance.blob.v2") {
    fail(`payload's extension name is ${payload.metadata.get("ARROW:extension:name")}`);
  }
}

// Lance's descriptors against the fixture's rows.
function checkDescriptors(stage, rows, allowPacked) {
  const byId = new Map(rows.map((r) => [r.id, r.payload]));
  let packed = 0;
  for (const want of expected) {
    const d = byId.get(want.id);
    const label = `${stage} row ${want.id}`;
    if (!d) {
      fail(`${label}: missing`);
      continue;
    }
    if (want.kind === -1) {
      // Lance 8 scans a NULL blob as the all-zero descriptor.
      if (d.kind !== 0 || d.position !== "0" || d.size !== "0" || d.blob_uri !== "") {
        fail(`${label}: NULL reads as ${JSON.stringify(d)}`);
      }
      continue;
    }
    if (allowPacked && want.kind === 0 && d.kind === 1) packed++;
    else if (d.kind !== want.kind) fail(`${label}: kind ${d.kind}, expected ${want.kind}`);
    if (d.size !== want.size) fail(`${label}: size ${d.size}, expected ${want.size}`);
    if (d.blob_uri !== want.uri) fail(`${label}: uri '${d.blob_uri}', expected '${want.uri}'`);
    if (want.kind === 0 && want.size === "0" && d.position === "0") {
      fail(`${label}: an empty blob at position 0 reads as NULL through Lance's blob API`);
    }
  }
  return packed;
}

const before = tableRows(await table.toArrow());
if (before.length !== expected.length) fail(`Lance reads ${before.length} rows, expected ${expected.length}`);
checkDescriptors("as written", before, false);
console.log(`ok Lance reads ${before.length} blob descriptors`);

// Our reader's cells.
function checkOurs(stage, extra) {
  const want = [...expected.map((r) => ({ id: r.id, payload: r.cell })), ...extra];
  const dumped = dumpWithOurReader(tool, dir, "blobs", {});
  if (dumped.status !== 0) {
    fail(`${stage}: lance-tool dump exited ${dumped.status}: ${dumped.stderr}`);
    return;
  }
  const got = dumped.rows.map((r) => ({ id: r.id, payload: r.payload })).sort((a, b) => Number(a.id) - Number(b.id));
  const d = firstDifference(want, got, "rows");
  if (d) fail(`${stage}: our reader: ${d}`);
  else console.log(`ok ${stage}: our reader reads ${got.length} cells exactly`);
}
checkOurs("as written", []);

// Lance appends: bytes, 70 KiB (above Lance's 64 KiB inline threshold: a
// packed sidecar), and NULL.
const big = new Uint8Array(70 * 1024).map((_, i) => (i * 7 + 1) & 0xff);
const hex = (bytes) => Buffer.from(bytes).toString("hex");
const appended = [
  { id: 1000n, payload: { data: new TextEncoder().encode("from-lance"), uri: null }, n: 1 },
  { id: 1001n, payload: { data: big, uri: null }, n: 2 },
  { id: 1002n, payload: null, n: 3 },
];
await table.inner.add(ipcBuffer(schema, appended), "append", undefined);
const appendedCells = [
  { id: "1000", payload: hex(new TextEncoder().encode("from-lance")) },
  { id: "1001", payload: hex(big) },
  { id: "1002", payload: null },
];
const afterAppend = tableRows(await table.toArrow());
const packedRow = afterAppend.find((r) => r.id === "1001");
if (packedRow?.payload?.kind !== 1) fail(`Lance stored the 70 KiB row as ${JSON.stringify(packedRow?.payload)}`);
checkOurs("after a Lance append", appendedCells);

// Lance's own compaction rewrites every payload (moving the large ones to
// sidecars) and every NULL into an all-zero descriptor.
const stats = await table.optimize();
if (stats.compaction.fragmentsRemoved < 2) fail(`Lance compacted nothing: ${JSON.stringify(stats)}`);
const packed = checkDescriptors("after Lance compaction", tableRows(await table.toArrow()), true);
if (packed === 0) fail("after Lance compaction no payload is packed: the sidecar path went unexercised");
checkOurs("after Lance compaction", appendedCells);

finish("blob v2 files <-> Lance interop: all checks passed");
