/** Real faces for the admin, metrics and console tests: the scripted provider, the gateway or the MCP face, the real memory MCP server and a small plugin. */
import { mkdtempSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { pluginTools } from "../../src/catalog/sources.js";
import type { ToolDefinition } from "../../src/catalog/types.js";
import type { JsonObject } from "../../src/config/dot-path.js";
import { resolveServerConfig } from "../../src/config/server-config.js";
import { startGateway, type Gateway } from "../../src/gateway/gateway-server.js";
import { createMcpFace, type McpFace } from "../../src/mcpface/mcp-face.js";
import { startMockProvider, type MockProvider } from "../../src/mock-provider/mock-provider.js";

export const OWNER = "owner-token-0123456789abcdef";
export const SUPPORT = "support-token-0123456789abcdef";
export const TOKENS = [
  { token: OWNER, owner: true },
  { token: SUPPORT, agentId: "support", tenant: "support" },
];

const tool = (name: string, description: string, properties: Record<string, unknown> = {}): ToolDefinition => ({
  name,
  description,
  inputSchema: { type: "object", properties },
  execute: (args) => ({ done: name, args }),
});

export const PLUGIN = pluginTools("acme", [
  tool("get_weather", "Weather forecast for a city.", { city: { type: "string" } }),
  tool("send_email", "Send an email to a recipient.", { to: { type: "string" } }),
  tool("reset_password", "Reset the password of a staff login."),
]);

const memoryEntry = path.join(path.dirname(createRequire(import.meta.url).resolve("@modelcontextprotocol/server-memory/package.json")), "dist", "index.js");

function memoryServer(): JsonObject {
  const dir = mkdtempSync(path.join(tmpdir(), "toolsearch-admin-"));
  return { command: process.execPath, args: [memoryEntry], env: { MEMORY_FILE_PATH: path.join(dir, "memory.jsonl") } };
}

/** The config both faces run: the plugin, the memory server, a policy with an agent's deny and an owner-only tool. */
export function faceConfig(provider: MockProvider | undefined, more: JsonObject = {}) {
  return resolveServerConfig(
    {
      tools: { toolSearch: { mode: "tools" } },
      mcpServers: { memory: memoryServer() },
      policy: { ownerOnly: ["plugin:acme:reset_*"], agents: { support: { deny: ["mcp:memory:delete_*"] } } },
      ...(provider ? { provider: { baseURL: provider.url, timeoutMs: 10_000 } } : {}),
      ...more,
      gateway: { port: 0, ...((more.gateway as JsonObject | undefined) ?? {}) },
    },
    process.cwd(),
  );
}

/** `log` gets the gateway's line per request (`--verbose`: method, path, status). */
export async function startFaces(
  more: JsonObject = {},
  log?: (line: string) => void,
): Promise<{ provider: MockProvider; gateway: Gateway; face: McpFace; mcpUrl: string; close(): Promise<void> }> {
  const provider = await startMockProvider({ port: 0 });
  const gateway = await startGateway(faceConfig(provider, more), { sources: [PLUGIN], ...(log ? { log } : {}) });
  const face = await createMcpFace(faceConfig(provider, more), { sources: [PLUGIN] });
  const { url } = await face.listenHttp("127.0.0.1", 0);
  return {
    provider,
    gateway,
    face,
    mcpUrl: url,
    async close() {
      await Promise.allSettled([gateway.close(), face.close(), provider.close()]);
    },
  };
}

export interface Answer<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  json: T;
}

export async function call<T = Record<string, unknown>>(
  url: string,
  init: { method?: string; token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer<T>> {
  const response = await fetch(url, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: {
      ...(init.body !== undefined ? { "content-type": "application/json" } : {}),
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      ...init.headers,
    },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, json: (text ? JSON.parse(text) : {}) as T };
}

/** The base URL of a face's HTTP server (the MCP face's url ends in /mcp). */
export const origin = (url: string) => new URL(url).origin;
