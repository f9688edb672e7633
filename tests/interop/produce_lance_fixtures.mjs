// Lance -> C++: real Lance 8 writes datasets with default settings (both
// deletion kinds, tags, a branch) and records what Lance itself reads at
// every ref in expected.json.
//   node produce_lance_fixtures.mjs DIR
import fs from "node:fs";
import path from "node:path";
import * as lancedb from "@lancedb/lancedb";
import { appendRows, createTable, openRef, tableRows } from "./common.mjs";
import { arrow } from "./common.mjs";

const dir = process.argv[2];
fs.rmSync(dir, { recursive: true, force: true });
fs.mkdirSync(dir, { recursive: true });
const db = await lancedb.connect(dir);

const f = (name, type, nullable = true) => new arrow.Field(name, type, nullable);
const smallSchema = new arrow.Schema([
  f("id", new arrow.Int64(), false),
  f("b", new arrow.Bool()),
  f("i32", new arrow.Int32()),
  f("u32", new arrow.Uint32()),
  f("u64", new arrow.Uint64()),
  f("f32", new arrow.Float32()),
  f("f64", new arrow.Float64()),
  f("s", new arrow.Utf8()),
  f("bin", new arrow.LargeBinary()),
  f("d32", new arrow.DateDay()),
  f("d64", new arrow.DateMillisecond()),
  f("tags", new arrow.List(f("item", new arrow.Int32()))),
  f("names", new arrow.List(f("item", new arrow.Utf8()))),
  f("vec", new arrow.FixedSizeList(8, f("item", new arrow.Float32()))),
  f("st", new arrow.Struct([f("x", new arrow.Int32()), f("y", new arrow.Utf8())])),
]);
function smallRows(start, n) {
  const out = [];
  for (let i = start; i < start + n; i++) {
    out.push({
      id: BigInt(i),
      b: i % 11 === 0 ? null : i % 2 === 0,
      i32: i % 7 === 0 ? null : i * 3 - 1000,
      u32: i % 13 === 0 ? null : i * 7,
      u64: i % 3 === 0 ? null : (1n << 63n) + BigInt(i),
      f32: i % 5 === 0 ? null : i * 0.25,
      f64: i % 3 === 1 ? null : i / 3,
      s: i % 7 === 3 ? null : i % 17 === 0 ? "" : `node-${i}`,
      bin: i % 9 === 0 ? null : new Uint8Array([i % 256, (i * 7) % 256]),
      d32: i % 4 === 0 ? null : new Date((19000 + i) * 86400000),
      d64: i % 6 === 0 ? null : new Date(1700000000000 + i * 1000),
      tags: i % 5 === 0 ? null : Array.from({ length: i % 4 }, (_, k) => i * 10 + k),
      names: i % 6 === 0 ? null : i % 4 === 1 ? [] : [`a${i}`, i % 3 === 0 ? null : "b"],
      vec: i % 10 === 0 ? null : Array.from({ length: 8 }, (_, k) => i + k / 8),
      st: i % 8 === 0 ? null : { x: i % 3 === 0 ? null : i, y: `y${i}` },
    });
  }
  return out;
}

const datasets = [];
async function record(name, checks, table) {
  const out = [];
  for (const [label, ref] of checks) {
    const t = await openRef(db, name, ref);
    out.push({ label, ref, rows: tableRows(await t.toArrow()) });
  }
  return out;
}

// small: every column type, few rows (flat/variable encodings), a sparse
// deletion (.arrow), a tag, a branch with its own append.
{
  const t = await createTable(db, "small", smallSchema, smallRows(0, 120));
  await appendRows(t, smallSchema, smallRows(120, 30));
  await t.delete("id < 3");
  await (await t.tags()).create("t2", 2);
  const exp = await (await t.branches()).create("exp", undefined, 3);
  await appendRows(exp, smallSchema, smallRows(500, 10));
  const checks = await record("small", [
    ["version 1", { version: 1 }], ["version 2", { version: 2 }], ["version 3", { version: 3 }],
    ["tag t2", { tag: "t2" }], ["branch exp", { branch: "exp" }], ["branch exp version 3", { branch: "exp", version: 3 }],
    ["latest", {}],
  ]);
  datasets.push({ name: "small", required: true, checks });
}

// dense: 10,000 unique doubles (flat pages) and a dense deletion (.bin).
{
  const schema = new arrow.Schema([f("x", new arrow.Float64(), false)]);
  const rows = Array.from({ length: 10000 }, (_, i) => ({ x: i + 0.5 }));
  const t = await createTable(db, "dense", schema, rows);
  await t.delete("x < 3");
  await t.delete("x >= 1000 AND x < 8000");
  const checks = await record("dense", [["version 2", { version: 2 }], ["latest", {}]]);
  datasets.push({ name: "dense", required: true, checks });
}

// medium: 10,000 rows of mixed types, where Lance picks bit-packing, FSST,
// dictionaries and RLE. Our reader must read it exactly or refuse with a
// typed error naming the encoding.
{
  const rows = smallRows(0, 10000);
  const t = await createTable(db, "medium", smallSchema, rows);
  await t.delete("id >= 1000 AND id < 8000");
  const checks = await record("medium", [["version 1", { version: 1 }], ["latest", {}]]);
  datasets.push({ name: "medium", required: false, checks });
}

fs.writeFileSync(path.join(dir, "expected.json"), JSON.stringify({ datasets }));
console.log(`wrote ${datasets.length} Lance datasets to ${dir}`);
