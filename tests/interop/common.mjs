// Shared helpers for the interop checks: open a dataset ref with real Lance 8
// and turn Arrow rows into the canonical JSON that lance-tool prints.
import * as lancedb from "@lancedb/lancedb";
import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";

// lancedb is CommonJS: load apache-arrow the same way so Arrow objects from
// lancedb and ours share one module instance (instanceof, IPC writers).
export const arrow = createRequire(import.meta.url)("apache-arrow");
import { spawnSync } from "node:child_process";

// int64/uint64 -> decimal strings, dates -> epoch ms, binary -> hex,
// lists/fixed-size lists -> arrays, structs -> objects.
export function normalize(v) {
  if (v === null || v === undefined) return null;
  if (typeof v === "bigint") return v.toString();
  if (v instanceof Date) return v.getTime();
  if (typeof v === "number" || typeof v === "string" || typeof v === "boolean") return v;
  if (v instanceof Uint8Array) return Buffer.from(v).toString("hex");
  // Duck-typed: lancedb bundles its own apache-arrow, so instanceof fails.
  if (Array.isArray(v.data) && typeof v.get === "function") {
    return Array.from({ length: v.length }, (_, i) => normalize(v.get(i)));
  }
  if (typeof v.toJSON === "function") {
    const out = {};
    for (const [k, x] of Object.entries(v.toJSON())) out[k] = normalize(x);
    return out;
  }
  throw new Error(`cannot normalize ${Object.prototype.toString.call(v)}`);
}

export function tableRows(arrowTable) {
  const rows = [];
  const names = arrowTable.schema.fields.map((f) => f.name);
  const columns = names.map((n) => arrowTable.getChild(n));
  for (let i = 0; i < arrowTable.numRows; i++) {
    const row = {};
    names.forEach((n, c) => (row[n] = normalize(columns[c].get(i))));
    rows.push(row);
  }
  return rows;
}

// Opens `name` at `ref` ({version}, {tag}, {branch}, {branch, version} or {}).
export async function openRef(db, name, ref) {
  if (ref.tag !== undefined) {
    const t = await db.openTable(name);
    await t.checkout(ref.tag);
    return t;
  }
  if (ref.branch !== undefined && ref.version !== undefined) {
    return db.openTable(name, undefined, { branch: ref.branch, version: Number(ref.version) });
  }
  if (ref.branch !== undefined) {
    const t = await db.openTable(name);
    return (await t.branches()).checkout(ref.branch);
  }
  if (ref.version !== undefined) {
    const t = await db.openTable(name);
    await t.checkout(Number(ref.version));
    return t;
  }
  return db.openTable(name);
}

// Deep equality with numbers compared exactly.
export function firstDifference(expected, actual, path = "") {
  if (expected === actual) return null;
  if (typeof expected !== typeof actual || expected === null || actual === null) {
    return `${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${path}: expected an array`;
    if (expected.length !== actual.length) return `${path}: expected ${expected.length} items, got ${actual.length}`;
    for (let i = 0; i < expected.length; i++) {
      const d = firstDifference(expected[i], actual[i], `${path}[${i}]`);
      if (d) return d;
    }
    return null;
  }
  if (typeof expected === "object") {
    const keys = new Set([...Object.keys(expected), ...Object.keys(actual)]);
    for (const k of keys) {
      const d = firstDifference(expected[k], actual[k], `${path}.${k}`);
      if (d) return d;
    }
    return null;
  }
  return `${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
}

// Runs `lance-tool dump` and returns {status, rows, stderr}.
export function dumpWithOurReader(tool, dir, name, ref) {
  const args = ["dump", dir, name];
  if (ref.tag !== undefined) args.push("--tag", ref.tag);
  if (ref.branch !== undefined) args.push("--branch", ref.branch);
  if (ref.version !== undefined) args.push("--version", String(ref.version));
  const r = spawnSync(tool, args, { encoding: "utf8", maxBuffer: 1 << 30 });
  const rows = r.status === 0 ? r.stdout.split("\n").filter((l) => l.length).map((l) => JSON.parse(l)) : null;
  return { status: r.status, signal: r.signal, rows, stderr: r.stderr };
}

export async function connect(dir) {
  return lancedb.connect(dir);
}

// An Arrow IPC file buffer holding `rows` (objects keyed by field name) with
// `schema`. Built directly, because lancedb's schema sanitizer does not
// know every Arrow type (LargeBinary).
export function ipcBuffer(schema, rows) {
  const children = schema.fields.map((field) => {
    const values = rows.map((r) => (r[field.name] === undefined ? null : r[field.name]));
    const type = field.type;
    if (type instanceof arrow.FixedSizeList) {
      // vectorFromArray cannot express null fixed-size-list slots.
      const n = type.listSize;
      const flat = [];
      let nulls = 0;
      const bitmap = new Uint8Array(Math.ceil(values.length / 8) + 1);
      values.forEach((v, i) => {
        if (v === null) {
          nulls++;
          for (let k = 0; k < n; k++) flat.push(0);
        } else {
          bitmap[i >> 3] |= 1 << (i & 7);
          flat.push(...v);
        }
      });
      const child = arrow.vectorFromArray(flat, type.children[0].type).data[0];
      return arrow.makeData({ type, length: values.length, nullCount: nulls, nullBitmap: nulls ? bitmap : undefined, child });
    }
    return arrow.vectorFromArray(values, type).data[0];
  });
  const data = arrow.makeData({ type: new arrow.Struct(schema.fields), length: rows.length, nullCount: 0, children });
  const table = new arrow.Table(schema, [new arrow.RecordBatch(schema, data)]);
  return Buffer.from(arrow.RecordBatchFileWriter.writeAll(table).toUint8Array(true));
}

// Creates table `name` holding `rows`, bypassing the schema sanitizer.
export async function createTable(db, name, schema, rows) {
  await db.inner.createTable(name, ipcBuffer(schema, rows), "create", [], undefined);
  return db.openTable(name);
}

// Appends `rows`, bypassing the schema sanitizer.
export async function appendRows(table, schema, rows) {
  await table.inner.add(ipcBuffer(schema, rows), "append", undefined);
}

// Opens, with real Lance, the table a `__manifest` table row `t` pins, from
// a copy at `lanceDir/<name>.lance` of the graph's table directory: a
// detached pin (decimal text above 2^53, which lancedb's numeric checkout
// cannot carry) is reached through a tag holding the exact version, a
// linear one by its version number. Returns { rows, schema fields, label of
// the version }.
export async function readPinnedTable(db, lanceDir, graphDir, t, name) {
  const pinText = /"staged_version":"(\d+)"/.exec(t.metadata)?.[1];
  const metadata = JSON.parse(t.metadata);
  const tableDir = path.join(lanceDir, `${name}.lance`);
  fs.cpSync(path.join(graphDir, t.location), tableDir, { recursive: true });
  const tableBranch = t.table_branch ?? null;
  let ref;
  if (pinText !== undefined) {
    fs.mkdirSync(path.join(tableDir, "_refs", "tags"), { recursive: true });
    const now = new Date().toISOString();
    fs.writeFileSync(path.join(tableDir, "_refs", "tags", "pin.json"),
      `{"branch":${JSON.stringify(tableBranch)},"version":${pinText},"createdAt":"${now}","updatedAt":"${now}",` +
      `"manifestSize":${metadata.manifest_size},"metadata":{}}`);
    ref = { tag: "pin" };
  } else if (tableBranch !== null) {
    ref = { branch: tableBranch, version: metadata.last_linear_version };
  } else {
    ref = { version: metadata.last_linear_version };
  }
  const table = await openRef(db, name, ref);
  const data = await table.toArrow();
  return {
    rows: tableRows(data),
    columns: data.schema.fields.map((f) => f.name),
    version: pinText ? "detached version " + pinText : "version " + metadata.last_linear_version,
    ref,
  };
}

// run(args): the omnigraph CLI's stdout; a failure ends the script naming
// the command and its stderr.
export function cliRunner(cli) {
  return (args) => {
    const r = spawnSync(cli, args, { encoding: "utf8", maxBuffer: 1 << 28 });
    if (r.status !== 0) {
      console.error(`omnigraph ${args.join(" ")} exited ${r.status}: ${r.stderr}`);
      process.exit(1);
    }
    return r.stdout;
  };
}

// One check script's bookkeeping: an empty scratch `dir`, `fail(msg)`
// counting and printing each failure, and `finish(summary)` exiting 1 after
// any failure, printing `summary` otherwise.
export function checkRun(dir) {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  let failures = 0;
  return {
    fail(msg) {
      failures++;
      console.error("FAIL " + msg);
    },
    finish(summary) {
      if (failures) {
        console.error(`${failures} interop failure(s)`);
        process.exit(1);
      }
      console.log(summary);
    },
  };
}

// Lance's view of the graph at `graph`: its `__manifest` copied to
// `lanceDir`/manifest.lance, opened, and the rows of its table entries.
export async function graphManifestTables(graph, lanceDir) {
  fs.mkdirSync(lanceDir, { recursive: true });
  fs.cpSync(path.join(graph, "__manifest"), path.join(lanceDir, "manifest.lance"), { recursive: true });
  const db = await connect(lanceDir);
  const tables = tableRows(await (await db.openTable("manifest")).toArrow()).filter((r) => r.object_type === "table");
  return { db, tables };
}
