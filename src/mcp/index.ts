/** MCP servers as catalog sources, through the official TypeScript SDK client. */
import { McpServerSource } from "./mcp-server-source.js";
import type { McpServerConfig, McpServerOptions } from "./options.js";

export { McpServerSource, type McpSourceStatus, type McpSourceEvent } from "./mcp-server-source.js";
export type { McpServerConfig, McpStdioServerConfig, McpHttpServerConfig, McpServerOptions } from "./options.js";

/**
 * An MCP server's tools as a catalog source (ids `mcp:<name>:<tool>`): `{ name, command, args?,
 * env?, cwd? }` spawns it and talks over stdio; `{ name, url, headers? }` uses Streamable HTTP.
 * Nothing connects until `start()` (the engine calls it). Bad config throws ConfigInvalidError here.
 */
export function mcpServer(config: McpServerConfig, options?: McpServerOptions): McpServerSource {
  return new McpServerSource(config, options);
}
