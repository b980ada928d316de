/** Learning's search latency at scale alone: node dist/bench/learning/latency-main.js [TOOLS ...] (default 4076 100000). */
import { sharedDataDir } from "../lib/shared-data.js";
import { measureLatency } from "./latency.js";

const dataDir = sharedDataDir();
if (dataDir === undefined) {
  console.error("learning latency: no shared data (../shared/data or $TOOLSEARCH_DATA); skipped");
  process.exit(0);
}
const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0);
for (const tools of sizes.length > 0 ? sizes : [4_076, 100_000]) console.log(JSON.stringify(await measureLatency(dataDir, tools)));
