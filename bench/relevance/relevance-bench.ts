/**
 * Relevance, with an ablation: every backend through ToolIndex (the ranking rules the engine
 * applies on top of a backend), the default fts5 backend with each ranking step switched off,
 * and the plain BM25 baseline over name + description (bench/lib/baseline-bm25.ts), on:
 * - LiveMCPBench's 527 real MCP tools with the 80 written requests of dev-queries.json: all
 *   of them ("dev-queries-all", what the targets are set on), the 60 tuned on ("dev-queries")
 *   and the 20 held out ("dev-queries-held-out", every 4th one, see loadLiveMcpQueries), which
 *   say whether a change generalises;
 * - Seal-Tools' 4,076 tools with its `dev` and `test_in_domain` splits, and their multi-step
 *   requests alone ("dev-multi-step", "test_in_domain-multi-step": the 500 of each split that
 *   need 2 to 6 tools, "check the ticket, then submit a new one, finally get the order status"),
 *   where clause fusion (src/search/intents.ts) is measured. They are the only task-level data
 *   with several gold tools per task in the shared data (LiveMCPBench's requests need one
 *   tool each). Tuning looked at dev only; test_in_domain is the held-out check.
 * Metrics come from bench/lib/relevance.ts; Recall@1 is added here (a query may need several
 * tools, so it differs from top-1, the share of queries whose first hit is one of them).
 * Step 2 (client tools ranked with the catalog's statistics) has no switch here: these sets
 * have no client tools; test/engine/client-ranking.test.ts covers it.
 */
import { plainBm25 } from "../lib/baseline-bm25.js";
import { evaluate, type JudgedQuery, type RelevanceReport } from "../lib/relevance.js";
import { loadLiveMcpQueries, loadLiveMcpTools, loadSealQueries, loadSealTools } from "../lib/shared-data.js";
import { DEFAULT_BM25F } from "../../src/search/bm25f.js";
import { fts5Backend, fts5BackendWith } from "../../src/search/fts5-backend.js";
import { minisearchBackend } from "../../src/search/minisearch-backend.js";
import type { IntentOptions } from "../../src/search/intents.js";
import { ToolIndex } from "../../src/search/tool-index.js";
import type { SearchBackendFactory, SearchDoc } from "../../src/search/types.js";
import type { Progress } from "../harness/progress.js";
import { ratio, round } from "../harness/stats.js";

export const SPLITS = ["dev-queries-all", "dev-queries", "dev-queries-held-out", "dev", "test_in_domain", "dev-multi-step", "test_in_domain-multi-step"] as const;
export type SplitName = (typeof SPLITS)[number];

/** The shared metrics of bench/lib/relevance.ts, rounded for JSON. */
export type Metrics = RelevanceReport;

export interface RankerResult {
  ranker: string;
  /** "backend" (through ToolIndex), "ablation" (fts5 with one step off) or "baseline". */
  kind: "backend" | "ablation" | "baseline";
  metrics: Metrics;
  /** Each metric over the baseline's (1 for the baseline itself). */
  vsBaseline: Pick<Metrics, "recallAt1" | "recallAt5" | "recallAt10" | "mrr" | "ndcgAt10">;
}

export interface SplitResult {
  /** "LiveMCPBench" or "Seal-Tools". */
  dataset: string;
  split: SplitName;
  tools: number;
  /** Queries in the split, and how many were scored (quick runs take every k-th). */
  totalQueries: number;
  sampled: number;
  rankers: RankerResult[];
}

export interface RelevanceResult {
  dataset: "seal-tools+livemcpbench";
  /** Seal-Tools tools (the biggest catalog). */
  tools: number;
  /** Index build per ranker on Seal-Tools. */
  indexMs: Record<string, number>;
  splits: SplitResult[];
}

export interface RelevanceOptions {
  dataDir: string;
  /** Score every `stride`-th Seal-Tools query (1 = all); the 80 written requests are always all scored. */
  stride: number;
  log: Progress;
}

export const BASELINE_NAME = "plain-bm25";

interface RankerSpec {
  name: string;
  kind: RankerResult["kind"];
  factory?: SearchBackendFactory;
  /** Multi-intent handling passed to ToolIndex.search (default: on). */
  intents?: IntentOptions;
}

/** Every ranker of the table: the baseline, both backends, and fts5 with one step off at a time. */
export const RANKERS: readonly RankerSpec[] = [
  { name: BASELINE_NAME, kind: "baseline" },
  { name: "fts5", kind: "backend", factory: fts5Backend },
  { name: "minisearch", kind: "backend", factory: minisearchBackend },
  { name: "fts5 −bm25f (bm25())", kind: "ablation", factory: fts5BackendWith({ ranking: "fts5" }) },
  { name: "fts5 −coordination", kind: "ablation", factory: fts5BackendWith({ bm25f: { ...DEFAULT_BM25F, coord: 0 } }) },
  { name: "fts5 −name precision", kind: "ablation", factory: fts5BackendWith({ bm25f: { ...DEFAULT_BM25F, namePrecision: 0 } }) },
  { name: "fts5 −thesaurus", kind: "ablation", factory: fts5BackendWith({ expansion: { thesaurus: false } }) },
  { name: "fts5 −typos", kind: "ablation", factory: fts5BackendWith({ expansion: { typos: false } }) },
  { name: "fts5 −both", kind: "ablation", factory: fts5BackendWith({ expansion: { thesaurus: false, typos: false } }) },
  { name: "fts5 −clauses", kind: "ablation", factory: fts5Backend, intents: { clauses: false } },
  { name: "fts5 −siblings", kind: "ablation", factory: fts5Backend, intents: { siblings: false } },
  { name: "fts5 −both intents", kind: "ablation", factory: fts5Backend, intents: { clauses: false, siblings: false } },
];

type Ranker = { spec: RankerSpec; search: (q: string) => string[]; close?: () => void };

async function buildRankers(docs: readonly SearchDoc[], indexMs?: Record<string, number>): Promise<Ranker[]> {
  const rankers: Ranker[] = [];
  for (const spec of RANKERS) {
    const t0 = performance.now();
    if (spec.factory === undefined) {
      const baseline = plainBm25(docs);
      rankers.push({ spec, search: (q) => baseline.search(q, 10) });
    } else {
      const index = await ToolIndex.build(() => spec.factory!.create(), docs);
      const intents = spec.intents ?? {};
      rankers.push({ spec, search: (q) => index.search(q, { limit: 10, intents }).map((h) => h.id), close: () => index.close() });
    }
    if (indexMs) indexMs[spec.name] = round(performance.now() - t0, 1);
  }
  return rankers;
}

export async function runRelevanceBench(options: RelevanceOptions): Promise<RelevanceResult> {
  const { log } = options;
  const splits: SplitResult[] = [];
  const indexMs: Record<string, number> = {};
  const sealDocs = loadSealTools(options.dataDir);
  const sets: Array<{ dataset: string; docs: SearchDoc[]; splits: Array<[SplitName, JudgedQuery[], number]>; indexMs?: Record<string, number> }> = [
    {
      dataset: "LiveMCPBench",
      docs: loadLiveMcpTools(options.dataDir),
      splits: [
        ["dev-queries-all", loadLiveMcpQueries(options.dataDir, "all"), 1],
        ["dev-queries", loadLiveMcpQueries(options.dataDir, "tune"), 1],
        ["dev-queries-held-out", loadLiveMcpQueries(options.dataDir, "held-out"), 1],
      ],
    },
    {
      dataset: "Seal-Tools",
      docs: sealDocs,
      splits: [
        ["dev", loadSealQueries(options.dataDir, "dev"), options.stride],
        ["test_in_domain", loadSealQueries(options.dataDir, "test_in_domain"), options.stride],
        ["dev-multi-step", multiStep(loadSealQueries(options.dataDir, "dev")), options.stride],
        ["test_in_domain-multi-step", multiStep(loadSealQueries(options.dataDir, "test_in_domain")), options.stride],
      ],
      indexMs,
    },
  ];
  for (const set of sets) {
    const rankers = await buildRankers(set.docs, set.indexMs);
    try {
      for (const [split, all, stride] of set.splits) {
        const queries = all.filter((_, i) => i % stride === 0);
        const result = scoreSplit(rankers, queries);
        splits.push({ dataset: set.dataset, split, tools: set.docs.length, totalQueries: all.length, sampled: queries.length, rankers: result });
        log(`${set.dataset} ${split} (${set.docs.length} tools, ${queries.length} queries)\n${formatTable(result)}`);
      }
    } finally {
      for (const r of rankers) r.close?.();
    }
  }
  log(`index build on Seal-Tools (${sealDocs.length} tools): ${Object.entries(indexMs).map(([k, v]) => `${k} ${v} ms`).join(", ")}`);
  return { dataset: "seal-tools+livemcpbench", tools: sealDocs.length, indexMs, splits };
}

/** The requests that need several tools. */
function multiStep(queries: readonly JudgedQuery[]): JudgedQuery[] {
  return queries.filter((q) => q.relevant.length > 1);
}

function scoreSplit(rankers: readonly Ranker[], queries: readonly JudgedQuery[]): RankerResult[] {
  const scored = rankers.map((r) => ({ r, metrics: score(queries, r.search) }));
  const base = scored.find((s) => s.r.spec.kind === "baseline")!.metrics;
  return scored.map(({ r, metrics }) => ({
    ranker: r.spec.name,
    kind: r.spec.kind,
    metrics,
    vsBaseline: {
      recallAt1: ratio(metrics.recallAt1, base.recallAt1, 3),
      recallAt5: ratio(metrics.recallAt5, base.recallAt5, 3),
      recallAt10: ratio(metrics.recallAt10, base.recallAt10, 3),
      mrr: ratio(metrics.mrr, base.mrr, 3),
      ndcgAt10: ratio(metrics.ndcgAt10, base.ndcgAt10, 3),
    },
  }));
}

export function formatTable(rows: readonly RankerResult[]): string {
  const head = `  ${"ranker".padEnd(24)} top-1  top-5    R@5   R@10    MRR nDCG@10  ms/query`;
  const f = (x: number): string => x.toFixed(3).padStart(6);
  const lines = rows.map((r) => {
    const m = r.metrics;
    return `  ${r.ranker.padEnd(24)} ${f(m.top1)} ${f(m.top5)} ${f(m.recallAt5)} ${f(m.recallAt10)} ${f(m.mrr)} ${f(m.ndcgAt10)}  ${m.queryMs.toFixed(3).padStart(8)}`;
  });
  return [head, ...lines].join("\n");
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
