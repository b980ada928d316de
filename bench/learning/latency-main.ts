/**
 * Learning's search latency at scale alone:
 *   node dist/bench/learning/latency-main.js [seal|registry TOOLS ...]   (default: seal 4076, registry 100000)
 */
import { sharedDataDir } from "../lib/shared-data.js";
import { measureLatency, type LatencyWorkload } from "./latency.js";

const dataDir = sharedDataDir();
if (dataDir === undefined) {
  console.error("learning latency: no shared data (../shared/data or $TOOLSEARCH_DATA); skipped");
  process.exit(0);
}
const args = process.argv.slice(2);
const runs: Array<[LatencyWorkload, number]> = [];
for (let i = 0; i + 1 < args.length; i += 2) runs.push([args[i] === "registry" ? "registry" : "seal", Number(args[i + 1])]);
for (const [workload, tools] of runs.length > 0
  ? runs
  : ([
      ["seal", 4_076],
      ["registry", 100_000],
    ] as const)) {
  console.log(JSON.stringify(await measureLatency(dataDir, workload, tools)));
}
