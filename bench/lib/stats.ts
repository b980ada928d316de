/** Small helpers the benchmarks share: percentiles, a seeded PRNG, memory snapshots. */
import v8 from "node:v8";
import vm from "node:vm";

/** The p-th percentile (0–100) of samples, nearest-rank. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

/** mulberry32: deterministic, so every run benchmarks the same queries. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

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
