/** The benchmark's charts, drawn from a results file alone (so they can be redrawn without rerunning anything). */
import type { ToolSearchMode } from "../../src/index.js";
import { resultOf, type BenchResults } from "../harness/results.js";
import { barChart, compactBytes, compactNumber, lineChart } from "./svg.js";

export interface Chart {
  /** File name inside the results folder's charts/ directory. */
  file: string;
  title: string;
  svg: string;
}

const MODE_ORDER: readonly ToolSearchMode[] = ["direct", "code", "tools", "directory"];
const ms = (v: number): string => (v >= 100 ? `${Math.round(v)} ms` : v >= 1 ? `${Number(v.toPrecision(3))} ms` : `${Number(v.toPrecision(2))} ms`);

export function chartsFor(results: BenchResults): Chart[] {
  const charts: Chart[] = [];
  const machine = `${results.machine.cpuModel}, ${results.machine.cores} cores, Node ${results.machine.node}${results.quick ? " (quick run)" : ""}`;

  const payload = resultOf(results.suites.payload);
  if (payload && payload.curve.length > 0) {
    for (const field of ["firstRequestBytes", "turnBytes"] as const) {
      const title = field === "turnBytes" ? "Bytes sent to the model over one whole turn" : "Bytes of the first request (tools + instructions)";
      const markers =
        field === "turnBytes"
          ? (payload.crossover?.byMode ?? []).flatMap((c) =>
              c.turnBytes !== null && c.turnBytes > 1 ? [{ x: c.turnBytes, label: `${c.mode} < direct from ${c.turnBytes} tools` }] : [],
            )
          : [];
      charts.push({
        file: field === "turnBytes" ? "payload-turn.svg" : "payload-first-request.svg",
        title,
        svg: lineChart({
          title,
          subtitle:
            field === "turnBytes"
              ? `generated catalogs; every request of one scripted turn through the gateway, discovery round trips included; ${machine}`
              : `generated catalogs; the first request of a scripted turn through the gateway; ${machine}`,
          xLabel: "tools in the catalog (log)",
          yLabel: "bytes (log)",
          xLog: true,
          yLog: true,
          formatY: compactBytes,
          series: MODE_ORDER.map((mode) => ({
            name: mode === "direct" ? "direct (baseline)" : mode,
            dashed: mode === "direct",
            points: payload.curve.map((p) => [p.tools, p[field][mode]] as const),
          })),
          markers: dedupeMarkers(markers),
        }),
      });
    }
  }

  const code = resultOf(results.suites["code-mode"]);
  if (code) {
    const o = code.output;
    const rows: Array<[string, { p50: number; p90?: number; p99: number } | undefined]> = [
      ["bare node -e 0 (floor)", o.bareSpawnMs],
      ["sandbox spawn→ready", o.spawnToReadyMs],
      ["fresh child per call", o.spawnPerCallMs],
      ["warm pool body", o.warmSearchDescribeCallMs],
    ];
    const present = rows.filter((r): r is [string, { p50: number; p90?: number; p99: number }] => r[1] !== undefined);
    const hasP90 = present.some(([, d]) => d.p90 !== undefined);
    const title = "Code mode: latency, warm pool vs spawning";
    charts.push({
      file: "code-mode-latency.svg",
      title,
      svg: barChart({
        title,
        subtitle: `search→describe→call body; spawn figures are process start to ready/exit; ${machine}`,
        yLabel: "ms (log)",
        yLog: true,
        labels: true,
        formatY: ms,
        categories: present.map(([name]) => name),
        series: [
          { name: "p50", values: present.map(([, d]) => d.p50) },
          ...(hasP90 ? [{ name: "p90", values: present.map(([, d]) => d.p90) }] : []),
          { name: "p99", values: present.map(([, d]) => d.p99) },
        ],
      }),
    });
    const tTitle = "Code mode: sustained bodies per second";
    charts.push({
      file: "code-mode-throughput.svg",
      title: tTitle,
      svg: barChart({
        title: tTitle,
        subtitle: `pool of pre-forked sandbox children vs a child forked per body vs bare node -e 0 spawns; ${machine}`,
        yLabel: "bodies / s",
        labels: true,
        formatY: (v) => compactNumber(Math.round(v * 10) / 10),
        categories: o.throughput.map((t) => `pool size ${t.size}`),
        series: [
          { name: "pre-forked pool", values: o.throughput.map((t) => t.pool.perSecond) },
          { name: "child per body, no pool", values: o.throughput.map((t) => t.noPrefork.perSecond) },
          { name: "bare node -e 0 (floor)", values: o.throughput.map((t) => t.bare.perSecond) },
        ],
      }),
    });
  }

  const search = resultOf(results.suites.search);
  if (search) {
    const backends = [...new Set(search.output.sizes.map((s) => s.backend))];
    const title = "Search: query latency by catalog size";
    charts.push({
      file: "search-latency.svg",
      title,
      svg: lineChart({
        title,
        subtitle: `${search.output.queries} queries × ${search.output.rounds} rounds, ${search.output.limit} hits; ${machine}`,
        xLabel: "tools indexed (log)",
        yLabel: "ms per query (log)",
        xLog: true,
        yLog: true,
        formatY: ms,
        series: backends.flatMap((b, i) => {
          const rows = search.output.sizes.filter((s) => s.backend === b).sort((x, y) => x.tools - y.tools);
          return [
            { name: `${b} p50`, color: i, points: rows.map((r) => [r.tools, r.p50Ms] as const) },
            { name: `${b} p99`, color: i, dashed: true, points: rows.map((r) => [r.tools, r.p99Ms] as const) },
          ];
        }),
      }),
    });
  }

  const relevance = resultOf(results.suites.relevance);
  if (relevance) {
    for (const split of relevance.splits) {
      const title = `Relevance on ${split.dataset} ${split.split}`;
      const metrics = [
        ["R@1", "recallAt1"],
        ["R@5", "recallAt5"],
        ["R@10", "recallAt10"],
        ["MRR", "mrr"],
        ["nDCG@10", "ndcgAt10"],
      ] as const;
      charts.push({
        file: `relevance-${split.split}.svg`,
        title,
        svg: barChart({
          title,
          subtitle: `${split.tools} tools, ${split.sampled} of ${split.totalQueries} queries; baseline: plain BM25 over name + server + description + parameter names`,
          yLabel: "score",
          yMax: 1,
          labels: true,
          formatY: (v) => v.toFixed(2),
          categories: metrics.map(([label]) => label),
          series: split.rankers.map((r) => ({
            name: r.kind === "baseline" ? `${r.ranker} (baseline)` : r.ranker,
            values: metrics.map(([, key]) => r.metrics[key]),
          })),
        }),
      });
    }
  }

  const gateway = resultOf(results.suites.gateway);
  if (gateway) {
    const sessions = [...new Set(gateway.runs.map((r) => r.sessions))].sort((a, b) => a - b);
    const modes = [...new Set(gateway.runs.map((r) => r.mode))];
    const title = "Gateway: agent turns per second";
    charts.push({
      file: "gateway-throughput.svg",
      title,
      svg: barChart({
        title,
        subtitle: `${gateway.catalogTools}-tool generated catalog, scripted provider in-process; ${machine}`,
        yLabel: "turns / s",
        labels: true,
        formatY: (v) => compactNumber(Math.round(v * 10) / 10),
        categories: sessions.map((s) => `${s} session${s === 1 ? "" : "s"}`),
        series: modes.map((mode) => ({
          name: mode === "direct" ? "direct (baseline)" : mode,
          values: sessions.map((s) => gateway.runs.find((r) => r.mode === mode && r.sessions === s)?.turnsPerSecond),
        })),
      }),
    });
  }
  return charts;
}

function dedupeMarkers(markers: Array<{ x: number; label: string }>): Array<{ x: number; label: string }> {
  const byX = new Map<number, string[]>();
  for (const m of markers) byX.set(m.x, [...(byX.get(m.x) ?? []), m.label]);
  return [...byX].map(([x, labels]) => ({ x, label: labels.join("; ") }));
}
