/**
 * The control-path shares bench (issue 31, item 5): a quiet tenant's `tool_search` over a shared
 * `mcp --http`, alone and while another tenant floods the control path, in alternating rounds.
 * The command and what it prints: main.ts.
 * Measures the MCP face in process over a generated catalog on purpose: imports src/config/, src/mcpface/, src/demo/ directly.
 */
import { pluginTools } from "../../src/index.js";
import { resolveServerConfig } from "../../src/config/server-config.js";
import { syntheticTools } from "../../src/demo/synthetic-catalog.js";
import { createMcpFace } from "../../src/mcpface/mcp-face.js";
import { distribution, round, roundDistribution, type Distribution } from "../harness/stats.js";
import { TenantClient, type CallTimes, type ControlCall, type FloodKind } from "./tenant-client.js";

export const FLOOD_KINDS: readonly FloodKind[] = ["describe-unknown", "search", "batch-search"];
const TOKENS = [{ token: "bench-control-flood-0123456789" }, { token: "bench-control-quiet-0123456789" }];
const QUIET_CALL: ControlCall = { name: "tool_search", arguments: { query: "create a contact in the crm" } };
/** What the issue asks of a quiet tenant's p50 under a flood, against its p50 alone. */
export const P50_GOAL = 2;

export interface Phase {
  latencyMs: Distribution;
  outcomes: Record<string, number>;
}

export interface FloodRow {
  kind: FloodKind;
  alone: Phase;
  flooded: Phase;
  flooder: { sent: number; outcomes: Record<string, number> };
  p50Ratio: number;
  p99Ratio: number;
}

export interface ControlSharesOptions {
  tools: number;
  calls: number;
  rounds: number;
  gapMs: number;
  sessions: number;
  inFlight: number;
  idChars: number;
  kinds: FloodKind[];
  /** How long the flood's last calls get to finish before the next idle phase, ms. */
  settleMs: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function phase(results: readonly CallTimes[]): Phase {
  const outcomes: Record<string, number> = {};
  for (const r of results) for (const [code, n] of Object.entries(r.outcomes)) outcomes[code] = (outcomes[code] ?? 0) + n;
  return { latencyMs: roundDistribution(distribution(results.flatMap((r) => r.times)), 2), outcomes };
}

export async function runControlShares(options: ControlSharesOptions, log: (line: string) => void = () => {}): Promise<FloodRow[]> {
  const config = resolveServerConfig(
    { tools: { toolSearch: { mode: "tools" } }, provider: { baseURL: "http://127.0.0.1:9/v1" }, gateway: { auth: { tokens: TOKENS } } },
    process.cwd(),
    {},
  );
  const face = await createMcpFace(config, {
    sources: [
      pluginTools(
        "acme",
        syntheticTools(options.tools).map((t) => t.definition),
      ),
    ],
  });
  const clients: TenantClient[] = [];
  const rows: FloodRow[] = [];
  try {
    const { url } = await face.listenHttp("127.0.0.1", 0);
    const [flooder, quiet] = TOKENS.map(({ token }) => new TenantClient(url, token, options.idChars)) as [TenantClient, TenantClient];
    clients.push(flooder, quiet);
    await Promise.all(clients.map((c) => c.connected));
    // The first calls warm the index and the JIT; they belong to no phase.
    await quiet.calls(QUIET_CALL, 20, 0);
    for (const kind of options.kinds) rows.push(await floodRow(kind, flooder, quiet, options, log));
  } finally {
    await face.close();
    await Promise.allSettled(clients.map((c) => c.close()));
  }
  return rows;
}

async function floodRow(
  kind: FloodKind,
  flooder: TenantClient,
  quiet: TenantClient,
  options: ControlSharesOptions,
  log: (line: string) => void,
): Promise<FloodRow> {
  const aloneRounds: CallTimes[] = [];
  const floodedRounds: CallTimes[] = [];
  const flooderFigures = { sent: 0, outcomes: {} as Record<string, number> };
  for (let round = 0; round < options.rounds; round += 1) {
    aloneRounds.push(await quiet.calls(QUIET_CALL, options.calls, options.gapMs));
    await flooder.flood(kind, options.sessions, options.inFlight, 100);
    floodedRounds.push(await quiet.calls(QUIET_CALL, options.calls, options.gapMs));
    const { sent, outcomes } = await flooder.stop();
    flooderFigures.sent += sent;
    for (const [code, n] of Object.entries(outcomes)) flooderFigures.outcomes[code] = (flooderFigures.outcomes[code] ?? 0) + n;
    // The flood's last calls in flight finish before the next idle phase.
    await sleep(options.settleMs);
  }
  const alone = phase(aloneRounds);
  const flooded = phase(floodedRounds);
  const row: FloodRow = {
    kind,
    alone,
    flooded,
    flooder: flooderFigures,
    p50Ratio: round(flooded.latencyMs.p50 / alone.latencyMs.p50, 2),
    p99Ratio: round(flooded.latencyMs.p99 / alone.latencyMs.p99, 2),
  };
  log(
    `${kind}: quiet p50 ${alone.latencyMs.p50} → ${flooded.latencyMs.p50} ms (${row.p50Ratio}×), p99 ${alone.latencyMs.p99} → ${flooded.latencyMs.p99} ms (${row.p99Ratio}×); flooder ${JSON.stringify(flooderFigures)}`,
  );
  return row;
}
