/**
 * `toolsearch mcp` answers a malformed message with a JSON-RPC error in the protocol's shape,
 * toolsearch's code in `error.data.code`, and goes on serving: a line that is not JSON (-32700),
 * JSON that is no JSON-RPC message (-32600), a `tools/call` without `name` (-32602, not the
 * SDK's -32603 with a schema dump), over stdio and over Streamable HTTP; a call of a tool name
 * the session does not have is TOOL_NOT_FOUND in every mode.
 */
import { spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { CLI, startCli } from "../e2e/processes.js";
import { waitFor } from "../mcp/helpers.js";
import { faceFixture } from "./fixture.js";
import { openRawSession, post, toolCall, type JsonRpcAnswer } from "./raw-mcp.js";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
};

/** `toolsearch mcp` over stdio, written to line by line; its answers as parsed. */
function stdioFace(mode: string): { send(line: unknown): void; answers(): JsonRpcAnswer[]; answer(id: number): Promise<JsonRpcAnswer>; stderr(): string } {
  const fixture = faceFixture({ mcpServers: {}, tools: { toolSearch: { mode } } });
  const child = spawn(process.execPath, [CLI, "mcp", "--config", fixture.configFile], { stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  cleanups.push(async () => {
    child.stdin.end();
    await exited;
  });
  const answers = () =>
    stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as JsonRpcAnswer);
  const face = {
    send: (line: unknown) => child.stdin.write(`${typeof line === "string" ? line : JSON.stringify(line)}\n`),
    answers,
    answer: (id: number) => waitFor(() => answers().find((a) => a.id === id), `the answer to request ${id}`),
    stderr: () => stderr,
  };
  face.send(INITIALIZE);
  face.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  return face;
}

function errorCodeOf(answer: JsonRpcAnswer): string | undefined {
  const text = answer.result?.content?.[0]?.text;
  return text === undefined ? undefined : (JSON.parse(text) as { error?: { code?: string } }).error?.code;
}

describe("toolsearch mcp over stdio: JSON-RPC errors in the protocol's shape", () => {
  it("answers a line that is not JSON -32700 and JSON that is no JSON-RPC message -32600, id null, and serves the next line", async () => {
    const face = stdioFace("tools");
    await face.answer(1);
    face.send("this is not json");
    face.send({ id: 2, method: "tools/list" });
    face.send({ jsonrpc: "2.0", id: 3, method: "tools/list" });
    expect((await face.answer(3)).result?.tools).toHaveLength(3);
    const refused = face.answers().filter((a) => a.error !== undefined);
    expect(refused).toEqual([
      { jsonrpc: "2.0", id: null, error: { code: -32_700, message: expect.stringMatching(/^Parse error/), data: { code: "PARSE_ERROR" } } },
      { jsonrpc: "2.0", id: null, error: { code: -32_600, message: expect.stringMatching(/^Invalid Request/), data: { code: "BAD_REQUEST" } } },
    ]);
  });

  it("answers a tools/call without name -32602 INVALID_ARGS naming the field, in one line", async () => {
    const face = stdioFace("tools");
    await face.answer(1);
    face.send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { arguments: {} } });
    face.send({ jsonrpc: "2.0", id: 3, method: "tools/list", params: { cursor: 5 } });
    const missingName = await face.answer(2);
    expect(missingName.error).toEqual({ code: -32_602, message: expect.stringContaining("params.name"), data: { code: "INVALID_ARGS" } });
    expect(missingName.error?.message).not.toContain("\n");
    expect(await face.answer(3)).toMatchObject({ error: { code: -32_602, message: expect.stringContaining("params.cursor"), data: { code: "INVALID_ARGS" } } });
  });

  it.each(["tools", "direct", "directory"])("answers a call of a tool name the session does not have TOOL_NOT_FOUND (%s mode)", async (mode) => {
    const face = stdioFace(mode);
    await face.answer(1);
    face.send(toolCall(2, "no_such_tool", { a: 1 }));
    const answer = await face.answer(2);
    expect(answer.result?.isError).toBe(true);
    expect(errorCodeOf(answer)).toBe("TOOL_NOT_FOUND");
  });
});

describe("toolsearch mcp over Streamable HTTP: JSON-RPC errors in the protocol's shape", () => {
  it("answers a tools/call without name -32602 INVALID_ARGS and a body that is not JSON -32700 PARSE_ERROR", async () => {
    const fixture = faceFixture({ mcpServers: {} });
    const server = await startCli(["mcp", "--config", fixture.configFile, "--http", "0"]);
    cleanups.push(() => server.stop());
    const session = await openRawSession(server.url);
    const { answers } = await post(session, { jsonrpc: "2.0", id: 2, method: "tools/call", params: {} });
    expect(answers).toEqual([
      { jsonrpc: "2.0", id: 2, error: { code: -32_602, message: expect.stringContaining("params.name"), data: { code: "INVALID_ARGS" } } },
    ]);
    const notJson = await fetch(session.url, { method: "POST", headers: session.headers, body: "{not json" });
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32_700, data: { code: "PARSE_ERROR" } } });
    expect((await post(session, toolCall(3, "no_such_tool", {}))).answers[0]).toSatisfy((a: JsonRpcAnswer) => errorCodeOf(a) === "TOOL_NOT_FOUND");
  });
});
