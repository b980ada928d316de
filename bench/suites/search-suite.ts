/**
 * Search latency and index build, from bench/search (both backends at 1k, 10k, 100k tools; quick:
 * 1k and 10k; run preparation over a cached catalog), with the ratios the summary shows.
 */
import type { CachedRunResult, NaturalResult, SizeResult } from "../search/main.js";
import type { Progress } from "../harness/progress.js";
import { ratio, round } from "../harness/stats.js";
import { runForeignBench } from "./foreign.js";

/** What bench/search/main.ts writes to bench/results/search.json. */
export interface SearchBenchOutput {
  date: string;
  quick: boolean;
  queries: number;
  rounds: number;
  limit: number;
  sizes: SizeResult[];
  cachedRun: CachedRunResult[];
  /** Seal-Tools' natural-language requests per backend beside a minimal in-memory BM25 (absent in older results). */
  natural?: NaturalResult[];
}

export interface SearchSuiteResult {
  command: string;
  ms: number;
  output: SearchBenchOutput;
  /**
   * fts5 (the default) over minisearch at each size: no plain-BM25 latency is measured by
   * bench/search yet, so the comparison is between the two backends.
   */
  fts5VsMinisearch: Array<{ tools: number; buildRatio: number; p50Ratio: number; p99Ratio: number }>;
  /** Run preparation over the cached catalog (same array) as a share of building that index: what the cache saves. */
  cachedVsBuild: Array<{ backend: string; tools: number; cachedMs: number; buildMs: number; ratio: number }>;
}

export async function runSearchSuite(options: { root: string; quick: boolean; log: Progress }): Promise<SearchSuiteResult> {
  const run = await runForeignBench<SearchBenchOutput>({
    root: options.root,
    script: "dist/bench/search/main.js",
    args: options.quick ? ["--quick"] : [],
    output: "bench/results/search.json",
    restore: options.quick,
    timeoutMs: options.quick ? 180_000 : 1_800_000,
    log: options.log,
  });
  const out = run.result;
  if (!Array.isArray(out.sizes) || out.sizes.length === 0) throw new Error("bench/search wrote no sizes");
  for (const s of out.sizes) {
    if (!(s.buildMs > 0) || !(s.p50Ms >= 0) || !(s.p99Ms >= s.p50Ms)) throw new Error(`bench/search: implausible figures for ${s.backend} at ${s.tools}: ${JSON.stringify(s)}`);
  }
  const sizes = [...new Set(out.sizes.map((s) => s.tools))].sort((a, b) => a - b);
  const fts5VsMinisearch = sizes.flatMap((tools) => {
    const f = out.sizes.find((s) => s.tools === tools && s.backend === "fts5");
    const m = out.sizes.find((s) => s.tools === tools && s.backend === "minisearch");
    return f && m ? [{ tools, buildRatio: ratio(f.buildMs, m.buildMs, 3), p50Ratio: ratio(f.p50Ms, m.p50Ms, 3), p99Ratio: ratio(f.p99Ms, m.p99Ms, 3) }] : [];
  });
  const cachedVsBuild = (out.cachedRun ?? []).flatMap((c) => {
    const built = out.sizes.find((s) => s.tools === c.tools && s.backend === c.backend);
    return built ? [{ backend: c.backend, tools: c.tools, cachedMs: round(c.sameArrayMs, 4), buildMs: round(built.buildMs, 1), ratio: ratio(c.sameArrayMs, built.buildMs, 6) }] : [];
  });
  return { command: run.command, ms: run.ms, output: out, fts5VsMinisearch, cachedVsBuild };
}
