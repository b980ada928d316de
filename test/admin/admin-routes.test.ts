/**
 * The admin API on both faces, against real servers: the gateway in front of the scripted
 * provider and the MCP face over Streamable HTTP, with the real memory MCP server and a plugin.
 * What an operator reads — the catalog, a tenant's view, search and explain, live telemetry,
 * tenants, the sandbox, MCP servers, learning — and the bounds on every input.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, origin, OWNER, startFaces, SUPPORT, TOKENS } from "./fixture.js";

type Json = Record<string, any>;
let faces: Awaited<ReturnType<typeof startFaces>>;
let serve: string;
let mcp: string;

beforeAll(async () => {
  faces = await startFaces();
  serve = faces.gateway.url;
  mcp = origin(faces.mcpUrl);
}, 60_000);
afterAll(async () => {
  await faces?.close();
});

describe("the admin API, on serve and on mcp --http", () => {
  it("lists the catalog by source with each MCP server's state, paged", async () => {
    for (const base of [serve, mcp]) {
      const all = await call<Json>(`${base}/admin/v1/catalog`);
      expect(all.status).toBe(200);
      expect(all.headers.get("cache-control")).toBe("no-store");
      expect(all.json).toMatchObject({ size: 12, mode: "tools", total: 2 });
      expect(all.json.sources).toEqual([
        { source: "plugin", toolset: "acme", ok: true, tools: 3 },
        { source: "mcp", toolset: "memory", ok: true, tools: 9, mcp: { state: "ready", transport: "stdio", truncated: false } },
      ]);
      const second = await call<Json>(`${base}/admin/v1/catalog?offset=1&limit=1`);
      expect(second.json).toMatchObject({ total: 2, offset: 1, limit: 1, sources: [{ toolset: "memory" }] });
    }
  });

  it("lists the tools an identity sees, policy applied, and every tool without one", async () => {
    const all = await call<Json>(`${serve}/admin/v1/tools?toolset=memory`);
    expect(all.json).toMatchObject({ identity: null, policyApplied: false, total: 9 });
    const support = await call<Json>(`${serve}/admin/v1/tools?toolset=memory&agentId=support&limit=2`);
    expect(support.json).toMatchObject({ identity: { agentId: "support" }, policyApplied: true, total: 6, limit: 2 });
    expect(support.json.tools).toHaveLength(2);
    const guest = await call<Json>(`${serve}/admin/v1/tools?source=plugin&owner=false`);
    expect(guest.json.tools.map((t: Json) => t.id)).toEqual(["plugin:acme:get_weather", "plugin:acme:send_email"]);
    const owner = await call<Json>(`${serve}/admin/v1/tools?source=plugin&owner=true`);
    expect(owner.json.tools.map((t: Json) => [t.id, t.ownerOnly])).toContainEqual(["plugin:acme:reset_password", true]);
  });

  it("searches and explains as an identity, with what its model would be shown up front in the mode asked", async () => {
    const asked = { request: "list everything in the knowledge graph", limit: 3 };
    const found = await call<Json>(`${serve}/admin/v1/search`, { body: asked });
    expect(found.status).toBe(200);
    expect(found.json.hits).toHaveLength(3);
    expect(found.json.hits[0].detail.steps[0]).toMatchObject({ step: "whole", rank: 1, bm25f: { words: expect.any(Array) } });
    expect(found.json).toMatchObject({ mode: "tools", catalog: { size: 11 }, upfront: { schemas: 0, declaredTools: 3 } });
    expect(found.json.upfront.directBytes).toBeGreaterThan(found.json.upfront.toolsBytes);
    const support = await call<Json>(`${mcp}/admin/v1/search`, {
      body: { request: "delete relations", identity: { agentId: "support" }, mode: "direct", detail: false },
    });
    expect(support.json).toMatchObject({ identity: { agentId: "support", mode: "direct" }, mode: "direct", catalog: { size: 8 } });
    expect(support.json.hits.map((h: Json) => h.id)).not.toContain("mcp:memory:delete_relations");
    expect(support.json.hits[0]).not.toHaveProperty("detail");
    expect(support.json.upfront.directBytes).toBe(support.json.upfront.toolsBytes);
  });

  it("shows telemetry move after a turn, and keeps its own searches out of it", async () => {
    const before = await call<Json>(`${serve}/admin/v1/telemetry?window=6`);
    await call(`${serve}/admin/v1/search`, { body: { request: "weather" } });
    const turn = await call<Json>(`${serve}/v1/runs`, { body: { sessionId: "telemetry-1", input: "What is the weather in Paris?" } });
    expect(turn.status).toBe(200);
    const after = await call<Json>(`${serve}/admin/v1/telemetry?window=6`);
    expect(after.json.totals.runs.total).toBe(before.json.totals.runs.total + 1);
    expect(after.json.totals.calls.ok).toBe(before.json.totals.calls.ok + 1);
    expect(after.json.totals.searches.total).toBeGreaterThan(before.json.totals.searches.total);
    expect(after.json.totals.bytes.direct).toBeGreaterThan(after.json.totals.bytes.upfront);
    expect(after.json.series).toHaveLength(6);
    expect(after.json.series.at(-1).runs + after.json.series.at(-2).runs).toBeGreaterThanOrEqual(1);
    expect(after.json.bucketMs).toBe(10_000);
  });

  it("shows tenants with their runs and calls, and each MCP session of the MCP face", async () => {
    await call(`${serve}/v1/runs`, { body: { sessionId: "tenant-a", input: "What is the weather in Paris?" } });
    const rows = await call<Json>(`${serve}/admin/v1/tenants`);
    expect(rows.json.tenants).toContainEqual(expect.objectContaining({ tenant: "session:tenant-a", runs: 1, activeRuns: 0, calls: { ok: 1, failed: 0 } }));
    expect(rows.json.shares).toMatchObject({ pool: null });
    const client = new Client({ name: "admin-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(faces.mcpUrl)));
    try {
      const sessions = await call<Json>(`${mcp}/admin/v1/tenants`);
      expect(sessions.json.tenants).toContainEqual(expect.objectContaining({ tenant: "address:127.0.0.1", sessions: 1 }));
      expect(sessions.json.shares.sessions).toMatchObject({ open: 1, max: 32 });
    } finally {
      await client.close();
    }
  });

  it("shows each MCP server's state and the calls runs made to it", async () => {
    const run = await faces.gateway.engine.prepareRun({ sessionId: "mcp-calls" });
    await run.call("mcp:memory:read_graph", {});
    await run.end();
    const servers = await call<Json>(`${serve}/admin/v1/mcp-servers`);
    expect(servers.json.servers[0]).toMatchObject({ name: "memory", transport: "stdio", state: "ready", up: true, tools: 9, calls: { ok: 1, failed: 0 } });
    expect(servers.json.servers[0].pid).toEqual(expect.any(Number));
  });

  it("summarises learning scope by scope in counts, and shows no learned words unless the operator keeps them", async () => {
    const summary = await call<Json>(`${serve}/admin/v1/learning`);
    expect(summary.json).toMatchObject({ enabled: true, stats: { store: "memory" }, wordsKept: false });
    for (const scope of summary.json.scopes) expect(Object.keys(scope).sort()).toEqual(["active", "records", "scope", "tenant", "tools"]);
    const words = await call<Json>(`${serve}/admin/v1/learning/words?scope=agent:&tool=plugin:acme:get_weather`);
    expect(words.json).toMatchObject({ kept: false, words: [], why: expect.stringContaining("recordTerms") });
  });

  it("reports the sandbox as not started in a mode that never needs it", async () => {
    expect((await call<Json>(`${serve}/admin/v1/sandbox`)).json).toEqual({ started: false });
  });

  it("refuses what is out of bounds or malformed with a 400 that says what", async () => {
    const cases: Array<[string, { body?: unknown }, string]> = [
      [`${serve}/admin/v1/tools?limit=501`, {}, "limit must be an integer from 1 to 500"],
      [`${serve}/admin/v1/catalog?offset=-1`, {}, "offset must be an integer"],
      [`${serve}/admin/v1/tools?owner=yes`, {}, "owner must be true or false"],
      [`${serve}/admin/v1/telemetry?window=361`, {}, "window must be an integer from 1 to 360"],
      [`${serve}/admin/v1/search`, { body: { request: "x".repeat(1001) } }, "request"],
      [`${serve}/admin/v1/search`, { body: { request: "x", frobnicate: 1 } }, "frobnicate"],
      [`${serve}/admin/v1/search`, { body: { request: "x", limit: 51 } }, "limit"],
      [`${serve}/admin/v1/search`, { body: { request: "x", identity: { token: "support" } } }, "no gateway.auth tokens"],
      [`${serve}/admin/v1/learning/words?scope=shared`, {}, "scope and tool are both needed"],
    ];
    for (const [url, init, says] of cases) {
      const answer = await call<Json>(url, init);
      expect(answer.status, url).toBe(400);
      expect(answer.json.error.code).toBe("BAD_REQUEST");
      expect(answer.json.error.message, url).toContain(says);
    }
    const unknown = await call<Json>(`${mcp}/admin/v1/nope`);
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.message).toContain("/admin/v1/catalog");
  });
});

describe("the admin API under gateway.auth", () => {
  let authed: Awaited<ReturnType<typeof startFaces>>;
  beforeAll(async () => {
    authed = await startFaces({ gateway: { auth: { tokens: TOKENS } } });
  }, 60_000);
  afterAll(async () => {
    await authed?.close();
  });

  it("searches as a token's tenant, and counts that token's runs under its label", async () => {
    const asSupport = await call<Json>(`${authed.gateway.url}/admin/v1/search`, {
      token: OWNER,
      body: { request: "delete relations", identity: { token: "support" } },
    });
    expect(asSupport.status).toBe(200);
    expect(asSupport.json.identity).toMatchObject({ agentId: "support", owner: false, token: "support" });
    expect(asSupport.json.hits.map((h: Json) => h.id)).not.toContain("mcp:memory:delete_relations");
    const widened = await call<Json>(`${authed.gateway.url}/admin/v1/search`, {
      token: OWNER,
      body: { request: "x", identity: { token: "support", owner: true } },
    });
    expect(widened.status).toBe(400);
    expect(widened.json.error.message).toContain("as support, owner: this token is not an owner token");
    await call(`${authed.gateway.url}/v1/runs`, { token: SUPPORT, body: { sessionId: "support-1", input: "What is the weather in Paris?" } });
    const tenants = await call<Json>(`${authed.gateway.url}/admin/v1/tenants`, { token: OWNER });
    expect(tenants.json.tenants).toContainEqual(expect.objectContaining({ tenant: "support", runs: 1 }));
  });
});
