/**
 * Search latency and index build, from bench/search (both backends at 1k, 10k, 100k tools; quick:
 * 1k and 10k; run preparation over a cached catalog), with the ratios the summary shows.
 */
import type { CachedRunResult, NaturalResult, SizeResult } from "../search/main.js";
import type { NaturalApiRow } from "../search/natural-api.js";
import type { EngineStartResult } from "../search/engine-start.js";
import path from "node:path";
import { silent, type Progress } from "../harness/progress.js";
import { runScript } from "../harness/script.js";
import { median, ratio, round } from "../harness/stats.js";
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
  /** The same requests through run.search (learning on) beside the in-memory BM25 (issue 34). */
  naturalApi?: NaturalApiRow[];
  /** createToolSearch → first search over a big catalog beside minisearch's bare build (issue 34). */
  engineStart?: EngineStartResult[];
}

export interface SearchSuiteResult {
  command: string;
  ms: number;
  output: SearchBenchOutput;
  /**
   * bm25f (the default) over minisearch at each size: no plain-BM25 latency is measured by
   * bench/search yet, so the comparison is between the two backends.
   */
  bm25fVsMinisearch: Array<{ tools: number; buildRatio: number; p50Ratio: number; p99Ratio: number }>;
  /** Run preparation over the cached catalog (same array) as a share of building that index: what the cache saves. */
  cachedVsBuild: Array<{ backend: string; tools: number; cachedMs: number; buildMs: number; ratio: number }>;
  /** Query p50 of each backend ÷ the baseline backend's at the same size, as a median of repeats when the quick run repeats it. */
  p50Ratios?: Array<{ tools: number; backend: string; baseline: string; value: number; range?: [number, number]; repeats?: number }>;
}

/**
 * Quick runs (CI) repeat each size's query-p50 measurement this many times in all (the first is
 * bench/search's own run), each time in fresh `--one` children, alternating which backend goes
 * first: one pair's bm25f ÷ minisearch moved by 41–81% between quick runs here, the median of
 * three by 6–12%. Full runs measure once (more queries per sample).
 */
const QUICK_SEARCH_REPEATS = (_tools: number): number => 3;

/** The baseline each backend's query time is divided by: plain BM25 when bench/search measures it, else minisearch. */
export function searchBaseline(backends: readonly string[]): string | undefined {
  return backends.includes("plain-bm25") ? "plain-bm25" : backends.includes("minisearch") ? "minisearch" : undefined;
}

export async function runSearchSuite(options: { root: string; quick: boolean; log: Progress }): Promise<SearchSuiteResult> {
  const run = await runForeignBench<SearchBenchOutput>({
    root: options.root,
    script: "dist/bench/search/main.js",
    args: options.quick ? ["--quick"] : [],
    output: "bench/results/search.json",
    restore: options.quick,
    timeoutMs: options.quick ? 300_000 : 1_800_000, // quick: ~60 s on a quiet 2-core machine, several times that on a busy runner
    log: options.log,
  });
  const out = run.result;
  if (!Array.isArray(out.sizes) || out.sizes.length === 0) throw new Error("bench/search wrote no sizes");
  for (const s of out.sizes) {
    if (!(s.buildMs > 0) || !(s.p50Ms >= 0) || !(s.p99Ms >= s.p50Ms))
      throw new Error(`bench/search: implausible figures for ${s.backend} at ${s.tools}: ${JSON.stringify(s)}`);
  }
  const sizes = [...new Set(out.sizes.map((s) => s.tools))].sort((a, b) => a - b);
  const bm25fVsMinisearch = sizes.flatMap((tools) => {
    const f = out.sizes.find((s) => s.tools === tools && s.backend === "bm25f");
    const m = out.sizes.find((s) => s.tools === tools && s.backend === "minisearch");
    return f && m ? [{ tools, buildRatio: ratio(f.buildMs, m.buildMs, 3), p50Ratio: ratio(f.p50Ms, m.p50Ms, 3), p99Ratio: ratio(f.p99Ms, m.p99Ms, 3) }] : [];
  });
  const cachedVsBuild = (out.cachedRun ?? []).flatMap((c) => {
    const built = out.sizes.find((s) => s.tools === c.tools && s.backend === c.backend);
    return built
      ? [
          {
            backend: c.backend,
            tools: c.tools,
            cachedMs: round(c.sameArrayMs, 4),
            buildMs: round(built.buildMs, 1),
            ratio: ratio(c.sameArrayMs, built.buildMs, 6),
          },
        ]
      : [];
  });
  const p50Ratios = await p50RatioRepeats(options, out.sizes, options.quick ? QUICK_SEARCH_REPEATS : () => 1);
  return { command: run.command, ms: run.ms, output: out, bm25fVsMinisearch, cachedVsBuild, p50Ratios };
}

/**
 * Query p50 of every backend ÷ the baseline's at each size: bench/search's own pair first, then
 * `repeats(tools) − 1` more pairs from `dist/bench/search/main.js --one BACKEND N` children;
 * the median of the pairs' ratios, with their range.
 */
async function p50RatioRepeats(
  options: { root: string; quick: boolean; log: Progress },
  sizes: readonly SizeResult[],
  repeats: (tools: number) => number,
): Promise<NonNullable<SearchSuiteResult["p50Ratios"]>> {
  const script = path.join(options.root, "dist/bench/search/main.js");
  const out: NonNullable<SearchSuiteResult["p50Ratios"]> = [];
  for (const tools of [...new Set(sizes.map((s) => s.tools))].sort((a, b) => a - b)) {
    const rows = sizes.filter((s) => s.tools === tools);
    const baseline = searchBaseline(rows.map((r) => r.backend));
    if (!baseline) continue;
    const others = rows.map((r) => r.backend).filter((b) => b !== baseline);
    const samples = new Map<string, number[]>(
      others.map((b) => [b, [rows.find((r) => r.backend === b)!.p50Ms / rows.find((r) => r.backend === baseline)!.p50Ms]]),
    );
    for (let i = 1; i < repeats(tools); i += 1) {
      const order = i % 2 === 1 ? [...others, baseline] : [baseline, ...others];
      const p50 = new Map<string, number>();
      for (const backend of order) {
        const child = await runScript(script, ["--one", backend, String(tools), ...(options.quick ? ["--quick"] : [])], silent, {
          cwd: options.root,
          timeoutMs: 120_000,
        });
        const line = child.stdout.trim().split("\n").pop() ?? "";
        p50.set(backend, (JSON.parse(line) as SizeResult).p50Ms);
      }
      for (const b of others) samples.get(b)!.push(p50.get(b)! / p50.get(baseline)!);
    }
    for (const [backend, ratios] of samples) {
      const ok = ratios.filter((x) => Number.isFinite(x) && x > 0);
      if (ok.length === 0) continue;
      out.push({
        tools,
        backend,
        baseline,
        value: round(median(ok), 3),
        ...(ok.length > 1 ? { range: [round(Math.min(...ok), 3), round(Math.max(...ok), 3)] as [number, number], repeats: ok.length } : {}),
      });
      if (ok.length > 1)
        options.log(
          `${tools} tools: ${backend} ÷ ${baseline} query p50 over ${ok.length} pairs: median ${median(ok).toFixed(3)}, ${Math.min(...ok).toFixed(3)}…${Math.max(...ok).toFixed(3)}`,
        );
    }
  }
  return out;
}
