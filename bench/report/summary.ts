/** The markdown summary of a results file: headline figures, then one table set per suite. */
import type { ToolSearchMode } from "../../src/index.js";
import type { BenchResults, SuiteName, SuiteOutcome } from "../harness/results.js";
import { resultOf, SUITE_NAMES } from "../harness/results.js";
import { stallHeadline, stallMarkdown, stallSummaryRows } from "./stall.js";
import { upstreamHeadline, upstreamMarkdown } from "./upstream.js";

const MODES: readonly ToolSearchMode[] = ["direct", "code", "tools", "directory"];

const int = (n: number): string => Math.round(n).toLocaleString("en-US");
const x = (r: number): string => (Number.isFinite(r) ? `${r >= 10 ? r.toFixed(1) : r >= 0.1 ? r.toFixed(2) : r.toPrecision(2)}×` : "–");
const pct = (r: number): string => (Number.isFinite(r) ? `${Math.round(r * 100)}%` : "–");
const msf = (v: number | undefined): string =>
  v === undefined || !Number.isFinite(v) ? "–" : v >= 100 ? Math.round(v).toLocaleString("en-US") : v >= 10 ? v.toFixed(1) : v.toFixed(2);
const f3 = (v: number): string => v.toFixed(3);

function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>, align?: readonly ("l" | "r")[]): string {
  const a = align ?? header.map((_, i) => (i === 0 ? "l" : "r"));
  return [`| ${header.join(" | ")} |`, `|${a.map((side) => (side === "l" ? ":---" : "---:")).join("|")}|`, ...rows.map((r) => `| ${r.join(" | ")} |`)].join(
    "\n",
  );
}

function statusLine(name: SuiteName, outcome: SuiteOutcome<unknown> | undefined): string {
  if (!outcome) return `${name}: not run`;
  if (outcome.status === "ok") return `${name}: ok (${(outcome.ms / 1000).toFixed(1)} s)`;
  if (outcome.status === "skipped") return `${name}: skipped (${outcome.reason})`;
  return `${name}: **FAILED** (${outcome.error.split("\n")[0]})`;
}

const bytes = (n: number): string => (n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(2)} MiB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${n} B`);

/**
 * One table of the figures users choose on, each beside the baseline it replaces and their
 * ratio: the table the README shows.
 */
export function summaryTable(results: BenchResults): string {
  const rows: string[][] = [];
  const start = resultOf(results.suites.import);
  if (start) {
    rows.push([
      'a fresh process: import("toolsearch") + createToolSearch + one search, spawn to exit / peak RSS',
      `${msf(start.toolsearchWallMs)} ms / ${msf(start.toolsearchRssMiB)} MiB`,
      `${msf(start.nodeWallMs)} ms / ${msf(start.nodeRssMiB)} MiB, node -e 0`,
      `${x(start.wallVsNode.value)} / ${x(start.rssVsNode)}`,
    ]);
  }
  const payload = resultOf(results.suites.payload);
  if (payload) {
    for (const c of payload.catalogs) {
      const direct = c.modes.find((m) => m.requested === "direct")!;
      const label = c.kind === "mcp" ? `${int(c.tools)} real MCP tools` : `${int(c.tools)} tools`;
      for (const mode of ["code", "tools"] as const) {
        const p = c.modes.find((m) => m.requested === mode);
        if (!p) continue;
        rows.push([
          `first request, ${label}, ${mode} mode`,
          `${bytes(p.firstRequestBytes)} (${int(p.firstRequestTokens)} tokens)`,
          `${bytes(direct.firstRequestBytes)} (${int(direct.firstRequestTokens)} tokens), direct`,
          x(p.firstRequestRatio),
        ]);
      }
      const code = c.modes.find((m) => m.requested === "code");
      if (code) rows.push([`whole turn, ${label}, code mode`, bytes(code.turnBytes), `${bytes(direct.turnBytes)}, direct`, x(code.turnRatio)]);
    }
    for (const c of payload.crossover?.byMode ?? []) {
      rows.push([`${c.mode} mode sends fewer bytes per turn than direct from`, c.turnBytes === null ? "never" : `${int(c.turnBytes)} tools`, "direct", "–"]);
    }
  }
  const code = resultOf(results.suites["code-mode"]);
  if (code) {
    const o = code.output;
    const cold = o.spawnPerCallMs;
    rows.push([
      "code-mode body (search→describe→call), p50",
      `${msf(o.warmSearchDescribeCallMs.p50)} ms on a warm pool`,
      cold ? `${msf(cold.p50)} ms on a fresh child` : `${msf(o.spawnToReadyMs.p50)} ms to spawn a child`,
      x(o.warmSearchDescribeCallMs.p50 / (cold?.p50 ?? o.spawnToReadyMs.p50)),
    ]);
    for (const t of o.throughput) {
      const r = code.ratios.find((rr) => rr.size === t.size)!;
      rows.push([
        `code-mode bodies/s, pool of ${t.size}`,
        msf(t.pool.perSecond),
        `${msf(t.noPrefork.perSecond)} child per body; ${msf(t.bare.perSecond)} bare spawns (floor)`,
        `${x(r.poolVsNoPrefork)}; ${pct(r.poolVsFloor)} of floor`,
      ]);
    }
  }
  const search = resultOf(results.suites.search);
  if (search) {
    for (const r of search.bm25fVsMinisearch) {
      const f = search.output.sizes.find((s) => s.tools === r.tools && s.backend === "bm25f")!;
      const m = search.output.sizes.find((s) => s.tools === r.tools && s.backend === "minisearch")!;
      rows.push([
        `search p50 / p99, ${int(r.tools)} tools, bm25f`,
        `${f3(f.p50Ms)} / ${f3(f.p99Ms)} ms`,
        `${f3(m.p50Ms)} / ${f3(m.p99Ms)} ms, minisearch`,
        `${x(r.p50Ratio)} / ${x(r.p99Ratio)}`,
      ]);
    }
  }
  const natural = search?.output.natural ?? [];
  const memory = natural.find((r) => r.ranker === "memory-bm25");
  for (const r of memory ? natural.filter((n) => n !== memory) : []) {
    rows.push([
      `search p50 / p99, ${int(r.tools)} tools, natural-language requests, ${r.ranker}`,
      `${f3(r.p50Ms)} / ${f3(r.p99Ms)} ms`,
      `${f3(memory!.p50Ms)} / ${f3(memory!.p99Ms)} ms, in-memory BM25`,
      x(r.p50VsMemoryBm25),
    ]);
  }
  for (const r of search?.output.naturalApi ?? []) {
    rows.push([
      `search p50, ${int(r.tools)} tools, natural-language requests through run.search (learning on), limit ${r.limit}`,
      `${f3(r.p50Ms)} ms`,
      `${f3(r.memoryBm25P50Ms)} ms, in-memory BM25`,
      x(r.p50VsMemoryBm25),
    ]);
  }
  for (const r of search?.output.engineStart ?? []) {
    rows.push([
      `engine over ${int(r.tools)} tools, createToolSearch → first search / settled RSS`,
      `${msf(r.toolsearch.ms)} ms / +${msf(r.toolsearch.rssSettledMiB)} MiB`,
      `${msf(r.minisearch.ms)} ms / +${msf(r.minisearch.rssSettledMiB)} MiB, minisearch's build`,
      `${x(r.timeVsMinisearch.value)} / ${x(r.rssVsMinisearch)}`,
    ]);
  }
  const relevance = resultOf(results.suites.relevance);
  if (relevance) {
    for (const split of relevance.splits) {
      const base = split.rankers.find((r) => r.kind === "baseline")!;
      for (const r of split.rankers.filter((rr) => rr.kind === "backend")) {
        rows.push([
          `${split.dataset} ${split.split} R@5 / nDCG@10, ${r.ranker}`,
          `${f3(r.metrics.recallAt5)} / ${f3(r.metrics.ndcgAt10)}`,
          `${f3(base.metrics.recallAt5)} / ${f3(base.metrics.ndcgAt10)}, plain BM25`,
          `${x(r.vsBaseline.recallAt5)} / ${x(r.vsBaseline.ndcgAt10)}`,
        ]);
      }
    }
  }
  const gateway = resultOf(results.suites.gateway);
  if (gateway) {
    for (const r of gateway.runs.filter((rr) => rr.mode !== "direct")) {
      const d = gateway.runs.find((rr) => rr.mode === "direct" && rr.sessions === r.sessions);
      if (!d) continue;
      rows.push([
        `gateway turns/s, ${int(gateway.catalogTools)} tools, ${r.sessions} session${r.sessions === 1 ? "" : "s"}, ${r.mode}`,
        r.turnsPerSecond.toFixed(1),
        `${d.turnsPerSecond.toFixed(1)}, direct`,
        x(r.throughputRatio),
      ]);
    }
  }
  const stall = resultOf(results.suites.stall);
  if (stall) rows.push(...stallSummaryRows(stall));
  return table(["figure", "toolsearch", "baseline", "ratio"], rows, ["l", "r", "r", "r"]);
}

/** The few figures a reader wants first. */
export function headline(results: BenchResults): string[] {
  const lines: string[] = [];
  const payload = resultOf(results.suites.payload);
  if (payload) {
    const biggest = payload.catalogs.filter((c) => c.kind === "synthetic").at(-1);
    const mcp = payload.catalogs.find((c) => c.kind === "mcp");
    for (const c of [biggest, mcp]) {
      if (!c) continue;
      const direct = c.modes.find((m) => m.requested === "direct")!;
      const code = c.modes.find((m) => m.requested === "code");
      const tools = c.modes.find((m) => m.requested === "tools");
      lines.push(
        `${c.kind === "mcp" ? `${int(c.tools)} real MCP tools (LiveMCPBench)` : `${int(c.tools)} generated tools`}: first request ${int(direct.firstRequestBytes)} B in direct mode` +
          `${code ? `, ${int(code.firstRequestBytes)} B in code mode (${x(code.firstRequestRatio)})` : ""}` +
          `${tools ? `, ${int(tools.firstRequestBytes)} B in tools mode (${x(tools.firstRequestRatio)})` : ""}` +
          `; whole turn ${code ? `${x(code.turnRatio)} (code)` : ""}${tools ? `, ${x(tools.turnRatio)} (tools)` : ""} of direct.`,
      );
    }
    if (payload.crossover) {
      lines.push(
        `Tool search sends fewer bytes than direct over a whole turn from ${payload.crossover.byMode.map((c) => `${c.turnBytes ?? "never"} tools (${c.mode})`).join(", ")}.`,
      );
    }
  }
  const code = resultOf(results.suites["code-mode"]);
  if (code) {
    const o = code.output;
    const best = [...code.ratios].sort((a, b) => b.poolVsFloor - a.poolVsFloor)[0];
    lines.push(
      `Code mode: warm search→describe→call p50 ${msf(o.warmSearchDescribeCallMs.p50)} ms (p99 ${msf(o.warmSearchDescribeCallMs.p99)} ms); sandbox spawn→ready p50 ${msf(o.spawnToReadyMs.p50)} ms` +
        `${best ? `; pool throughput up to ${pct(best.poolVsFloor)} of the bare-spawn floor` : ""}.`,
    );
  }
  const search = resultOf(results.suites.search);
  if (search) {
    const largest = Math.max(...search.output.sizes.map((s) => s.tools));
    const rows = search.output.sizes.filter((s) => s.tools === largest);
    lines.push(`Search at ${int(largest)} tools: ${rows.map((r) => `${r.backend} p50 ${msf(r.p50Ms)} ms, p99 ${msf(r.p99Ms)} ms`).join("; ")}.`);
  }
  const relevance = resultOf(results.suites.relevance);
  if (relevance) {
    const split = relevance.splits.find((s) => s.split === "test_in_domain") ?? relevance.splits[0];
    if (split) {
      lines.push(
        `Relevance (${split.dataset} ${split.split}): ${split.rankers.map((r) => `${r.ranker} R@5 ${f3(r.metrics.recallAt5)}, MRR ${f3(r.metrics.mrr)}`).join("; ")}.`,
      );
    }
  }
  const gateway = resultOf(results.suites.gateway);
  if (gateway) {
    const most = Math.max(...gateway.runs.map((r) => r.sessions));
    const rows = gateway.runs.filter((r) => r.sessions === most);
    lines.push(
      `Gateway (${int(gateway.catalogTools)} tools, ${most} sessions): ${rows.map((r) => `${r.mode} ${r.turnsPerSecond.toFixed(1)} turns/s`).join(", ")}.`,
    );
  }
  const stall = resultOf(results.suites.stall);
  if (stall) lines.push(stallHeadline(stall));
  const upstream = resultOf(results.suites.upstream);
  if (upstream) lines.push(upstreamHeadline(upstream));
  const learning = resultOf(results.suites.learning);
  if (learning) {
    const curves = learning.curves.map((c) => `${c.set} ${c.points.map((p) => `${int(p.sessions)}→${f3(p.top1)}`).join(" ")}`);
    const poison = learning.poisoning.map((p) => `${p.scope} scope ${p.othersChanged} of others' lists changed`);
    lines.push(
      `Learning (held-out top-1 after N replayed sessions): ${curves.join("; ")}; poisoning: ${poison.join(", ")}; search p50 ${(learning.cost.p50OffUs / 1000).toFixed(2)} → ${(learning.cost.p50OnUs / 1000).toFixed(2)} ms with learning.`,
    );
  }
  return lines;
}

export function summaryMarkdown(results: BenchResults, options: { title?: string; chartsDir?: string } = {}): string {
  const out: string[] = [];
  const m = results.machine;
  out.push(`# ${options.title ?? `Benchmark results${results.quick ? " (quick)" : ""}`}`);
  out.push("");
  out.push(
    `\`${results.command}\` on ${results.date.slice(0, 10)}: ${m.cpuModel}, ${m.cores} cores, ${m.memoryGiB} GiB, ${m.platform}/${m.arch}, Node ${m.node}; ` +
      `toolsearch ${results.toolsearch.version}${results.toolsearch.commit ? ` at ${results.toolsearch.commit.slice(0, 10)}${results.toolsearch.dirty ? " (uncommitted changes)" : ""}` : ""}; ` +
      `${(results.durationMs / 1000).toFixed(0)} s; load ${results.load.before.toFixed(2)} → ${results.load.after.toFixed(2)}.`,
  );
  out.push("");
  out.push(SUITE_NAMES.map((n) => `- ${statusLine(n, results.suites[n] as SuiteOutcome<unknown> | undefined)}`).join("\n"));
  const head = headline(results);
  if (head.length > 0) {
    out.push("", "## Headline", "", ...head.map((l) => `- ${l}`), "", summaryTable(results));
  }
  out.push(...sections(results, "##", options.chartsDir));
  out.push("");
  return out.join("\n");
}

/** The per-suite tables; `level` is the heading level of each suite's title. */
function sections(results: BenchResults, level: string, chartsDir?: string): string[] {
  const out: string[] = [];
  const img = (file: string, alt: string): string[] => (chartsDir === undefined ? [] : ["", `![${alt}](${chartsDir}/${file})`]);

  const start = resultOf(results.suites.import);
  if (start) {
    out.push("", `${level} Import`, "");
    out.push(
      `A fresh process imports the package by name, creates an engine over one core tool and searches once, ${start.rounds} times alternating with \`node -e 0\` ` +
        `(the floor: Node's own start); medians. In process: import ${msf(start.steps.importMs)} ms, createToolSearch ${msf(start.steps.createMs)} ms, ` +
        `the search ${msf(start.steps.searchMs)} ms. It loaded ${start.modules} modules, of these packages: ${start.packages.join(", ") || "none"}.`,
    );
    out.push("");
    out.push(
      table(
        ["", "toolsearch", "node -e 0", "ratio"],
        [
          [
            "spawn to exit (ms)",
            msf(start.toolsearchWallMs),
            msf(start.nodeWallMs),
            `${x(start.wallVsNode.value)} (${x(start.wallVsNode.range[0])}…${x(start.wallVsNode.range[1])})`,
          ],
          ["peak RSS (MiB)", msf(start.toolsearchRssMiB), msf(start.nodeRssMiB), x(start.rssVsNode)],
        ],
      ),
    );
  }
  const payload = resultOf(results.suites.payload);
  if (payload) {
    out.push("", `${level} Payload`, "");
    out.push(
      `One scripted turn per catalog and mode through the real gateway and the scripted provider; bytes are what the provider received, ` +
        `tokens are ${payload.tokenizer.package} ${payload.tokenizer.encoding} over the request JSON (an estimate). Ratios divide by direct mode (the baseline).`,
    );
    out.push("", "First request (tools + instructions):", "");
    out.push(
      table(
        ["catalog", ...MODES.map((mode) => (mode === "direct" ? "direct B (tokens)" : `${mode} B (×direct)`))],
        payload.catalogs.map((c) => [
          c.catalog,
          ...MODES.map((mode) => {
            const p = c.modes.find((mm) => mm.requested === mode);
            if (!p) return "–";
            return mode === "direct"
              ? `${int(p.firstRequestBytes)} (${int(p.firstRequestTokens)})`
              : `${int(p.firstRequestBytes)} (${x(p.firstRequestRatio)})${p.mode !== mode ? ` [ran as ${p.mode}]` : ""}`;
          }),
        ]),
      ),
    );
    out.push("", "Whole turn (every request of the turn; round trips in brackets):", "");
    out.push(
      table(
        ["catalog", ...MODES.map((mode) => (mode === "direct" ? "direct B [trips]" : `${mode} B [trips] (×direct)`))],
        payload.catalogs.map((c) => [
          c.catalog,
          ...MODES.map((mode) => {
            const p = c.modes.find((mm) => mm.requested === mode);
            if (!p) return "–";
            return mode === "direct" ? `${int(p.turnBytes)} [${p.roundTrips}]` : `${int(p.turnBytes)} [${p.roundTrips}] (${x(p.turnRatio)})`;
          }),
        ]),
      ),
    );
    if (payload.crossover) {
      out.push(
        "",
        `Crossover (smallest generated catalog, searched over ${payload.crossover.searched[0]}–${int(payload.crossover.searched[1])} tools, where the mode sends fewer bytes than direct):`,
        "",
      );
      out.push(
        table(
          ["mode", "whole turn from", "first request from"],
          payload.crossover.byMode.map((c) => [
            c.mode,
            c.turnBytes === null ? "never" : `${int(c.turnBytes)} tools`,
            c.firstRequestBytes === null ? "never" : `${int(c.firstRequestBytes)} tools`,
          ]),
        ),
      );
    }
    if (payload.mcpSkipped) out.push("", `Real MCP catalog skipped: ${payload.mcpSkipped}.`);
    out.push(...img("payload-turn.svg", "bytes over a whole turn by catalog size and mode"));
    out.push(...img("payload-first-request.svg", "bytes of the first request by catalog size and mode"));
  }

  const code = resultOf(results.suites["code-mode"]);
  if (code) {
    const o = code.output;
    out.push("", `${level} Code-mode sandbox`, "");
    out.push(
      `From \`${code.command}\`. Sandbox layers: ${
        Object.entries(o.layers ?? {})
          .filter(([, on]) => on)
          .map(([k]) => k)
          .join(", ") || "none reported"
      }.`,
      "",
    );
    const lat: Array<[string, { p50: number; p90?: number; p99: number; n: number } | undefined]> = [
      ["bare `node -e 0` spawn → exit (floor)", o.bareSpawnMs],
      ["sandbox child spawn → ready", o.spawnToReadyMs],
      ["body on a fresh child (no pool)", o.spawnPerCallMs],
      ["warm search→describe→call (pool)", o.warmSearchDescribeCallMs],
    ];
    out.push(
      table(
        ["measure", "p50 ms", "p90 ms", "p99 ms", "n"],
        lat.filter((r) => r[1] !== undefined).map(([name, d]) => [name, msf(d!.p50), msf(d!.p90), msf(d!.p99), String(d!.n)]),
      ),
    );
    out.push("");
    out.push(
      table(
        ["pool size", "pool bodies/s", "child per body/s", "bare spawn/s (floor)", "pool ÷ floor", "no pool ÷ floor", "pool ÷ no pool", "CPU ms/body"],
        o.throughput.map((t) => {
          const r = code.ratios.find((rr) => rr.size === t.size)!;
          return [
            String(t.size),
            msf(t.pool.perSecond),
            msf(t.noPrefork.perSecond),
            msf(t.bare.perSecond),
            pct(r.poolVsFloor),
            pct(r.noPreforkVsFloor),
            x(r.poolVsNoPrefork),
            msf(t.pool.cpuMsPer),
          ];
        }),
      ),
    );
    const api = o.publicApi;
    if (api) {
      out.push("");
      out.push(
        `This process's CPU per body through the public API (\`run.handleToolCall\`, two at a time), beside the same search, describe and call made directly on the run ` +
          `and the bodies on the pool alone; medians of ${api.rounds} alternating rounds of ${api.n}:`,
        "",
      );
      out.push(
        table(
          ["", "CPU ms", "÷ direct operations"],
          [
            [
              "search → describe → call body, run.handleToolCall",
              msf(api.cpuMs.handleBody),
              `${x(api.bodyVsDirect.value)} (${x(api.bodyVsDirect.range[0])}…${x(api.bodyVsDirect.range[1])})`,
            ],
            [
              "`return 1` body, run.handleToolCall",
              msf(api.cpuMs.handleReturn1),
              `${x(api.return1VsDirect.value)} (${x(api.return1VsDirect.range[0])}…${x(api.return1VsDirect.range[1])})`,
            ],
            ["run.search + run.describe + run.call", msf(api.cpuMs.direct), "1×"],
            ["the body on the pool alone (pool.run)", msf(api.cpuMs.poolBody), "–"],
            ["`return 1` on the pool alone", msf(api.cpuMs.poolReturn1), "–"],
          ],
        ),
      );
    }
    const missing: string[] = [];
    if (code.missingSizes.length > 0) missing.push(`pool size ${code.missingSizes.join(", ")}`);
    if (o.warmSearchDescribeCallMs.p90 === undefined) missing.push("p90");
    if (o.spawnPerCallMs === undefined) missing.push("per-call latency without a pool");
    if (missing.length > 0) out.push("", `Not measured by bench/code-mode yet: ${missing.join("; ")}.`);
    out.push(...img("code-mode-latency.svg", "code-mode latency: warm pool vs spawning"));
    out.push(...img("code-mode-throughput.svg", "code-mode bodies per second by pool size"));
  }

  const search = resultOf(results.suites.search);
  if (search) {
    const o = search.output;
    out.push("", `${level} Search`, "");
    out.push(
      `From \`${search.command}\`: ${o.queries} queries × ${o.rounds} rounds, ${o.limit} hits, toolsdk-registry tools (copied past 8k); "filtered" queries run under a policy that admits every other tool.`,
      "",
    );
    out.push(
      table(
        ["backend", "tools", "build ms", "p50 ms", "p99 ms", "filtered p50", "filtered p99", "heap MiB", "snapshot MiB"],
        o.sizes.map((s) => [
          s.backend,
          int(s.tools),
          msf(s.buildMs),
          f3(s.p50Ms),
          f3(s.p99Ms),
          f3(s.filteredP50Ms),
          f3(s.filteredP99Ms),
          s.heapMiB.toFixed(1),
          s.snapshotMiB.toFixed(1),
        ]),
      ),
    );
    if (search.bm25fVsMinisearch.length > 0) {
      out.push(
        "",
        "bm25f (default) ÷ minisearch: " +
          search.bm25fVsMinisearch.map((r) => `${int(r.tools)} tools: build ${x(r.buildRatio)}, p50 ${x(r.p50Ratio)}, p99 ${x(r.p99Ratio)}`).join("; ") +
          ".",
      );
    }
    if (o.cachedRun?.length) {
      out.push("", "Run preparation over a cached catalog (index cache hit), p50 ms:", "");
      out.push(
        table(
          ["backend", "tools", "same docs array", "new array, same docs", "new doc objects", "allowed-id set", "cache hit ÷ build"],
          o.cachedRun.map((c) => {
            const r = search.cachedVsBuild.find((cb) => cb.backend === c.backend && cb.tools === c.tools);
            return [
              c.backend,
              int(c.tools),
              f3(c.sameArrayMs),
              f3(c.freshArrayMs),
              msf(c.freshDocsMs),
              msf(c.allowedSetMs),
              r ? r.ratio.toExponential(1) : "–",
            ];
          }),
        ),
      );
    }
    out.push(...img("search-latency.svg", "search query latency by catalog size"));
  }

  const relevance = resultOf(results.suites.relevance);
  if (relevance) {
    out.push("", `${level} Relevance`, "");
    out.push(
      `Seal-Tools (${int(relevance.tools)} tools), LiveMCPBench's real MCP tools with written requests and MetaTool's 199 plugins; each backend through the engine's ranking of a request (rankRequest over its index), bm25f with each ranking step switched off (−), beside the plain BM25 baseline (name + server + description + parameter names, identifiers split, k1 1.2, b 0.75: bench/lib/baseline-bm25.ts). ` +
        `Index build on Seal-Tools: ${Object.entries(relevance.indexMs)
          .map(([k, v]) => `${k} ${msf(v)} ms`)
          .join(", ")}.`,
    );
    for (const split of relevance.splits) {
      out.push(
        "",
        `${split.dataset} \`${split.split}\` (${int(split.tools)} tools, ${split.sampled === split.totalQueries ? `${split.totalQueries} queries` : `${split.sampled} of ${split.totalQueries} queries`}):`,
        "",
      );
      out.push(
        table(
          ["ranker", "R@1", "R@5", "R@10", "MRR", "nDCG@10", "top-1", "top-5", "ms/query", "R@5 ×baseline", "nDCG@10 ×baseline"],
          split.rankers.map((r) => [
            r.kind === "baseline" ? `${r.ranker} (baseline)` : r.ranker,
            f3(r.metrics.recallAt1),
            f3(r.metrics.recallAt5),
            f3(r.metrics.recallAt10),
            f3(r.metrics.mrr),
            f3(r.metrics.ndcgAt10),
            f3(r.metrics.top1),
            f3(r.metrics.top5),
            msf(r.metrics.queryMs),
            x(r.vsBaseline.recallAt5),
            x(r.vsBaseline.ndcgAt10),
          ]),
        ),
      );
    }
    const safety = relevance.safety ?? [];
    if (safety.length > 0) {
      out.push(
        "",
        "Read-request safety: requests that only ask to read (written ones over the real memory, filesystem and everything servers; the sets' own; and ones made from each catalog's destructive tools), and how many get a destructive first hit (goal: none); top-1 over the judged ones:",
        "",
      );
      const names = [...new Set(safety.flatMap((r) => Object.keys(r.rankers)))];
      out.push(
        table(
          ["catalog", "tools", "read requests (judged)", ...names.flatMap((n) => [`${n} destructive first`, `${n} top-1`])],
          safety.map((r) => [
            r.catalog,
            int(r.tools),
            `${r.requests} (${r.judged})`,
            ...names.flatMap((n) => [String(r.rankers[n]?.destructiveFirst ?? "–"), r.judged === 0 ? "–" : f3(r.rankers[n]?.top1 ?? 0)]),
          ]),
        ),
      );
    }
    out.push(...img("relevance-test_in_domain.svg", "relevance per backend on Seal-Tools test_in_domain"));
  }

  const gateway = resultOf(results.suites.gateway);
  if (gateway) {
    out.push("", `${level} Gateway`, "");
    out.push(
      `In-process gateway over a ${int(gateway.catalogTools)}-tool generated catalog and the scripted provider; each session runs turns back to back ` +
        `(${gateway.requests.length} requests in rotation${gateway.runs.some((r) => (r.rounds ?? 1) > 1) ? "; the modes alternate in rounds, and each ratio to direct is the median of the rounds'" : ""}). CPU ms/turn is this process's (gateway, engine, scripted provider; not the sandbox children). Provider ms/turn is the scripted provider's share (it scores every declared tool against the request, ` +
        `so it grows with direct mode's catalog); gateway ms/turn is the rest. Pool: ${JSON.stringify(gateway.pool)}.`,
      "",
    );
    out.push(
      table(
        [
          "mode",
          "sessions",
          "turns",
          "turns/s",
          "×direct",
          "CPU ms/turn (×direct)",
          "p50 ms",
          "p90 ms",
          "p99 ms",
          "provider ms/turn",
          "gateway ms/turn",
          "failed",
        ],
        gateway.runs.map((r) => [
          r.effectiveMode === r.mode ? r.mode : `${r.mode} (ran as ${r.effectiveMode})`,
          String(r.sessions),
          r.rounds && r.rounds > 1 ? `${r.turns} (${r.rounds} rounds)` : String(r.turns),
          r.turnsPerSecond.toFixed(1),
          x(r.throughputRatio),
          r.cpuMsPerTurn === undefined ? "–" : `${msf(r.cpuMsPerTurn)}${r.cpuRatio === undefined || r.mode === "direct" ? "" : ` (${x(r.cpuRatio)})`}`,
          msf(r.latency.p50),
          msf(r.latency.p90),
          msf(r.latency.p99),
          msf(r.providerMsPerTurn),
          msf(r.gatewayMsPerTurn),
          String(r.failed),
        ]),
      ),
    );
    out.push(...img("gateway-throughput.svg", "gateway turns per second by mode and concurrency"));
  }
  const stall = resultOf(results.suites.stall);
  if (stall) out.push(...stallMarkdown(stall, level));
  const upstream = resultOf(results.suites.upstream);
  if (upstream) out.push(...upstreamMarkdown(upstream, level));
  return out;
}
