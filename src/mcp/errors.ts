/** Reading the errors the SDK and fetch throw: which mean "the server is not there". */
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { ToolSearchError } from "../errors.js";
import { causeCode } from "./describe-error.js";

/**
 * Whether an error is worth a liveness check. True for errors about the connection rather than the call: the transport closed, a request
 * could not be sent (connection refused or reset, fetch failed), or the HTTP session is gone.
 * A JSON-RPC error the server answered with is not one of them.
 */
export function isConnectionError(error: unknown): boolean {
  if (error instanceof McpError) return error.code === ErrorCode.ConnectionClosed;
  if (!(error instanceof Error)) return false;
  // Ours (a message over the limit, a looping listing) are about what the server sent; their string codes are not errno codes.
  if (error instanceof ToolSearchError) return false;
  // 404: the server no longer knows the session (it restarted); other statuses are answers.
  if (error instanceof StreamableHTTPError) return error.code === 404;
  const code = (error as { code?: unknown }).code;
  if (error.message === "Not connected") return true;
  return error instanceof TypeError || typeof causeCode(error) === "string" || typeof code === "string";
}

export function isTimeoutError(error: unknown): boolean {
  return error instanceof McpError && error.code === ErrorCode.RequestTimeout;
}
