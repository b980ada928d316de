/** Reading the errors the SDK and fetch throw: which mean "the server is not there". */
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { ToolSearchError } from "../errors.js";

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

/** `message (CAUSE_CODE: cause message)`: fetch hides the useful part in `cause`. */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  const code = causeCode(error);
  if (cause instanceof Error && !error.message.includes(cause.message)) {
    return `${error.message} (${code ? `${code}: ` : ""}${cause.message})`;
  }
  return error.message;
}

function causeCode(error: Error): string | undefined {
  const cause = (error as { cause?: unknown }).cause;
  if (typeof cause !== "object" || cause === null || cause instanceof ToolSearchError) return undefined; // a taxonomy code is not an errno code
  const code = (cause as { code?: unknown }).code;
  return typeof code === "string" ? code : undefined;
}
