// C++ -> Lance: opens every dataset lance-tool wrote with real Lance 8 at
// every ref listed in expected.json and compares every row; then has Lance
// commit an append and a delete on top of our latest version, and checks
// that our own reader reads Lance's new version.
//   node verify_cpp_written.mjs DIR LANCE_TOOL
import fs from "node:fs";
import path from "node:path";
import { connect, dumpWithOurReader, firstDifference, openRef, tableRows } from "./common.mjs";
import { arrow } from "./common.mjs";

const [dir, tool] = process.argv.slice(2);
const expected = JSON.parse(fs.readFileSync(path.join(dir, "expected.json"), "utf8"));
const db = await connect(dir);
let failures = 0;
const fail = (msg) => {
  failures++;
  console.error("FAIL " + msg);
};

function aggregateOf(rows) {
  let sumId = 0n, sumX = 0;
  for (const r of rows) {
    sumId += BigInt(r.id);
    sumX += r.x;
  }
  return { count: rows.length, sum_id: sumId.toString(), sum_x: sumX };
}

for (const ds of expected.datasets) {
  for (const check of ds.checks) {
    const label = `${ds.name} ${check.label}`;
    let rows;
    try {
      const table = await openRef(db, ds.name, check.ref);
      rows = tableRows(await table.toArrow());
      if (check.ref.tag === undefined && (await table.countRows()) !== rows.length) fail(`${label}: countRows disagrees`);
    } catch (e) {
      fail(`${label}: Lance could not read it: ${e.message}`);
      continue;
    }
    if (check.rows) {
      const d = firstDifference(check.rows, rows, "rows");
      if (d) fail(`${label}: ${d}`);
      else console.log(`ok ${label}: ${rows.length} rows identical`);
    } else {
      const a = aggregateOf(rows);
      const agg = check.aggregate;
      const sample = rows[123456];
      if (a.count !== agg.count || a.sum_id !== agg.sum_id || a.sum_x !== agg.sum_x) {
        fail(`${label}: aggregates ${JSON.stringify(a)} != ${JSON.stringify(agg)}`);
      } else if (firstDifference(agg.row_123456, sample)) {
        fail(`${label}: ${firstDifference(agg.row_123456, sample)}`);
      } else {
        console.log(`ok ${label}: ${a.count} rows, sums match`);
      }
    }
  }
  if (!ds.lance_writes_on_top) continue;
  // Lance commits on top of our latest version.
  try {
    const table = await db.openTable(ds.name);
    const before = await table.countRows();
    const schema = await table.schema();
    const arrowRows = await table.query().limit(2).toArrow();
    const batch = arrowRows.slice(0, 1);
    await table.inner.add(Buffer.from(arrow.RecordBatchFileWriter.writeAll(batch).toUint8Array(true)), "append", undefined);
    const afterAppend = await table.countRows();
    if (afterAppend !== before + 1) fail(`${ds.name}: Lance append gave ${afterAppend} rows, expected ${before + 1}`);
    const v = await table.version();
    if (v !== Number(ds.latest_version) + 1) fail(`${ds.name}: Lance appended version ${v}, expected ${Number(ds.latest_version) + 1}`);
    const firstField = schema.fields[0].name;
    const firstValue = tableRows(batch)[0][firstField];
    const predicate = typeof firstValue === "string" && schema.fields[0].type.typeId === arrow.Type.Utf8
      ? `${firstField} = '${firstValue}'` : `${firstField} = ${firstValue}`;
    await table.delete(predicate);
    const afterDelete = await table.countRows();
    if (afterDelete !== before - 1) fail(`${ds.name}: Lance delete of ${predicate} gave ${afterDelete}, expected ${before - 1}`);
    // Our reader reads what Lance committed on top of us.
    const lanceRows = tableRows(await table.toArrow());
    const ours = dumpWithOurReader(tool, dir, ds.name, {});
    if (ours.status !== 0) fail(`${ds.name}: our reader failed on Lance's commit: ${ours.stderr}`);
    else {
      const d = firstDifference(lanceRows, ours.rows, "rows");
      if (d) fail(`${ds.name}: our reader disagrees with Lance after its commits: ${d}`);
      else console.log(`ok ${ds.name}: Lance appended and deleted on our version; our reader agrees (${ours.rows.length} rows)`);
    }
  } catch (e) {
    fail(`${ds.name}: Lance could not commit on top: ${e.stack}`);
  }
}
if (failures) {
  console.error(`${failures} interop failure(s)`);
  process.exit(1);
}
console.log("C++ -> Lance interop: all checks passed");
