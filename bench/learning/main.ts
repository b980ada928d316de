/** The learning suite alone: node dist/bench/learning/main.js [--quick] → bench/results/learning.json (+ charts/learning-replay.svg). */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { repoRoot, sharedDataDir } from "../lib/shared-data.js";
import { runLearningBench, writeLearningChart } from "./learning-bench.js";
import { progress } from "../harness/progress.js";

const quick = process.argv.includes("--quick");
const dataDir = sharedDataDir();
if (dataDir === undefined) {
  console.error("learning bench: no shared data (../shared/data or $TOOLSEARCH_DATA); skipped");
  process.exit(0);
}
const started = performance.now();
const result = await runLearningBench({ dataDir, quick, log: progress().scope("learning") });
const out = path.join(repoRoot(), "bench/results", quick ? "quick" : "");
mkdirSync(path.join(out, "charts"), { recursive: true });
writeFileSync(path.join(out, "learning.json"), JSON.stringify({ ...result, seconds: Math.round((performance.now() - started) / 100) / 10 }, null, 2));
writeLearningChart(result, path.join(out, "charts"));
console.log(JSON.stringify(result, null, 2));
