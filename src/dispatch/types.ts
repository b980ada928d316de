import type { JsonSchema, ToolSource } from "../catalog/types.js";
import type { ErrorPayload } from "../errors.js";

/** A compact, prompt-safe search result. */
export interface SearchHit {
  id: string;
  name: string;
  source: ToolSource;
  /** The tool's provider: "core", "client", a plugin id or an MCP server name. Not `RunContext.owner`. */
  owner: string;
  /** One line, at most 200 characters, control characters stripped. */
  summary: string;
  score: number;
  /** A bounded TypeScript-like parameter hint, e.g. `(city: string, days?: integer)`. */
  signature?: string;
  /**
   * No tool matched the request's words: this is one of the best partial matches (a shared
   * word prefix, or only one of the allowed tools). A model should rephrase, not conclude.
   */
  weak?: true;
}

/** A hit as `run.explain` gives it: whether learning from use ranked it higher than the catalog's text alone. */
export interface ExplainedHit extends SearchHit {
  learned: boolean;
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
  /** The tool's provider: "core", "client", a plugin id or an MCP server name. Not `RunContext.owner`. */
  owner: string;
  description: string;
  /** The tool's input schema exactly as registered. */
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
}

export type CallOutcome =
  | { ok: true; id: string; source: ToolSource; result: unknown }
  | { ok: false; id: string; source?: ToolSource; error: ErrorPayload };
