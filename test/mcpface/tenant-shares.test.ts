/**
 * Row 5 of issue 19 as real processes over real HTTP: one token cannot hold every session of
 * `toolsearch mcp --http`; when the server is full, another tenant's idle sessions give way,
 * least recently used first, and a busy one never does.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startCli, type ServerProcess } from "../e2e/processes.js";
import { waitFor } from "../mcp/helpers.js";
import { faceFixture } from "./fixture.js";
import { initialize, openRawSession, post, streamPost, toolCall, type RawSession } from "./raw-mcp.js";
import { definedProps } from "../../src/defined.js";

const servers: ServerProcess[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

async function startHttp(config: Record<string, unknown>): Promise<{ url: string; dir: string; server: ServerProcess }> {
  const fixture = faceFixture({ mcpServers: {}, ...config });
  const server = await startCli(["mcp", "--config", fixture.configFile, "--http", "0", "--verbose"]);
  servers.push(server);
  return { url: server.url, dir: fixture.dir, server };
}

const listTools = (session: RawSession) => post(session, { jsonrpc: "2.0", id: 7, method: "tools/list" });

function refusal(body: string): { message: string; code?: string } {
  const error = (JSON.parse(body) as { error: { message: string; data?: { code?: string } } }).error;
  return { message: error.message, ...definedProps({ code: error.data?.code }) };
}

describe("mcp --http: each tenant holds a share of the sessions", () => {
  it(
    "token A fills its share and gets 429; token B still gets sessions, taking A's idle ones least recently used first, never A's busy one",
    { timeout: 90_000 },
    async () => {
      const tokens = { a: "a".repeat(32), b: "b".repeat(32) };
      const { url, dir, server } = await startHttp({
        gateway: {
          auth: {
            tokens: [
              { token: tokens.a, agentId: "desk" },
              { token: tokens.b, agentId: "desk" },
            ],
          },
        },
        mcp: { agentId: "desk", maxSessions: 4, maxSessionsPerTenant: 3 },
      });

      const a1 = await openRawSession(url, tokens.a);
      const a2 = await openRawSession(url, tokens.a);
      const a3 = await openRawSession(url, tokens.a);
      const a4 = await initialize(url, tokens.a);
      expect(a4.status).toBe(429);
      expect(a4.sessionId).toBeNull();
      expect(refusal(a4.body)).toEqual({ code: "TOO_MANY_SESSIONS", message: expect.stringContaining("mcp.maxSessionsPerTenant") });

      // a1 is busy: a call in flight that only a cancel ends.
      const marker = path.join(dir, "a1-cancelled.txt");
      const busy = streamPost(a1, toolCall(1, "tool_call", { id: "plugin:acme:wait_for_cancel", args: { marker } }));
      await busy.started;

      // B's first session takes the last free slot; the server is full now.
      const b1 = await openRawSession(url, tokens.b);
      expect((await listTools(b1)).status).toBe(200);
      // B's second takes the slot of A's least recently used idle session (a2), not the busy a1.
      const b2 = await openRawSession(url, tokens.b);
      expect((await listTools(a2)).status).toBe(404);
      expect((await listTools(a3)).status).toBe(200);
      // B's third takes a3, the only idle one of A's left.
      await openRawSession(url, tokens.b);
      expect((await listTools(a3)).status).toBe(404);
      // B is at its own share now.
      const b4 = await initialize(url, tokens.b);
      expect(b4.status).toBe(429);
      expect(refusal(b4.body).message).toContain("mcp.maxSessionsPerTenant");

      // The busy session survived, and still answers once its call is cancelled (the client hangs up).
      expect(existsSync(marker)).toBe(false);
      busy.request.destroy();
      await waitFor(() => existsSync(marker), "the hang-up to cancel a1's call");
      expect((await listTools(a1)).status).toBe(200);
      expect((await listTools(b2)).status).toBe(200);
      await waitFor(() => /mcp session [0-9a-f-]{36} evicted/.test(server.stderr()) || undefined, "the eviction in the --verbose log");
    },
  );

  it(
    "without auth the client address is the tenant: a second session from 127.0.0.1 past its share is 429 naming the address",
    { timeout: 60_000 },
    async () => {
      const { url } = await startHttp({ mcp: { agentId: "desk", maxSessions: 4, maxSessionsPerTenant: 1 } });
      const first = await openRawSession(url);
      const second = await initialize(url);
      expect(second.status).toBe(429);
      expect(refusal(second.body)).toEqual({
        code: "TOO_MANY_SESSIONS",
        message: expect.stringMatching(/client address 127\.0\.0\.1 holds 1 sessions.*mcp\.maxSessionsPerTenant/),
      });
      expect((await listTools(first)).status).toBe(200);
      // A closed session gives its slot back.
      const closed = await fetch(url, { method: "DELETE", headers: first.headers });
      expect(closed.status).toBe(200);
      expect((await initialize(url)).status).toBe(200);
    },
  );
});
