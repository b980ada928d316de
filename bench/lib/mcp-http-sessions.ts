/**
 * Routing for an MCP test server over Streamable HTTP (one transport per client session): a
 * request is handed to the session its `mcp-session-id` names, a request without one opens a new
 * session, an unknown id is 404 as the SDK's clients expect. Used by the benchmark's flood server
 * and the MCP tests' HTTP server.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";

export function routeSessions(
  sessions: ReadonlyMap<string, { transport: StreamableHTTPServerTransport }>,
  open: () => Promise<StreamableHTTPServerTransport>,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    try {
      const id = req.headers["mcp-session-id"];
      const existing = typeof id === "string" ? sessions.get(id) : undefined;
      if (existing) return await existing.transport.handleRequest(req, res);
      if (typeof id === "string") {
        res.writeHead(404).end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }));
        return;
      }
      await (await open()).handleRequest(req, res);
    } catch (error) {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    }
  };
}
