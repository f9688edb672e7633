// Lance -> C++: our reader (lance-tool dump) must return exactly the rows
// Lance returns at every ref, or refuse with a typed "unsupported" error;
// never different values, never a crash.
//   node verify_lance_written.mjs DIR LANCE_TOOL
import fs from "node:fs";
import path from "node:path";
import { dumpWithOurReader, firstDifference } from "./common.mjs";

const [dir, tool] = process.argv.slice(2);
const expected = JSON.parse(fs.readFileSync(path.join(dir, "expected.json"), "utf8"));
let failures = 0, exact = 0, refused = 0;
for (const ds of expected.datasets) {
  for (const check of ds.checks) {
    const label = `${ds.name} ${check.label}`;
    const ours = dumpWithOurReader(tool, dir, ds.name, check.ref);
    if (ours.status === 0) {
      const d = firstDifference(check.rows, ours.rows, "rows");
      if (d) {
        failures++;
        console.error(`FAIL ${label}: ${d}`);
      } else {
        exact++;
        console.log(`ok ${label}: ${ours.rows.length} rows identical`);
      }
    } else if (ours.status === 3 && /^error: unsupported: /.test(ours.stderr) && !ds.required) {
      refused++;
      console.log(`ok ${label}: refused with a typed error: ${ours.stderr.trim()}`);
    } else {
      failures++;
      console.error(`FAIL ${label}: exit ${ours.status} signal ${ours.signal}: ${ours.stderr.trim()}`);
    }
  }
}
console.log(`Lance -> C++: ${exact} identical, ${refused} refused with typed errors, ${failures} failures`);
process.exit(failures ? 1 : 0);
