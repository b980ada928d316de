/**
 * One tenant's MCP clients (the official SDK client over Streamable HTTP) in a worker thread of
 * their own, so that the clients' work is not counted on the face's event loop: it costs about as
 * much per request as the server's side. `calls` sends one control-tool call at a time on one
 * session and times each round trip; `flood` opens `sessions` sessions and keeps `inFlight` calls
 * in flight on each, each answered call sent again at once (a refused one after `retryMs`), a new
 * call of the flood's kind every time. Written as CommonJS run with `eval: true`, so the compiled
 * bench and vitest (TypeScript) share it; the SDK is required by the paths this module resolves.
 */
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { askWorker, type WorkerMessage } from "../harness/worker-ask.js";

/** What a flooding tenant sends, a fresh call each time. */
export type FloodKind = "describe-unknown" | "search" | "batch-search";

/** One control-tool call of the quiet tenant. */
export interface ControlCall {
  name: string;
  arguments: Record<string, unknown>;
}

export interface CallTimes {
  times: number[];
  /** ok, or the error code → count. */
  outcomes: Record<string, number>;
}

const CLIENT_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { Client } = require(workerData.clientModule);
const { StreamableHTTPClientTransport } = require(workerData.transportModule);
const REQUEST = { timeout: 600000 };
const LETTERS = "abcdefghijklmnopqrstuvwxyz_";
const WORDS = ["create", "list", "export", "invoice", "contact", "ticket", "report", "payment", "meeting", "deployment", "customer", "refund"];
let serial = 0;
// A fresh id every call: no cache of the face's may answer it twice.
function unknownId() {
  serial += 1;
  let id = "mcp:nowhere:" + serial.toString(36) + "_";
  while (id.length < workerData.idChars) id += LETTERS[(serial * 7 + id.length * 13) % LETTERS.length];
  return id.slice(0, workerData.idChars);
}
function query(i) {
  serial += 1;
  return [0, 1, 2, 3].map((k) => WORDS[(serial + i * 5 + k * 3) % WORDS.length]).join(" ");
}
function floodCall(kind) {
  if (kind === "describe-unknown") return { name: "tool_describe", arguments: { id: unknownId() } };
  if (kind === "search") return { name: "tool_search", arguments: { query: query(0) } };
  return { name: "tool_search", arguments: { queries: Array.from({ length: 10 }, (_, i) => query(i)) } };
}
async function connect() {
  const client = new Client({ name: "control-shares", version: "1.0.0" });
  const headers = { authorization: "Bearer " + workerData.token };
  await client.connect(new StreamableHTTPClientTransport(new URL(workerData.url), { requestInit: { headers } }));
  return client;
}
async function callOnce(client, call) {
  try {
    const result = await client.callTool(call, undefined, REQUEST);
    if (!result.isError) return "ok";
    const text = result.content.map((i) => (i.type === "text" ? i.text : "")).join("");
    try { return (JSON.parse(text).error || {}).code || "error"; } catch { return "error"; }
  } catch (error) {
    const said = String(error && error.message) + JSON.stringify((error && error.data) || null);
    if (/TOO_MANY_REQUESTS|HTTP 429/.test(said)) return "TOO_MANY_REQUESTS";
    return "error:" + ((error && error.name) || "unknown");
  }
}
let quiet, flooders = [], stopped = false, sent = 0, outcomes = {}, steady = false;
const retries = new Set();
function send(client, kind, retryMs) {
  if (stopped) return;
  sent += 1;
  callOnce(client, floodCall(kind)).then((outcome) => {
    if (stopped) return;
    outcomes[outcome] = (outcomes[outcome] || 0) + 1;
    if (!steady) { steady = true; parentPort.postMessage({ type: "flooding" }); }
    if (outcome !== "TOO_MANY_REQUESTS") return send(client, kind, retryMs);
    const retry = setTimeout(() => { retries.delete(retry); send(client, kind, retryMs); }, retryMs);
    retries.add(retry);
  });
}
parentPort.on("message", async (msg) => {
  if (msg.type === "connect") {
    quiet = await connect();
    parentPort.postMessage({ type: "connected" });
  } else if (msg.type === "calls") {
    const times = [], counts = {};
    for (let i = 0; i < msg.count; i += 1) {
      const started = performance.now();
      const outcome = await callOnce(quiet, msg.call);
      times.push(performance.now() - started);
      counts[outcome] = (counts[outcome] || 0) + 1;
      await new Promise((resolve) => setTimeout(resolve, msg.gapMs));
    }
    parentPort.postMessage({ type: "called", times, outcomes: counts });
  } else if (msg.type === "flood") {
    stopped = false; sent = 0; outcomes = {}; steady = false;
    // The session opened at connect counts against the tenant's share: it floods too.
    if (flooders.length === 0) flooders.push(quiet);
    while (flooders.length < msg.sessions) flooders.push(await connect());
    for (const client of flooders.slice(0, msg.sessions)) for (let i = 0; i < msg.inFlight; i += 1) send(client, msg.kind, msg.retryMs);
  } else if (msg.type === "stop") {
    stopped = true;
    for (const retry of retries) clearTimeout(retry);
    parentPort.postMessage({ type: "stopped", sent, outcomes });
  } else if (msg.type === "close") {
    stopped = true;
    for (const retry of retries) clearTimeout(retry);
    await Promise.allSettled([quiet, ...flooders].filter(Boolean).map((c) => c.close()));
    parentPort.postMessage({ type: "closed" });
  }
});
`;

const requireHere = createRequire(import.meta.url);

export class TenantClient {
  private readonly worker: Worker;
  readonly connected: Promise<unknown>;

  constructor(url: string, token: string, idChars: number) {
    const workerData = {
      url,
      token,
      idChars,
      clientModule: requireHere.resolve("@modelcontextprotocol/sdk/client/index.js"),
      transportModule: requireHere.resolve("@modelcontextprotocol/sdk/client/streamableHttp.js"),
    };
    this.worker = new Worker(CLIENT_SOURCE, { eval: true, workerData });
    this.connected = this.ask({ type: "connect" }, "connected");
  }

  /** `count` calls one at a time on one session, `gapMs` apart; each round trip timed. */
  async calls(call: ControlCall, count: number, gapMs: number): Promise<CallTimes> {
    return (await this.ask({ type: "calls", call, count, gapMs }, "called")) as unknown as CallTimes;
  }

  /** Starts the flood; resolves once its first call was answered (the flood is under way). */
  async flood(kind: FloodKind, sessions: number, inFlight: number, retryMs: number): Promise<void> {
    await this.ask({ type: "flood", kind, sessions, inFlight, retryMs }, "flooding");
  }

  async stop(): Promise<{ sent: number; outcomes: Record<string, number> }> {
    const { sent, outcomes } = (await this.ask({ type: "stop" }, "stopped")) as { sent: number; outcomes: Record<string, number> };
    return { sent, outcomes };
  }

  async close(): Promise<void> {
    const exited = new Promise<void>((resolve) => this.worker.once("exit", () => resolve()));
    await Promise.race([this.ask({ type: "close" }, "closed").catch(() => {}), exited]);
    await this.worker.terminate();
  }

  /** Posts `message` and resolves with the worker's next message of type `reply`. */
  private ask(message: WorkerMessage, reply: string): Promise<Record<string, unknown>> {
    return askWorker(this.worker, message, reply);
  }
}
