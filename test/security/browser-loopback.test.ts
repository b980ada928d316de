/**
 * Issue 19 row 1: a web page in the user's browser against an unauthenticated loopback gateway.
 * `toolsearch serve` and `toolsearch mcp --http` as real processes, each with a plugin whose
 * tools leave a marker file when they run, so "no tool ran" is observed, not assumed. Both
 * servers answer through the same guard (src/http/request-guard.ts): the same codes, the same
 * messages.
 */
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockProvider, type MockProvider } from "../../src/mock-provider/mock-provider.js";
import { startCli, writeJson, type ServerProcess } from "../e2e/processes.js";

const PLUGIN = `import { writeFileSync } from "node:fs";
import path from "node:path";
const mark = (name) => writeFileSync(path.join(process.env.TS_TEST_MARKS, name), "ran");
export default { id: "acme", tools: [
  { name: "record_visit", description: "Record a visit of the guest book.", inputSchema: { type: "object", properties: {} }, execute: () => (mark("visit"), "recorded") },
  { name: "reset_staff_password", description: "Reset the staff password.", ownerOnly: true, inputSchema: { type: "object", properties: {} }, execute: () => (mark("reset"), "reset") },
] };
`;

interface Answer {
  status: number;
  json: Record<string, unknown>;
}

/** A raw request: fetch may not set Host, and a browser's headers are what is under test. */
function send(url: string, method: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method,
        headers: { ...headers, ...(body !== undefined ? { "content-length": String(Buffer.byteLength(body)) } : {}) },
        agent: false,
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} }));
      },
    );
    req.once("error", reject);
    req.end(body);
  });
}

const JSON_TYPE = { "content-type": "application/json" };
/** What `serve` answers in `error`, and `mcp --http` in its JSON-RPC error's `data`. */
const codeOf = (answer: Answer): unknown =>
  (answer.json.error as { code?: unknown; data?: { code?: unknown } } | undefined)?.data?.code ?? (answer.json.error as { code?: unknown } | undefined)?.code;
const messageOf = (answer: Answer): string => String((answer.json.error as { message?: unknown } | undefined)?.message ?? "");

function fixture(config: Record<string, unknown>): { dir: string; marks: string; configFile: string } {
  const dir = mkdtempSync(path.join(tmpdir(), "toolsearch-browser-"));
  const marks = path.join(dir, "marks");
  mkdirSync(marks);
  mkdirSync(path.join(dir, "plugins"));
  writeFileSync(path.join(dir, "plugins", "acme.mjs"), PLUGIN);
  const configFile = writeJson(path.join(dir, "toolsearch.config.json5"), { tools: { toolSearch: { mode: "direct" } }, plugins: ["./plugins"], ...config });
  return { dir, marks, configFile };
}

let provider: MockProvider;
const servers: ServerProcess[] = [];
beforeAll(async () => {
  provider = await startMockProvider();
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await provider.close();
});

async function serve(config: Record<string, unknown> = {}): Promise<{ url: string; marks: string; ran: (name: string) => boolean }> {
  const { marks, configFile } = fixture({ provider: { baseURL: provider.url, timeoutMs: 20_000 }, ...config });
  const server = await startCli(["serve", "--config", configFile, "--port", "0"], { TS_TEST_MARKS: marks });
  servers.push(server);
  return { url: server.url, marks, ran: (name) => existsSync(path.join(marks, name)) };
}

describe("serve without gateway.auth: a web page cannot drive it", () => {
  let gateway: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    gateway = await serve();
  }, 90_000);
  const visit = JSON.stringify({ sessionId: "page", input: "record a visit of the guest book" });

  it("a local page's text/plain POST (no preflight) is 415 before its body is read, and no tool runs", async () => {
    const answer = await send(`${gateway.url}/v1/runs`, "POST", { "content-type": "text/plain;charset=UTF-8", origin: "http://localhost:5173" }, visit);
    expect(answer).toMatchObject({ status: 415, json: { error: { code: "UNSUPPORTED_MEDIA_TYPE", message: expect.stringContaining("application/json") } } });
    // A media type is parsed, not searched for: application/json inside a parameter is still text/plain.
    expect((await send(`${gateway.url}/v1/runs`, "POST", { "content-type": "text/plain; a=application/json" }, visit)).status).toBe(415);
    expect((await send(`${gateway.url}/v1/runs`, "POST", {}, visit)).status).toBe(415);
    expect(gateway.ran("visit")).toBe(false);
    // The same body declared as JSON runs the tool: the marker is what the refusals were checked against.
    const ran = await send(`${gateway.url}/v1/runs`, "POST", { "content-type": "application/json; charset=utf-8", origin: "http://localhost:5173" }, visit);
    expect(ran.status).toBe(200);
    expect(gateway.ran("visit")).toBe(true);
  }, 60_000);

  it("a foreign Host (DNS rebinding), a foreign or null Origin and Sec-Fetch-Site: cross-site are 403, /healthz included", async () => {
    const refusals: Array<Record<string, string>> = [
      { host: "evil.example" },
      { host: "evil.example:8788" },
      { origin: "https://evil.example" },
      { origin: "null" },
      { "sec-fetch-site": "cross-site" },
    ];
    for (const headers of refusals) {
      for (const [method, route] of [
        ["GET", "/healthz"],
        ["POST", "/v1/runs"],
      ] as const) {
        const answer = await send(
          `${gateway.url}${route}`,
          method,
          { ...JSON_TYPE, ...headers },
          method === "POST" ? JSON.stringify({ sessionId: "rebound", input: "record a visit" }) : undefined,
        );
        expect(answer.status, `${method} ${route} ${JSON.stringify(headers)}`).toBe(403);
        expect(codeOf(answer)).toBe("FORBIDDEN");
      }
    }
    expect(messageOf(await send(`${gateway.url}/healthz`, "GET", { host: "evil.example" }))).toContain('Host header "evil.example" is not a loopback name');
    // Loopback names and local pages pass.
    const passes: Array<Record<string, string>> = [
      { host: "localhost" },
      { host: "[::1]:1" },
      { origin: "http://127.0.0.1:3000", "sec-fetch-site": "same-site" },
      { "sec-fetch-site": "none" },
    ];
    for (const headers of passes) {
      expect((await send(`${gateway.url}/healthz`, "GET", headers)).status, JSON.stringify(headers)).toBe(200);
    }
  });

  it("a body asking for owner: true is refused (403 naming gateway.trustLoopbackIdentity); the owner-only tool never runs", async () => {
    const reset = { sessionId: "claims-owner", input: "reset the staff password" };
    const claimed = await send(`${gateway.url}/v1/runs`, "POST", JSON_TYPE, JSON.stringify({ ...reset, owner: true }));
    expect(claimed).toMatchObject({ status: 403, json: { error: { code: "FORBIDDEN", message: expect.stringContaining("gateway.trustLoopbackIdentity") } } });
    expect(messageOf(claimed)).toMatch(/^owner: /);
    // Without the claim the run goes on as a guest, to whom the tool does not exist.
    const guest = await send(`${gateway.url}/v1/runs`, "POST", JSON_TYPE, JSON.stringify({ ...reset, owner: false }));
    expect(guest.status).toBe(200);
    expect(guest.json.toolCalls).toEqual([]);
    expect(gateway.ran("reset")).toBe(false);
  });
});

describe("serve with gateway.trustLoopbackIdentity: true", () => {
  it("honours owner: true from the body", async () => {
    const gateway = await serve({ gateway: { trustLoopbackIdentity: true } });
    const answer = await send(
      `${gateway.url}/v1/runs`,
      "POST",
      JSON_TYPE,
      JSON.stringify({ sessionId: "owner", input: "reset the staff password", owner: true }),
    );
    expect(answer.status).toBe(200);
    expect((answer.json.toolCalls as Array<{ name: string }>).map((c) => c.name)).toEqual(["reset_staff_password"]);
    expect(gateway.ran("reset")).toBe(true);
  }, 90_000);
});

describe("mcp --http without gateway.auth: the same guard", () => {
  let url: string;
  let marks: string;
  let client: Client;
  beforeAll(async () => {
    const made = fixture({});
    marks = made.marks;
    const server = await startCli(["mcp", "--config", made.configFile, "--http", "0"], { TS_TEST_MARKS: marks });
    servers.push(server);
    url = server.url;
    client = new Client({ name: "browser-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  }, 90_000);
  afterAll(async () => {
    await client?.close();
  });
  const ACCEPT = { accept: "application/json, text/event-stream" };

  it("a foreign Host or Origin is 403 FORBIDDEN with serve's message, /healthz included", async () => {
    const init = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "page", version: "1" } },
    });
    const refusals: Array<Record<string, string>> = [{ host: "evil.example" }, { origin: "https://evil.example" }, { "sec-fetch-site": "cross-site" }];
    for (const headers of refusals) {
      const answer = await send(url, "POST", { ...JSON_TYPE, ...ACCEPT, ...headers }, init);
      expect(answer.status, JSON.stringify(headers)).toBe(403);
      expect(codeOf(answer)).toBe("FORBIDDEN");
    }
    const health = await send(url.replace(/\/mcp$/, "/healthz"), "GET", { host: "evil.example" });
    expect(health.status).toBe(403);
    expect(messageOf(health)).toContain('Host header "evil.example" is not a loopback name');
  });

  it("a text/plain tools/call in a live session is 415 and the tool does not run; the SDK client's own call does", async () => {
    const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId!;
    const call = JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "record_visit", arguments: {} } });
    const answer = await send(
      url,
      "POST",
      { ...ACCEPT, "content-type": "text/plain", "mcp-session-id": sessionId, "mcp-protocol-version": "2025-06-18", origin: "http://localhost:5173" },
      call,
    );
    expect(answer.status).toBe(415);
    expect(codeOf(answer)).toBe("UNSUPPORTED_MEDIA_TYPE");
    expect(existsSync(path.join(marks, "visit"))).toBe(false);
    await client.callTool({ name: "record_visit", arguments: {} });
    expect(existsSync(path.join(marks, "visit"))).toBe(true);
  });
});
