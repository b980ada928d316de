/**
 * A big catalog's index built the way the engine builds it (ToolIndexCache: a worker thread
 * from 10,000 tools), in a fresh process: build time, the event loop's longest stall while it
 * builds, peak RSS (sampled every 10 ms: it includes the worker thread's heap), RSS once the
 * build is done and settled, and the worker threads still alive. RSS figures are over the RSS
 * with the docs loaded, so they are the index's (and the build's) own.
 *
 *   npm run build && node --expose-gc dist/bench/search/engine-build.js [tools=100000] [--thread]
 *
 * `--thread` builds on the calling thread (what a catalog under the worker threshold gets).
 * Measures the index cache's build on purpose: imports src/search/storage/ directly.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { ToolIndexCache } from "../../src/search/storage/index-cache.js";
import { bm25fBackend } from "../../src/index.js";
import { loadRegistryTools, sharedDataDir } from "../lib/shared-data.js";
import { MiB, collectGarbage } from "../lib/stats.js";
import { scaleCatalog } from "./workload.js";

/** Long enough for freed pages to go back and the old idle worker (5 s timeout) to have gone. */
const SETTLE_MS = 6_000;

export interface EngineBuildResult {
  tools: number;
  via: string;
  buildMs: number;
  loopMaxMs: number;
  peakRssMiB: number;
  rssAfterMiB: number;
  rssSettledMiB: number;
  workerThreadsAfter: number;
}

async function measure(n: number, thread: boolean): Promise<EngineBuildResult> {
  const dataDir = sharedDataDir();
  if (dataDir === undefined) throw new Error("bench/search: ../shared/data (toolsdk-registry) not found; set TOOLSEARCH_DATA");
  const docs = scaleCatalog(loadRegistryTools(dataDir), n);
  collectGarbage();
  const base = process.memoryUsage.rss();
  let peak = base;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 10);
  const loop = monitorEventLoopDelay({ resolution: 1 });
  const cache = new ToolIndexCache();
  try {
    loop.enable();
    const t0 = performance.now();
    await cache.get(docs, bm25fBackend, thread ? { workerThreshold: Number.POSITIVE_INFINITY } : {});
    const buildMs = performance.now() - t0;
    loop.disable();
    peak = Math.max(peak, process.memoryUsage.rss());
    collectGarbage();
    const after = process.memoryUsage.rss();
    await sleep(SETTLE_MS);
    collectGarbage();
    const settled = process.memoryUsage.rss();
    return {
      tools: n,
      via: cache.lastBuild?.via ?? "?",
      buildMs: Math.round(buildMs),
      loopMaxMs: Math.round(loop.max / 1e5) / 10,
      peakRssMiB: Math.round((peak - base) / MiB),
      rssAfterMiB: Math.round((after - base) / MiB),
      rssSettledMiB: Math.round((settled - base) / MiB),
      workerThreadsAfter: cache.workerThreads,
    };
  } finally {
    clearInterval(sampler);
    await cache.close();
  }
}

const args = process.argv.slice(2);
const n = Number(args.find((a) => /^\d+$/.test(a)) ?? 100_000);
console.log(JSON.stringify(await measure(n, args.includes("--thread"))));
