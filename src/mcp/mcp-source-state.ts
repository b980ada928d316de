/**
 * An MCP source's connection state and transport, as its status reports them
 * (mcp-server-source.ts, which re-exports these). Apart from it, which loads the MCP SDK: the
 * admin API's wire types (src/admin/admin-wire-types.ts), which the web console compiles without
 * Node's types, carry them.
 */

/** One state at a time: mcp-server-source.ts draws how a source moves between them. */
export type McpSourceState = "idle" | "connecting" | "ready" | "failed" | "gone" | "closed";

export type McpTransport = "stdio" | "http";
