/**
 * An MCP server that floods its clients with tools/list_changed (the stall benchmark's MCP row),
 * built with the official SDK's McpServer over Streamable HTTP on 127.0.0.1. It runs as its own
 * process so that its CPU (serialising 10,000 tools per tools/list) is not counted as the
 * gateway's. Prints `{"url": …}` on stdout once listening; reads commands on stdin:
 * `flood <ms>` starts a change every <ms> ms (one tool's description, so every list differs),
 * `quiet` stops it, `exit` closes.
 *
 *   node dist/bench/stall/flood-server.js --tools 10000
 */
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createInterface } from "node:readline";
import { McpServer, type RegisteredTool } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { routeSessions } from "../lib/mcp-http-sessions.js";

interface Session {
  server: McpServer;
  transport: StreamableHTTPServerTransport;
  tools: RegisteredTool[];
}

const count = Number(process.argv[process.argv.indexOf("--tools") + 1] ?? 10_000) || 10_000;
const sessions = new Map<string, Session>();
let tick = 0;
let timer: NodeJS.Timeout | undefined;

/** One McpServer per client session (an McpServer serves one transport), all tools registered before it connects. */
async function newSession(): Promise<StreamableHTTPServerTransport> {
  const server = new McpServer({ name: "stall-flood", version: "1.0.0" }, { capabilities: { tools: { listChanged: true } } });
  const tools: RegisteredTool[] = [];
  for (let i = 0; i < count; i += 1) {
    tools.push(
      server.registerTool(`flood_tool_${i}`, { description: `Flood tool ${i}: returns its own number.` }, () => ({
        content: [{ type: "text", text: String(i) }],
      })),
    );
  }
  const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => void sessions.set(id, { server, transport, tools }),
  });
  transport.onclose = () => {
    if (transport.sessionId) sessions.delete(transport.sessionId);
  };
  await server.connect(transport);
  return transport;
}

const handle = routeSessions(sessions, newSession);

/** Each tick changes one tool's description; RegisteredTool.update sends tools/list_changed. */
function flood(intervalMs: number): void {
  clearInterval(timer);
  timer = setInterval(() => {
    tick += 1;
    for (const session of sessions.values())
      session.tools[tick % session.tools.length]!.update({ description: `Flood tool ${tick % count}, revision ${tick}.` });
  }, intervalMs);
}

const http = createServer((req, res) => void handle(req, res));
http.listen(0, "127.0.0.1", () => {
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp` })}\n`);
});

createInterface({ input: process.stdin }).on("line", (line) => {
  const [command, arg] = line.trim().split(/\s+/);
  if (command === "flood") flood(Number(arg) || 50);
  else if (command === "quiet") clearInterval(timer);
  else if (command === "exit") {
    clearInterval(timer);
    http.closeAllConnections();
    http.close();
    void Promise.allSettled([...sessions.values()].map((s) => s.server.close())).then(() => process.exit(0));
  }
});
// The parent went away without saying exit: do not outlive it.
process.stdin.on("end", () => process.exit(0));
