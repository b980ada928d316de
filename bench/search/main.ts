/**
 * Search benchmark: index build time, query latency (p50/p99, with and without a policy
 * filter), memory, for both backends side by side at 1k, 10k and 100k tools; plus the cost of
 * preparing a run over an already-cached catalog. Prints a table, writes
 * bench/results/search.json. Every query is ranked as a run ranks it: rankRequest over the
 * index (bench/lib/rank-over-index.ts), no client tools, no learning.
 *
 *   npm run build && node dist/bench/search/main.js [--quick]
 *
 * Catalog: toolsdk-registry (8,010 MCP tools with name and description), copied with suffixed
 * ids and names past 8k. Queries: 30 written like an agent's tool_search queries, plus 70 made
 * of 2–4 words of random tools' descriptions (seeded, so every run asks the same).
 *
 * Natural-language latency: Seal-Tools' 4,076 tools and its 700 dev requests as people write
 * them (10–40 words), for each backend beside a minimal in-memory BM25 (bench/lib/memory-bm25.ts),
 * the yardstick an engine must not be slower than; the same requests through the public API
 * (natural-api.ts: createToolSearch with learning on, run.search at limits 8 and 5; full runs
 * also at 100k tools). `--natural` runs only this part. Last, an engine's start over a big
 * catalog beside minisearch's bare build (engine-start.ts; 100k tools, quick 10k).
 * Measures the BM25F index, its cache and the ranking alone on purpose: imports src/search/, src/dispatch/rank-request.ts directly.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadSqlite } from "../../src/search/backends/sqlite-loader.js";
import { ToolIndexCache } from "../../src/search/storage/index-cache.js";
import { bm25fBackend, minisearchBackend, type SearchBackendFactory, type SearchDoc } from "../../src/index.js";
import { ToolIndex } from "../../src/search/tool-index.js";
import { loadRegistryTools, loadSealQueries, loadSealTools, repoRoot, sharedDataDir } from "../lib/shared-data.js";
import { memoryBm25 } from "../lib/memory-bm25.js";
import type { IntentOptions } from "../../src/search/ranking/intents.js";
import { rankRequest, type RunScope } from "../../src/dispatch/rank-request.js";
import { indexScope } from "../lib/rank-over-index.js";
import { fts5Bm25Backend } from "../lib/fts5-bm25/backend.js";
import { MiB, collectGarbage, memory, percentile } from "../lib/stats.js";
import { makeQueries, scaleCatalog } from "./workload.js";
import { measureNaturalApi, naturalApiTable } from "./natural-api.js";
import { engineStartTable, measureEngineStart } from "./engine-start.js";

const QUICK = process.argv.includes("--quick");
const SIZES = QUICK ? [1_000, 10_000] : [1_000, 10_000, 100_000];
const ROUNDS = QUICK ? 3 : 5;
/**
 * The natural-language part times 700 requests per ranker, and two rankers (bm25(), minisearch)
 * take 10–16 ms each: at 3 rounds plus a full warm-up pass it alone took 88 s of a quiet 2-core
 * machine and pushed the quick suite past its limit on a busy CI runner. Quick runs time one
 * round after a short warm-up; its figures are shown in the summary, not gated.
 */
const NATURAL_ROUNDS = QUICK ? 1 : 5;
const NATURAL_WARMUP = QUICK ? 100 : Number.POSITIVE_INFINITY;
const LIMIT = 8;
/** Seal-Tools' tools, as its own file lists them (natural-api.ts copies them past it). */
const SEAL_TOOLS = 4_076;
/** Timed passes over the 700 requests through run.search (each beside the in-memory BM25). */
const NATURAL_API_ROUNDS = QUICK ? 2 : 3;
const FACTORIES: SearchBackendFactory[] = [bm25fBackend, minisearchBackend];

export interface SizeResult {
  backend: string;
  tools: number;
  buildMs: number;
  p50Ms: number;
  p99Ms: number;
  filteredP50Ms: number;
  filteredP99Ms: number;
  /** Growth of the JS heap, of memory outside it (ArrayBuffers, the SQLite WASM heap) and of RSS. */
  heapMiB: number;
  externalMiB: number;
  rssMiB: number;
  /** Size of serialize()'s snapshot: what a worker hands back, and a fair measure of index size. */
  snapshotMiB: number;
}

export interface CachedRunResult {
  backend: string;
  tools: number;
  /** ToolIndexCache.get on a cached catalog, passing the same docs array again (fingerprint memoised). */
  sameArrayMs: number;
  /** Same, with a fresh array of the same doc objects (per-doc digests memoised). */
  freshArrayMs: number;
  /** Same, with fresh doc objects (every doc hashed again). */
  freshDocsMs: number;
  /** Building the run's allowed-id set (every tool allowed but one toolset). */
  allowedSetMs: number;
}

export interface NaturalResult {
  ranker: string;
  tools: number;
  queries: number;
  p50Ms: number;
  p99Ms: number;
  /**
   * The same from process CPU time: on a shared machine wall-clock tails are mostly time spent
   * preempted by other processes; CPU time keeps the query's own work (GC included).
   */
  cpuP50Ms: number;
  cpuP99Ms: number;
  /** p50 over the in-memory BM25's p50. */
  p50VsMemoryBm25: number;
}

type Ranker = { name: string; search: (q: string) => unknown; close?: () => void };

function timeRanker(ranker: Ranker, queries: readonly string[]): { wall: number[]; cpu: number[] } {
  for (const q of queries.slice(0, NATURAL_WARMUP)) ranker.search(q); // warm up
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let r = 0; r < NATURAL_ROUNDS; r++) {
    for (const q of queries) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      ranker.search(q);
      wall.push(performance.now() - t0);
      const c = process.cpuUsage(c0);
      cpu.push((c.user + c.system) / 1000);
    }
  }
  return { wall, cpu };
}

/** Seal-Tools dev requests against each backend (through rankRequest, as a run ranks them) and the in-memory BM25. */
async function measureNatural(dataDir: string): Promise<NaturalResult[]> {
  const docs = loadSealTools(dataDir);
  const queries = loadSealQueries(dataDir, "dev").map((q) => q.query);
  // "bm25f −clauses" ranks each request as one list: beside "bm25f" it shows what clause
  // fusion (src/search/intents.ts) costs on requests of several sentences.
  const factories: Array<[string, SearchBackendFactory, IntentOptions?]> = [
    ["bm25f", bm25fBackend],
    ["bm25f −clauses", bm25fBackend, { clauses: false }],
    ["FTS5 bm25()", fts5Bm25Backend],
    ["minisearch", minisearchBackend],
  ];
  // One ranker alive at a time, after a full GC: another index's garbage must not land in its timings.
  const makers: Array<() => Promise<Ranker>> = [
    async () => {
      const baseline = memoryBm25(docs);
      return { name: "memory-bm25", search: (q) => baseline.search(q, LIMIT) };
    },
    ...factories.map(([name, factory, intents]) => async (): Promise<Ranker> => {
      const index = await ToolIndex.build(() => factory.create(), docs);
      const scope = indexScope(index, intents ? { intents } : {});
      return { name, search: (q) => rankRequest(q, LIMIT, scope), close: () => index.close() };
    }),
  ];
  const rows: NaturalResult[] = [];
  for (const make of makers) {
    const r = await make();
    collectGarbage();
    const { wall, cpu } = timeRanker(r, queries);
    r.close?.();
    rows.push({
      ranker: r.name,
      tools: docs.length,
      queries: queries.length,
      p50Ms: percentile(wall, 50),
      p99Ms: percentile(wall, 99),
      cpuP50Ms: percentile(cpu, 50),
      cpuP99Ms: percentile(cpu, 99),
      p50VsMemoryBm25: 0,
    });
  }
  const base = rows[0]!.p50Ms;
  for (const row of rows) row.p50VsMemoryBm25 = row.p50Ms / base;
  return rows;
}

function naturalTable(rows: readonly NaturalResult[]): string {
  const lines = rows.map(
    (r) =>
      `  ${r.ranker.padEnd(14)} p50 ${r.p50Ms.toFixed(3).padStart(7)} ms   p99 ${r.p99Ms.toFixed(3).padStart(7)} ms   cpu p50 ${r.cpuP50Ms.toFixed(3).padStart(7)} ms   cpu p99 ${r.cpuP99Ms.toFixed(3).padStart(7)} ms   p50 ${r.p50VsMemoryBm25.toFixed(2)}× memory-bm25`,
  );
  return [
    `natural-language queries (Seal-Tools dev, ${rows[0]?.queries ?? 0} requests × ${NATURAL_ROUNDS} rounds) at ${rows[0]?.tools ?? 0} tools:`,
    ...lines,
  ].join("\n");
}

/** Each query ranked as a run ranks it (rankRequest), `ROUNDS` times after a warm-up pass. */
function timeQueries(scope: RunScope, queries: readonly string[]): number[] {
  for (const q of queries) rankRequest(q, LIMIT, scope); // warm up
  const samples: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    for (const q of queries) {
      const t0 = performance.now();
      rankRequest(q, LIMIT, scope);
      samples.push(performance.now() - t0);
    }
  }
  return samples;
}

async function measureSize(factory: SearchBackendFactory, docs: SearchDoc[], queries: readonly string[]): Promise<SizeResult> {
  await loadSqlite(); // the WASM module itself is not the index: load it before the baseline
  const before = memory();
  const t0 = performance.now();
  const index = await ToolIndex.build(() => factory.create(), docs);
  const buildMs = performance.now() - t0;
  const after = memory();
  // Every tool admitted, as a run whose policy denies nothing (its allowed set holds every id).
  const plain = timeQueries(indexScope(index), queries);
  // A run's policy admits every other tool: the backend must dig past filtered hits.
  const allowed = new Set(docs.filter((_, i) => i % 2 === 0).map((d) => d.id));
  const filtered = timeQueries(indexScope(index, { allowed }), queries);
  const snapshotMiB = ((await index.backend.serialize?.())?.byteLength ?? Number.NaN) / MiB;
  index.close();
  return {
    backend: factory.kind,
    tools: docs.length,
    buildMs,
    p50Ms: percentile(plain, 50),
    p99Ms: percentile(plain, 99),
    filteredP50Ms: percentile(filtered, 50),
    filteredP99Ms: percentile(filtered, 99),
    heapMiB: (after.heapUsed - before.heapUsed) / MiB,
    externalMiB: (after.external - before.external) / MiB,
    rssMiB: (after.rss - before.rss) / MiB,
    snapshotMiB,
  };
}

/**
 * Each backend × size runs in a fresh process: memory deltas then belong to that index alone
 * (the WASM heap never shrinks, and one index's garbage would blur the next one's numbers).
 */
function measureInChild(kind: string, n: number): SizeResult {
  const self = fileURLToPath(import.meta.url);
  const args = [self, "--one", kind, String(n), ...(QUICK ? ["--quick"] : [])];
  const out = execFileSync(process.execPath, args, { encoding: "utf8", maxBuffer: 1 << 20, stdio: ["ignore", "pipe", "inherit"] });
  return JSON.parse(out.trim().split("\n").pop() ?? "") as SizeResult;
}

async function measureCachedRun(factory: SearchBackendFactory, docs: SearchDoc[]): Promise<CachedRunResult> {
  const cache = new ToolIndexCache();
  try {
    await cache.get(docs, factory, { workerThreshold: Number.POSITIVE_INFINITY });
    const time = async (catalog: () => readonly SearchDoc[]): Promise<number> => {
      const samples: number[] = [];
      for (let i = 0; i < 20; i++) {
        const input = catalog();
        const t0 = performance.now();
        await cache.get(input, factory);
        samples.push(performance.now() - t0);
        if (cache.lastBuild?.via !== "cache") throw new Error("bench: expected a cache hit");
      }
      return percentile(samples, 50);
    };
    const allowedSamples: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now();
      const allowed = new Set<string>();
      for (const d of docs) if (d.toolset !== "@denied/toolset") allowed.add(d.id);
      allowedSamples.push(performance.now() - t0);
    }
    return {
      backend: factory.kind,
      tools: docs.length,
      sameArrayMs: await time(() => docs),
      freshArrayMs: await time(() => [...docs]),
      freshDocsMs: await time(() => docs.map((d) => ({ ...d }))),
      allowedSetMs: percentile(allowedSamples, 50),
    };
  } finally {
    await cache.close();
  }
}

function table(rows: readonly SizeResult[]): string {
  const head = "backend     tools     build ms   p50 ms   p99 ms   filt p50  filt p99   heap MiB  ext MiB  rss MiB  snap MiB";
  const f = (x: number, w: number, d = 2): string => x.toFixed(d).padStart(w);
  const lines = rows.map(
    (r) =>
      `${r.backend.padEnd(10)} ${String(r.tools).padStart(6)} ${f(r.buildMs, 11, 0)} ${f(r.p50Ms, 8, 3)} ${f(r.p99Ms, 8, 3)} ${f(r.filteredP50Ms, 9, 3)} ${f(r.filteredP99Ms, 9, 3)} ${f(r.heapMiB, 10, 1)} ${f(r.externalMiB, 8, 1)} ${f(r.rssMiB, 8, 1)} ${f(r.snapshotMiB, 9, 1)}`,
  );
  return [head, ...lines].join("\n");
}

async function main(): Promise<void> {
  const dataDir = sharedDataDir();
  if (dataDir === undefined) {
    console.error("bench/search: ../shared/data (toolsdk-registry) not found; set TOOLSEARCH_DATA");
    process.exitCode = 1;
    return;
  }
  if (process.argv.includes("--natural")) {
    console.log(naturalTable(await measureNatural(dataDir)));
    console.log(`\n${naturalApiTable(await measureNaturalApi(dataDir, { tools: SEAL_TOOLS, limits: [8, 5], rounds: NATURAL_API_ROUNDS }))}`);
    return;
  }
  const base = loadRegistryTools(dataDir);
  const queries = makeQueries(base);
  const one = process.argv.indexOf("--one");
  if (one !== -1) {
    const factory = FACTORIES.find((f) => f.kind === process.argv[one + 1]);
    if (factory === undefined) throw new Error(`bench: unknown backend ${process.argv[one + 1]}`);
    const r = await measureSize(factory, scaleCatalog(base, Number(process.argv[one + 2])), queries);
    process.stdout.write(`${JSON.stringify(r)}\n`);
    return;
  }
  console.log(`search bench: ${base.length} registry tools, ${queries.length} queries × ${ROUNDS} rounds, limit ${LIMIT}${QUICK ? " (quick)" : ""}`);
  const sizes: SizeResult[] = [];
  for (const n of SIZES) {
    for (const factory of FACTORIES) {
      const r = measureInChild(factory.kind, n);
      sizes.push(r);
      console.log(table([r]).split("\n")[1]);
    }
  }
  const cachedDocs = scaleCatalog(base, 10_000);
  const cached: CachedRunResult[] = [];
  for (const factory of FACTORIES) cached.push(await measureCachedRun(factory, cachedDocs));

  console.log(`\n${table(sizes)}\n`);
  console.log("run preparation over a cached 10k catalog, p50 ms (ToolIndexCache.get when the catalog is passed as ...):");
  for (const c of cached) {
    console.log(
      `  ${c.backend.padEnd(10)} same array ${c.sameArrayMs.toFixed(3)}   new array, same docs ${c.freshArrayMs.toFixed(3)}   new doc objects ${c.freshDocsMs.toFixed(3)}   + allowed set ${c.allowedSetMs.toFixed(3)}`,
    );
  }
  const natural = await measureNatural(dataDir);
  // Through the public API (createToolSearch, learning on, run.search), and at 100k tools in full runs.
  const naturalApi = await measureNaturalApi(dataDir, { tools: SEAL_TOOLS, limits: [8, 5], rounds: NATURAL_API_ROUNDS });
  if (!QUICK) naturalApi.push(...(await measureNaturalApi(dataDir, { tools: 100_000, limits: [8], rounds: 1, stride: 7 })));
  console.log(`\n${naturalApiTable(naturalApi)}`);
  // The engine's start over a big catalog beside minisearch's bare build, in fresh processes.
  const engineStart = [measureEngineStart({ tools: QUICK ? 10_000 : 100_000, rounds: QUICK ? 2 : 3 })];
  console.log(`\n${engineStart.map(engineStartTable).join("\n")}`);
  console.log(`\n${naturalTable(natural)}`);
  const out = path.join(repoRoot(), "bench/results/search.json");
  mkdirSync(path.dirname(out), { recursive: true });
  const result = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: (await import("node:os")).cpus().length,
    quick: QUICK,
    queries: queries.length,
    rounds: ROUNDS,
    limit: LIMIT,
    sizes,
    cachedRun: cached,
    natural,
    naturalApi,
    engineStart,
  };
  writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`\nwrote ${path.relative(process.cwd(), out)}`);
}

await main();
