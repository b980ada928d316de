/**
 * Relevance on Seal-Tools: every backend through ToolIndex (the ranking rules the engine
 * applies on top of a backend) beside the plain BM25 baseline over name + description
 * (bench/lib/baseline-bm25.ts), on the `dev` and `test_in_domain` splits. Metrics come from
 * bench/lib/relevance.ts; Recall@1 is added here (a query may need several tools, so it differs
 * from top-1, the share of queries whose first hit is one of them).
 */
import { plainBm25 } from "../lib/baseline-bm25.js";
import { evaluate, type JudgedQuery, type RelevanceReport } from "../lib/relevance.js";
import { loadSealQueries, loadSealTools } from "../lib/shared-data.js";
import { fts5Backend } from "../../src/search/fts5-backend.js";
import { minisearchBackend } from "../../src/search/minisearch-backend.js";
import { ToolIndex } from "../../src/search/tool-index.js";
import type { SearchBackendFactory } from "../../src/search/types.js";
import type { Progress } from "../harness/progress.js";
import { ratio, round } from "../harness/stats.js";

export const SEAL_SPLITS = ["dev", "test_in_domain"] as const;
export type SealSplit = (typeof SEAL_SPLITS)[number];

/** The shared metrics of bench/lib/relevance.ts, rounded for JSON. */
export type Metrics = RelevanceReport;

export interface RankerResult {
  ranker: string;
  /** "backend" (through ToolIndex) or "baseline". */
  kind: "backend" | "baseline";
  metrics: Metrics;
  /** Each metric over the baseline's (1 for the baseline itself). */
  vsBaseline: Pick<Metrics, "recallAt1" | "recallAt5" | "recallAt10" | "mrr" | "ndcgAt10">;
}

export interface SplitResult {
  split: SealSplit;
  /** Queries in the split, and how many were scored (quick runs take every k-th). */
  totalQueries: number;
  sampled: number;
  rankers: RankerResult[];
}

export interface RelevanceResult {
  dataset: "seal-tools";
  tools: number;
  indexMs: Record<string, number>;
  splits: SplitResult[];
}

export interface RelevanceOptions {
  dataDir: string;
  /** Score every `stride`-th query (1 = all). */
  stride: number;
  backends?: readonly SearchBackendFactory[];
  log: Progress;
}

export const BASELINE_NAME = "plain-bm25";

export async function runRelevanceBench(options: RelevanceOptions): Promise<RelevanceResult> {
  const { log } = options;
  const docs = loadSealTools(options.dataDir);
  const factories = options.backends ?? [fts5Backend, minisearchBackend];
  const rankers: Array<{ name: string; kind: RankerResult["kind"]; search: (q: string) => string[]; close?: () => void }> = [];
  const indexMs: Record<string, number> = {};
  try {
    let t0 = performance.now();
    const baseline = plainBm25(docs);
    indexMs[BASELINE_NAME] = round(performance.now() - t0, 1);
    rankers.push({ name: BASELINE_NAME, kind: "baseline", search: (q) => baseline.search(q, 10) });
    for (const factory of factories) {
      t0 = performance.now();
      const index = await ToolIndex.build(() => factory.create(), docs);
      indexMs[factory.kind] = round(performance.now() - t0, 1);
      rankers.push({ name: factory.kind, kind: "backend", search: (q) => index.search(q, { limit: 10 }).map((h) => h.id), close: () => index.close() });
    }
    log(`indexed ${docs.length} Seal-Tools tools: ${Object.entries(indexMs).map(([k, v]) => `${k} ${v} ms`).join(", ")}`);

    const splits: SplitResult[] = [];
    for (const split of SEAL_SPLITS) {
      const all = loadSealQueries(options.dataDir, split);
      const queries = all.filter((_, i) => i % options.stride === 0);
      const scored = rankers.map((r) => ({ r, metrics: score(queries, r.search) }));
      const base = scored.find((s) => s.r.kind === "baseline")!.metrics;
      const results: RankerResult[] = scored.map(({ r, metrics }) => ({
        ranker: r.name,
        kind: r.kind,
        metrics,
        vsBaseline: {
          recallAt1: ratio(metrics.recallAt1, base.recallAt1, 3),
          recallAt5: ratio(metrics.recallAt5, base.recallAt5, 3),
          recallAt10: ratio(metrics.recallAt10, base.recallAt10, 3),
          mrr: ratio(metrics.mrr, base.mrr, 3),
          ndcgAt10: ratio(metrics.ndcgAt10, base.ndcgAt10, 3),
        },
      }));
      for (const r of results) {
        const m = r.metrics;
        log(`${split} ${r.ranker.padEnd(10)} R@1 ${m.recallAt1.toFixed(3)} R@5 ${m.recallAt5.toFixed(3)} R@10 ${m.recallAt10.toFixed(3)} MRR ${m.mrr.toFixed(3)} nDCG@10 ${m.ndcgAt10.toFixed(3)} (${m.queries} queries)`);
      }
      splits.push({ split, totalQueries: all.length, sampled: queries.length, rankers: results });
    }
    return { dataset: "seal-tools", tools: docs.length, indexMs, splits };
  } finally {
    for (const r of rankers) r.close?.();
  }
}

/** The shared metrics (bench/lib/relevance.ts), rounded for JSON; a ranker over its limit is a broken benchmark. */
function score(queries: readonly JudgedQuery[], search: (q: string) => readonly string[]): Metrics {
  const r = evaluate(queries, (query) => {
    const ranked = search(query);
    if (ranked.length > 10) throw new Error(`a ranker returned ${ranked.length} hits for limit 10`);
    return ranked;
  });
  const f = (x: number) => round(x, 4);
  return {
    queries: r.queries,
    recallAt1: f(r.recallAt1),
    recallAt5: f(r.recallAt5),
    recallAt10: f(r.recallAt10),
    mrr: f(r.mrr),
    ndcgAt10: f(r.ndcgAt10),
    top1: f(r.top1),
    top5: f(r.top5),
    queryMs: round(r.queryMs, 3),
  };
}
