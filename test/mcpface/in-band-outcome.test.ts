/**
 * Issue 23 over MCP: `isError` is what the surface says, never the shape of a tool's result; a
 * fault of our own is INTERNAL, a tool's throw TOOL_FAILED. The face runs in this process over
 * real loopback HTTP, driven by the official SDK client; a fault of ours is made by making one
 * of the engine's methods throw, since no input can cause one.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { pluginTools } from "../../src/catalog/sources.js";
import { RunDispatcher } from "../../src/dispatch/run-dispatcher.js";
import { resolveServerConfig } from "../../src/config/server-config.js";
import type { ToolSearchMode } from "../../src/index.js";
import { createMcpFace } from "../../src/mcpface/mcp-face.js";
import { LOOKS_FAILED, RESULT_TOOLS } from "../support/result-tools.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

async function faceClient(mode: ToolSearchMode): Promise<Client> {
  const config = resolveServerConfig({ tools: { toolSearch: { mode } }, provider: { baseURL: "http://127.0.0.1:9/v1" } }, process.cwd(), {});
  const face = await createMcpFace(config, { sources: [pluginTools("t", RESULT_TOOLS)] });
  cleanups.push(() => face.close());
  const { url } = await face.listenHttp("127.0.0.1", 0);
  const client = new Client({ name: "in-band", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  cleanups.push(() => client.close());
  return client;
}

function body(result: unknown): unknown {
  const content = (result as CallToolResult).content;
  return JSON.parse(content.map((item) => (item.type === "text" ? item.text : "")).join(""));
}

describe("mcp: isError comes from the surface's answer", () => {
  it("direct: a tool whose real result is { ok: false, error: { code } } is a success; a tool's throw is TOOL_FAILED", async () => {
    const client = await faceClient("direct");
    const shaped = await client.callTool({ name: "shaped_result", arguments: {} });
    expect(shaped.isError).toBeFalsy();
    expect(body(shaped)).toEqual(LOOKS_FAILED);
    const thrown = await client.callTool({ name: "throws_plainly", arguments: {} });
    expect(thrown.isError).toBe(true);
    expect(body(thrown)).toMatchObject({ ok: false, error: { code: "TOOL_FAILED" } });
  });

  it("tools: a fault of ours is INTERNAL with isError, its detail kept from the client", async () => {
    const client = await faceClient("tools");
    vi.spyOn(RunDispatcher.prototype, "search").mockImplementation(() => {
      throw new TypeError("secret detail");
    });
    const answer = await client.callTool({ name: "tool_search", arguments: { query: "anything" } });
    expect(answer.isError).toBe(true);
    expect(body(answer)).toMatchObject({ ok: false, error: { code: "INTERNAL" } });
    expect(JSON.stringify(answer)).not.toContain("secret");
    const thrown = await client.callTool({ name: "tool_call", arguments: { id: "plugin:t:throws_plainly" } });
    expect(thrown.isError).toBe(true);
    expect(body(thrown)).toMatchObject({ ok: false, error: { code: "TOOL_FAILED" } });
  });
});
