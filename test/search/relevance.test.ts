/**
 * Relevance on Seal-Tools (4,076 tools, 700 labelled dev queries), for each backend through
 * the engine's ranking of a request (rankRequest over its ToolIndex: bench/lib/rank-over-index.ts),
 * against the plain BM25 baseline (name + server + description + parameter names,
 * bench/lib/baseline-bm25.ts); on LiveMCPBench's 527 real MCP tools with 80 requests as people
 * type them, and on MetaTool's 199 plugins with its 4,214 validate requests (the default backend). Floors sit a
 * little below the measured figures (printed on every run, and by
 * `npm run bench -- --only relevance`) so a regression in the analyzer, the BM25F weights or
 * the thesaurus fails here. Needs the shared data; skipped with a reason when it is absent.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { plainBm25 } from "../../bench/lib/baseline-bm25.js";
import { indexScope, rankIds } from "../../bench/lib/rank-over-index.js";
import { evaluate, formatReport } from "../../bench/lib/relevance.js";
import type { JudgedQuery, RelevanceReport } from "../../bench/lib/relevance.js";
import {
  loadLiveMcpQueries,
  loadLiveMcpTools,
  loadMetaToolQueries,
  loadMetaToolTools,
  loadSealQueries,
  loadSealTools,
  sharedDataDir,
} from "../../bench/lib/shared-data.js";
import { bm25fBackend } from "../../src/search/backends/bm25f-backend.js";
import { minisearchBackend } from "../../src/search/backends/minisearch-backend.js";
import { ToolIndex } from "../../src/search/tool-index.js";
import type { SearchBackendFactory, SearchDoc } from "../../src/search/types.js";

/** 700 queries × 3 rankers take ~15 s on a quiet 2-core machine; leave room for a busy one. */
const SLOW = 180_000;
const dataDir = sharedDataDir();
if (dataDir === undefined) console.warn("relevance: ../shared/data not found; Seal-Tools relevance tests skipped");

/**
 * Measured on dev with clause fusion (bm25f R@5 0.923 R@10 0.960 MRR 0.981 top-1 0.970;
 * minisearch 0.913 0.951 0.972 0.954). The bm25f floors of R@5 and top-1 are the targets set
 * for this set (R@5 ≥ 0.92, top-1 ≥ 0.97).
 */
const FLOORS: Record<string, Pick<RelevanceReport, "recallAt5" | "recallAt10" | "mrr" | "top1">> = {
  bm25f: { recallAt5: 0.92, recallAt10: 0.95, mrr: 0.975, top1: 0.97 },
  minisearch: { recallAt5: 0.905, recallAt10: 0.945, mrr: 0.968, top1: 0.95 },
};

/**
 * Seal-Tools dev's 500 requests that need several tools, bm25f backend: measured R@5 0.902
 * R@10 0.948 with clause fusion, 0.857 / 0.917 without (src/search/intents.ts).
 */
const MULTI_STEP_FLOOR = { recallAt5: 0.895, recallAt10: 0.94, gainAt5: 0.03 };

describe.skipIf(dataDir === undefined)("relevance on Seal-Tools dev", () => {
  let docs: SearchDoc[];
  let queries: JudgedQuery[];
  let baseline: RelevanceReport;

  beforeAll(() => {
    docs = loadSealTools(dataDir!);
    queries = loadSealQueries(dataDir!, "dev");
    const bm25 = plainBm25(docs);
    baseline = evaluate(queries, (q) => bm25.search(q, 10));
    console.log(formatReport("baseline (plain BM25)", baseline));
  }, SLOW);

  it("has the data it expects", () => {
    expect(docs.length).toBe(4076);
    expect(queries.length).toBe(700);
  });

  // The default must beat plain BM25 (which indexes parameter names too: 0.936 top-1 here);
  // minisearch, kept as a baseline backend, need only hold its floors.
  const noBar = { recallAt5: Number.NEGATIVE_INFINITY, top1: Number.NEGATIVE_INFINITY };
  for (const [factory, beatsBaseline] of [
    [bm25fBackend, true],
    [minisearchBackend, false],
  ] as Array<[SearchBackendFactory, boolean]>) {
    // Slow on purpose (15 s to 30 s): 700 requests through the engine's whole ranking of a 4,076-tool index.
    it(
      `${factory.kind}: stays above its floors${beatsBaseline ? " and beats plain BM25" : ""}`,
      async () => {
        const index = await ToolIndex.build(() => factory.create(), docs);
        try {
          const report = evaluate(queries, rankIds(indexScope(index), 10));
          console.log(formatReport(factory.kind, report));
          const floor = FLOORS[factory.kind]!;
          expect(report.recallAt5).toBeGreaterThanOrEqual(floor.recallAt5);
          expect(report.recallAt10).toBeGreaterThanOrEqual(floor.recallAt10);
          expect(report.mrr).toBeGreaterThanOrEqual(floor.mrr);
          expect(report.top1).toBeGreaterThanOrEqual(floor.top1);
          const bar = beatsBaseline ? baseline : noBar;
          expect(report.recallAt5).toBeGreaterThan(bar.recallAt5);
          expect(report.top1).toBeGreaterThan(bar.top1);
        } finally {
          index.close();
        }
      },
      SLOW,
    );
  }
});

describe.skipIf(dataDir === undefined)("relevance on Seal-Tools dev's multi-step requests", () => {
  it(
    "bm25f: clause fusion finds more of each task's tools than one ranked list",
    async () => {
      const index = await ToolIndex.build(() => bm25fBackend.create(), loadSealTools(dataDir!));
      try {
        const multi = loadSealQueries(dataDir!, "dev").filter((q) => q.relevant.length > 1);
        const fused = evaluate(multi, rankIds(indexScope(index), 10));
        const single = evaluate(multi, rankIds(indexScope(index, { intents: { clauses: false } }), 10));
        console.log(formatReport("bm25f, clause fusion", fused));
        console.log(formatReport("bm25f, one list", single));
        expect(multi.length).toBe(500);
        expect(fused.recallAt5).toBeGreaterThanOrEqual(MULTI_STEP_FLOOR.recallAt5);
        expect(fused.recallAt10).toBeGreaterThanOrEqual(MULTI_STEP_FLOOR.recallAt10);
        expect(fused.recallAt5).toBeGreaterThanOrEqual(single.recallAt5 + MULTI_STEP_FLOOR.gainAt5);
      } finally {
        index.close();
      }
    },
    SLOW,
  );
});

/**
 * Measured with bm25f: all 80 top-1 0.8625 top-5 0.975; the 20 held out top-1 0.90 top-5 1.0.
 * The floors of all 80 are the targets set for them (top-1 ≥ 0.85, top-5 ≥ 0.97).
 */
const LIVE_FLOORS = { all: { top1: 0.85, top5: 0.97 }, heldOut: { top1: 0.85, top5: 0.95 } };

describe.skipIf(dataDir === undefined)("relevance on LiveMCPBench written requests", () => {
  it(
    "bm25f: finds the tool people ask for, also on the held-out requests",
    async () => {
      const index = await ToolIndex.build(() => bm25fBackend.create(), loadLiveMcpTools(dataDir!));
      try {
        const rank = rankIds(indexScope(index), 10);
        const run = (queries: JudgedQuery[]) => evaluate(queries, rank);
        const all = run(loadLiveMcpQueries(dataDir!, "all"));
        const heldOut = run(loadLiveMcpQueries(dataDir!, "held-out"));
        console.log(formatReport("bm25f, all 80", all));
        console.log(formatReport("bm25f, 20 held out", heldOut));
        expect(all.queries).toBe(80);
        expect(all.top1).toBeGreaterThanOrEqual(LIVE_FLOORS.all.top1);
        expect(all.top5).toBeGreaterThanOrEqual(LIVE_FLOORS.all.top5);
        expect(heldOut.top1).toBeGreaterThanOrEqual(LIVE_FLOORS.heldOut.top1);
        expect(heldOut.top5).toBeGreaterThanOrEqual(LIVE_FLOORS.heldOut.top5);
      } finally {
        index.close();
      }
    },
    SLOW,
  );
});

/**
 * MetaTool validate (199 plugins, one line each; requests share few words with them): measured
 * with bm25f top-1 0.451 top-5 0.662, plain BM25 0.298 / 0.472. Tuning looked at `tune` only.
 */
const METATOOL_FLOOR = { top1: 0.44, top5: 0.65 };

describe.skipIf(dataDir === undefined)("relevance on MetaTool validate", () => {
  it(
    "bm25f: beats plain BM25 on requests worded unlike the descriptions",
    async () => {
      const docs = loadMetaToolTools(dataDir!);
      const queries = loadMetaToolQueries(dataDir!, "validate");
      const index = await ToolIndex.build(() => bm25fBackend.create(), docs);
      try {
        const bm25 = plainBm25(docs);
        const base = evaluate(queries, (q) => bm25.search(q, 10));
        const ours = evaluate(queries, rankIds(indexScope(index), 10));
        console.log(formatReport("plain BM25, validate", base));
        console.log(formatReport("bm25f, validate", ours));
        expect(docs.length).toBe(199);
        expect(queries.length).toBe(4214);
        expect(ours.top1).toBeGreaterThanOrEqual(METATOOL_FLOOR.top1);
        expect(ours.top5).toBeGreaterThanOrEqual(METATOOL_FLOOR.top5);
        expect(ours.top1).toBeGreaterThan(base.top1);
      } finally {
        index.close();
      }
    },
    SLOW,
  );
});
