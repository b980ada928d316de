/**
 * The tenant row (issue 19, row 7): `mcp --http` with two tokens, in this process over loopback,
 * code mode, the pool at its defaults (2 slots; `shares: false` lifts the tenant shares). A quiet tenant (token 1) calls a light
 * `tool_search_code` body at a steady pace, alone first (its idle latency), then while a
 * flooding tenant (token 0) keeps `floodBodies` busy bodies in flight through the same face (the
 * issue's batch of 100): each answered body is sent again at once, each refused one
 * (POOL_SATURATED, or TOO_MANY_REQUESTS from the face's in-flight cap) after `retryMs`. The figure is the quiet tenant's p99 under the flood ÷ its
 * idle p99; the goal is ≤ 2×. Its calls' round trips cross the SDK client, HTTP, the face, the
 * engine and the pool, as a real client's do. Each tenant's client (the official SDK client) runs
 * in a worker thread of its own, so that the clients' own work is not counted on the gateway's
 * event loop: it costs about as much per request as the server's side.
 * Measures the MCP face and the pool's tenant shares in process on purpose: imports src/config/, src/mcpface/, src/sandbox/pool/, src/demo/ directly.
 */
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { pluginTools, type PoolOptions } from "../../src/index.js";
import { syntheticTools } from "../../src/demo/synthetic-catalog.js";
import { resolveServerConfig } from "../../src/config/server-config.js";
import { createMcpFace } from "../../src/mcpface/mcp-face.js";
import { resolvePoolOptions } from "../../src/sandbox/pool/options.js";
import type { Progress } from "../harness/progress.js";
import { distribution, round, roundDistribution, type Distribution } from "../harness/stats.js";
import type { Probes, WindowFigures } from "./probes.js";
import { askWorker, type WorkerMessage } from "../harness/worker-ask.js";

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

export async function runTenantFloodRow(probes: Probes, options: TenantFloodOptions, log: Progress): Promise<TenantFloodResult | { skipped: string }> {
  const codeTimeoutMs = Math.min(60_000, Math.max(1_000, options.busyMs + 5_000));
  const config = resolveServerConfig(
    { tools: { toolSearch: { mode: "code", codeTimeoutMs } }, provider: { baseURL: "http://127.0.0.1:9/v1" }, gateway: { auth: { tokens: TOKENS } } },
    process.cwd(),
    {},
  );
  const pool = poolFor(options.shares);
  const face = await createMcpFace(config, {
    sources: [
      pluginTools(
        "acme",
        syntheticTools(200).map((t) => t.definition),
      ),
    ],
    pool,
  });
  const clients: TenantClient[] = [];
  try {
    const sandbox = await face.engine.sandboxReport();
    if (!sandbox.available) return { skipped: `code sandbox unavailable: ${sandbox.reason ?? "unknown reason"}` };
    const { url } = await face.listenHttp("127.0.0.1", 0);
    const healthz = url.replace(/\/mcp$/, "/healthz");
    const [flooder, quiet] = TOKENS.map(({ token }) => new TenantClient(url, token));
    clients.push(flooder!, quiet!);
    await Promise.all(clients.map((c) => c.connected));
    // The first calls start the index and JIT; they belong to neither phase.
    await quiet!.calls(QUIET_BODY, 3, 0);
    const idle = await victimPhase(probes, quiet!, options, healthz);
    log(`tenant idle: quiet tenant's code call p50 ${idle.latencyMs.p50} ms, p99 ${idle.latencyMs.p99} ms over ${idle.calls} calls`);
    await flooder!.flood(floodBody(options), options.floodBodies, options.retryMs);
    const flood = await victimPhase(probes, quiet!, options, healthz);
    const flooderFigures = await flooder!.stop();
    const p99Ratio = round(flood.latencyMs.p99 / idle.latencyMs.p99, 2);
    log(
      `tenant flood (${options.floodBodies} bodies holding ${options.busyMs} ms (${options.hold}) in flight${options.shares ? "" : ", no tenant shares"}): quiet tenant's p99 ${flood.latencyMs.p99} ms = ${p99Ratio}× idle; ` +
        `flooder ${JSON.stringify(flooderFigures.outcomes)}; quiet ${JSON.stringify(flood.outcomes)}`,
    );
    const { maxConcurrent, maxQueue, maxQueuePerTenant, maxRunningPerTenant } = resolvePoolOptions(pool);
    return {
      ...options,
      pool: { maxConcurrent, maxQueue, maxQueuePerTenant, maxRunningPerTenant },
      idle,
      flood,
      flooder: flooderFigures,
      p99Ratio,
      goal: TENANT_P99_GOAL,
      window: flood.window,
    };
  } finally {
    // Closing the face ends every session's run, which kills the bodies still running or queued.
    await face.close();
    await Promise.allSettled(clients.map((c) => c.close()));
  }
}

function floodBody(options: TenantFloodOptions): string {
  return options.hold === "sleep"
    ? `Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ${options.busyMs}); return 1;`
    : `const until = Date.now() + ${options.busyMs}; while (Date.now() < until); return 1;`;
}

async function victimPhase(probes: Probes, client: TenantClient, options: TenantFloodOptions, healthz: string): Promise<VictimPhase> {
  const { figures, value } = await probes.measure(() => client.calls(QUIET_BODY, options.victimCalls, options.victimGapMs), healthz);
  return { calls: value.times.length, latencyMs: roundDistribution(distribution(value.times), 2), outcomes: value.outcomes, window: figures };
}

/**
 * One tenant's MCP client in a worker thread. `calls` sends one body at a time and times each
 * round trip; `flood` keeps `bodies` in flight, each sent again when answered (a refused one
 * after `retryMs`), and resolves once the flood holds what it can: a body was refused (its
 * share is full) or, for a flood smaller than its share, one was answered. Written as CommonJS
 * run with `eval: true`, so the compiled bench and vitest (TypeScript) share it; the SDK is
 * required by the paths this module resolves.
 */
const CLIENT_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { Client } = require(workerData.clientModule);
const { StreamableHTTPClientTransport } = require(workerData.transportModule);
// The SDK client's own deadline per request (60 s by default) would cut the flooder's queued bodies.
const REQUEST = { timeout: 600000 };
const client = new Client({ name: "stall-tenant", version: "1.0.0" });
let stopped = false, sent = 0, outcomes = {}, steady = false;
const retries = new Set();
async function callOnce(code) {
  try {
    const result = await client.callTool({ name: "tool_search_code", arguments: { code } }, undefined, REQUEST);
    const parsed = JSON.parse(result.content.map((i) => (i.type === "text" ? i.text : "")).join(""));
    return parsed.ok === true ? "ok" : (parsed.error && parsed.error.code) || "unparsed";
  } catch (error) {
    // The face's per-session in-flight cap answers the excess with TOO_MANY_REQUESTS (a JSON-RPC error, or HTTP 429).
    if (/TOO_MANY_REQUESTS|HTTP 429/.test(String(error && error.message) + JSON.stringify((error && error.data) || null))) return "TOO_MANY_REQUESTS";
    return "error:" + ((error && error.name) || "unknown");
  }
}
function send(body, retryMs) {
  if (stopped) return;
  sent += 1;
  callOnce(body).then((outcome) => {
    if (stopped) return;
    outcomes[outcome] = (outcomes[outcome] || 0) + 1;
    if (!steady) { steady = true; parentPort.postMessage({ type: "flooding" }); }
    if (outcome !== "POOL_SATURATED" && outcome !== "TOO_MANY_REQUESTS") return send(body, retryMs);
    const retry = setTimeout(() => { retries.delete(retry); send(body, retryMs); }, retryMs);
    retries.add(retry);
  });
}
parentPort.on("message", async (msg) => {
  if (msg.type === "connect") {
    await client.connect(new StreamableHTTPClientTransport(new URL(workerData.url), { requestInit: { headers: { authorization: "Bearer " + workerData.token } } }));
    parentPort.postMessage({ type: "connected" });
  } else if (msg.type === "calls") {
    const times = [], counts = {};
    for (let i = 0; i < msg.count; i += 1) {
      const started = performance.now();
      const outcome = await callOnce(msg.body);
      times.push(performance.now() - started);
      counts[outcome] = (counts[outcome] || 0) + 1;
      await new Promise((resolve) => setTimeout(resolve, msg.gapMs));
    }
    parentPort.postMessage({ type: "called", times, outcomes: counts });
  } else if (msg.type === "flood") {
    for (let i = 0; i < msg.bodies; i += 1) send(msg.body, msg.retryMs);
  } else if (msg.type === "stop") {
    stopped = true;
    for (const retry of retries) clearTimeout(retry);
    parentPort.postMessage({ type: "stopped", sent, outcomes });
  } else if (msg.type === "close") {
    stopped = true;
    for (const retry of retries) clearTimeout(retry);
    await client.close().catch(() => {});
    parentPort.postMessage({ type: "closed" });
  }
});
`;

const requireHere = createRequire(import.meta.url);

class TenantClient {
  private readonly worker: Worker;
  readonly connected: Promise<unknown>;

  constructor(url: string, token: string) {
    const workerData = {
      url,
      token,
      clientModule: requireHere.resolve("@modelcontextprotocol/sdk/client/index.js"),
      transportModule: requireHere.resolve("@modelcontextprotocol/sdk/client/streamableHttp.js"),
    };
    this.worker = new Worker(CLIENT_SOURCE, { eval: true, workerData });
    this.connected = this.ask({ type: "connect" }, "connected");
  }

  async calls(body: string, count: number, gapMs: number): Promise<{ times: number[]; outcomes: Record<string, number> }> {
    return (await this.ask({ type: "calls", body, count, gapMs }, "called")) as { times: number[]; outcomes: Record<string, number> };
  }

  async flood(body: string, bodies: number, retryMs: number): Promise<void> {
    await this.ask({ type: "flood", body, bodies, retryMs }, "flooding");
  }

  async stop(): Promise<{ sent: number; outcomes: Record<string, number> }> {
    const { sent, outcomes } = (await this.ask({ type: "stop" }, "stopped")) as { sent: number; outcomes: Record<string, number> };
    return { sent, outcomes };
  }

  async close(): Promise<void> {
    await this.ask({ type: "close" }, "closed").catch(() => {});
    await this.worker.terminate();
  }

  /** Posts `message` and resolves with the worker's next message of type `reply`. */
  private ask(message: WorkerMessage, reply: string): Promise<Record<string, unknown>> {
    return askWorker(this.worker, message, reply);
  }
}
