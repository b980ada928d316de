/**
 * The tenant row (issue 19, row 7): `mcp --http` with two tokens, in this process over loopback,
 * code mode, the pool at its defaults (2 slots; `shares: false` lifts the tenant shares). A quiet tenant (token 1) calls a light
 * `tool_search_code` body at a steady pace, alone first (its idle latency), then while a
 * flooding tenant (token 0) keeps `floodBodies` busy bodies in flight through the same face (the
 * issue's batch of 100): each answered body is sent again at once, each refused one
 * (POOL_SATURATED) after `retryMs`. The figure is the quiet tenant's p99 under the flood ÷ its
 * idle p99; the goal is ≤ 2×. Its calls' round trips cross the SDK client, HTTP, the face, the
 * engine and the pool, as a real client's do.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { pluginTools } from "../../src/catalog/sources.js";
import { syntheticTools } from "../../src/demo/synthetic-catalog.js";
import { resolveGatewayConfig } from "../../src/gateway/gateway-config.js";
import { createMcpFace, type McpFace } from "../../src/mcpface/mcp-face.js";
import { resolvePoolOptions } from "../../src/sandbox/pool/options.js";
import type { PoolOptions } from "../../src/sandbox/types.js";
import type { Progress } from "../harness/progress.js";
import { distribution, round, roundDistribution, type Distribution } from "../harness/stats.js";
import type { Probes, WindowFigures } from "./probes.js";

export interface TenantFloodOptions {
  /** Bodies the flooding tenant keeps in flight. */
  floodBodies: number;
  /** How long each flooding body holds its slot, ms. */
  busyMs: number;
  /**
   * How it holds it: "cpu" busy-waits (the hostile case: one core burnt per slot), "sleep" blocks
   * in Atomics.wait (no CPU), which separates the pool's queueing from CPU contention on a
   * machine with few free cores.
   */
  hold: "cpu" | "sleep";
  /**
   * false: each tenant may hold every slot and the whole queue (maxRunningPerTenant =
   * maxConcurrent, maxQueuePerTenant = maxQueue), the pool as it was before tenant shares but
   * for the turn order; for a before/after figure.
   */
  shares: boolean;
  /** The quiet tenant's calls per phase, one at a time. */
  victimCalls: number;
  /** Pause between two of the quiet tenant's calls, ms. */
  victimGapMs: number;
  /** How long the flooder waits before sending a refused body again, ms. */
  retryMs: number;
}

export interface VictimPhase {
  calls: number;
  /** One tool_search_code round trip over HTTP, ms. */
  latencyMs: Distribution;
  /** ok, or the error code → count. */
  outcomes: Record<string, number>;
  window: WindowFigures;
}

export interface TenantFloodResult extends TenantFloodOptions {
  /** The pool's slots and each tenant's shares, as resolved. */
  pool: { maxConcurrent: number; maxQueue: number; maxQueuePerTenant: number; maxRunningPerTenant: number };
  idle: VictimPhase;
  flood: VictimPhase;
  /** The flooding tenant's answers over the flood phase (ok, POOL_SATURATED, …). */
  flooder: { sent: number; outcomes: Record<string, number> };
  /** The quiet tenant's p99 under the flood ÷ its idle p99. */
  p99Ratio: number;
  goal: number;
  /** The flood window's figures, for the checks every window gets. */
  window: WindowFigures;
}

/** What the issue asks of the quiet tenant's p99 under a flood, against its idle p99. */
export const TENANT_P99_GOAL = 2;

const TOKENS = [{ token: "bench-flood-tenant-0123456789" }, { token: "bench-quiet-tenant-0123456789" }];
/** Row 7's two pool slots (the pool's default with prefork 2); without shares, one tenant may take all of it. */
function poolFor(shares: boolean): PoolOptions {
  const pool = { prefork: 2, maxConcurrent: 2 };
  if (shares) return pool;
  const { maxQueue } = resolvePoolOptions(pool);
  return { ...pool, maxRunningPerTenant: pool.maxConcurrent, maxQueuePerTenant: maxQueue };
}
const QUIET_BODY = 'return (await openclaw.tools.search("create a contact", { limit: 3 })).length;';
/** The SDK client's own deadline per request (60 s by default) would cut the flooder's queued bodies. */
const REQUEST = { timeout: 600_000 };

export async function runTenantFloodRow(probes: Probes, options: TenantFloodOptions, log: Progress): Promise<TenantFloodResult | { skipped: string }> {
  const codeTimeoutMs = Math.min(60_000, Math.max(1_000, options.busyMs + 5_000));
  const config = resolveGatewayConfig(
    { tools: { toolSearch: { mode: "code", codeTimeoutMs } }, provider: { baseURL: "http://127.0.0.1:9/v1" }, gateway: { auth: { tokens: TOKENS } } },
    process.cwd(),
    {},
  );
  const pool = poolFor(options.shares);
  const face = await createMcpFace(config, { sources: [pluginTools("acme", syntheticTools(200).map((t) => t.definition))], pool });
  const clients: Client[] = [];
  let flooder: Flooder | undefined;
  try {
    const sandbox = await face.engine.sandboxReport();
    if (!sandbox.available) return { skipped: `code sandbox unavailable: ${sandbox.reason ?? "unknown reason"}` };
    const { url } = await face.listenHttp("127.0.0.1", 0);
    const healthz = url.replace(/\/mcp$/, "/healthz");
    const [flooding, quiet] = await Promise.all(TOKENS.map(async ({ token }) => connect(url, token, clients)));
    // The first calls start the index and JIT; they belong to neither phase.
    for (let i = 0; i < 3; i += 1) await callOnce(quiet!, QUIET_BODY);
    const idle = await victimPhase(probes, quiet!, options, healthz);
    log(`tenant idle: quiet tenant's code call p50 ${idle.latencyMs.p50} ms, p99 ${idle.latencyMs.p99} ms over ${idle.calls} calls`);
    flooder = new Flooder(flooding!, options);
    await flooder.steady();
    const flood = await victimPhase(probes, quiet!, options, healthz);
    const flooderFigures = flooder.stop();
    const p99Ratio = round(flood.latencyMs.p99 / idle.latencyMs.p99, 2);
    log(
      `tenant flood (${options.floodBodies} bodies holding ${options.busyMs} ms (${options.hold}) in flight${options.shares ? "" : ", no tenant shares"}): quiet tenant's p99 ${flood.latencyMs.p99} ms = ${p99Ratio}× idle; ` +
        `flooder ${JSON.stringify(flooderFigures.outcomes)}; quiet ${JSON.stringify(flood.outcomes)}`,
    );
    const { maxConcurrent, maxQueue, maxQueuePerTenant, maxRunningPerTenant } = resolvePoolOptions(pool);
    return { ...options, pool: { maxConcurrent, maxQueue, maxQueuePerTenant, maxRunningPerTenant }, idle, flood, flooder: flooderFigures, p99Ratio, goal: TENANT_P99_GOAL, window: flood.window };
  } finally {
    flooder?.stop();
    // Closing the face ends every session's run, which kills the bodies still running or queued.
    await face.close();
    await Promise.allSettled(clients.map((c) => c.close()));
  }
}

async function connect(url: string, token: string, clients: Client[]): Promise<Client> {
  const client = new Client({ name: "stall-tenant", version: "1.0.0" });
  clients.push(client);
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

/** The tool_search_code answer's outcome: "ok", the error code, or "error:<what failed>" when no answer came. */
async function callOnce(client: Client, code: string): Promise<string> {
  try {
    const result = (await client.callTool({ name: "tool_search_code", arguments: { code } }, undefined, REQUEST)) as CallToolResult;
    const text = result.content.map((item) => (item.type === "text" ? item.text : "")).join("");
    const parsed = JSON.parse(text) as { ok?: boolean; error?: { code?: string } };
    return parsed.ok === true ? "ok" : (parsed.error?.code ?? "unparsed");
  } catch (error) {
    return `error:${error instanceof Error ? error.name : "unknown"}`;
  }
}

async function victimPhase(probes: Probes, client: Client, options: TenantFloodOptions, healthz: string): Promise<VictimPhase> {
  const { figures, value } = await probes.measure(async () => {
    const times: number[] = [];
    const outcomes: Record<string, number> = {};
    for (let i = 0; i < options.victimCalls; i += 1) {
      const started = performance.now();
      const outcome = await callOnce(client, QUIET_BODY);
      times.push(performance.now() - started);
      outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
      await new Promise((resolve) => setTimeout(resolve, options.victimGapMs));
    }
    return { times, outcomes };
  }, healthz);
  return { calls: value.times.length, latencyMs: roundDistribution(distribution(value.times), 2), outcomes: value.outcomes, window: figures };
}

/** The flooding tenant: `floodBodies` busy bodies in flight, each sent again when it is answered. */
class Flooder {
  private stopped = false;
  private sent = 0;
  private readonly outcomes: Record<string, number> = {};
  private readonly retries = new Set<NodeJS.Timeout>();
  private readonly body: string;
  private reachedSteady!: () => void;
  private readonly steadyState = new Promise<void>((resolve) => (this.reachedSteady = resolve));

  constructor(
    private readonly client: Client,
    private readonly options: TenantFloodOptions,
  ) {
    this.body =
      options.hold === "sleep"
        ? `Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ${options.busyMs}); return 1;`
        : `const until = Date.now() + ${options.busyMs}; while (Date.now() < until); return 1;`;
    for (let i = 0; i < options.floodBodies; i += 1) this.send();
  }

  /**
   * Resolves once the flood holds what it can: its share of the queue is full (a body was
   * refused), or, for a flood smaller than its share, once its first body has run.
   */
  steady(): Promise<void> {
    return this.steadyState;
  }

  private send(): void {
    if (this.stopped) return;
    this.sent += 1;
    void callOnce(this.client, this.body).then((outcome) => {
      if (this.stopped) return;
      this.outcomes[outcome] = (this.outcomes[outcome] ?? 0) + 1;
      this.reachedSteady();
      if (outcome !== "POOL_SATURATED") return this.send();
      const retry = setTimeout(() => {
        this.retries.delete(retry);
        this.send();
      }, this.options.retryMs);
      this.retries.add(retry);
    });
  }

  /** Stops sending; what it counted over the flood. */
  stop(): { sent: number; outcomes: Record<string, number> } {
    this.stopped = true;
    for (const retry of this.retries) clearTimeout(retry);
    this.retries.clear();
    return { sent: this.sent, outcomes: { ...this.outcomes } };
  }
}
