/**
 * `import("toolsearch")` + createToolSearch + one search in a fresh process, beside `node -e 0`
 * (bench/import/import-bench.ts). Prints the table.
 *
 *   npm run build && node dist/bench/import/main.js [--quick] [--rounds N]
 */
import { progress } from "../harness/progress.js";
import { positiveIntArg } from "../harness/args.js";
import { repoRoot } from "../lib/shared-data.js";
import { importTable, runImportBench } from "./import-bench.js";

const rounds = positiveIntArg("--rounds", process.argv.includes("--quick") ? 10 : 30);
console.log(importTable(runImportBench({ root: repoRoot(), rounds, log: progress() })));
