/** The upstream suite's tables (SUMMARY.md, the standalone bench/upstream output) and its headline. */
import type { UpstreamResult } from "../upstream/upstream-bench.js";

const msf = (v: number): string => (!Number.isFinite(v) ? "–" : v >= 100 ? Math.round(v).toLocaleString("en-US") : v >= 10 ? v.toFixed(1) : v.toFixed(2));
const times = (v: number): string => (Number.isFinite(v) ? `${v.toFixed(2)}×` : "–");

function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  return [`| ${header.join(" | ")} |`, `|${header.map((_, i) => (i === 0 ? ":---" : "---:")).join("|")}|`, ...rows.map((r) => `| ${r.join(" | ")} |`)].join(
    "\n",
  );
}

/** The suite's section: `level` is the heading level of its title. */
export function upstreamMarkdown(r: UpstreamResult, level: string): string[] {
  const { hung, shares } = r;
  return [
    "",
    `${level} Upstream faults`,
    "",
    "Gateway turns (POST /v1/runs, each a search and an MCP call) with two MCP servers, and with a third that never answers (`sleep 1000`):",
    "",
    table(
      ["servers", "gateway start", "turns", "turn p50 ms", "turn max ms", "failed"],
      hung.rows.map((row) => [
        row.label,
        `${(row.startMs / 1000).toFixed(1)} s`,
        String(row.turns),
        msf(row.latency.p50),
        msf(row.latency.max),
        String(row.failed),
      ]),
    ),
    "",
    `With the hung server: turn p50 ${times(hung.p50Ratio)}, max ${times(hung.maxRatio)} the turns without it.`,
    "",
    `A quiet tenant's quick calls on a server that runs one call at a time (${msf(shares.slowMs)} ms each), alone and while another tenant keeps ${shares.floodCalls} of them queued:`,
    "",
    table(
      ["quiet tenant", "slots", "calls", "p50 ms", "max ms", "flooding calls answered", "failed"],
      shares.rows.map((row) => [
        row.label,
        String(row.maxConcurrentCalls),
        String(row.calls),
        msf(row.latency.p50),
        msf(row.latency.max),
        row.flood ? String(row.floodAnswered) : "–",
        String(row.failed),
      ]),
    ),
    "",
    `Under the flood: quiet p50 ${times(shares.p50Ratio)}, max ${times(shares.maxRatio)} alone; the longest quiet call is ${shares.maxInSlowCalls.toFixed(2)} slow calls (goal: about one).`,
  ];
}

export function upstreamHeadline(r: UpstreamResult): string {
  const [without, withHung] = r.hung.rows;
  const flooded = r.shares.rows[1];
  return (
    `Upstream faults: turn p50 ${msf(without?.latency.p50 ?? Number.NaN)} ms without a hung server, ${msf(withHung?.latency.p50 ?? Number.NaN)} ms with one; ` +
    `a quiet tenant's call under a flood of a one-at-a-time server: max ${msf(flooded?.latency.max ?? Number.NaN)} ms (${r.shares.maxInSlowCalls.toFixed(2)} slow calls).`
  );
}
