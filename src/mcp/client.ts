/**
 * What an MCP source needs once it connects: the SDK client (connection.ts) and the readers of
 * the SDK's errors. Loaded at a source's first connect (loadMcpClient), so that importing
 * toolsearch, or creating an `mcpServer` source that never starts, does not load the MCP SDK.
 */
export { McpConnection } from "./connection.js";
export { isConnectionError, isTimeoutError } from "./errors.js";
export { messageLimitOf } from "./message-limit.js";
