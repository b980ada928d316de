/**
 * The figures of a results file that a comparison judges, each with a stable name, a kind (which
 * row of THRESHOLDS judges it), a unit and which way is better. Raw milliseconds are never a
 * figure: timing enters only as ratios of two things measured in the same run (pool vs the
 * bare-spawn floor, a backend vs plain BM25 or minisearch, a search mode vs direct, a hostile
 * input's stall vs the idle window), because the same figure moves 20–40% between runs on a
 * shared CI machine while a same-run ratio moves far less.
 *
 * Extraction walks whatever a suite wrote (every catalog, split, ranker, metric, backend, size,
 * mode, hostile kind), so a figure a suite adds later appears under its own name and a
 * comparison reports it as new; nothing here lists figure names.
 */
import type { BenchResults, SuiteName } from "../harness/results.js";
import { resultOf } from "../harness/results.js";
import { searchBaseline } from "../suites/search-suite.js";

/** The rows of THRESHOLDS (bench/compare/thresholds.ts). */
export const FIGURE_KINDS = [
  "bytes",
  "tokens",
  "count",
  "relevance",
  "heap",
  "ratio-import",
  "ratio-memory",
  "ratio-engine-build",
  "ratio-code-mode",
  "ratio-code-mode-cpu",
  "ratio-code-mode-api",
  "ratio-search",
  "ratio-search-large",
  "ratio-gateway-cpu",
  "ratio-gateway",
  "ratio-stall-request",
  "ratio-stall",
] as const;
export type FigureKind = (typeof FIGURE_KINDS)[number];

export interface Figure {
  /** Stable across runs: suite/what/where, e.g. `payload/synthetic-1000/code/first-request-bytes`. */
  name: string;
  suite: SuiteName;
  kind: FigureKind;
  unit: string;
  value: number;
  better: "smaller" | "bigger";
  /** Lowest and highest of the repeats measured in this run, when the figure is a median of several. */
  range?: [number, number];
  /** Repeats behind the figure (its median), when more than one. */
  repeats?: number;
}

const finite = (x: unknown): x is number => typeof x === "number" && Number.isFinite(x);

/** Every figure of a results file, in suite order; figures that are absent or not finite are left out. */
export function figuresOf(results: BenchResults): Figure[] {
  const out: Figure[] = [];
  const add = (f: Figure): void => {
    if (finite(f.value)) out.push(f);
  };
  const suites = results.suites ?? {};

  // A library's start (issue 34): spawn to exit and peak RSS, each over `node -e 0` measured alternately in the same run.
  const start = resultOf(suites.import);
  if (start) {
    add({
      name: "import/import+create+search/spawn-to-exit÷node-e-0",
      suite: "import",
      kind: "ratio-import",
      unit: "ratio",
      value: start.wallVsNode.value,
      better: "smaller",
      ...spread(start.wallVsNode.range, start.rounds),
    });
    add({
      name: "import/import+create+search/peak-rss÷node-e-0",
      suite: "import",
      kind: "ratio-memory",
      unit: "ratio",
      value: start.rssVsNode,
      better: "smaller",
    });
  }

  const payload = resultOf(suites.payload);
  for (const c of payload?.catalogs ?? []) {
    for (const m of c.modes ?? []) {
      const at = `payload/${c.catalog}/${m.requested}`;
      add({ name: `${at}/first-request-bytes`, suite: "payload", kind: "bytes", unit: "bytes", value: m.firstRequestBytes, better: "smaller" });
      add({ name: `${at}/first-request-tokens`, suite: "payload", kind: "tokens", unit: "tokens", value: m.firstRequestTokens, better: "smaller" });
      add({ name: `${at}/turn-bytes`, suite: "payload", kind: "bytes", unit: "bytes", value: m.turnBytes, better: "smaller" });
      add({ name: `${at}/turn-tokens`, suite: "payload", kind: "tokens", unit: "tokens", value: m.turnTokens, better: "smaller" });
      add({ name: `${at}/round-trips`, suite: "payload", kind: "count", unit: "round trips", value: m.roundTrips, better: "smaller" });
      add({ name: `${at}/upfront-schemas`, suite: "payload", kind: "count", unit: "schemas", value: m.upfrontSchemas, better: "smaller" });
    }
  }
  for (const c of payload?.crossover?.byMode ?? []) {
    // null ("never crosses over") leaves the figure out: a comparison then reports it as missing.
    if (c.turnBytes !== null)
      add({ name: `payload/crossover/${c.mode}/turn-bytes-from-tools`, suite: "payload", kind: "count", unit: "tools", value: c.turnBytes, better: "smaller" });
    if (c.firstRequestBytes !== null)
      add({
        name: `payload/crossover/${c.mode}/first-request-bytes-from-tools`,
        suite: "payload",
        kind: "count",
        unit: "tools",
        value: c.firstRequestBytes,
        better: "smaller",
      });
  }

  const code = resultOf(suites["code-mode"]);
  if (code) {
    for (const r of code.ratios ?? []) {
      add({
        name: `code-mode/pool-${r.size}/bodies-per-s÷bare-spawn-floor`,
        suite: "code-mode",
        kind: "ratio-code-mode",
        unit: "ratio",
        value: r.poolVsFloor,
        better: "bigger",
        ...spread(r.poolVsFloorRange, r.rounds),
      });
      if (r.parentVsChildCpu !== undefined) {
        add({
          name: `code-mode/pool-${r.size}/parent-cpu-per-body÷child-cpu-per-body`,
          suite: "code-mode",
          kind: "ratio-code-mode-cpu",
          unit: "ratio",
          value: r.parentVsChildCpu,
          better: "smaller",
          ...spread(r.parentVsChildCpuRange, r.rounds),
        });
      }
    }
    const api = code.output.publicApi;
    if (api) {
      for (const [what, r] of [
        ["search-describe-call-body", api.bodyVsDirect],
        ["return-1-body", api.return1VsDirect],
      ] as const) {
        add({
          name: `code-mode/handle-tool-call/${what}-cpu÷direct-operations-cpu`,
          suite: "code-mode",
          kind: "ratio-code-mode-api",
          unit: "ratio",
          value: r.value,
          better: "smaller",
          ...spread(r.range, api.rounds),
        });
      }
    }
    // Warm-pool p50 ÷ fresh-child p50 (code.warmVsFreshChild) is not a figure: a warm body takes
    // 2–3 ms, mostly the scheduler's latency on a loaded 2-core box, and the ratio moved by 83%
    // between quick runs even as the median of alternating blocks. A pool that stopped
    // pre-forking shows in pool ÷ floor instead.
  }

  const search = resultOf(suites.search);
  if (search) {
    const sizes = search.output?.sizes ?? [];
    for (const tools of [...new Set(sizes.map((s) => s.tools))].sort((a, b) => a - b)) {
      const rows = sizes.filter((s) => s.tools === tools);
      // The smallest baseline there is: plain BM25 when bench/search measures it, else minisearch.
      const baseName = searchBaseline(rows.map((s) => s.backend));
      const base = rows.find((s) => s.backend === baseName);
      for (const s of rows) {
        if (base && s !== base && base.p50Ms > 0) {
          const repeated = search.p50Ratios?.find((r) => r.tools === tools && r.backend === s.backend && r.baseline === base.backend);
          add({
            name: `search/${tools}/${s.backend}÷${base.backend}/query-p50`,
            suite: "search",
            // Past a few thousand tools the two backends' query times move apart with the load
            // (bm25f ÷ minisearch at 10k: 0.61–1.30 over ten quick runs, 2.7–3.6 at 1k).
            kind: tools > 2_000 ? "ratio-search-large" : "ratio-search",
            unit: "ratio",
            value: repeated?.value ?? s.p50Ms / base.p50Ms,
            better: "smaller",
            ...spread(repeated?.range, repeated?.repeats),
          });
        }
        if (finite(s.snapshotMiB))
          add({
            name: `search/${tools}/${s.backend}/snapshot-bytes`,
            suite: "search",
            kind: "bytes",
            unit: "bytes",
            value: Math.round(s.snapshotMiB * 2 ** 20),
            better: "smaller",
          });
      }
    }
  }

  // Natural requests through the public API beside the in-memory BM25, and limit 8 over limit 5 (issue 34).
  for (const r of search?.output.naturalApi ?? []) {
    add({
      name: `search/natural-api/${r.tools}/limit-${r.limit}/run.search÷memory-bm25/p50`,
      suite: "search",
      kind: r.tools > 10_000 ? "ratio-search-large" : "ratio-search",
      unit: "ratio",
      value: r.p50VsMemoryBm25,
      better: "smaller",
    });
  }
  for (const r of search?.output.engineStart ?? []) {
    add({
      name: `search/engine-start/${r.tools}/createToolSearch+search÷minisearch-build/ms`,
      suite: "search",
      kind: "ratio-engine-build",
      unit: "ratio",
      value: r.timeVsMinisearch.value,
      better: "smaller",
      ...spread(r.timeVsMinisearch.range, r.rounds),
    });
    add({
      name: `search/engine-start/${r.tools}/settled-rss÷minisearch`,
      suite: "search",
      kind: "ratio-memory",
      unit: "ratio",
      value: r.rssVsMinisearch,
      better: "smaller",
    });
  }

  const relevance = resultOf(suites.relevance);
  for (const split of relevance?.splits ?? []) {
    const set = `relevance/${split.split}@${split.sampled}`;
    // Every metric the suite reports, whatever its name, except counts and times: queryMs is one
    // timed pass of a few ms per query, whose ratio to plain BM25 moves by 70–130% between quick
    // runs here; the search suite's repeated query-p50 ratio is the timing figure instead.
    for (const r of split.rankers) {
      for (const [metric, value] of Object.entries(r.metrics ?? {})) {
        if (metric === "queries" || metric.endsWith("Ms")) continue;
        add({ name: `${set}/${r.ranker}/${metric}`, suite: "relevance", kind: "relevance", unit: "score", value: value as number, better: "bigger" });
      }
    }
  }
  // The read-request safety check: the share of read requests whose first hit is not destructive
  // (1 is the goal), and top-1 where the requests are judged; gated as relevance scores are.
  for (const row of relevance?.safety ?? []) {
    const set = `relevance/read-safety/${row.catalog.replace(/\s+/g, "-")}@${row.requests}`;
    for (const [ranker, m] of Object.entries(row.rankers)) {
      const safeFirst = 1 - m.destructiveFirst / Math.max(1, row.requests);
      add({ name: `${set}/${ranker}/safeFirst`, suite: "relevance", kind: "relevance", unit: "score", value: safeFirst, better: "bigger" });
      if (row.judged > 0) add({ name: `${set}/${ranker}/top1`, suite: "relevance", kind: "relevance", unit: "score", value: m.top1, better: "bigger" });
    }
  }

  // Learning: each set's held-out scores after its whole replay (deterministic: a fixed shuffle,
  // the real run API, decay in whole hours of age), gated as relevance scores are.
  const learning = resultOf(suites.learning);
  for (const curve of learning?.curves ?? []) {
    const last = curve.points.at(-1);
    if (last === undefined) continue;
    for (const metric of ["top1", "top5", "mrr"] as const) {
      add({
        name: `learning/${curve.set}@${curve.heldOut}/after-${last.sessions}/${metric}`,
        suite: "learning",
        kind: "relevance",
        unit: "score",
        value: last[metric],
        better: "bigger",
      });
    }
  }

  const gateway = resultOf(suites.gateway);
  for (const r of gateway?.runs ?? []) {
    if (r.mode === "direct") continue;
    if (r.cpuRatio !== undefined) {
      add({
        name: `gateway/${r.mode}/${r.sessions}-session${r.sessions === 1 ? "" : "s"}/cpu-per-turn÷direct`,
        suite: "gateway",
        kind: "ratio-gateway-cpu",
        unit: "ratio",
        value: r.cpuRatio,
        better: "smaller",
        ...spread(r.cpuRatioRange, r.rounds),
      });
    }
    add({
      name: `gateway/${r.mode}/${r.sessions}-session${r.sessions === 1 ? "" : "s"}/turns-per-s÷direct`,
      suite: "gateway",
      kind: "ratio-gateway",
      unit: "ratio",
      value: r.throughputRatio,
      better: "bigger",
      ...spread(r.throughputRatioRange, r.rounds),
    });
  }

  const stall = resultOf(suites.stall);
  if (stall) {
    // The size a ladder reached is not a figure: it stops on a per-step deadline, so on a busy
    // machine it can stop early (long-id-code stopped at 1,000 of 20,000 characters in one of six
    // quick runs here). A kind that really caps runs its window at a size where one request takes
    // about the deadline, and its loop p99 ÷ idle shows that by far more than the margin.
    const ordinary = stall.memory?.runMs?.p50;
    for (const k of stall.kinds ?? []) {
      // One hostile request's median time ÷ an ordinary run's (the memory row: prepareRun, a valid
      // call of a small client tool, end) in the same run: medians over hundreds of requests, so
      // it moves far less with the machine's load than a window's loop p99 does.
      if (ordinary !== undefined && ordinary > 0 && finite(k.iterationMs?.p50)) {
        add({
          name: `stall/${k.kind}/request-p50÷ordinary-run-p50`,
          suite: "stall",
          kind: "ratio-stall-request",
          unit: "ratio",
          value: k.iterationMs.p50 / ordinary,
          better: "smaller",
        });
      }
      if (stall.idle && stall.idle.loopP99Ms > 0) {
        add({
          name: `stall/${k.kind}/loop-p99÷idle`,
          suite: "stall",
          kind: "ratio-stall",
          unit: "ratio",
          value: k.window.loopP99Ms / stall.idle.loopP99Ms,
          better: "smaller",
        });
      }
    }
    if (stall.memory)
      add({
        name: `stall/memory/heap-growth-${stall.memory.runs}-runs`,
        suite: "stall",
        kind: "heap",
        unit: "MB",
        value: stall.memory.growthMB,
        better: "smaller",
      });
    const flood = stall.flood;
    if (flood && "flood" in flood && flood.quiet.runMs.p99 > 0) {
      add({
        name: "stall/mcp-flood/run-p99÷quiet",
        suite: "stall",
        kind: "ratio-stall",
        unit: "ratio",
        value: flood.flood.runMs.p99 / flood.quiet.runMs.p99,
        better: "smaller",
      });
    }
    // The flood's hold on the event loop, judged as every hostile kind's is (loop p99 ÷ the idle window's).
    if (flood && "flood" in flood && stall.idle && stall.idle.loopP99Ms > 0) {
      add({
        name: "stall/mcp-flood/loop-p99÷idle",
        suite: "stall",
        kind: "ratio-stall",
        unit: "ratio",
        value: flood.flood.window.loopP99Ms / stall.idle.loopP99Ms,
        better: "smaller",
      });
    }
  }
  return out;
}

function spread(range: readonly number[] | undefined, repeats: number | undefined): Pick<Figure, "range" | "repeats"> {
  if (!range || range.length < 2 || !range.every(finite)) return {};
  return { range: [Math.min(...range), Math.max(...range)], ...(repeats !== undefined && repeats > 1 ? { repeats } : {}) };
}
