/**
 * Gateway throughput: whole agent turns (provider round trips, tool discovery, the call) per
 * second, and turn latency, with 1, 10 and 100 sessions each running turns back to back, in
 * direct, code and tools mode, against the scripted provider over a generated catalog.
 * Direct mode is the baseline each ratio divides by. Everything runs in this process and on
 * this machine's cores (gateway, provider, sandbox children), so the figures are an upper
 * bound for the engine's own overhead, not a model's speed.
 * Builds its catalog with the demo's generator on purpose: imports src/demo/synthetic-catalog.ts directly.
 */
import { pluginTools, type ToolSearchMode, type PoolOptions } from "../../src/index.js";
import { syntheticTools } from "../../src/demo/synthetic-catalog.js";
import { isExpectedTool } from "../harness/expected.js";
import type { Progress } from "../harness/progress.js";
import { startScriptedStack, type ScriptedStack } from "../harness/stack.js";
import { distribution, median, ratio, round, roundDistribution, type Distribution } from "../harness/stats.js";

export interface GatewayOptions {
  /** Generated catalog size (default 1,000). */
  tools: number;
  modes: readonly ToolSearchMode[];
  /** Concurrent sessions per configuration. */
  sessions: readonly number[];
  /** Turns each configuration runs in all (spread over its sessions; at least one per session). */
  turns: (sessions: number) => number;
  /** Distinct requests in rotation, each checked in a warm-up turn per mode (default 12, one per domain). */
  warmUpRequests?: number;
  /**
   * Rounds per concurrency (default 1): each round runs every mode at that concurrency, one after
   * the other, so that load from elsewhere falls on every mode alike; a ratio is the median of
   * the per-round ratios, and the figures sum the rounds. Many short rounds (a couple of turns a
   * mode) follow the machine's load most closely.
   */
  rounds?: number | ((sessions: number) => number);
  log: Progress;
}

export interface GatewayRun {
  mode: ToolSearchMode;
  /** The mode the runs used (code falls back to tools without a sandbox). */
  effectiveMode: ToolSearchMode;
  sessions: number;
  turns: number;
  failed: number;
  wallMs: number;
  turnsPerSecond: number;
  /** Turn latency in ms, as the client saw it (POST /v1/runs to response). */
  latency: Distribution;
  /**
   * The scripted provider's time per turn (its request handling, mostly the scripted model
   * scoring every declared tool against the request), summed over the turn's round trips and
   * averaged; with several sessions it includes waiting for this process's event loop.
   */
  providerMsPerTurn: number;
  /** Mean turn latency less providerMsPerTurn: the gateway's and engine's share. */
  gatewayMsPerTurn: number;
  /** turnsPerSecond / direct's at the same concurrency. */
  throughputRatio: number;
  /** p50 / direct's p50 at the same concurrency. */
  p50Ratio: number;
  /** With several rounds: the lowest and highest per-round turns/s ÷ direct's (throughputRatio is their median). */
  throughputRatioRange?: [number, number];
  /**
   * CPU of this process (gateway, engine and scripted provider; not the sandbox children) per
   * turn, and its ratio to direct's at the same concurrency (the median of the rounds', with
   * their range). CPU time moves far less with the machine's load than wall time does.
   */
  cpuMsPerTurn?: number;
  cpuRatio?: number;
  cpuRatioRange?: [number, number];
  /** Interleaved rounds this configuration ran (1 unless the plan asks for more). */
  rounds?: number;
}

export interface GatewayResult {
  catalogTools: number;
  requests: string[];
  pool: PoolOptions;
  runs: GatewayRun[];
}

/**
 * The pool as configured for this benchmark: the default two pre-forked children (one per core
 * here), with a queue long enough that 100 concurrent code-mode sessions wait instead of being
 * refused with POOL_SATURATED (the default queue is 64).
 */
const GATEWAY_POOL: PoolOptions = { prefork: 2, maxQueue: 256 };

export async function runGatewayBench(options: GatewayOptions): Promise<GatewayResult> {
  const { log } = options;
  const synthetic = syntheticTools(options.tools);
  // One request per domain, each naming a tool of the catalog; the warm-up checks that every mode resolves each to its tool.
  const cases = synthetic
    .slice(0, Math.min(options.warmUpRequests ?? 12, 12, synthetic.length))
    .map((t) => ({ input: `${t.request}.`, expected: `plugin:acme:${t.definition.name}` }));
  const stack = await startScriptedStack({
    sources: [
      pluginTools(
        "acme",
        synthetic.map((t) => t.definition),
      ),
    ],
    pool: GATEWAY_POOL,
  });
  const roundsFor = (sessions: number): number =>
    Math.max(1, Math.floor(typeof options.rounds === "function" ? options.rounds(sessions) : (options.rounds ?? 1)));
  const effective = new Map<ToolSearchMode, ToolSearchMode>();
  const measured = new Map<string, Measured[]>();
  const key = (mode: ToolSearchMode, sessions: number): string => `${mode}×${sessions}`;
  try {
    for (const mode of options.modes) effective.set(mode, await warmUp(stack, mode, cases));
    for (const sessions of options.sessions) {
      const rounds = roundsFor(sessions);
      for (let r = 0; r < rounds; r += 1) {
        for (const mode of options.modes) {
          const turns = Math.max(sessions, options.turns(sessions));
          const run = await measure(stack, mode, sessions, turns, cases);
          measured.set(key(mode, sessions), [...(measured.get(key(mode, sessions)) ?? []), run]);
          if (rounds <= 3)
            log(
              `${rounds > 1 ? `round ${r + 1}/${rounds}: ` : ""}${mode} ×${sessions} sessions: ${run.turns} turns, ${run.turnsPerSecond.toFixed(1)} turns/s, ` +
                `p50 ${run.latency.p50.toFixed(1)} ms, p99 ${run.latency.p99.toFixed(1)} ms, ` +
                `provider ${run.providerMsPerTurn.toFixed(1)} ms/turn, gateway ${run.gatewayMsPerTurn.toFixed(1)} ms/turn${run.failed ? `, ${run.failed} FAILED` : ""}`,
            );
        }
      }
    }
  } finally {
    await stack.close();
  }
  const runs: GatewayRun[] = [];
  for (const mode of options.modes) {
    for (const sessions of options.sessions) {
      const rounds = roundsFor(sessions);
      const mine = measured.get(key(mode, sessions)) ?? [];
      const direct = measured.get(key("direct", sessions));
      const perRound = direct ? mine.map((m, i) => m.turnsPerSecond / direct[i]!.turnsPerSecond) : [];
      const cpuPerRound = direct
        ? mine.map((m, i) => m.cpuMs / m.turns / (direct[i]!.cpuMs / direct[i]!.turns)).filter((x) => Number.isFinite(x) && x > 0)
        : [];
      const merged = merge(mine);
      const directMerged = direct ? merge(direct) : undefined;
      runs.push({
        mode,
        effectiveMode: effective.get(mode) ?? mode,
        ...merged,
        throughputRatio:
          perRound.length === 0 ? Number.NaN : rounds > 1 ? round(median(perRound), 3) : ratio(merged.turnsPerSecond, directMerged!.turnsPerSecond, 3),
        p50Ratio: directMerged ? ratio(merged.latency.p50, directMerged.latency.p50, 3) : Number.NaN,
        ...(rounds > 1 && perRound.length > 0
          ? { throughputRatioRange: [round(Math.min(...perRound), 3), round(Math.max(...perRound), 3)] as [number, number], rounds }
          : {}),
        cpuMsPerTurn: round(mine.reduce((s, m) => s + m.cpuMs, 0) / merged.turns, 2),
        ...(cpuPerRound.length > 0 ? { cpuRatio: round(median(cpuPerRound), 3) } : {}),
        ...(cpuPerRound.length > 1 ? { cpuRatioRange: [round(Math.min(...cpuPerRound), 3), round(Math.max(...cpuPerRound), 3)] as [number, number] } : {}),
      });
    }
  }
  for (const r of runs.filter((x) => (x.rounds ?? 1) > 3)) {
    log(
      `${r.mode} ×${r.sessions} sessions, ${r.rounds} rounds: ${r.turns} turns, ${r.turnsPerSecond.toFixed(1)} turns/s, p50 ${r.latency.p50.toFixed(1)} ms, CPU ${r.cpuMsPerTurn} ms/turn` +
        `${r.mode === "direct" ? "" : `; ÷ direct: turns/s ${r.throughputRatio} (rounds ${r.throughputRatioRange?.join("…")}), CPU/turn ${r.cpuRatio} (rounds ${r.cpuRatioRange?.join("…")})`}${r.failed ? `, ${r.failed} FAILED` : ""}`,
    );
  }
  return { catalogTools: options.tools, requests: cases.map((c) => c.input), pool: GATEWAY_POOL, runs };
}

/** One turn per request, unmeasured: warms the index, the pool and the JIT, and checks every answer. */
async function warmUp(stack: ScriptedStack, mode: ToolSearchMode, cases: ReadonlyArray<{ input: string; expected: string }>): Promise<ToolSearchMode> {
  let effective: ToolSearchMode = mode;
  for (const [i, c] of cases.entries()) {
    const turn = await stack.turn(c.input, mode, `gw-warm-${mode}-${i}`);
    if (!turn.ok) throw new Error(`gateway ${mode}: warm-up turn "${c.input}" failed: ${turn.error}`);
    if (!isExpectedTool(turn.finalTool, c.expected)) throw new Error(`gateway ${mode}: "${c.input}" called ${turn.finalTool}, expected ${c.expected}`);
    effective = turn.mode;
  }
  await stack.clearRecorded();
  return effective;
}

type Measured = Pick<GatewayRun, "sessions" | "turns" | "failed" | "wallMs" | "turnsPerSecond" | "latency" | "providerMsPerTurn" | "gatewayMsPerTurn"> & {
  latencies: number[];
  providerMs: number;
  cpuMs: number;
};

/** One configuration's rounds as one run: turns and wall time summed, latency over every turn. */
function merge(parts: readonly Measured[]): Omit<Measured, "latencies" | "providerMs" | "cpuMs"> {
  const turns = parts.reduce((s, p) => s + p.turns, 0);
  const wallMs = parts.reduce((s, p) => s + p.wallMs, 0);
  const latency = distribution(parts.flatMap((p) => p.latencies));
  const providerMsPerTurn = parts.reduce((s, p) => s + p.providerMs, 0) / turns;
  return {
    sessions: parts[0]!.sessions,
    turns,
    failed: parts.reduce((s, p) => s + p.failed, 0),
    wallMs: round(wallMs, 1),
    turnsPerSecond: round((turns / wallMs) * 1000, 2),
    latency: roundDistribution(latency, 2),
    providerMsPerTurn: round(providerMsPerTurn, 2),
    gatewayMsPerTurn: round(latency.mean - providerMsPerTurn, 2),
  };
}

async function measure(
  stack: ScriptedStack,
  mode: ToolSearchMode,
  sessions: number,
  turns: number,
  cases: ReadonlyArray<{ input: string; expected: string }>,
): Promise<Measured> {
  const latencies: number[] = [];
  let failed = 0;
  let next = 0;
  let sinceClear = 0;
  stack.resetProviderTimes();
  const cpu0 = process.cpuUsage();
  const started = performance.now();
  const session = async (s: number): Promise<void> => {
    for (let t = 0; ; t += 1) {
      const index = next++;
      if (index >= turns) return;
      const c = cases[index % cases.length]!;
      const turn = await stack.turn(c.input, mode, `gw-${mode}-${sessions}-${s}`);
      latencies.push(turn.ms);
      if (!turn.ok || !isExpectedTool(turn.finalTool, c.expected)) {
        failed += 1;
        // The first failures say why, so a FAILED suite can be read without a rerun.
        if (failed <= 3)
          console.error(`gateway ${mode} ×${sessions}: "${c.input}" → ${turn.ok ? `called ${turn.finalTool}, expected ${c.expected}` : turn.error}`);
      }
      // The provider keeps every request body it got; drop them before they add up to gigabytes.
      if (++sinceClear >= 40) {
        sinceClear = 0;
        await stack.clearRecorded();
      }
    }
  };
  await Promise.all(Array.from({ length: sessions }, (_, s) => session(s)));
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpu0);
  await stack.clearRecorded();
  const providerMs = stack.providerTimes().reduce((a, b) => a + b, 0);
  const providerMsPerTurn = providerMs / turns;
  const latency = distribution(latencies);
  return {
    latencies,
    providerMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
    sessions,
    turns,
    failed,
    wallMs: round(wallMs, 1),
    turnsPerSecond: round((turns / wallMs) * 1000, 2),
    latency: roundDistribution(latency, 2),
    providerMsPerTurn: round(providerMsPerTurn, 2),
    gatewayMsPerTurn: round(latency.mean - providerMsPerTurn, 2),
  };
}
