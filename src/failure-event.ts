/**
 * What error-channel.ts publishes for a failure that fails no call and no run (it re-exports
 * these). Apart from it, which needs `node:diagnostics_channel`: the catalog's refused rebuild
 * is one, and the admin API's wire types (src/admin/admin-wire-types.ts), which the web console
 * compiles without Node's types, carry it.
 */
import type { ErrorCode } from "./errors.js";

export type FailureOrigin = "catalog_rebuild" | "output_schema" | "after_tool_call" | "session_log" | "on_source_down" | "internal";

export interface FailureEvent {
  origin: FailureOrigin;
  code: ErrorCode;
  message: string;
  /** When it happened (ISO time). */
  time: string;
  /** Where it happened, when known: the session, run, tool or MCP server. */
  sessionId?: string;
  runId?: string;
  toolId?: string;
  server?: string;
  /** What was thrown, for a subscriber that wants the stack. */
  error?: unknown;
}
