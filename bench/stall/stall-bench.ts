/**
 * Event-loop stalls under hostile input (hardening issue, part 7). Every session of a gateway
 * shares one parent process, so one request that blocks its event loop blocks every session.
 * A real gateway runs in this process over a generated catalog; an idle window is measured
 * first, then one window per hostile kind, each running that input in a loop through the engine
 * the gateway holds, while the loop-delay histogram and a /healthz poller on another thread
 * watch. An optional MCP row floods another gateway with tools/list_changed; a tenant row floods
 * the code pool through `mcp --http` with one token while another token's latency is measured
 * (tenant-flood.ts); last, a memory row runs many client tools with distinct schemas and compares
 * the heap after forced GC.
 *
 * On code where a hostile input blocks for seconds per request, each kind climbs a ladder of
 * sizes and stops when one request would pass the per-step deadline, so the run completes and
 * says which size it reached (and an extrapolated time at the target). On hardened code the
 * same ladder reaches the target sizes.
 * Measures the gateway in process over a generated catalog on purpose: imports src/config/, src/gateway/, src/demo/ directly.
 */
import { pluginTools, type ToolSearchEngine } from "../../src/index.js";
import { syntheticTools } from "../../src/demo/synthetic-catalog.js";
import { resolveServerConfig } from "../../src/config/server-config.js";
import { startGateway, type Gateway } from "../../src/gateway/gateway-server.js";
import type { Progress } from "../harness/progress.js";
import { distribution, round, roundDistribution, type Distribution } from "../harness/stats.js";
import { hostileKinds, type HostileKind, type HostileKindName, type KindTargets } from "./hostile.js";
import { runAmplifyRow, type AmplifyOptions, type AmplifyResult } from "./amplify.js";
import { runFloodRow, type FloodOptions, type FloodResult } from "./mcp-flood.js";
import { runMemoryRow, type MemoryResult } from "./memory.js";
import { runTenantFloodRow, TENANT_P99_GOAL, type TenantFloodOptions, type TenantFloodResult } from "./tenant-flood.js";
import { Probes, type WindowFigures } from "./probes.js";

/** What the hardening issue asks for; printed beside the figures, never a reason to fail. */
export const STALL_TARGETS = { maxStallMs: 50, heapGrowthMB: 40, heapGrowthRuns: 10_000, tenantP99Ratio: TENANT_P99_GOAL, amplifyRssPerTurnMB: 64 } as const;

export interface StallOptions {
  /** Generated catalog size behind the gateway (the "did you mean" scan is over every tool). */
  tools: number;
  targets: KindTargets;
  /** Only these kinds (tests); default all. */
  kinds?: readonly HostileKindName[];
  /** How long each measuring window runs its input in a loop. */
  windowMs: number;
  /**
   * The per-step deadline: a kind stops climbing its ladder when one request took, or is
   * predicted from the last two steps to take, longer than this.
   */
  stepDeadlineMs: number;
  /** Iterations per window at most (fast inputs on hardened code would otherwise spin). */
  maxIterations: number;
  /** Runs in the memory row, each with a distinct client schema (0 = no row). */
  memoryRuns: number;
  /** The MCP list_changed flood row (quick runs a small one), or off. */
  flood: FloodOptions | false;
  /** The tenant row: one token floods the code pool through `mcp --http`, another's latency is measured; or off. Needs `code`. */
  tenantFlood: TenantFloodOptions | false;
  /** The amplifying-provider row (32 calls of a 1 MiB tool every trip), or off (default off). */
  amplify?: AmplifyOptions | false;
  /** Also send the long id from a code-mode body when the sandbox can start. */
  code: boolean;
  log: Progress;
}

export interface RampStep {
  size: number;
  ms: number;
  outcome: string;
}

export interface StallKindResult {
  kind: HostileKindName;
  what: string;
  unit: string;
  target: number;
  /** The size the window ran at: the target, unless the ladder stopped below it. */
  size: number;
  capped: boolean;
  cappedReason?: string;
  /** One request's time at the target size, extrapolated from the last two steps (only when capped). */
  projectedTargetMs?: number;
  ramp: RampStep[];
  iterations: number;
  /** Time of one request in the window, ms. */
  iterationMs: Distribution;
  /** Outcome code → count over the window (ok, TOOL_NOT_FOUND, INVALID_ARGS, prepareRun:CONFIG_INVALID, …). */
  outcomes: Record<string, number>;
  window: WindowFigures;
}

export interface StallResult {
  catalogTools: number;
  targets: KindTargets;
  settings: { windowMs: number; stepDeadlineMs: number; maxIterations: number };
  goals: typeof STALL_TARGETS;
  sandbox: { available: boolean; reason?: string };
  idle: WindowFigures;
  kinds: StallKindResult[];
  memory?: MemoryResult;
  flood?: FloodResult | { skipped: string };
  tenantFlood?: TenantFloodResult | { skipped: string };
  amplify?: AmplifyResult;
}

export async function runStallBench(options: StallOptions): Promise<StallResult> {
  const { log } = options;
  const gateway = await startStallGateway(options.tools);
  const probes = new Probes(`${gateway.url}/healthz`);
  try {
    await warmUp(gateway.engine);
    const sandbox = options.code ? await sandboxState(gateway.engine) : { available: false, reason: "not asked for" };
    if (options.code && !sandbox.available) log(`code mode unavailable (${sandbox.reason}); long-id-code skipped`);
    const idle = (await probes.measure(() => sleep(options.windowMs))).figures;
    log(`idle: loop max ${idle.loopMaxMs} ms, p99 ${idle.loopP99Ms} ms; healthz max ${idle.healthzMaxMs} ms over ${idle.healthzN} polls`);
    const wanted = options.kinds ? new Set(options.kinds) : undefined;
    const kinds: StallKindResult[] = [];
    for (const kind of hostileKinds(options.targets, { code: sandbox.available }).filter((k) => !wanted || wanted.has(k.name))) {
      const result = await measureKind(gateway.engine, probes, kind, options);
      kinds.push(result);
      log(describeKind(result));
    }
    const amplify = options.amplify ? await runAmplifyRow(probes, options.amplify, log) : undefined;
    // The flood row before the memory row: the memory row leaves hundreds of MB behind on code
    // whose validator cache has no bound, and collecting that heap would show up as flood stalls.
    const flood = options.flood ? await runFloodRow(probes, options.flood, log) : undefined;
    const tenantFlood = options.tenantFlood ? await tenantRow(probes, options.tenantFlood, sandbox, log) : undefined;
    const memory = options.memoryRuns > 0 ? await runMemoryRow(gateway.engine, options.memoryRuns, log) : undefined;
    return {
      catalogTools: options.tools,
      targets: options.targets,
      settings: { windowMs: options.windowMs, stepDeadlineMs: options.stepDeadlineMs, maxIterations: options.maxIterations },
      goals: STALL_TARGETS,
      sandbox,
      idle,
      kinds,
      ...(memory ? { memory } : {}),
      ...(flood ? { flood } : {}),
      ...(tenantFlood ? { tenantFlood } : {}),
      ...(amplify ? { amplify } : {}),
    };
  } finally {
    await probes.close();
    await gateway.close();
  }
}

async function tenantRow(
  probes: Probes,
  options: TenantFloodOptions,
  sandbox: { available: boolean; reason?: string },
  log: Progress,
): Promise<TenantFloodResult | { skipped: string }> {
  if (!sandbox.available) return { skipped: `code sandbox unavailable (${sandbox.reason ?? "not asked for"})` };
  return runTenantFloodRow(probes, options, log);
}

/** The gateway as `toolsearch serve` runs it, tools mode, one sandbox child (code mode is asked per run). */
async function startStallGateway(tools: number): Promise<Gateway> {
  // The provider is never called: the hostile requests go straight to the engine the gateway holds.
  const config = resolveServerConfig(
    { tools: { toolSearch: { mode: "tools" } }, provider: { baseURL: "http://127.0.0.1:9/v1" }, gateway: { port: 0 } },
    process.cwd(),
    {},
  );
  return startGateway(config, {
    sources: [
      pluginTools(
        "acme",
        syntheticTools(tools).map((t) => t.definition),
      ),
    ],
    pool: { prefork: 1 },
  });
}

/** A few ordinary runs first, so that JIT and index warm-up are not counted as stalls. */
async function warmUp(engine: ToolSearchEngine): Promise<void> {
  for (let i = 0; i < 5; i += 1) {
    const run = await engine.prepareRun({ sessionId: `stall-warm-${i}`, mode: "tools" });
    await run.search("create a contact");
    await run.end();
  }
  // Let start-up work still queued (sockets, timers, sweeps of the warm-up's garbage) settle before the idle window.
  await sleep(250);
}

async function sandboxState(engine: ToolSearchEngine): Promise<{ available: boolean; reason?: string }> {
  try {
    const report = await engine.sandboxReport();
    return report.available ? { available: true } : { available: false, reason: report.reason ?? "unknown reason" };
  } catch (error) {
    return { available: false, reason: error instanceof Error ? error.message : String(error) };
  }
}

async function measureKind(engine: ToolSearchEngine, probes: Probes, kind: HostileKind, options: StallOptions): Promise<StallKindResult> {
  const ramp = await climb(engine, kind, options.stepDeadlineMs);
  const size = ramp.steps.at(-1)!.size;
  const { figures, value } = await probes.measure(() => loop(engine, kind, size, options));
  return {
    kind: kind.name,
    what: kind.what,
    unit: kind.unit,
    target: kind.ladder.at(-1)!,
    size,
    capped: ramp.cappedReason !== undefined,
    ...(ramp.cappedReason !== undefined
      ? { cappedReason: ramp.cappedReason, projectedTargetMs: Math.round(predictMs(kind, ramp.steps, kind.ladder.at(-1)!)) }
      : {}),
    ramp: ramp.steps.map((s) => ({ ...s, ms: round(s.ms, 2) })),
    iterations: value.times.length,
    iterationMs: roundDistribution(distribution(value.times), 2),
    outcomes: value.outcomes,
    window: figures,
  };
}

/**
 * One request per ladder step, smallest first, until the target or the deadline: the next step
 * is not sent when the last took longer than the deadline or when the growth between the last
 * two steps predicts it would (a synchronous block cannot be interrupted once it has started).
 */
export async function climb(engine: ToolSearchEngine, kind: HostileKind, deadlineMs: number): Promise<{ steps: RampStep[]; cappedReason?: string }> {
  const steps: RampStep[] = [];
  for (const [index, size] of kind.ladder.entries()) {
    const last = steps.at(-1);
    if (last && last.ms > deadlineMs) return { steps, cappedReason: `one request at ${last.size} took ${Math.round(last.ms)} ms > ${deadlineMs} ms` };
    const predicted = last ? predictMs(kind, steps, size) : 0;
    if (predicted > deadlineMs) return { steps, cappedReason: `one request at ${size} predicted ~${Math.round(predicted)} ms > ${deadlineMs} ms` };
    const started = performance.now();
    const outcome = await kind.iterate(engine, size, index);
    steps.push({ size, ms: performance.now() - started, outcome });
    await yieldToLoop();
  }
  return { steps };
}

/**
 * One request's time at `size`, extrapolated with the kind's growth model from the last step and
 * the earliest step that took at least FIT_FLOOR_MS (one sample a step: spanning several steps
 * keeps one GC pause or JIT hiccup from turning into a wild exponent). Growth is bounded to what
 * these inputs show at worst, from linear to quadratic in the size (power) or from flat to
 * doubling per unit (exponential, the backtracking regex): noise never predicts a bigger input
 * cheaper, nor makes the projection to the target explode on a busy machine.
 */
export function predictMs(kind: HostileKind, steps: readonly RampStep[], size: number): number {
  const b = steps.at(-1)!;
  const a = steps.slice(0, -1).find((s) => s.ms >= FIT_FLOOR_MS) ?? steps.at(-2);
  if (!a || a.ms <= 0 || b.size === a.size) return kind.growth === "power" ? b.ms * Math.max(1, size / b.size) : b.ms;
  if (kind.growth === "exponential") return b.ms * clamp((b.ms / a.ms) ** (1 / (b.size - a.size)), 1, 2) ** (size - b.size);
  const exponent = clamp(Math.log(b.ms / a.ms) / Math.log(b.size / a.size), 1, 2);
  return b.ms * (size / b.size) ** exponent;
}

function clamp(x: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, x));
}

/** Steps faster than this are mostly timer and call overhead, not the input's cost. */
const FIT_FLOOR_MS = 2;

/** The window's body: the kind's request back to back at `size`, with a turn of the loop between. */
async function loop(
  engine: ToolSearchEngine,
  kind: HostileKind,
  size: number,
  options: StallOptions,
): Promise<{ times: number[]; outcomes: Record<string, number> }> {
  const times: number[] = [];
  const outcomes: Record<string, number> = {};
  const started = performance.now();
  for (let i = 0; i < options.maxIterations && (i === 0 || performance.now() - started < options.windowMs); i += 1) {
    const t0 = performance.now();
    const outcome = await kind.iterate(engine, size, 1_000 + i);
    times.push(performance.now() - t0);
    outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
    await yieldToLoop();
  }
  return { times, outcomes };
}

function describeKind(r: StallKindResult): string {
  const reached = r.capped
    ? `${r.size} of ${r.target} ${r.unit} (capped: ${r.cappedReason}; ~${r.projectedTargetMs} ms projected at target)`
    : `${r.size} ${r.unit}`;
  return (
    `${r.kind} at ${reached}: ${r.iterations} requests, loop max ${r.window.loopMaxMs} ms, p99 ${r.window.loopP99Ms} ms; ` +
    `healthz max ${r.window.healthzMaxMs} ms, p99 ${r.window.healthzP99Ms} ms; outcomes ${JSON.stringify(r.outcomes)}`
  );
}

/** Problems that make the figures meaningless (a broken benchmark), as opposed to slow figures. */
export function stallProblems(r: StallResult): string[] {
  const problems: string[] = [];
  const windows: Array<[string, WindowFigures]> = [["idle", r.idle], ...r.kinds.map((k): [string, WindowFigures] => [k.kind, k.window])];
  if (r.flood && "window" in r.flood) windows.push(["mcp-flood", r.flood.window]);
  if (r.tenantFlood && "window" in r.tenantFlood) windows.push(["tenant-flood", r.tenantFlood.window]);
  if (r.amplify) windows.push(["amplify", r.amplify.window]);
  // A failed poll during a stall is a finding, not a fault (the server's keep-alive timer fires
  // late, after the block, and drops the socket a request is waiting on); none answered is a fault.
  for (const [name, w] of windows) if (w.healthzN === 0) problems.push(`${name}: no /healthz answer in the window (${w.healthzErrors} failed)`);
  for (const k of r.kinds) {
    if (k.iterations === 0) problems.push(`${k.kind}: no request ran`);
    if (k.outcomes["unparsed"]) problems.push(`${k.kind}: ${k.outcomes["unparsed"]} answers were not JSON`);
  }
  if (r.tenantFlood && "window" in r.tenantFlood) {
    for (const [name, phase] of [
      ["idle", r.tenantFlood.idle],
      ["flood", r.tenantFlood.flood],
    ] as const) {
      if (phase.calls === 0) problems.push(`tenant-flood ${name}: no call ran`);
      const broken = Object.entries(phase.outcomes).filter(([code]) => code === "unparsed" || code.startsWith("error:"));
      if (broken.length > 0) problems.push(`tenant-flood ${name}: calls without an answer (${JSON.stringify(Object.fromEntries(broken))})`);
    }
  }
  // At the default budgets every amplified turn runs out of round trips; anything else (a 5xx, a lost answer) is a broken row.
  const amplifyOther = r.amplify ? r.amplify.turns - (r.amplify.outcomes["max_turns"] ?? 0) : 0;
  if (amplifyOther > 0)
    problems.push(`amplify: ${amplifyOther} of ${r.amplify!.turns} turns did not end at max_turns (${JSON.stringify(r.amplify!.outcomes)})`);
  if (r.memory && r.memory.failed > 0)
    problems.push(`memory: ${r.memory.failed} of ${r.memory.runs} valid calls failed (${JSON.stringify(r.memory.outcomes)})`);
  return problems;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Between two requests, a pass through the timers phase (setImmediate would start the next
 * request before it): the histogram's timer then samples each request's block on its own, and
 * the gateway's own timers (keep-alive, deadlines) get their turn as they would between requests.
 */
function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
