/**
 * Redraws a run's charts and SUMMARY.md from its results file, and rewrites the figures section of docs/benchmarks.md
 * between `<!-- bench:start -->` and `<!-- bench:end -->`, without measuring anything:
 *
 *   npm run build && node dist/bench/render.js [bench/results/full.json] [--no-readme]
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { progress } from "./harness/progress.js";
import type { BenchResults } from "./harness/results.js";
import { repoRoot } from "./lib/shared-data.js";
import { writeReport } from "./report/write.js";

const root = repoRoot();
const args = process.argv.slice(2);
const file = path.resolve(args.find((a) => !a.startsWith("--")) ?? path.join(root, "bench/results/full.json"));
const results = JSON.parse(readFileSync(file, "utf8")) as BenchResults;
if (results.schema !== 1) throw new Error(`${file}: not a toolsearch bench results file (schema ${String(results.schema)})`);
writeReport(results, { root, out: path.dirname(file), updateReadme: !args.includes("--no-readme"), log: progress(), writeJson: false });
