/**
 * A quiet tenant's search latency while another tenant floods the control path (search,
 * describe, unknown-id lookups) of a shared `mcp --http`, beside the same run without the flood.
 *
 *   npm run build && node dist/bench/control-shares/main.js [--tools 1000] [--calls 60] [--rounds 3] [--gap-ms 10]
 *       [--sessions 8] [--in-flight 8] [--id-chars 253] [--kinds describe-unknown,search,batch-search] [--json FILE]
 *
 * The face runs in this process over loopback with two tokens, tools mode, a generated catalog of
 * --tools tools. The quiet tenant (one session) calls `tool_search` one call at a time, --gap-ms
 * apart, --calls times: first alone, then while the flooding tenant keeps --in-flight calls in
 * flight on each of --sessions sessions (by default its whole share: `mcp.maxSessionsPerTenant` 8
 * × `mcp.maxInFlightPerSession` 8), each answered call sent again at once with fresh arguments.
 * Floods: `tool_describe` of an unknown id of --id-chars characters (a new one every call, so the
 * "did you mean" lookup runs every time), `tool_search` of one query, `tool_search` of a batch of
 * 10 queries. Each flood is measured beside the same calls without it, in --rounds alternating
 * pairs (alone, flooded, alone, flooded, …), so that a change of the machine's load falls on
 * both sides; each side's percentiles are over all its rounds' calls. Printed per flood:
 * the quiet tenant's p50/p99 alone and flooded, their ratios, and what the flooder got. The goal
 * (issue 31, item 5) is a p50 ratio of at most 2. Each tenant's clients run in a worker thread of
 * their own (tenant-client.ts).
 */
import { writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { flagValue, positiveIntArg } from "../harness/args.js";
import { FLOOD_KINDS, P50_GOAL, runControlShares, type ControlSharesOptions, type FloodRow } from "./control-shares.js";
import type { FloodKind } from "./tenant-client.js";

function parseOptions(argv: readonly string[]): ControlSharesOptions & { json?: string } {
  const at = (flag: string) => argv.indexOf(flag);
  const kindsAt = at("--kinds");
  const kinds = kindsAt >= 0 ? (flagValue(argv, kindsAt + 1, "--kinds").split(",") as FloodKind[]) : [...FLOOD_KINDS];
  const unknown = kinds.filter((k) => !FLOOD_KINDS.includes(k));
  if (unknown.length > 0) throw new Error(`--kinds: unknown ${unknown.join(", ")}; known: ${FLOOD_KINDS.join(", ")}`);
  const jsonAt = at("--json");
  return {
    tools: positiveIntArg("--tools", 1_000),
    calls: positiveIntArg("--calls", 60),
    rounds: positiveIntArg("--rounds", 3),
    gapMs: positiveIntArg("--gap-ms", 10),
    sessions: positiveIntArg("--sessions", 8),
    inFlight: positiveIntArg("--in-flight", 8),
    idChars: positiveIntArg("--id-chars", 253),
    kinds,
    settleMs: 1_000,
    ...(jsonAt >= 0 ? { json: flagValue(argv, jsonAt + 1, "--json") } : {}),
  };
}

function printTable(options: ControlSharesOptions, rows: readonly FloodRow[], load: readonly number[]): void {
  console.log(
    `control-path shares: ${options.tools} tools, quiet tenant's tool_search over ${options.rounds} × ${options.calls} calls each side; flooder ${options.sessions} sessions × ${options.inFlight} in flight; load average ${load.map((l) => l.toFixed(1)).join(", ")}`,
  );
  console.log("| flood | quiet p50 alone → flooded | ratio | quiet p99 alone → flooded | ratio | flooder's calls | goal p50 ≤ 2× |");
  console.log("| --- | --- | --- | --- | --- | --- | --- |");
  for (const r of rows) {
    console.log(
      `| ${r.kind} | ${r.alone.latencyMs.p50} → ${r.flooded.latencyMs.p50} ms | ${r.p50Ratio}× | ${r.alone.latencyMs.p99} → ${r.flooded.latencyMs.p99} ms | ${r.p99Ratio}× | ${r.flooder.sent} | ${r.p50Ratio <= P50_GOAL ? "met" : "missed"} |`,
    );
  }
}

const { json, ...options } = parseOptions(process.argv.slice(2));
const rows = await runControlShares(options, (line) => console.error(line));
const load = loadavg();
printTable(options, rows, load);
if (json) writeFileSync(json, `${JSON.stringify({ options, goal: { p50Ratio: P50_GOAL }, loadavg: load, rows }, null, 2)}\n`);
