/**
 * Natural-language search through the public API (issue 34, row 3): Seal-Tools' tools as plugin
 * tools with their parameter descriptions (copied up to the size asked, names suffixed),
 * `createToolSearch` with learning on, one run, `run.search(request, { limit })` for each of
 * Seal-Tools' 700 dev requests, beside the minimal in-memory BM25 (bench/lib/memory-bm25.ts) over
 * the same tools, request by request, alternating which goes first; a first pass warms both up,
 * then `rounds` timed passes. p50 of each and their ratio, at limit 8 and at limit 5.
 *
 *   npm run build && node dist/bench/search/natural-api.js [tools=4076] [--rounds 3] [--stride N]
 */
import { createToolSearch, pluginTools, type SearchDoc } from "../../src/index.js";
import { percentile } from "../harness/stats.js";
import { memoryBm25 } from "../lib/memory-bm25.js";
import { sealToolDefinitions } from "../lib/seal-tool-definitions.js";
import { loadSealQueries } from "../lib/shared-data.js";

export interface NaturalApiRow {
  tools: number;
  limit: number;
  requests: number;
  rounds: number;
  /** run.search p50 / p99 (ms), learning on. */
  p50Ms: number;
  p99Ms: number;
  /** The in-memory BM25's p50 (ms), timed beside it. */
  memoryBm25P50Ms: number;
  /** p50Ms ÷ memoryBm25P50Ms. */
  p50VsMemoryBm25: number;
}

/** Seal-Tools' definitions copied up to `n` (copies named `<name>_<k>`, as bench/search/workload.ts scales docs). */
function scaledDefinitions(dataDir: string, n: number) {
  const base = sealToolDefinitions(dataDir);
  return Array.from({ length: n }, (_, i) => {
    const d = base[i % base.length]!;
    const copy = Math.floor(i / base.length);
    return copy === 0 ? d : { ...d, name: `${d.name}_${copy}` };
  });
}

/**
 * `stride`: every stride-th request only (the in-memory BM25 takes about 0.1 s a request at 100k
 * copies of Seal-Tools: the whole set would take minutes).
 */
export async function measureNaturalApi(
  dataDir: string,
  options: { tools: number; limits: readonly number[]; rounds: number; stride?: number },
): Promise<NaturalApiRow[]> {
  const definitions = scaledDefinitions(dataDir, options.tools);
  const stride = options.stride ?? 1;
  const requests = loadSealQueries(dataDir, "dev")
    .map((q) => q.query)
    .filter((_, i) => i % stride === 0);
  const docs: SearchDoc[] = definitions.map((d) => ({
    id: `plugin:seal:${d.name}`,
    name: d.name,
    source: "plugin",
    toolset: "seal",
    description: d.description,
    params: [],
  }));
  const yardstick = memoryBm25(docs);
  const engine = await createToolSearch({ toolSearch: { mode: "tools", learning: true }, sources: [pluginTools("seal", definitions)] });
  const rows: NaturalApiRow[] = [];
  try {
    const run = await engine.prepareRun({ sessionId: "bench-natural", agentId: "bench" });
    for (const limit of options.limits) {
      for (const q of requests) {
        await run.search(q, { limit });
        yardstick.search(q, limit);
      }
      const ours: number[] = [];
      const theirs: number[] = [];
      for (let round = 0; round < options.rounds; round++) {
        for (const q of requests) {
          const timeOurs = async () => {
            const t = performance.now();
            await run.search(q, { limit });
            ours.push(performance.now() - t);
          };
          const timeTheirs = () => {
            const t = performance.now();
            yardstick.search(q, limit);
            theirs.push(performance.now() - t);
          };
          if (round % 2 === 0) {
            await timeOurs();
            timeTheirs();
          } else {
            timeTheirs();
            await timeOurs();
          }
        }
      }
      const p50 = percentile(ours, 50);
      const base = percentile(theirs, 50);
      rows.push({
        tools: definitions.length,
        limit,
        requests: requests.length,
        rounds: options.rounds,
        p50Ms: p50,
        p99Ms: percentile(ours, 99),
        memoryBm25P50Ms: base,
        p50VsMemoryBm25: p50 / base,
      });
    }
    await run.end();
  } finally {
    await engine.close();
  }
  return rows;
}

export function naturalApiTable(rows: readonly NaturalApiRow[]): string {
  return [
    "natural-language requests through run.search (Seal-Tools dev, learning on) beside the in-memory BM25, alternating:",
    ...rows.map(
      (r) =>
        `  ${String(r.tools).padStart(6)} tools, limit ${r.limit}: p50 ${r.p50Ms.toFixed(3)} ms (p99 ${r.p99Ms.toFixed(3)}), in-memory BM25 ${r.memoryBm25P50Ms.toFixed(3)} ms: ${r.p50VsMemoryBm25.toFixed(3)}×`,
    ),
  ].join("\n");
}

if (process.argv[1]?.endsWith("natural-api.js")) {
  const { positiveIntArg } = await import("../harness/args.js");
  const { sharedDataDir } = await import("../lib/shared-data.js");
  const dataDir = sharedDataDir();
  if (dataDir === undefined) throw new Error("bench/search: ../shared/data not found; set TOOLSEARCH_DATA");
  const tools = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 4076);
  const stride = positiveIntArg("--stride", tools > 10_000 ? 7 : 1);
  console.log(naturalApiTable(await measureNaturalApi(dataDir, { tools, limits: [8, 5], rounds: positiveIntArg("--rounds", 3), stride })));
}
