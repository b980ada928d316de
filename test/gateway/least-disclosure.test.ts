/**
 * Issue 19 row 11: `/healthz` discloses only what the caller may see. `toolsearch serve` as a
 * real process with bearer tokens, two plugins, an MCP server that is down from the start and
 * one (server-memory) that goes down later; each down server's stderr carries a password. A
 * token whose policy admits one tool sees that tool's source only; an owner token also sees
 * which servers are down; no answer carries stderr text, which reaches the operator's stderr.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockProvider, type MockProvider } from "../../src/mock-provider/mock-provider.js";
import { startCli, writeJson, type ServerProcess } from "../e2e/processes.js";

const require = createRequire(import.meta.url);
const NARROW = "narrow-token-0123456789abcdef";
const OWNER = "owner-token-0123456789abcdef";
const DB_SECRET = "postgres://app:hunter2@db.internal/prod";
const FLAKY_SECRET = "FLAKY_PASSWORD=s3cret-flaky";

const tool = (name: string) =>
  `{ name: "${name}", description: "${name.replace(/_/g, " ")} for the test.", inputSchema: { type: "object", properties: {} }, execute: () => "${name} done" }`;
// Down from the start: says why on stderr, as a real server would, with its connection string.
const DB_DOWN = `console.error("cannot connect to ${DB_SECRET}: connection refused"); process.exit(1);\n`;
// server-memory, until the flag file exists; then it refuses to start, saying so with a secret.
const FLAKY = `import { existsSync, writeFileSync } from "node:fs";
if (existsSync(process.env.DOWN_FLAG)) { console.error("${FLAKY_SECRET} rejected by the database"); process.exit(1); }
writeFileSync(process.env.PID_FILE, String(process.pid));
await import(process.env.SERVER_ENTRY);
`;

let provider: MockProvider;
let server: ServerProcess;
let dir: string;
beforeAll(async () => {
  provider = await startMockProvider();
  dir = mkdtempSync(path.join(tmpdir(), "toolsearch-disclosure-"));
  mkdirSync(path.join(dir, "plugins"));
  writeFileSync(path.join(dir, "plugins", "acme.mjs"), `export default { id: "acme", tools: [${tool("echo_text")}, ${tool("record_visit")}] };\n`);
  writeFileSync(path.join(dir, "plugins", "billing.mjs"), `export default { id: "billing", tools: [${tool("list_invoices")}] };\n`);
  writeFileSync(path.join(dir, "db-down.mjs"), DB_DOWN);
  writeFileSync(path.join(dir, "flaky.mjs"), FLAKY);
  const memoryEntry = path.join(path.dirname(require.resolve("@modelcontextprotocol/server-memory/package.json")), "dist", "index.js");
  const configFile = writeJson(path.join(dir, "toolsearch.config.json5"), {
    tools: { toolSearch: { mode: "direct" } },
    provider: { baseURL: provider.url, timeoutMs: 20_000 },
    gateway: {
      auth: {
        tokens: [
          { token: NARROW, agentId: "narrow" },
          { token: OWNER, owner: true },
        ],
      },
    },
    policy: { agents: { narrow: { allow: ["plugin:acme:echo_text"] } } },
    plugins: ["./plugins"],
    mcpServers: {
      db: { command: process.execPath, args: ["./db-down.mjs"] },
      flaky: {
        command: process.execPath,
        args: ["./flaky.mjs"],
        env: {
          DOWN_FLAG: path.join(dir, "down.flag"),
          PID_FILE: path.join(dir, "flaky.pid"),
          SERVER_ENTRY: pathToFileURL(memoryEntry).href,
          MEMORY_FILE_PATH: path.join(dir, "memory.jsonl"),
        },
      },
    },
  });
  server = await startCli(["serve", "--config", configFile, "--port", "0"]);
}, 90_000);
afterAll(async () => {
  await server?.stop();
  await provider.close();
});

async function health(token: string): Promise<{ text: string; catalog: { size: number; sources: Array<Record<string, unknown>> } }> {
  const response = await fetch(`${server.url}/healthz`, { headers: { authorization: `Bearer ${token}` } });
  expect(response.status).toBe(200);
  const text = await response.text();
  return { text, catalog: (JSON.parse(text) as { catalog: { size: number; sources: Array<Record<string, unknown>> } }).catalog };
}

describe("/healthz with a token", () => {
  it("a token whose policy admits one tool sees only that tool's source, and no stderr text", async () => {
    const { text, catalog } = await health(NARROW);
    expect(catalog).toEqual({ size: 1, sources: [{ source: "plugin", toolset: "acme", ok: true, tools: 1 }] });
    for (const hidden of ["hunter2", "billing", "flaky", '"db"', "stderr"]) expect(text, hidden).not.toContain(hidden);
  });

  it("an owner token sees every source it admits and which servers are down, still without their stderr; the operator's stderr has it", async () => {
    const { text, catalog } = await health(OWNER);
    expect(catalog.sources).toEqual([
      { source: "plugin", toolset: "acme", ok: true, tools: 2 },
      { source: "plugin", toolset: "billing", ok: true, tools: 1 },
      { source: "mcp", toolset: "db", ok: false, tools: 0 },
      { source: "mcp", toolset: "flaky", ok: true, tools: 9 },
    ]);
    expect(catalog.size).toBe(12);
    expect(text).not.toContain("hunter2");
    expect(text).not.toContain("connection refused");
    expect(server.stderr()).toMatch(/warning: MCP server "db" is down: .*hunter2/);
  });

  it("a server that goes down later: its stderr reaches the operator's stderr, not /healthz", async () => {
    writeFileSync(path.join(dir, "down.flag"), "");
    process.kill(Number(readFileSync(path.join(dir, "flaky.pid"), "utf8")), "SIGKILL");
    // The source tries the server again in the background (retryMinDelayMs, 1 s by default, then doubling): that try fails, saying why; runs go on meanwhile.
    const downLine = /warning: MCP server "flaky" is down: .*s3cret-flaky/;
    const deadline = Date.now() + 40_000;
    while (!downLine.test(server.stderr())) {
      if (Date.now() > deadline) throw new Error(`no down line for flaky; serve's stderr:\n${server.stderr()}`);
      const run = await fetch(`${server.url}/v1/runs`, {
        method: "POST",
        headers: { authorization: `Bearer ${OWNER}`, "content-type": "application/json" },
        body: JSON.stringify({ sessionId: "probe", input: "record a visit" }),
      });
      expect(run.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const { text, catalog } = await health(OWNER);
    expect(catalog.sources).toContainEqual({ source: "mcp", toolset: "flaky", ok: false, tools: 0 });
    expect(text).not.toContain("s3cret-flaky");
    expect((await health(NARROW)).catalog.sources).toEqual([{ source: "plugin", toolset: "acme", ok: true, tools: 1 }]);
  }, 60_000);
});
