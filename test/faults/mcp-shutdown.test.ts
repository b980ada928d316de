/**
 * `toolsearch mcp` (a real process) stopping with work in flight, driven by the official SDK
 * client: over Streamable HTTP a tools/call in flight at SIGTERM finishes, or is answered with a
 * CLOSING JSON-RPC error at the drain's end (never a stream that ends empty); a request sent
 * during the drain is refused CLOSING; a second signal ends the drain at once. Over stdio, a line
 * past gateway.maxBodyBytes is answered BODY_TOO_LARGE, the next request is served, and SIGTERM
 * ends the process.
 */
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { CLI, writeJson } from "../e2e/processes.js";
import { cleanedAfterEach, exited, Gate, HELD_TOOL, holdingMcpServer, until } from "./holding.js";

const { cleanup, cli } = cleanedAfterEach();

async function faceOver(gate: Gate, drainMs?: number) {
  const mcp = await holdingMcpServer(gate);
  cleanup.push(() => mcp.close());
  return cli(
    "mcp",
    {
      tools: { toolSearch: { mode: "direct" } },
      provider: { baseURL: "http://127.0.0.1:9/v1" },
      mcpServers: [{ name: "reports", url: mcp.url }],
      ...(drainMs !== undefined ? { gateway: { drainMs } } : {}),
    },
    ["--http", "0"],
  );
}

async function client(url: string): Promise<Client> {
  const c = new Client({ name: "faults", version: "1.0.0" });
  await c.connect(new StreamableHTTPClientTransport(new URL(url)));
  cleanup.push(() => c.close());
  return c;
}

/** The held tool's name as the face lists it in direct mode. */
async function heldToolName(c: Client): Promise<string> {
  const { tools } = await c.listTools();
  return tools.find((t) => t.name.includes(HELD_TOOL))!.name;
}

function text(result: unknown): string {
  return (result as CallToolResult).content.map((item) => (item.type === "text" ? item.text : "")).join("");
}

describe("toolsearch mcp --http: SIGTERM with a call in flight", () => {
  it("the call in flight finishes and is answered; exit 0", { timeout: 90_000 }, async () => {
    const gate = new Gate();
    const server = await faceOver(gate);
    const c = await client(server.url);
    const answer = c.callTool({ name: await heldToolName(c), arguments: {} });
    await gate.started;
    server.child.kill("SIGTERM");
    await until(() => server.stderr().includes("stopping"), "the drain to start");
    gate.release();
    expect(text(await answer)).toContain("report exported");
    expect(await exited(server.child)).toBe(0);
  });

  it("a call still running at the drain's end gets a CLOSING JSON-RPC error, and its tool call is cancelled", { timeout: 90_000 }, async () => {
    const gate = new Gate();
    const server = await faceOver(gate, 200);
    const c = await client(server.url);
    const answer = c.callTool({ name: await heldToolName(c), arguments: {} });
    await gate.started;
    server.child.kill("SIGTERM");
    await expect(answer).rejects.toMatchObject({ code: -32_000, data: { code: "CLOSING" } });
    await until(() => gate.cancelled === 1, "the downstream call to be cancelled");
    expect(await exited(server.child)).toBe(0);
  });

  it("a second SIGTERM ends the drain at once: the call gets CLOSING", { timeout: 90_000 }, async () => {
    const gate = new Gate();
    // A drain longer than the test: only the second signal can end it.
    const server = await faceOver(gate, 600_000);
    const c = await client(server.url);
    const answer = c.callTool({ name: await heldToolName(c), arguments: {} });
    await gate.started;
    server.child.kill("SIGTERM");
    await until(() => server.stderr().includes("stopping"), "the drain to start");
    server.child.kill("SIGTERM");
    await expect(answer).rejects.toMatchObject({ data: { code: "CLOSING" } });
    expect(await exited(server.child)).toBe(0);
  });
});

/** `toolsearch mcp` over stdio as a real process, spoken to in raw JSON-RPC lines. */
function stdioFace(config: Record<string, unknown>) {
  const file = writeJson(path.join(mkdtempSync(path.join(tmpdir(), "toolsearch-faults-")), "config.json5"), config);
  const child = spawn(process.execPath, [CLI, "mcp", "--config", file], { stdio: ["pipe", "pipe", "pipe"] });
  cleanup.push(async () => void child.kill("SIGKILL"));
  const answers = new Map<unknown, Record<string, unknown>>();
  let pending = "";
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.on("data", (chunk: Buffer) => {
    pending += chunk.toString();
    for (let nl = pending.indexOf("\n"); nl >= 0; nl = pending.indexOf("\n")) {
      const message = JSON.parse(pending.slice(0, nl)) as Record<string, unknown>;
      answers.set(message.id, message);
      pending = pending.slice(nl + 1);
    }
  });
  const send = (message: Record<string, unknown>) => child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
  const initialized = (async () => {
    send({ id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "faults", version: "1" } } });
    await until(() => answers.has(0), "the initialize answer");
    send({ method: "notifications/initialized" });
  })();
  const answer = async (id: number) => (await until(() => answers.has(id), `the answer to request ${id}`), answers.get(id)!);
  return { child, send, answer, initialized, stderr: () => stderr };
}

describe("toolsearch mcp (stdio): stopping, and a line past gateway.maxBodyBytes", () => {
  it("a request sent during the drain is answered CLOSING; the call in flight still finishes; exit 0", { timeout: 60_000 }, async () => {
    const gate = new Gate();
    const mcp = await holdingMcpServer(gate);
    cleanup.push(() => mcp.close());
    const face = stdioFace({
      tools: { toolSearch: { mode: "direct" } },
      provider: { baseURL: "http://127.0.0.1:9/v1" },
      mcpServers: [{ name: "reports", url: mcp.url }],
    });
    await face.initialized;
    face.send({ id: 1, method: "tools/list" });
    const tools = (await face.answer(1)).result as { tools: Array<{ name: string }> };
    face.send({ id: 2, method: "tools/call", params: { name: tools.tools.find((t) => t.name.includes(HELD_TOOL))!.name, arguments: {} } });
    await gate.started;
    face.child.kill("SIGTERM");
    await until(() => face.stderr().includes("stopping"), "the drain to start");
    face.send({ id: 3, method: "tools/list" });
    expect(await face.answer(3)).toMatchObject({ error: { data: { code: "CLOSING" } } });
    gate.release();
    expect(text((await face.answer(2)).result)).toContain("report exported");
    expect(await exited(face.child)).toBe(0);
  });

  it("is answered BODY_TOO_LARGE with its id, the next request is served, and SIGTERM ends the process", { timeout: 60_000 }, async () => {
    const face = stdioFace({ tools: { toolSearch: { mode: "tools" } }, provider: { baseURL: "http://127.0.0.1:9/v1" }, gateway: { maxBodyBytes: 1024 } });
    await face.initialized;
    face.send({ id: 7, method: "tools/call", params: { name: "tool_search", arguments: { query: "x".repeat(3_000) } } });
    face.send({ id: 8, method: "tools/list" });
    expect(await face.answer(8)).toMatchObject({ result: { tools: expect.arrayContaining([expect.objectContaining({ name: "tool_search" })]) } });
    expect(await face.answer(7)).toMatchObject({ id: 7, error: { code: -32_000, data: { code: "BODY_TOO_LARGE" } } });
    // stdin stays open, as a client that keeps its end does: SIGTERM alone must end the process.
    face.child.kill("SIGTERM");
    expect(await exited(face.child)).toBe(0);
  });
});
