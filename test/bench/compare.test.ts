/**
 * `npm run bench -- --compare FILE` on synthetic results files: which changes fail a run and
 * which pass, and the shape of the formats `--format` writes. No benchmark runs here.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { compareFigures, compareResults, comparisonText, judge } from "../../bench/compare/compare.js";
import { FIGURE_KINDS, figuresOf, type Figure } from "../../bench/compare/figures.js";
import { actionBenchmark, markdownTable, writeFormats } from "../../bench/compare/formats.js";
import { THRESHOLDS } from "../../bench/compare/thresholds.js";
import type { BenchResults } from "../../bench/harness/results.js";
import { benchMain, parseArgs } from "../../bench/main.js";

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** A results file with a figure or more of every kind; `tweak` edits a deep copy. */
function synthetic(tweak: (r: Mutable<BenchResults> & { suites: Required<BenchResults["suites"]> }) => void = () => {}): BenchResults {
  const mode = (requested: string, firstRequestBytes: number, turnBytes: number) => ({
    requested,
    mode: requested,
    declaredTools: 100,
    upfrontSchemas: requested === "direct" ? 100 : 0,
    toolsBytes: firstRequestBytes - 200,
    instructionsBytes: 100,
    firstRequestBytes,
    firstRequestTokens: Math.round(firstRequestBytes / 4),
    turnBytes,
    turnTokens: Math.round(turnBytes / 4),
    roundTrips: 2,
    finalTool: "plugin:acme:crm_create_contact",
    firstRequestRatio: 1,
    turnRatio: 1,
    ms: 123.4, // raw milliseconds: never a figure
  });
  const metrics = (r5: number, queryMs: number) => ({
    queries: 70,
    recallAt1: r5 / 2,
    recallAt5: r5,
    recallAt10: r5 + 0.05,
    mrr: r5 + 0.1,
    ndcgAt10: r5 - 0.02,
    top1: r5 / 1.5,
    queryMs,
  });
  const ratios = { recallAt1: 1, recallAt5: 1, recallAt10: 1, mrr: 1, ndcgAt10: 1 };
  const floodPhase = (loopP99Ms: number, runP99Ms: number) => ({
    window: window(loopP99Ms),
    runMs: { n: 1, min: 1, p50: 1, p90: 1, p99: runP99Ms, max: runP99Ms, mean: 1 },
    runs: runP99Ms > 0 ? 10 : 0,
    cpuMs: 100,
    catalogTools: 2000,
  });
  const window = (loopP99Ms: number) => ({
    wallMs: 1000,
    loopMaxMs: loopP99Ms * 2,
    loopP99Ms,
    healthzMaxMs: 5,
    healthzP99Ms: 4,
    healthzN: 100,
    healthzErrors: 0,
  });
  const results = {
    schema: 1,
    name: "quick",
    quick: true,
    command: "vitest",
    date: "2026-11-30T00:00:00.000Z",
    durationMs: 60_000,
    toolsearch: { version: "0.1.0", commit: "0123456789abcdef" },
    machine: { cpuModel: "AMD EPYC", cores: 2, memoryGiB: 23.5, platform: "linux", arch: "x64", osRelease: "", node: "v20.20.2", v8: "" },
    load: { before: 1, after: 1 },
    suites: {
      payload: {
        status: "ok",
        ms: 1,
        result: {
          tokenizer: { package: "gpt-tokenizer", version: "4.0.0", encoding: "o200k_base" },
          catalogs: [
            {
              catalog: "synthetic-100",
              kind: "synthetic",
              tools: 100,
              request: "r",
              expectedTool: "t",
              modes: [mode("direct", 72_000, 145_000), mode("code", 1_200, 3_400)],
            },
          ],
          crossover: { searched: [1, 100], byMode: [{ mode: "code", turnBytes: 2, firstRequestBytes: 2 }] },
          curve: [],
          problems: [],
        },
      },
      "code-mode": {
        status: "ok",
        ms: 1,
        result: {
          command: "node dist/bench/code-mode/main.js --quick",
          ms: 1,
          output: {
            date: "",
            quick: true,
            layers: {},
            spawnToReadyMs: { p50: 70, p99: 90, n: 8 },
            bareSpawnMs: { p50: 64, p99: 80, n: 8 },
            warmSearchDescribeCallMs: { p50: 3.5, p99: 7, n: 25 },
            spawnPerCallMs: { p50: 85, p99: 97, n: 8 },
            throughput: [],
          },
          ratios: [
            {
              size: 2,
              poolVsFloor: 0.9,
              noPreforkVsFloor: 0.85,
              poolVsNoPrefork: 1.05,
              poolVsFloorRange: [0.8, 1.0],
              rounds: 6,
              parentVsChildCpu: 0.05,
              parentVsChildCpuRange: [0.04, 0.07],
            },
          ],
          missingSizes: [],
        },
      },
      search: {
        status: "ok",
        ms: 1,
        result: {
          command: "node dist/bench/search/main.js --quick",
          ms: 1,
          output: {
            date: "",
            quick: true,
            queries: 100,
            rounds: 3,
            limit: 8,
            sizes: [
              {
                backend: "bm25f",
                tools: 1000,
                buildMs: 200,
                p50Ms: 0.4,
                p99Ms: 2,
                filteredP50Ms: 0.4,
                filteredP99Ms: 1,
                heapMiB: 1,
                externalMiB: 0,
                rssMiB: 20,
                snapshotMiB: 0.5,
              },
              {
                backend: "minisearch",
                tools: 1000,
                buildMs: 300,
                p50Ms: 0.12,
                p99Ms: 1,
                filteredP50Ms: 0.1,
                filteredP99Ms: 3,
                heapMiB: 4,
                externalMiB: 0,
                rssMiB: 15,
                snapshotMiB: 0.4,
              },
            ],
            cachedRun: [],
          },
          bm25fVsMinisearch: [],
          cachedVsBuild: [],
          p50Ratios: [{ tools: 1000, backend: "bm25f", baseline: "minisearch", value: 3.3, range: [2.9, 3.6], repeats: 5 }],
        },
      },
      relevance: {
        status: "ok",
        ms: 1,
        result: {
          dataset: "seal-tools",
          tools: 4076,
          indexMs: { "plain-bm25": 100, bm25f: 300 },
          splits: [
            {
              split: "dev",
              totalQueries: 700,
              sampled: 70,
              rankers: [
                { ranker: "plain-bm25", kind: "baseline", metrics: metrics(0.6, 18), vsBaseline: ratios },
                { ranker: "bm25f", kind: "backend", metrics: metrics(0.86, 5), vsBaseline: ratios },
              ],
            },
          ],
        },
      },
      gateway: {
        status: "ok",
        ms: 1,
        result: {
          catalogTools: 1000,
          requests: [],
          pool: { prefork: 2, maxQueue: 256 },
          runs: (["direct", "tools"] as const).map((m) => ({
            mode: m,
            effectiveMode: m,
            sessions: 1,
            turns: 30,
            failed: 0,
            wallMs: 1000,
            turnsPerSecond: m === "direct" ? 18 : 60,
            latency: { n: 30, min: 1, p50: 50, p90: 60, p99: 80, max: 80, mean: 50 },
            providerMsPerTurn: 30,
            gatewayMsPerTurn: 20,
            throughputRatio: m === "direct" ? 1 : 3.3,
            p50Ratio: 1,
            cpuMsPerTurn: m === "direct" ? 40 : 10,
            ...(m === "tools" ? { throughputRatioRange: [3.0, 3.7], rounds: 5, cpuRatio: 0.25, cpuRatioRange: [0.2, 0.3] } : {}),
          })),
        },
      },
      stall: {
        status: "ok",
        ms: 1,
        result: {
          catalogTools: 1000,
          targets: {},
          settings: { windowMs: 1000, stepDeadlineMs: 500, maxIterations: 200 },
          goals: { maxStallMs: 50, heapGrowthMB: 40, heapGrowthRuns: 10_000 },
          sandbox: { available: true },
          idle: window(4),
          kinds: [
            {
              kind: "unique-items",
              what: "",
              unit: "items",
              target: 5000,
              size: 5000,
              capped: false,
              ramp: [],
              iterations: 50,
              iterationMs: { n: 1, min: 1, p50: 1, p90: 1, p99: 1, max: 1, mean: 1 },
              outcomes: { ok: 50 },
              window: window(40),
            },
          ],
          memory: {
            runs: 1000,
            heapBeforeMB: 58,
            heapAfterMB: 61,
            growthMB: 3,
            perRunKB: 3,
            curve: [],
            runMs: { n: 1, min: 1, p50: 1, p90: 1, p99: 1, max: 1, mean: 1 },
            outcomes: {},
            failed: 0,
          },
          flood: {
            tools: 2000,
            intervalMs: 50,
            windowMs: 1000,
            quiet: floodPhase(4, 10),
            floodIdle: floodPhase(8, 0),
            flood: floodPhase(24, 20),
            window: window(24),
          },
        },
      },
    },
  };
  const copy = JSON.parse(JSON.stringify(results)) as Mutable<BenchResults> & { suites: Required<BenchResults["suites"]> };
  tweak(copy);
  return copy;
}

/** The result of a suite in a synthetic file, typed loosely for tweaks. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const ok = (outcome: unknown): any => (outcome as { result: unknown }).result;

const byName = (figures: readonly Figure[], name: string): Figure => {
  const f = figures.find((x) => x.name === name);
  if (!f) throw new Error(`no figure ${name}; have ${figures.map((x) => x.name).join(", ")}`);
  return f;
};

describe("figures of a results file", () => {
  it("names every figure, gives it a kind, and takes timing only as same-run ratios", () => {
    const figures = figuresOf(synthetic());
    const names = figures.map((f) => f.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(
      expect.arrayContaining([
        "payload/synthetic-100/code/first-request-bytes",
        "payload/synthetic-100/direct/turn-tokens",
        "payload/synthetic-100/code/round-trips",
        "payload/crossover/code/turn-bytes-from-tools",
        "code-mode/pool-2/bodies-per-s÷bare-spawn-floor",
        "search/1000/bm25f÷minisearch/query-p50",
        "search/1000/bm25f/snapshot-bytes",
        "relevance/dev@70/bm25f/recallAt5",
        "relevance/dev@70/plain-bm25/ndcgAt10",
        "gateway/tools/1-session/turns-per-s÷direct",
        "gateway/tools/1-session/cpu-per-turn÷direct",
        "stall/unique-items/loop-p99÷idle",
        "stall/unique-items/request-p50÷ordinary-run-p50",
        "stall/memory/heap-growth-1000-runs",
        "stall/mcp-flood/run-p99÷quiet",
        "stall/mcp-flood/loop-p99÷idle",
      ]),
    );
    for (const f of figures) {
      expect(FIGURE_KINDS).toContain(f.kind);
      expect(Number.isFinite(f.value)).toBe(true);
      // No raw milliseconds: every timing figure is a ratio.
      expect(f.unit).not.toBe("ms");
    }
    const ratioUnits = figures.filter((f) => f.kind.startsWith("ratio-")).map((f) => f.unit);
    expect(ratioUnits.length).toBeGreaterThan(0);
    expect(new Set(ratioUnits)).toEqual(new Set(["ratio"]));
    // The repeated ratios carry their median and range.
    const search = byName(figures, "search/1000/bm25f÷minisearch/query-p50");
    expect(search).toMatchObject({ value: 3.3, range: [2.9, 3.6], repeats: 5, better: "smaller" });
    expect(byName(figures, "gateway/tools/1-session/turns-per-s÷direct")).toMatchObject({ value: 3.3, range: [3.0, 3.7], better: "bigger" });
    expect(byName(figures, "gateway/tools/1-session/cpu-per-turn÷direct")).toMatchObject({
      value: 0.25,
      range: [0.2, 0.3],
      better: "smaller",
      kind: "ratio-gateway-cpu",
    });
    expect(byName(figures, "stall/unique-items/loop-p99÷idle").value).toBe(10);
    expect(byName(figures, "stall/mcp-flood/loop-p99÷idle")).toMatchObject({ value: 6, kind: "ratio-stall", better: "smaller" });
    expect(byName(figures, "code-mode/pool-2/parent-cpu-per-body÷child-cpu-per-body")).toMatchObject({
      value: 0.05,
      range: [0.04, 0.07],
      better: "smaller",
      kind: "ratio-code-mode-cpu",
    });
    // Direct mode is every ratio's denominator, never a figure of its own.
    expect(names.some((n) => n.startsWith("gateway/direct/"))).toBe(false);
  });

  it("reads an older or partial file without throwing (skipped and failed suites, absent fields)", () => {
    const r = synthetic((s) => {
      s.suites.relevance = { status: "skipped", reason: "no data" } as never;
      s.suites.gateway = { status: "failed", ms: 1, error: "boom" } as never;
      delete ok(s.suites["code-mode"]).output.spawnPerCallMs;
      delete ok(s.suites.search).p50Ratios;
    });
    const figures = figuresOf(r);
    expect(figures.some((f) => f.suite === "relevance" || f.suite === "gateway")).toBe(false);
    // Without repeats the ratio comes from the one pair of the run.
    expect(byName(figures, "search/1000/bm25f÷minisearch/query-p50").value).toBeCloseTo(0.4 / 0.12, 6);
  });
});

describe("--compare verdicts", () => {
  const baseline = synthetic();

  it("passes an identical run", () => {
    const c = compareResults(baseline, synthetic());
    expect(c.regressed).toEqual([]);
    expect(c.rows.every((r) => r.verdict === "same")).toBe(true);
    expect(c.notes).toEqual([]);
  });

  it("fails a 2× latency-ratio regression, naming the figure", () => {
    const now = synthetic((s) => {
      ok(s.suites.search).p50Ratios[0].value = 6.6; // bm25f query p50 twice minisearch's, relative to before
    });
    const c = compareResults(baseline, now);
    expect(c.regressed.map((r) => r.name)).toEqual(["search/1000/bm25f÷minisearch/query-p50"]);
    const text = comparisonText(c, { baseline: "base.json", now: "this run" });
    expect(text).toContain("FAIL search/1000/bm25f÷minisearch/query-p50 regressed: 3.300× → 6.600×");
    expect(text).toMatch(/REGRESSED +search\/1000\/bm25f÷minisearch\/query-p50 +3\.300× → 6\.600×/);
  });

  it("fails a doubled CPU-per-turn ratio and a halved bigger-is-better ratio (pool vs floor)", () => {
    const now = synthetic((s) => {
      ok(s.suites.gateway).runs[1].cpuRatio = 0.5;
      ok(s.suites["code-mode"]).ratios[0].poolVsFloor = 0.45;
    });
    expect(
      compareResults(baseline, now)
        .regressed.map((r) => r.name)
        .sort(),
    ).toEqual(["code-mode/pool-2/bodies-per-s÷bare-spawn-floor", "gateway/tools/1-session/cpu-per-turn÷direct"]);
  });

  it("fails the parent's CPU share per body when it grows 2× (the parent forking every child again)", () => {
    const now = synthetic((s) => {
      ok(s.suites["code-mode"]).ratios[0].parentVsChildCpu = 0.1;
    });
    expect(compareResults(baseline, now).regressed.map((r) => r.name)).toEqual(["code-mode/pool-2/parent-cpu-per-body÷child-cpu-per-body"]);
    const wobble = synthetic((s) => {
      ok(s.suites["code-mode"]).ratios[0].parentVsChildCpu = 0.05 * 1.1;
    });
    expect(compareResults(baseline, wobble).regressed).toEqual([]);
  });

  it("passes a 10% wobble of every timing ratio, either way", () => {
    for (const factor of [1.1, 1 / 1.1]) {
      const now = synthetic((s) => {
        ok(s.suites.search).p50Ratios[0].value *= factor;
        ok(s.suites["code-mode"]).ratios[0].poolVsFloor *= factor;
        ok(s.suites["code-mode"]).ratios[0].parentVsChildCpu *= factor;
        ok(s.suites.gateway).runs[1].throughputRatio *= factor;
        ok(s.suites.gateway).runs[1].cpuRatio *= factor;
        ok(s.suites.stall).kinds[0].window.loopP99Ms *= factor;
        ok(s.suites.stall).kinds[0].iterationMs.p50 *= factor;
        ok(s.suites.stall).flood.flood.runMs.p99 *= factor;
        ok(s.suites.stall).flood.flood.window.loopP99Ms *= factor;
      });
      const c = compareResults(baseline, now);
      expect(c.regressed).toEqual([]);
      const timing = c.rows.filter((r) => r.kind.startsWith("ratio-"));
      expect(timing.length).toBe(9);
      expect(timing.every((r) => r.verdict === "worse" || r.verdict === "better")).toBe(true);
    }
  });

  it("fails a relevance drop of 0.02 and passes a rise", () => {
    const drop = compareResults(
      baseline,
      synthetic((s) => void (ok(s.suites.relevance).splits[0].rankers[1].metrics.recallAt5 = 0.84)),
    );
    expect(drop.regressed.map((r) => r.name)).toEqual(["relevance/dev@70/bm25f/recallAt5"]);
    expect(drop.regressed[0]!.delta).toBeCloseTo(-0.02, 9);
    const rise = compareResults(
      baseline,
      synthetic((s) => void (ok(s.suites.relevance).splits[0].rankers[1].metrics.recallAt5 = 0.9)),
    );
    expect(rise.regressed).toEqual([]);
    expect(rise.rows.find((r) => r.name === "relevance/dev@70/bm25f/recallAt5")!.verdict).toBe("improved");
  });

  it("fails a byte-count change that sends more, and a token or round-trip increase", () => {
    const bytes = compareResults(
      baseline,
      synthetic((s) => void (ok(s.suites.payload).catalogs[0].modes[1].firstRequestBytes = 1_260)),
    );
    expect(bytes.regressed.map((r) => r.name)).toEqual(["payload/synthetic-100/code/first-request-bytes"]);
    const trips = compareResults(
      baseline,
      synthetic((s) => void (ok(s.suites.payload).catalogs[0].modes[1].roundTrips = 3)),
    );
    expect(trips.regressed.map((r) => r.name)).toEqual(["payload/synthetic-100/code/round-trips"]);
    // Sending fewer bytes is an improvement: reported, never failing.
    const fewer = compareResults(
      baseline,
      synthetic((s) => void (ok(s.suites.payload).catalogs[0].modes[0].turnBytes = 100_000)),
    );
    expect(fewer.regressed).toEqual([]);
    expect(fewer.rows.find((r) => r.name === "payload/synthetic-100/direct/turn-bytes")!.verdict).toBe("improved");
  });

  it("reports a figure with no baseline as new, and one this run lacks as missing; both pass", () => {
    const now = synthetic((s) => {
      const rel = ok(s.suites.relevance);
      rel.splits.push({ ...rel.splits[0], split: "test_in_domain" }); // a new set
      rel.splits[0].rankers[1].metrics.recallAt3 = 0.8; // a new metric
      ok(s.suites.payload).crossover.byMode = []; // figures gone
    });
    const c = compareResults(baseline, now);
    expect(c.regressed).toEqual([]);
    const fresh = c.rows.filter((r) => r.verdict === "new").map((r) => r.name);
    expect(fresh).toContain("relevance/dev@70/bm25f/recallAt3");
    expect(fresh).toContain("relevance/test_in_domain@70/bm25f/recallAt5");
    const added = c.rows.find((r) => r.name === "relevance/dev@70/bm25f/recallAt3")!;
    expect(added.now).toBe(0.8);
    expect(added.baseline).toBeUndefined();
    expect(c.rows.filter((r) => r.verdict === "missing").map((r) => r.name)).toEqual([
      "payload/crossover/code/turn-bytes-from-tools",
      "payload/crossover/code/first-request-bytes-from-tools",
    ]);
    const text = comparisonText(c, { baseline: "base.json", now: "this run" });
    expect(text).toMatch(/new +relevance\/dev@70\/bm25f\/recallAt3 +– → 0\.800/);
    expect(text).toContain("new (no baseline, pass)");
  });

  it("notes a quick run compared with a full one, or another machine", () => {
    const c = compareResults(
      synthetic((s) => void (s.quick = false)),
      synthetic((s) => void (s.machine = { ...s.machine, cores: 16 })),
    );
    expect(c.notes.join("\n")).toMatch(/full run and this one is quick/);
    expect(c.notes.join("\n")).toMatch(/16 cores/);
  });
});

describe("thresholds", () => {
  it("has one row per kind; timing margins pass 10% and fail 2×; deterministic ones are tight", () => {
    expect(Object.keys(THRESHOLDS).sort()).toEqual([...FIGURE_KINDS].sort());
    for (const kind of FIGURE_KINDS) {
      const t = THRESHOLDS[kind];
      expect(t.margin).toBeGreaterThanOrEqual(0);
      expect(t.why.length).toBeGreaterThan(10);
    }
    // Kinds whose measured spread is below 50% fail a 2× regression; the load-bound ones
    // (wall-clock gateway, large-index search, stall) fail only a gross one (a lost guard).
    const loadBound = ["ratio-gateway", "ratio-search-large", "ratio-stall-request", "ratio-stall"];
    const ratioKinds = FIGURE_KINDS.filter((kind) => kind.startsWith("ratio-"));
    expect(ratioKinds).toEqual(expect.arrayContaining(loadBound));
    expect(ratioKinds.length).toBeGreaterThan(loadBound.length);
    for (const kind of ratioKinds) {
      const t = THRESHOLDS[kind];
      expect(t.by).toBe("factor");
      expect(judge(t, "smaller", 1, 1.1)).toBe("worse");
      expect(judge(t, "bigger", 1, 1 / 1.1)).toBe("worse");
      const gross = loadBound.includes(kind) ? 25 : 2;
      expect(judge(t, "smaller", 1, gross)).toBe("regressed");
      expect(judge(t, "bigger", 1, 1 / gross)).toBe("regressed");
    }
    for (const kind of ratioKinds.filter((kind) => !loadBound.includes(kind))) expect(THRESHOLDS[kind].margin).toBeLessThan(1);
    expect(judge(THRESHOLDS.bytes, "smaller", 10_000, 10_050)).toBe("worse");
    expect(judge(THRESHOLDS.bytes, "smaller", 10_000, 10_200)).toBe("regressed");
    expect(judge(THRESHOLDS.count, "smaller", 2, 3)).toBe("regressed");
    expect(judge(THRESHOLDS.relevance, "bigger", 0.5, 0.495)).toBe("worse");
  });

  it("compares figures by name with the table given", () => {
    const f = (value: number): Figure => ({ name: "x", suite: "payload", kind: "bytes", unit: "bytes", value, better: "smaller" });
    expect(compareFigures([f(100)], [f(150)]).regressed).toHaveLength(1);
    expect(compareFigures([f(100)], [f(150)], { ...THRESHOLDS, bytes: { by: "relative", margin: 1, why: "a test's loose margin" } }).regressed).toHaveLength(0);
  });
});

describe("--format", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "toolsearch-compare-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("writes github-action-benchmark's custom JSON, split by direction", () => {
    const figures = figuresOf(synthetic());
    const { smallerIsBetter, biggerIsBetter } = actionBenchmark(figures);
    expect(smallerIsBetter.length + biggerIsBetter.length).toBe(figures.length);
    for (const [entries, better] of [
      [smallerIsBetter, "smaller"],
      [biggerIsBetter, "bigger"],
    ] as const) {
      for (const e of entries) {
        expect(Object.keys(e).every((k) => ["name", "unit", "value", "range", "extra"].includes(k))).toBe(true);
        expect(typeof e.name).toBe("string");
        expect(typeof e.unit).toBe("string");
        expect(Number.isFinite(e.value)).toBe(true);
        expect(e.range ?? "± 0").toMatch(/^± [0-9.e-]+$/);
        expect(typeof e.extra).toBe("string");
        expect(figures.find((f) => f.name === e.name)!.better).toBe(better);
      }
    }
    expect(biggerIsBetter.find((e) => e.name === "gateway/tools/1-session/turns-per-s÷direct")).toMatchObject({ unit: "ratio", value: 3.3, range: "± 0.35" });
    expect(smallerIsBetter.find((e) => e.name === "payload/synthetic-100/code/first-request-bytes")).toMatchObject({ unit: "bytes", value: 1_200 });
  });

  it("writes the files beside the JSON, and a PR-comment table that leads with regressions", () => {
    const now = synthetic((s) => void (ok(s.suites.relevance).splits[0].rankers[1].metrics.recallAt5 = 0.8));
    const comparison = compareResults(synthetic(), now);
    const files = writeFormats(now, figuresOf(now), dir, comparison, "bench/results/quick-baseline.json");
    expect(path.basename(files.smallerIsBetter)).toBe("quick.smaller-is-better.json");
    expect(path.basename(files.biggerIsBetter)).toBe("quick.bigger-is-better.json");
    expect(path.basename(files.markdown)).toBe("quick.pr-comment.md");
    for (const file of [files.smallerIsBetter, files.biggerIsBetter]) {
      const parsed = JSON.parse(readFileSync(file, "utf8")) as unknown[];
      expect(Array.isArray(parsed)).toBe(true);
      expect(parsed.length).toBeGreaterThan(0);
    }
    const md = readFileSync(files.markdown, "utf8");
    const lines = md.split("\n");
    expect(md).toContain("1 figure regressed past its threshold: `relevance/dev@70/bm25f/recallAt5`");
    const header = lines.findIndex((l) => l.startsWith("| verdict | figure | baseline | now | change | fails when |"));
    expect(header).toBeGreaterThan(0);
    expect(lines[header + 1]).toBe("|:---|:---|---:|---:|---:|:---|");
    expect(lines[header + 2]).toMatch(
      /^\| \*\*regressed\*\* \| relevance\/dev@70\/bm25f\/recallAt5 \| 0\.860 \| 0\.800 \| -0\.060 \(-7\.0%\) \| worse by > 0\.01 \|$/,
    );
    expect(md).toContain("<details><summary>");
    // Every table row has the header's cell count.
    for (const l of lines.filter((x) => x.startsWith("| "))) expect(l.split(" | ").length).toBe(6);
    // Without a baseline: the figures alone.
    const plain = markdownTable(now, figuresOf(now));
    expect(plain).toContain("| figure | value | unit | kind |");
    expect(plain).toContain("| gateway/tools/1-session/turns-per-s÷direct | 3.300 (3.000…3.700) | ratio | ratio-gateway |");
  });
});

describe("the command line", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "toolsearch-compare-cli-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, r: BenchResults): string => {
    const file = path.join(dir, name);
    writeFileSync(file, JSON.stringify(r));
    return file;
  };

  it("parses --compare, --format, --save-baseline and --from", () => {
    const args = parseArgs(["--quick", "--compare", "b.json", "--format", "--save-baseline", "x/base.json"], "/repo");
    expect(args).toMatchObject({ quick: true, format: true, compare: path.resolve("b.json"), saveBaseline: path.resolve("x/base.json") });
    expect(parseArgs([], "/repo").format).toBe(false);
    expect(() => parseArgs(["--compare"], "/repo")).toThrow(/needs a value/);
  });

  it("exits 1 on a regression and 0 without, comparing files without measuring (--from)", async () => {
    const base = write("base.json", synthetic());
    const same = write("same.json", synthetic());
    const worse = write(
      "worse.json",
      synthetic((s) => void (ok(s.suites.gateway).runs[1].cpuRatio = 0.6)),
    );
    const stdout = process.stdout.write;
    const stderr = process.stderr.write;
    const printed: string[] = [];
    process.stdout.write = ((chunk: string) => (printed.push(String(chunk)), true)) as typeof process.stdout.write;
    process.stderr.write = ((chunk: string) => (printed.push(String(chunk)), true)) as typeof process.stderr.write;
    try {
      expect(await benchMain(["--from", same, "--compare", base])).toBe(0);
      expect(await benchMain(["--from", worse, "--compare", base, "--format"])).toBe(1);
      expect(await benchMain(["--from", same, "--compare", path.join(dir, "absent.json")])).toBe(2);
    } finally {
      process.stdout.write = stdout;
      process.stderr.write = stderr;
    }
    const text = printed.join("");
    expect(text).toContain("FAIL gateway/tools/1-session/cpu-per-turn÷direct regressed: 0.250× → 0.600× (×2.40; ratio-gateway-cpu figures fail when × > 1.90)");
    expect(text).toMatch(/absent\.json: no such file/);
    expect(JSON.parse(readFileSync(path.join(dir, "worse.smaller-is-better.json"), "utf8"))).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: "gateway/tools/1-session/cpu-per-turn÷direct", value: 0.6 })]),
    );
  });
});
