/** Real MCP servers for the tests: the reference "everything" server over stdio, and small SDK servers over Streamable HTTP. */
import { randomUUID } from "node:crypto";
import { createServer, type Server as HttpServer } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { afterEach } from "vitest";
import type { ToolContext } from "../../src/catalog/types.js";
import { mcpServer, type McpServerSource } from "../../src/mcp/index.js";
import { routeSessions } from "../../bench/lib/mcp-http-sessions.js";

const require = createRequire(import.meta.url);

/** The everything server's entry (its package bin), run with this Node: no npx, no network. */
function everythingEntry(): string {
  return join(dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")), "dist", "index.js");
}

export function everythingConfig(name = "everything") {
  return { name, command: process.execPath, args: [everythingEntry(), "stdio"] };
}

export function toolContext(id: string, signal: AbortSignal = new AbortController().signal, tenant = "s"): ToolContext {
  return { id, sessionId: "s", runId: "r", tenant, owner: false, signal };
}

export { childPids, isRunning } from "../support/proc.js";

export async function waitFor<T>(check: () => T | undefined | false, what: string, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Resolves the next time `listen` fires. */
export function nextChange(listen: (listener: () => void) => unknown): Promise<void> {
  return new Promise((resolve) => {
    let done = false;
    listen(() => {
      if (!done) {
        done = true;
        resolve();
      }
    });
  });
}

export type TestTool = Tool & { run?: (args: Record<string, unknown>, signal: AbortSignal) => Promise<CallToolResult> | CallToolResult };

export interface TestHttpServer {
  url: string;
  port: number;
  /** The tools every session lists (mutable: push, then `notifyToolsChanged`). */
  tools: TestTool[];
  pageSize: number;
  listCalls: number;
  notifyToolsChanged(): Promise<void>;
  /** Stops listening and drops every connection (the server "dies"). */
  kill(): Promise<void>;
  /** Listens again on the same port, with fresh sessions. */
  revive(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A low-level SDK `Server` per session over Streamable HTTP on 127.0.0.1, listing `tools` in
 * pages of `pageSize` (cursor = the next offset) and calling each tool's `run`.
 */
export async function startHttpServer(tools: TestTool[], pageSize = 1_000): Promise<TestHttpServer> {
  const sessions = new Map<string, { server: Server; transport: StreamableHTTPServerTransport }>();
  const state = { listCalls: 0, pageSize };

  const newSession = async (): Promise<StreamableHTTPServerTransport> => {
    const server = new Server({ name: "test-http", version: "1.0.0" }, { capabilities: { tools: { listChanged: true } } });
    server.setRequestHandler(ListToolsRequestSchema, (request) => {
      state.listCalls += 1;
      const offset = request.params?.cursor === undefined ? 0 : Number(request.params.cursor);
      const page = tools.slice(offset, offset + state.pageSize).map(({ run: _run, ...tool }) => tool);
      const next = offset + state.pageSize;
      return { tools: page, ...(next < tools.length ? { nextCursor: String(next) } : {}) };
    });
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const tool = tools.find((t) => t.name === request.params.name);
      if (!tool?.run) return { isError: true, content: [{ type: "text", text: `unknown tool ${request.params.name}` }] };
      return tool.run(request.params.arguments ?? {}, extra.signal);
    });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { server, transport });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    return transport;
  };

  const handler = routeSessions(sessions, newSession);

  let http: HttpServer = createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const port = (http.address() as AddressInfo).port;
  let alive = true;

  const dropSessions = async () => {
    const all = [...sessions.values()];
    sessions.clear();
    await Promise.allSettled(all.map(({ server }) => server.close()));
  };
  const kill = async () => {
    if (!alive) return;
    alive = false;
    const closed = new Promise<void>((resolve) => http.close(() => resolve()));
    http.closeAllConnections();
    await dropSessions();
    await closed;
  };

  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    tools,
    get pageSize() {
      return state.pageSize;
    },
    set pageSize(value: number) {
      state.pageSize = value;
    },
    get listCalls() {
      return state.listCalls;
    },
    set listCalls(value: number) {
      state.listCalls = value;
    },
    async notifyToolsChanged() {
      await Promise.all([...sessions.values()].map(({ server }) => server.sendToolListChanged()));
    },
    kill,
    async revive() {
      if (alive) return;
      http = createServer((req, res) => void handler(req, res));
      await new Promise<void>((resolve, reject) => {
        http.once("error", reject);
        http.listen(port, "127.0.0.1", resolve);
      });
      alive = true;
    },
    close: kill,
  };
}

export function textTool(name: string, description = `${name} tool`, run?: TestTool["run"]): TestTool {
  return {
    name,
    description,
    inputSchema: { type: "object", properties: { text: { type: "string" } } },
    run: run ?? ((args) => ({ content: [{ type: "text", text: `${name}:${String(args.text ?? "")}` }] })),
  };
}

/**
 * Servers and sources closed after each test of the file that calls this (at its top level):
 * `server(...)` and `source(...)` start them, `cleanup.push(fn)` adds anything else.
 */
export function closedAfterEach() {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await Promise.allSettled(cleanup.splice(0).map((fn) => fn()));
  });
  return {
    cleanup,
    async server(...args: Parameters<typeof startHttpServer>): Promise<TestHttpServer> {
      const s = await startHttpServer(...args);
      cleanup.push(() => s.close());
      return s;
    },
    source(...args: Parameters<typeof mcpServer>): McpServerSource {
      const s = mcpServer(...args);
      cleanup.push(() => s.close());
      return s;
    },
  };
}
