import type { JsonSchema, ToolSource } from "../catalog/types.js";
import type { ErrorPayload } from "../errors.js";

/** A compact, prompt-safe search result. */
export interface SearchHit {
  id: string;
  name: string;
  source: ToolSource;
  /**
   * Who provides the tool: "core", "client", the plugin's id or the MCP server's name (the middle
   * part of a `source:owner:name` id). Not `RunContext.owner`, which says the caller is the owner.
   */
  owner: string;
  /** One line, at most 200 characters, control characters stripped. */
  summary: string;
  score: number;
  /** A bounded TypeScript-like parameter hint, e.g. `(city: string, days?: integer)`. */
  signature?: string;
}

/** The answer to a batch search: one entry per query, in order. */
export interface BatchSearchResult {
  query: string;
  hits: SearchHit[];
}

export interface SearchOptions {
  limit?: number;
}

export interface ToolDescription {
  id: string;
  name: string;
  source: ToolSource;
  /**
   * Who provides the tool: "core", "client", the plugin's id or the MCP server's name (the middle
   * part of a `source:owner:name` id). Not `RunContext.owner`, which says the caller is the owner.
   */
  owner: string;
  description: string;
  /** The tool's input schema exactly as registered. */
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
}

export type CallOutcome =
  | { ok: true; id: string; source: ToolSource; result: unknown }
  | { ok: false; id: string; source?: ToolSource; error: ErrorPayload };
