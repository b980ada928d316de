/**
 * What one upstream MCP server's fault costs everyone else (issue 31, rows 4 and 6), each beside
 * the same run without the fault:
 *
 * - **A hung server among three.** The real gateway (in-process, over loopback HTTP) in front of
 *   the scripted provider, with two MCP servers that answer (test/fixtures/mcp-servers/
 *   fault-server.mjs) and a third that never does (`command: "sleep", args: ["1000"]`, as in the
 *   issue). Turn latency (POST /v1/runs to its answer; each turn searches and calls an MCP tool)
 *   over the same turns with and without the hung server, on two gateways whose turns alternate;
 *   and how long each gateway took to start.
 * - **A flood on a slow downstream server.** One server that runs one call at a time, each
 *   `slowMs` long (fault-server.mjs with FAULT_SERIAL). A flooding tenant keeps `floodCalls` calls
 *   of it queued (each answered call sent again at once); a quiet tenant makes `quietCalls` quick
 *   calls one after the other, `quietGapMs` apart, each timed from when it was made. The same
 *   quiet calls alone are the baseline; `--unshared` adds a row with the server's slots raised
 *   to the flood's size (`maxConcurrentCalls`), so that every flooding call waits in the server
 *   itself, first come first served, as before the shares.
 */
import path from "node:path";
import { createToolSearch, mcpServer, type McpStdioServerConfig } from "../../src/index.js";
import type { Progress } from "../harness/progress.js";
import { startScriptedStack, type ScriptedStack, type TurnOutcome } from "../harness/stack.js";
import { distribution, ratio, roundDistribution, type Distribution } from "../harness/stats.js";
import { repoRoot } from "../lib/shared-data.js";

export interface UpstreamOptions {
  /** Turns measured with and without the hung server. */
  turns: number;
  /** The hung server's connectTimeoutMs: how long the gateway's start waits for it (10,000 in the full run, as a config without the key). */
  connectTimeoutMs: number;
  /** How long each call of the slow server takes. */
  slowMs: number;
  /** Calls the flooding tenant keeps queued on the slow server. */
  floodCalls: number;
  quietCalls: number;
  quietGapMs: number;
  /** Also measure the quiet tenant with the server's slots raised to the flood's size. */
  unshared: boolean;
  log: Progress;
}

export interface TurnRow {
  label: string;
  servers: number;
  /** From startGateway until it listened. */
  startMs: number;
  turns: number;
  failed: number;
  latency: Distribution;
}

export interface QuietRow {
  label: string;
  maxConcurrentCalls: number;
  flood: boolean;
  calls: number;
  failed: number;
  /** The quiet tenant's call latency, from when it was made to its answer. */
  latency: Distribution;
  /** Flooding calls answered meanwhile. */
  floodAnswered: number;
}

export interface UpstreamResult {
  hung: { rows: TurnRow[]; p50Ratio: number; maxRatio: number };
  shares: { slowMs: number; floodCalls: number; rows: QuietRow[]; p50Ratio: number; maxRatio: number; maxInSlowCalls: number };
}

const FAULT_SERVER = path.join(repoRoot(), "test", "fixtures", "mcp-servers", "fault-server.mjs");
const INPUT = "echo the text hello back";

function faultServer(name: string, env: Record<string, string> = {}): McpStdioServerConfig {
  return { name, command: process.execPath, args: [FAULT_SERVER], env };
}

export async function runUpstreamBench(options: UpstreamOptions): Promise<UpstreamResult> {
  const hungRows = await measureTurns(options);
  const [without, withHung] = hungRows as [TurnRow, TurnRow];
  const sharedRows = [await measureQuiet("quiet tenant alone", false, 1, options), await measureQuiet("quiet tenant, another flooding", true, 1, options)];
  if (options.unshared) sharedRows.push(await measureQuiet("the same, unshared (slots = flood)", true, options.floodCalls, options));
  const [alone, flooded] = sharedRows as [QuietRow, QuietRow];
  return {
    hung: { rows: hungRows, p50Ratio: ratio(withHung.latency.p50, without.latency.p50), maxRatio: ratio(withHung.latency.max, without.latency.max) },
    shares: {
      slowMs: options.slowMs,
      floodCalls: options.floodCalls,
      rows: sharedRows,
      p50Ratio: ratio(flooded.latency.p50, alone.latency.p50),
      maxRatio: ratio(flooded.latency.max, alone.latency.max),
      maxInSlowCalls: ratio(flooded.latency.max, options.slowMs, 2),
    },
  };
}

/**
 * Gateway turns that each call an MCP tool, on two gateways up side by side, one with a hung
 * server among its sources: their turns alternate, so that the machine's load and the warming
 * JIT fall on both alike.
 */
async function measureTurns(options: UpstreamOptions): Promise<TurnRow[]> {
  const { log } = options;
  const setups = [
    { label: "two servers", hung: false },
    { label: "two servers + one hung", hung: true },
  ];
  const stacks: Array<{ label: string; servers: number; startMs: number; stack: ScriptedStack; outcomes: TurnOutcome[] }> = [];
  try {
    for (const setup of setups) {
      const sources = [mcpServer(faultServer("alpha")), mcpServer(faultServer("beta"))];
      if (setup.hung) sources.push(mcpServer({ name: "hung", command: "sleep", args: ["1000"] }, { connectTimeoutMs: options.connectTimeoutMs }));
      const started = performance.now();
      const stack = await startScriptedStack({ sources, toolSearch: { mode: "tools" } });
      const startMs = performance.now() - started;
      log(`${setup.label}: gateway started in ${(startMs / 1000).toFixed(1)} s`);
      stacks.push({ label: setup.label, servers: sources.length, startMs, stack, outcomes: [] });
    }
    // One turn each to warm the index and the provider's first answer: not counted.
    for (const s of stacks) await s.stack.turn(INPUT, "tools", "warm-up");
    for (let i = 0; i < options.turns; i += 1) {
      // Who goes first changes every round.
      for (const s of i % 2 === 0 ? stacks : [...stacks].reverse()) s.outcomes.push(await s.stack.turn(INPUT, "tools", `turn-${i}`));
    }
  } finally {
    for (const s of stacks) await s.stack.close();
  }
  return stacks.map(({ label, servers, startMs, outcomes }) => {
    const failed = outcomes.filter((o) => !o.ok || !o.finalTool?.startsWith("mcp:"));
    for (const f of failed.slice(0, 3)) log(`${label}: turn failed: ${f.error ?? `called ${f.finalTool ?? "nothing"}`}`);
    const latency = roundDistribution(distribution(outcomes.map((o) => o.ms)), 1);
    log(`${label}: ${outcomes.length} turns, p50 ${latency.p50} ms, max ${latency.max} ms${failed.length ? `, ${failed.length} FAILED` : ""}`);
    return { label, servers, startMs: Math.round(startMs), turns: outcomes.length, failed: failed.length, latency };
  });
}

/** The quiet tenant's quick calls on the slow server, alone or while another tenant keeps it busy. */
async function measureQuiet(label: string, flood: boolean, maxConcurrentCalls: number, options: UpstreamOptions): Promise<QuietRow> {
  const { log } = options;
  const source = mcpServer(faultServer("serial", { FAULT_SERIAL: "1", FAULT_SLOW_MS: String(options.slowMs) }), {
    maxConcurrentCalls,
    maxQueuedCallsPerTenant: Math.max(64, options.floodCalls),
    callTimeoutMs: 3_600_000,
  });
  const engine = await createToolSearch({ toolSearch: { mode: "tools" }, sources: [source], callTimeoutMs: 3_600_000 });
  const flooder = await engine.prepareRun({ sessionId: "flooder", tenant: "token:flooder" });
  const quiet = await engine.prepareRun({ sessionId: "quiet", tenant: "token:quiet" });
  let flooding = flood;
  let floodAnswered = 0;
  const floodLoop = async (): Promise<void> => {
    while (flooding) {
      const outcome = await flooder.call("mcp:serial:slow", { text: "flood" });
      if (outcome.ok) floodAnswered += 1;
    }
  };
  const loops = flood ? Array.from({ length: options.floodCalls }, floodLoop) : [];
  const samples: number[] = [];
  let failed = 0;
  try {
    if (flood)
      await waitUntil(() => {
        const { running, queued } = source.status().calls;
        return running + queued >= options.floodCalls;
      });
    for (let i = 0; i < options.quietCalls; i += 1) {
      const started = performance.now();
      const outcome = await quiet.call("mcp:serial:echo", { text: `q${i}` });
      samples.push(performance.now() - started);
      if (!outcome.ok) failed += 1;
      await new Promise((resolve) => setTimeout(resolve, options.quietGapMs));
    }
  } finally {
    flooding = false;
    // Ending the flooder's run cancels its calls still waiting: nobody waits out the queue.
    await Promise.all([flooder.end(), quiet.end()]);
    await Promise.allSettled(loops);
    await engine.close();
  }
  const latency = roundDistribution(distribution(samples), 1);
  log(
    `${label}: ${samples.length} quiet calls, p50 ${latency.p50} ms, max ${latency.max} ms; ${floodAnswered} flooding calls answered${failed ? `, ${failed} FAILED` : ""}`,
  );
  return { label, maxConcurrentCalls, flood, calls: samples.length, failed, latency, floodAnswered };
}

async function waitUntil(check: () => boolean): Promise<void> {
  const deadline = performance.now() + 30_000;
  while (!check()) {
    if (performance.now() > deadline) throw new Error("the flood did not fill the queue within 30 s");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Broken, not slow: a turn or a quiet call that failed. */
export function upstreamProblems(result: UpstreamResult): string[] {
  return [
    ...result.hung.rows.filter((r) => r.failed > 0).map((r) => `${r.label}: ${r.failed} of ${r.turns} turns failed`),
    ...result.shares.rows.filter((r) => r.failed > 0).map((r) => `${r.label}: ${r.failed} of ${r.calls} quiet calls failed`),
  ];
}
