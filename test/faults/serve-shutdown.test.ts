/**
 * SIGTERM to a single-process `toolsearch serve` (a real process) with a turn in flight, at each
 * stage a turn passes through: waiting for the model, in an MCP tool call, in a code-mode body's
 * bridged call. The turn in flight finishes and is answered (the drain); one still running at the
 * drain's end is answered 503 CLOSING with its telemetry, never a reset connection; idle
 * keep-alive connections are closed and no new connection is taken; a second signal ends the
 * drain at once. The process exits 0 every time.
 */
import { Agent, request, type IncomingHttpHeaders } from "node:http";
import type { Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { cleanedAfterEach, exited, Gate, HELD_REQUEST, HELD_TOOL, holdingMcpServer, holdingProvider, until } from "./holding.js";
import { definedProps } from "../../src/defined.js";

const { cleanup, cli } = cleanedAfterEach();

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  json: Record<string, unknown>;
}

/** POST /v1/runs on `agent` (keep-alive when given); rejects on a reset connection. */
function runTurn(url: string, body: Record<string, unknown>, agent?: Agent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/v1/runs`, { method: "POST", headers: { "content-type": "application/json" }, ...(agent ? { agent } : {}) }, (res) => {
      let text = "";
      res.on("data", (chunk: Buffer) => (text += chunk.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, json: JSON.parse(text) as Record<string, unknown> }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

function get(url: string, agent: Agent): Promise<{ status: number; socket: Socket }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0, socket: req.socket! }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** A fresh connection: resolves with the error code when it is refused, or the status when answered. */
function connect(url: string): Promise<string | number> {
  return new Promise((resolve) => {
    const req = request(`${url}/healthz`, { agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "error"));
    req.end();
  });
}

type Mode = "direct" | "code";

async function gatewayOver(gate: Gate, options: { mode?: Mode; drainMs?: number; holdModel?: Gate; workers?: number } = {}) {
  const mcp = await holdingMcpServer(gate);
  cleanup.push(() => mcp.close());
  const provider = await holdingProvider(options.holdModel ?? openGate());
  cleanup.push(() => provider.close());
  const server = await cli(
    "serve",
    {
      tools: { toolSearch: { mode: options.mode ?? "direct" } },
      provider: { api: "chat", baseURL: provider.url, model: "scripted" },
      mcpServers: [{ name: "reports", url: mcp.url }],
      gateway: definedProps({ drainMs: options.drainMs }),
    },
    ["--port", "0", ...(options.workers !== undefined ? ["--workers", String(options.workers)] : [])],
  );
  return server;
}

function openGate(): Gate {
  const gate = new Gate();
  gate.release();
  return gate;
}

const turn = { sessionId: "drain", input: HELD_REQUEST };

describe("toolsearch serve: SIGTERM drains the turns in flight", () => {
  it("a turn in an MCP tool call at SIGTERM finishes and is answered; no new connection is taken; exit 0", { timeout: 90_000 }, async () => {
    const gate = new Gate();
    const server = await gatewayOver(gate);
    const answer = runTurn(server.url, turn);
    await gate.started;
    server.child.kill("SIGTERM");
    await until(() => server.stderr().includes("stopping"), "the drain to start");
    expect(await connect(server.url)).toBe("ECONNREFUSED");
    gate.release();
    const { status, json } = await answer;
    expect(status).toBe(200);
    expect(json.answer).toContain("report exported");
    expect(await exited(server.child)).toBe(0);
  });

  it("a turn waiting for the model at SIGTERM finishes and is answered", { timeout: 90_000 }, async () => {
    const model = new Gate();
    const server = await gatewayOver(openGate(), { holdModel: model });
    const answer = runTurn(server.url, turn);
    await model.started;
    server.child.kill("SIGTERM");
    await until(() => server.stderr().includes("stopping"), "the drain to start");
    model.release();
    const { status, json } = await answer;
    expect(status).toBe(200);
    expect(json.answer).toContain("report exported");
    expect(await exited(server.child)).toBe(0);
  });

  it("a code-mode body in a bridged call at SIGTERM finishes and is answered", { timeout: 90_000 }, async () => {
    const gate = new Gate();
    const server = await gatewayOver(gate, { mode: "code" });
    const answer = runTurn(server.url, turn);
    await gate.started;
    server.child.kill("SIGTERM");
    await until(() => server.stderr().includes("stopping"), "the drain to start");
    gate.release();
    const { status, json } = await answer;
    expect(status).toBe(200);
    expect(json.mode).toBe("code");
    expect(json.answer).toContain("report exported");
    expect(await exited(server.child)).toBe(0);
  });

  it("a turn still running at the drain's end is answered 503 CLOSING with its telemetry, not a reset", { timeout: 90_000 }, async () => {
    const gate = new Gate();
    const server = await gatewayOver(gate, { drainMs: 200 });
    const answer = runTurn(server.url, turn);
    await gate.started;
    server.child.kill("SIGTERM");
    const { status, json } = await answer;
    expect(status).toBe(503);
    expect(json.error).toMatchObject({ code: "CLOSING" });
    // The caller can tell what ran: the held call is there, cancelled.
    expect((json.telemetry as { calls: unknown[] }).calls).toEqual([expect.objectContaining({ id: `mcp:reports:${HELD_TOOL}`, ok: false, code: "CANCELLED" })]);
    expect(gate.cancelled).toBe(1);
    expect(await exited(server.child)).toBe(0);
  });

  it("idle keep-alive connections are closed at SIGTERM; the answer in flight says connection: close", { timeout: 90_000 }, async () => {
    const gate = new Gate();
    const server = await gatewayOver(gate);
    const idle = new Agent({ keepAlive: true });
    const busy = new Agent({ keepAlive: true });
    cleanup.push(async () => {
      idle.destroy();
      busy.destroy();
    });
    const { status, socket } = await get(`${server.url}/healthz`, idle);
    expect(status).toBe(200);
    const idleClosed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    const answer = runTurn(server.url, turn, busy);
    await gate.started;
    server.child.kill("SIGTERM");
    await idleClosed;
    gate.release();
    const { status: turnStatus, headers } = await answer;
    expect(turnStatus).toBe(200);
    expect(headers.connection).toBe("close");
    expect(await exited(server.child)).toBe(0);
  });

  it("a second SIGTERM during the drain stops at once: the turn is answered CLOSING", { timeout: 90_000 }, async () => {
    const gate = new Gate();
    // A drain longer than the test: only the second signal can end it.
    const server = await gatewayOver(gate, { drainMs: 600_000 });
    const answer = runTurn(server.url, turn);
    await gate.started;
    server.child.kill("SIGTERM");
    await until(() => server.stderr().includes("stopping"), "the drain to start");
    server.child.kill("SIGTERM");
    const { status, json } = await answer;
    expect(status).toBe(503);
    expect(json.error).toMatchObject({ code: "CLOSING" });
    expect(await exited(server.child)).toBe(0);
  });

  // Slow on purpose: a real two-worker cluster started, drained and stopped.
  it("serve --workers: a turn in flight finishes through the drain; a second SIGTERM to the primary ends it at once", { timeout: 120_000 }, async () => {
    const gate = new Gate();
    const server = await gatewayOver(gate, { workers: 1 });
    const first = runTurn(server.url, turn);
    await gate.started;
    server.child.kill("SIGTERM");
    await until(() => server.stderr().includes("stopping:"), "the drain to start");
    gate.release();
    expect((await first).status).toBe(200);
    expect(await exited(server.child)).toBe(0);

    const held = new Gate();
    const insisted = await gatewayOver(held, { workers: 1, drainMs: 600_000 });
    const second = runTurn(insisted.url, turn);
    await held.started;
    insisted.child.kill("SIGTERM");
    await until(() => insisted.stderr().includes("stopping:"), "the drain to start");
    insisted.child.kill("SIGTERM");
    const { status, json } = await second;
    expect(status).toBe(503);
    expect(json.error).toMatchObject({ code: "CLOSING" });
    expect(await exited(insisted.child)).toBe(0);
  });
});
