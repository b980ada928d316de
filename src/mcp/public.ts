/**
 * `toolsearch/mcp`: MCP servers as catalog sources (the root exports the same `mcpServer`). A
 * source loads the MCP SDK when it first connects, not when it is created.
 */
export {
  mcpServer,
  type McpServerSource,
  type McpServerConfig,
  type McpStdioServerConfig,
  type McpHttpServerConfig,
  type McpServerOptions,
  type McpSourceStatus,
  type McpSourceEvent,
} from "./index.js";
