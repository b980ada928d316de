/**
 * Small helpers the benchmarks share: percentiles, a seeded PRNG, memory snapshots.
 * Shares the demo catalog's seeded PRNG on purpose: imports src/demo/synthetic-catalog.ts directly.
 */
import v8 from "node:v8";
import vm from "node:vm";

export { percentile } from "../harness/stats.js";
/** mulberry32, the generator the synthetic catalogs use: every run benchmarks the same queries. */
export { seededRandom } from "../../src/demo/synthetic-catalog.js";

let gcFn: (() => void) | undefined;
/** A full GC without `--expose-gc` on the command line (flag set at run time). */
export function collectGarbage(): void {
  if (gcFn === undefined) {
    v8.setFlagsFromString("--expose-gc");
    gcFn = vm.runInNewContext("gc") as () => void;
  }
  gcFn();
  gcFn();
}

export interface MemorySnapshot {
  heapUsed: number;
  /** ArrayBuffers and other memory outside the JS heap (the SQLite WASM heap lives here). */
  external: number;
  rss: number;
}

export function memory(): MemorySnapshot {
  collectGarbage();
  const m = process.memoryUsage();
  return { heapUsed: m.heapUsed, external: m.external + m.arrayBuffers, rss: m.rss };
}

export const MiB = 1024 * 1024;
