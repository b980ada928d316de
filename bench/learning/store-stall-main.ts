/**
 * The learned store's event-loop figures at its bounds (store-stall.ts), each beside an empty store:
 *   npm run build && node --expose-gc dist/bench/learning/store-stall-main.js [--records 100000,400000]
 * and the same stores under `serve --workers 2` (store-workers.ts).
 */
import { measureStore } from "./store-stall.js";
import { measureServeWorkers } from "./store-workers.js";

const at = process.argv.indexOf("--records");
const sizes = at === -1 ? [100_000, 400_000] : process.argv[at + 1]!.split(",").map(Number);
const rows = [await measureStore(0)];
for (const size of sizes) rows.push(await measureStore(size));
const cell = (f: { ms: number; loopMaxMs: number }) => `${f.ms} ms (loop max ${f.loopMaxMs})`;
console.log(
  "| records (loaded) | journal MiB | start | load until ready | search during load | flush (records) | idle flush | compaction (worker) | import 100,000 |",
);
console.log("|---:|---:|---|---|---:|---|---|---|---|");
for (const r of rows) {
  console.log(
    `| ${r.records.toLocaleString("en")} (${r.loaded.toLocaleString("en")}) | ${(r.journalBytes / 1048576).toFixed(1)} | ${cell(r.start)} | ${cell(r.load)} | ${r.searchDuringLoadMs} ms | ${cell(r.flush1k)} (${r.changed}) | ${cell(r.idleFlush)} | ${cell(r.compaction)} | ${cell(r.import100k)} |`,
  );
}
console.log(JSON.stringify(rows));

const workers = [await measureServeWorkers(0)];
for (const size of sizes) workers.push(await measureServeWorkers(size));
console.log("\n`serve --workers 2` over the store (10 s of /healthz polls after it listens, then SIGTERM):\n");
console.log("| records | listening after | /healthz p90 | /healthz max | failed polls | worker reported unresponsive | SIGTERM to exit |");
console.log("|---:|---:|---:|---:|---:|---:|---:|");
for (const w of workers) {
  console.log(
    `| ${w.records.toLocaleString("en")} | ${w.listenMs} ms | ${w.healthzP90Ms} ms | ${w.healthzMaxMs} ms | ${w.healthzErrors} | ${w.unresponsiveReports} | ${w.stopMs} ms |`,
  );
}
console.log(JSON.stringify(workers));
