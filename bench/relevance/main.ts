/**
 * The relevance bench alone, for development: `node dist/bench/relevance/main.js` prints every
 * set's table and the summary (per set top-1 / hit@5, means over dev and held-out sets).
 *   --quick              the CI sample (every 10th Seal-Tools query, every 20th MetaTool request)
 *   --rankers a,b        only these rankers (plain BM25 and bm25f always run)
 *   --sets LiveMCPBench,MetaTool   only these data sets ("servers": the safety check's real MCP servers)
 *   --json FILE          also write the result as JSON
 */
import { writeFileSync } from "node:fs";
import { progress } from "../harness/progress.js";
import { sharedDataDir } from "../lib/shared-data.js";
import { runRelevanceBench } from "./relevance-bench.js";

const argv = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const dataDir = sharedDataDir();
if (dataDir === undefined) {
  console.error("shared data not found (set TOOLSEARCH_DATA to its folder)");
  process.exit(2);
}
const quick = argv.includes("--quick");
const list = (s: string | undefined) => (s === undefined ? undefined : s.split(",").map((x) => x.trim()));
const rankers = list(flag("--rankers"));
const datasets = list(flag("--sets"));
const result = await runRelevanceBench({
  dataDir,
  stride: quick ? 10 : 1,
  metaToolStride: quick ? 20 : Number(flag("--metatool-stride") ?? 1),
  ...(rankers ? { rankers } : {}),
  ...(datasets ? { datasets } : {}),
  log: progress(),
});
const out = flag("--json");
if (out !== undefined) writeFileSync(out, JSON.stringify(result, null, 2));
