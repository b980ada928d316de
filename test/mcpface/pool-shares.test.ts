/**
 * Two tokens competing for the code pool through `mcp --http` (issue 19, row 7): the face runs
 * in this process over real loopback HTTP, driven by the official SDK client, with real sandbox
 * children. Every session of one token shares that token's share of the pool's queue; another
 * token's body still queues and runs.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { pluginTools } from "../../src/catalog/sources.js";
import { resolveServerConfig } from "../../src/config/server-config.js";
import { createMcpFace, type McpFace } from "../../src/mcpface/mcp-face.js";

const TOKENS = [{ token: "flood-token-0123456789abcdef" }, { token: "quiet-token-0123456789abcdef" }];

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

async function client(url: string, token: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  const c = new Client({ name: "pool-shares", version: "1.0.0" });
  await c.connect(transport);
  cleanups.push(() => c.close());
  return c;
}

function answer(result: unknown): Record<string, unknown> {
  const content = (result as CallToolResult).content;
  return JSON.parse(content.map((item) => (item.type === "text" ? item.text : "")).join("")) as Record<string, unknown>;
}

const code = (body: string) => ({ name: "tool_search_code", arguments: { code: body } });

describe("mcp --http: the code pool shared per token", () => {
  it("a token's second session shares its queue share (POOL_SATURATED); another token's body queues and runs", { timeout: 60_000 }, async () => {
    let started!: () => void;
    const holding = new Promise<void>((resolve) => (started = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const hold = {
      name: "hold",
      description: "Holds until the test releases it.",
      inputSchema: { type: "object", properties: {} },
      execute: async () => (started(), await released, "released"),
    };
    const config = resolveServerConfig(
      { tools: { toolSearch: { mode: "code" } }, provider: { baseURL: "http://127.0.0.1:9/v1" }, gateway: { auth: { tokens: TOKENS } } },
      process.cwd(),
      {},
    );
    const face: McpFace = await createMcpFace(config, {
      sources: [pluginTools("t", [hold])],
      pool: { prefork: 1, maxConcurrent: 1, maxQueue: 8, maxQueuePerTenant: 1 },
    });
    cleanups.push(() => face.close());
    const { url } = await face.listenHttp("127.0.0.1", 0);

    const [floodA, floodB, quiet] = [await client(url, TOKENS[0]!.token), await client(url, TOKENS[0]!.token), await client(url, TOKENS[1]!.token)];
    const first = floodA.callTool(code('return await openclaw.tools.call("plugin:t:hold", {});'));
    await holding; // the pool's one slot is the first body's
    // Two more bodies of the first token, from two sessions: its share holds one of them.
    const more = [floodA.callTool(code("return 'a';")), floodB.callTool(code("return 'b';"))];
    const refused = answer(await Promise.race(more));
    expect(refused).toMatchObject({ ok: false, error: { code: "POOL_SATURATED", message: expect.stringMatching(/share for this caller/) } });
    const other = quiet.callTool(code("return 'quiet';"));
    release();
    expect(answer(await first)).toMatchObject({ ok: true, value: "released" });
    expect(answer(await other)).toMatchObject({ ok: true, value: "quiet" });
    const outcomes = (await Promise.all(more)).map(answer);
    expect(outcomes.filter((o) => o.ok === true)).toHaveLength(1);
  });
});
