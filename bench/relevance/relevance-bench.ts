/**
 * Relevance over several sets at once, with an ablation: every backend through the engine's own
 * ranking of a request (rankRequest, src/dispatch/rank-request.ts, over the backend's ToolIndex:
 * bench/lib/rank-over-index.ts), the default bm25f backend with each ranking step switched off, and the plain BM25 baseline (name + server + description +
 * parameter names, identifiers split, k1 1.2, b 0.75: bench/lib/baseline-bm25.ts), on:
 * - LiveMCPBench's 527 real MCP tools with the 80 written requests of dev-queries.json: all
 *   of them ("dev-queries-all", what the targets are set on), the 60 tuned on ("dev-queries")
 *   and the 20 held out ("dev-queries-held-out", every 4th one, see loadLiveMcpQueries), which
 *   say whether a change generalises;
 * - Seal-Tools' 4,076 tools with its `dev` and `test_in_domain` splits, and their multi-step
 *   requests alone ("dev-multi-step", "test_in_domain-multi-step": the 500 of each split that
 *   need 2 to 6 tools, "check the ticket, then submit a new one, finally get the order status"),
 *   where clause fusion (src/search/ranking/intents.ts) is measured. They are the only task-level data
 *   with several gold tools per task in the shared data (LiveMCPBench's requests need one
 *   tool each). Tuning looked at dev only; test_in_domain is the held-out check.
 * - MetaTool's 199 ChatGPT plugins (a name and one line each) with its `tune` and `validate`
 *   requests: people's words, not the descriptions' ("Can I find any peer-reviewed papers?").
 * A ranking step is kept only if it raises the mean top-1 over the development sets
 * (LiveMCPBench's 60, Seal-Tools dev, MetaTool tune) and costs no set more than 0.01; the
 * held-out sets (LiveMCPBench's 20, Seal-Tools test_in_domain, MetaTool validate) are the
 * check. `summary` holds top-1 / hit@5 per set and ranker and their means (printed last).
 * Metrics come from bench/lib/relevance.ts; Recall@1 is added here (a query may need several
 * tools, so it differs from top-1, the share of queries whose first hit is one of them).
 * Step 2 (client tools ranked with the catalog's statistics) has no switch here: these sets
 * have no client tools; test/engine/client-ranking.test.ts covers it.
 *
 * The read-request safety check (read-safety-set.ts) runs beside: requests that only ask to
 * read over the real memory, filesystem and everything servers and over LiveMCPBench's and
 * Seal-Tools' catalogs, and how many get a destructive first hit from plain BM25 and from bm25f
 * (goal: none). MetaTool's plugins have no destructive tool, so it has no row.
 * Measures the search internals (ToolIndex, BM25F parameters, ranking steps switched off) on purpose: imports src/search/ directly.
 */
import { plainBm25 } from "../lib/baseline-bm25.js";
import { indexScope, rankIds } from "../lib/rank-over-index.js";
import { evaluate, type JudgedQuery, type RelevanceReport } from "../lib/relevance.js";
import { loadLiveMcpQueries, loadLiveMcpTools, loadMetaToolQueries, loadMetaToolTools, loadSealQueries, loadSealTools } from "../lib/shared-data.js";
import { DEFAULT_BM25F } from "../../src/search/scoring/bm25f.js";
import { bm25fBackend, minisearchBackend, type SearchBackendFactory, type SearchDoc } from "../../src/index.js";
import { bm25fBackendWith } from "../../src/search/backends/bm25f-backend.js";
import { fts5Bm25Backend } from "../lib/fts5-bm25/backend.js";
import type { IntentOptions } from "../../src/search/ranking/intents.js";
import { ToolIndex } from "../../src/search/tool-index.js";
import type { Progress } from "../harness/progress.js";
import { isDestructive } from "../../src/search/ranking/read-safety.js";
import { madeReadRequests, ownReadRequests, serverCatalogs, type ReadRequest, type SafetyCatalog } from "./read-safety-set.js";
import { ratio, round } from "../harness/stats.js";

export const SPLITS = [
  "dev-queries-all",
  "dev-queries",
  "dev-queries-held-out",
  "dev",
  "test_in_domain",
  "dev-multi-step",
  "test_in_domain-multi-step",
  "tune",
  "validate",
  "long-description-servers",
] as const;
export type SplitName = (typeof SPLITS)[number];

/** The shared metrics of bench/lib/relevance.ts, rounded for JSON. */
export type Metrics = RelevanceReport;

export interface RankerResult {
  ranker: string;
  /** "backend" (through rankRequest), "ablation" (bm25f with one step off) or "baseline". */
  kind: "backend" | "ablation" | "baseline";
  metrics: Metrics;
  /** Each metric over the baseline's (1 for the baseline itself). */
  vsBaseline: Pick<Metrics, "recallAt1" | "recallAt5" | "recallAt10" | "mrr" | "ndcgAt10">;
}

export interface SplitResult {
  /** "LiveMCPBench", "Seal-Tools" or "MetaTool". */
  dataset: string;
  split: SplitName;
  /**
   * "dev": tuned on, in the mean the rule reads; "held-out": the check; "check": a set of its
   * own, in the summary but in neither mean; "other": a view of the others.
   */
  role: SplitRole;
  tools: number;
  /** Queries in the split, and how many were scored (quick runs take every k-th). */
  totalQueries: number;
  sampled: number;
  rankers: RankerResult[];
}

export type SplitRole = "dev" | "held-out" | "check" | "other";

/** Top-1 / hit@5 of each ranker on one split, and the split's role. */
export interface SummaryRow {
  set: string;
  role: SplitRole;
  rankers: Record<string, { top1: number; top5: number }>;
  /** The default ranker's top-1 minus plain BM25's on this set (what "at least plain BM25" reads). */
  vsPlain: number;
}

export interface RelevanceSummary {
  rows: SummaryRow[];
  /** Mean over the dev sets and over the held-out sets, per ranker. */
  mean: Record<"dev" | "held-out", Record<string, { top1: number; top5: number }>>;
  /** Sets where the default ranker (bm25f) is below plain BM25 on top-1 (should be none). */
  belowBaseline: string[];
}

/** The read-request safety check over one catalog (read-safety-set.ts). */
export interface SafetyRow {
  catalog: string;
  tools: number;
  /** Read requests scored, and how many of them have judged answers (written, or a set's own). */
  requests: number;
  judged: number;
  /** Per ranker (plain BM25 and bm25f): read requests whose first hit is destructive, and top-1 over the judged ones. */
  rankers: Record<string, { destructiveFirst: number; top1: number }>;
}

export interface RelevanceResult {
  dataset: "seal-tools+livemcpbench+metatool";
  /** Seal-Tools tools (the biggest catalog). */
  tools: number;
  /** Index build per ranker on Seal-Tools. */
  indexMs: Record<string, number>;
  splits: SplitResult[];
  summary: RelevanceSummary;
  /** The read-request safety check, a row per catalog; `safetySkipped`: the servers not installed. */
  safety: SafetyRow[];
  safetySkipped?: string[];
}

export interface RelevanceOptions {
  dataDir: string;
  /** Score every `stride`-th Seal-Tools query (1 = all); the 80 written requests are always all scored. */
  stride: number;
  /** Score every `metaToolStride`-th MetaTool request (default 1 = all 21,041). */
  metaToolStride?: number;
  /** Only these rankers (names of RANKERS; the baseline and bm25f always run). */
  rankers?: readonly string[];
  /** Only these data sets ("LiveMCPBench", "Seal-Tools", "MetaTool"). */
  datasets?: readonly string[];
  log: Progress;
}

const BASELINE_NAME = "plain-bm25";
/** The engine's default ranking, which must beat the baseline on every set. */
const DEFAULT_RANKER = "bm25f";

interface RankerSpec {
  name: string;
  kind: RankerResult["kind"];
  factory?: SearchBackendFactory;
  /** Multi-step handling for rankRequest (RunScope.intents; default: all on). */
  intents?: IntentOptions;
  /** The read-request safety order (RunScope.readSafety; default on). */
  readSafety?: false;
  /** The catalog guard (RunScope.catalogGuard; default: by the catalog's profile). */
  catalogGuard?: false | "on";
}

/** Every ranker of the table: the baseline, both backends, and bm25f with one step off at a time. */
const RANKERS: readonly RankerSpec[] = [
  { name: BASELINE_NAME, kind: "baseline" },
  { name: "bm25f", kind: "backend", factory: bm25fBackend },
  { name: "minisearch", kind: "backend", factory: minisearchBackend },
  { name: "bm25f −bm25f (FTS5 bm25())", kind: "ablation", factory: fts5Bm25Backend },
  { name: "bm25f −coordination", kind: "ablation", factory: bm25fBackendWith({ bm25f: { ...DEFAULT_BM25F, coord: 0 } }) },
  { name: "bm25f −name precision", kind: "ablation", factory: bm25fBackendWith({ bm25f: { ...DEFAULT_BM25F, namePrecision: 0 } }) },
  { name: "bm25f −vocabulary", kind: "ablation", factory: bm25fBackendWith({ bm25f: { ...DEFAULT_BM25F, vocabulary: false } }) },
  { name: "bm25f −thesaurus", kind: "ablation", factory: bm25fBackendWith({ expansion: { thesaurus: false } }) },
  { name: "bm25f −typos", kind: "ablation", factory: bm25fBackendWith({ expansion: { typos: false } }) },
  { name: "bm25f −both", kind: "ablation", factory: bm25fBackendWith({ expansion: { thesaurus: false, typos: false } }) },
  { name: "bm25f −clauses", kind: "ablation", factory: bm25fBackend, intents: { clauses: false } },
  { name: "bm25f −siblings", kind: "ablation", factory: bm25fBackend, intents: { siblings: false } },
  { name: "bm25f −both intents", kind: "ablation", factory: bm25fBackend, intents: { clauses: false, siblings: false } },
  { name: "bm25f −safety", kind: "ablation", factory: bm25fBackend, readSafety: false },
  { name: "bm25f −guard", kind: "ablation", factory: bm25fBackend, catalogGuard: false },
  { name: "bm25f guard on", kind: "ablation", factory: bm25fBackend, catalogGuard: "on" },
];

type Ranker = { spec: RankerSpec; search: (q: string) => string[]; close?: () => void };

async function buildRankers(docs: readonly SearchDoc[], wanted: ReadonlySet<string> | undefined, indexMs?: Record<string, number>): Promise<Ranker[]> {
  const rankers: Ranker[] = [];
  const built = new Map<SearchBackendFactory, ToolIndex>();
  for (const spec of RANKERS) {
    const reused = spec.factory !== undefined && built.has(spec.factory);
    if (wanted !== undefined && spec.name !== BASELINE_NAME && spec.name !== DEFAULT_RANKER && !wanted.has(spec.name)) continue;
    const t0 = performance.now();
    if (spec.factory === undefined) {
      const baseline = plainBm25(docs);
      rankers.push({ spec, search: (q) => baseline.search(q, 10) });
    } else {
      // The intents ablations rank with the default backend's index: one build, not four.
      const shared = built.get(spec.factory);
      const index = shared ?? (await ToolIndex.build(() => spec.factory!.create(), docs));
      built.set(spec.factory, index);
      const scope = indexScope(index, {
        ...(spec.intents ? { intents: spec.intents } : {}),
        ...(spec.readSafety === false ? { readSafety: false } : {}),
        ...(spec.catalogGuard !== undefined ? { catalogGuard: spec.catalogGuard } : {}),
      });
      rankers.push({ spec, search: rankIds(scope, 10), ...(shared ? {} : { close: () => index.close() }) });
    }
    if (indexMs && !reused) indexMs[spec.name] = round(performance.now() - t0, 1);
  }
  return rankers;
}

export async function runRelevanceBench(options: RelevanceOptions): Promise<RelevanceResult> {
  const { log } = options;
  const splits: SplitResult[] = [];
  const indexMs: Record<string, number> = {};
  const sealDocs = loadSealTools(options.dataDir);
  const metaStride = options.metaToolStride ?? 1;
  type Split = [SplitName, SplitRole, JudgedQuery[], number];
  const safety: SafetyRow[] = [];
  const sets: Array<{
    dataset: string;
    docs: () => SearchDoc[];
    splits: () => Split[];
    /** Read requests for the safety check over this catalog (none: no row). */
    readRequests?: (docs: readonly SearchDoc[]) => ReadRequest[];
    indexMs?: Record<string, number>;
  }> = [
    {
      dataset: "LiveMCPBench",
      docs: () => loadLiveMcpTools(options.dataDir),
      splits: () => [
        ["dev-queries-all", "other", loadLiveMcpQueries(options.dataDir, "all"), 1],
        ["dev-queries", "dev", loadLiveMcpQueries(options.dataDir, "tune"), 1],
        ["dev-queries-held-out", "held-out", loadLiveMcpQueries(options.dataDir, "held-out"), 1],
      ],
      readRequests: (docs) => [...ownReadRequests(loadLiveMcpQueries(options.dataDir, "all")), ...madeReadRequests(docs)],
    },
    {
      dataset: "Seal-Tools",
      docs: () => sealDocs,
      splits: () => [
        ["dev", "dev", loadSealQueries(options.dataDir, "dev"), options.stride],
        ["test_in_domain", "held-out", loadSealQueries(options.dataDir, "test_in_domain"), options.stride],
        ["dev-multi-step", "other", multiStep(loadSealQueries(options.dataDir, "dev")), options.stride],
        ["test_in_domain-multi-step", "other", multiStep(loadSealQueries(options.dataDir, "test_in_domain")), options.stride],
      ],
      readRequests: (docs) => [
        ...ownReadRequests(
          [...loadSealQueries(options.dataDir, "dev"), ...loadSealQueries(options.dataDir, "test_in_domain")].filter((_, i) => i % options.stride === 0),
        ),
        ...madeReadRequests(docs),
      ],
      indexMs,
    },
    {
      dataset: "MetaTool",
      docs: () => loadMetaToolTools(options.dataDir),
      splits: () => [
        ["tune", "dev", loadMetaToolQueries(options.dataDir, "tune"), metaStride],
        ["validate", "held-out", loadMetaToolQueries(options.dataDir, "validate"), metaStride],
      ],
    },
  ];
  const wanted = options.rankers === undefined ? undefined : new Set(options.rankers);
  for (const set of sets) {
    if (options.datasets !== undefined && !options.datasets.includes(set.dataset)) continue;
    const docs = set.docs();
    const rankers = await buildRankers(docs, wanted, set.indexMs);
    try {
      for (const [split, role, all, stride] of set.splits()) {
        const queries = all.filter((_, i) => i % stride === 0);
        const result = scoreSplit(rankers, queries);
        splits.push({ dataset: set.dataset, split, role, tools: docs.length, totalQueries: all.length, sampled: queries.length, rankers: result });
        log(`${set.dataset} ${split} (${docs.length} tools, ${queries.length} queries)\n${formatTable(result)}`);
      }
      if (set.readRequests) safety.push(scoreSafety({ name: set.dataset, docs, requests: set.readRequests(docs) }, rankers));
    } finally {
      for (const r of rankers) r.close?.();
    }
  }
  if (options.datasets === undefined || options.datasets.includes("LiveMCPBench")) {
    const split = await longServersSplit(options.dataDir, wanted);
    splits.push(split);
    log(`LiveMCPBench ${split.split} (${split.tools} tools, ${split.sampled} queries)\n${formatTable(split.rankers)}`);
  }
  const servers = options.datasets === undefined || options.datasets.includes("servers") ? await serverCatalogs() : { catalogs: [], skipped: [] };
  const serverRows: SafetyRow[] = [];
  for (const catalog of servers.catalogs) {
    const rankers = await buildRankers(catalog.docs, wanted);
    try {
      serverRows.push(scoreSafety(catalog, rankers));
    } finally {
      for (const r of rankers) r.close?.();
    }
  }
  safety.unshift(...serverRows);
  if (safety.length > 0) log(formatSafety(safety, servers.skipped));
  if (Object.keys(indexMs).length > 0)
    log(
      `index build on Seal-Tools (${sealDocs.length} tools): ${Object.entries(indexMs)
        .map(([k, v]) => `${k} ${v} ms`)
        .join(", ")}`,
    );
  const summary = summarize(splits);
  log(formatSummary(summary));
  return {
    dataset: "seal-tools+livemcpbench+metatool",
    tools: sealDocs.length,
    indexMs,
    splits,
    summary,
    safety,
    ...(servers.skipped.length > 0 ? { safetySkipped: servers.skipped } : {}),
  };
}

/**
 * The catalog guard's check: each of LiveMCPBench's servers whose descriptions are long and
 * specific (ToolIndex.profile: the guard is on) as a catalog of its own, as a user who
 * configures that one server has it, ranked for the written requests it answers (the right
 * tools among its own). Every metric is the mean over all those requests, server by server.
 */
async function longServersSplit(dataDir: string, wanted: ReadonlySet<string> | undefined): Promise<SplitResult> {
  const byServer = new Map<string, SearchDoc[]>();
  for (const doc of loadLiveMcpTools(dataDir)) byServer.set(doc.toolset, [...(byServer.get(doc.toolset) ?? []), doc]);
  const queries = loadLiveMcpQueries(dataDir, "all");
  const parts: Array<{ results: RankerResult[]; queries: number }> = [];
  let tools = 0;
  for (const docs of byServer.values()) {
    const ids = new Set(docs.map((d) => d.id));
    const mine = queries.flatMap((q) => {
      const relevant = q.relevant.filter((id) => ids.has(id));
      return relevant.length === 0 ? [] : [{ ...q, relevant }];
    });
    if (mine.length === 0) continue;
    const probe = await ToolIndex.build(() => bm25fBackend.create(), docs);
    const long = probe.profile()?.longAndSpecific === true;
    probe.close();
    if (!long) continue;
    const rankers = await buildRankers(docs, wanted);
    try {
      parts.push({ results: scoreSplit(rankers, mine), queries: mine.length });
      tools += docs.length;
    } finally {
      for (const r of rankers) r.close?.();
    }
  }
  const total = parts.reduce((n, p) => n + p.queries, 0);
  const rankers = (parts[0]?.results ?? []).map((first, i) => {
    const mean = (metric: keyof Metrics) => round(parts.reduce((s, p) => s + p.results[i]!.metrics[metric] * p.queries, 0) / Math.max(1, total), 4);
    const metrics: Metrics = {
      queries: total,
      recallAt1: mean("recallAt1"),
      recallAt5: mean("recallAt5"),
      recallAt10: mean("recallAt10"),
      mrr: mean("mrr"),
      ndcgAt10: mean("ndcgAt10"),
      top1: mean("top1"),
      top5: mean("top5"),
      queryMs: mean("queryMs"),
    };
    return { ranker: first.ranker, kind: first.kind, metrics, vsBaseline: first.vsBaseline };
  });
  const base = rankers.find((r) => r.kind === "baseline")?.metrics;
  for (const r of rankers) {
    if (base === undefined) break;
    r.vsBaseline = {
      recallAt1: ratio(r.metrics.recallAt1, base.recallAt1, 3),
      recallAt5: ratio(r.metrics.recallAt5, base.recallAt5, 3),
      recallAt10: ratio(r.metrics.recallAt10, base.recallAt10, 3),
      mrr: ratio(r.metrics.mrr, base.mrr, 3),
      ndcgAt10: ratio(r.metrics.ndcgAt10, base.ndcgAt10, 3),
    };
  }
  return { dataset: "LiveMCPBench", split: "long-description-servers", role: "check", tools, totalQueries: total, sampled: total, rankers };
}

/** Plain BM25's and bm25f's first hits over one catalog's read requests: how many are destructive, and top-1 where judged. */
function scoreSafety(catalog: SafetyCatalog, rankers: readonly Ranker[]): SafetyRow {
  const byId = new Map(catalog.docs.map((d) => [d.id, d]));
  const judged = catalog.requests.filter((r) => r.relevant !== undefined);
  const row: SafetyRow = { catalog: catalog.name, tools: catalog.docs.length, requests: catalog.requests.length, judged: judged.length, rankers: {} };
  for (const ranker of rankers) {
    let destructiveFirst = 0;
    let right = 0;
    for (const request of catalog.requests) {
      const first = ranker.search(request.query)[0];
      const doc = first === undefined ? undefined : byId.get(first);
      if (doc !== undefined && isDestructive(doc)) destructiveFirst++;
      if (first !== undefined && request.relevant?.includes(first)) right++;
    }
    row.rankers[ranker.spec.name] = { destructiveFirst, top1: round(right / Math.max(1, judged.length), 4) };
  }
  return row;
}

/** The safety check as text: per catalog and ranker, destructive first hits of the read requests (goal: 0), and top-1 where judged. */
function formatSafety(rows: readonly SafetyRow[], skipped: readonly string[] = []): string {
  const names = [...new Set(rows.flatMap((r) => Object.keys(r.rankers)))];
  const head = `  ${"destructive first / top-1".padEnd(26)} ${rows.map((r) => r.catalog.padStart(17)).join(" ")}`;
  const counts = `  ${"read requests (judged)".padEnd(26)} ${rows.map((r) => `${r.requests} (${r.judged})`.padStart(17)).join(" ")}`;
  const lines = names.map(
    (n) =>
      `  ${n.padEnd(26)} ${rows
        .map((r) => {
          const m = r.rankers[n];
          return (m === undefined ? "-" : `${m.destructiveFirst} / ${r.judged === 0 ? "-" : m.top1.toFixed(3)}`).padStart(17);
        })
        .join(" ")}`,
  );
  const note = skipped.length > 0 ? [`  not installed, so no row: ${skipped.join(", ")}`] : [];
  return ["read-request safety (requests that only ask to read; goal: no destructive first hit)", head, counts, ...lines, ...note].join("\n");
}

/** Column names of the summary. */
const SHORT_NAMES: Record<string, string> = {
  "LiveMCPBench dev-queries": "LiveMCP 60",
  "LiveMCPBench dev-queries-held-out": "LiveMCP 20",
  "Seal-Tools dev": "Seal dev",
  "Seal-Tools test_in_domain": "Seal test",
  "MetaTool tune": "MetaTool tune",
  "MetaTool validate": "MetaTool valid",
  "LiveMCPBench long-description-servers": "long servers",
};

/** Top-1 / hit@5 per set and ranker, the means over dev and held-out sets, and where the default is below plain BM25. */
function summarize(splits: readonly SplitResult[]): RelevanceSummary {
  const rows: SummaryRow[] = splits
    .filter((s) => s.role !== "other")
    .map((s) => ({
      set: SHORT_NAMES[`${s.dataset} ${s.split}`] ?? `${s.dataset} ${s.split}`,
      role: s.role,
      rankers: Object.fromEntries(s.rankers.map((r) => [r.ranker, { top1: r.metrics.top1, top5: r.metrics.top5 }])),
      vsPlain: round(topOne(s, DEFAULT_RANKER) - topOne(s, BASELINE_NAME), 4),
    }));
  const mean = { dev: {}, "held-out": {} } as RelevanceSummary["mean"];
  for (const role of ["dev", "held-out"] as const) {
    const group = rows.filter((r) => r.role === role);
    const names = new Set(group.flatMap((r) => Object.keys(r.rankers)));
    for (const name of names) {
      const present = group.map((r) => r.rankers[name]).filter((m) => m !== undefined);
      const avg = (f: (m: { top1: number; top5: number }) => number) => round(present.reduce((a, m) => a + f(m), 0) / Math.max(1, present.length), 4);
      mean[role][name] = { top1: avg((m) => m.top1), top5: avg((m) => m.top5) };
    }
  }
  const belowBaseline = rows.filter((r) => (r.rankers[DEFAULT_RANKER]?.top1 ?? 0) < (r.rankers[BASELINE_NAME]?.top1 ?? 0)).map((r) => r.set);
  return { rows, mean, belowBaseline };
}

function topOne(split: SplitResult, ranker: string): number {
  return split.rankers.find((r) => r.ranker === ranker)?.metrics.top1 ?? 0;
}

/** The summary as text: one column per set (top-1 / hit@5), then the dev and held-out means; last, the default's top-1 minus plain BM25's per set. */
function formatSummary(summary: RelevanceSummary): string {
  const names = [...new Set(summary.rows.flatMap((r) => Object.keys(r.rankers)))];
  const mark = (role: SplitRole) => (role === "held-out" ? "*" : role === "check" ? "†" : "");
  const cols = [...summary.rows.map((r) => `${r.set}${mark(r.role)}`), "mean dev", "mean held*"];
  const width = Math.max(...cols.map((c) => c.length), 13);
  const cell = (m: { top1: number; top5: number } | undefined) => (m === undefined ? "-" : `${m.top1.toFixed(3)}/${m.top5.toFixed(3)}`).padStart(width);
  const head = `  ${"top-1/hit@5".padEnd(24)} ${cols.map((c) => c.padStart(width)).join(" ")}`;
  const lines = names.map(
    (n) => `  ${n.padEnd(24)} ${[...summary.rows.map((r) => r.rankers[n]), summary.mean.dev[n], summary.mean["held-out"][n]].map(cell).join(" ")}`,
  );
  const mean = (role: SplitRole) => {
    const group = summary.rows.filter((r) => r.role === role);
    return group.reduce((a, r) => a + r.vsPlain, 0) / Math.max(1, group.length);
  };
  const signed = (x: number) => `${x >= 0 ? "+" : ""}${x.toFixed(3)}`.padStart(width);
  const vs = `  ${`${DEFAULT_RANKER} vs plain BM25`.padEnd(24)} ${[...summary.rows.map((r) => r.vsPlain), mean("dev"), mean("held-out")].map(signed).join(" ")}`;
  const below =
    summary.belowBaseline.length === 0
      ? "default above plain BM25 top-1 on every set"
      : `default BELOW plain BM25 top-1 on: ${summary.belowBaseline.join(", ")}`;
  return ["summary (* held out; † a check in neither mean)", head, ...lines, vs, `  ${below}`].join("\n");
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

function formatTable(rows: readonly RankerResult[]): string {
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
