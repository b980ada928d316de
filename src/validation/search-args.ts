/**
 * The rules for search and lookup arguments, wherever they arrive (the library API, the
 * tool_search / tool_describe tools, the code-mode bridge), so every door refuses the same
 * things with the same INVALID_ARGS message: a query is a non-blank string or a list of 1 to 10
 * of them (each cut at 1000 characters), options is an object, `limit` a positive integer (one
 * over the configured maximum is lowered to it by the dispatcher), a tool id a non-empty string.
 */
import { InvalidArgsError } from "../errors.js";
import { refuseUnknownKeys } from "./control-args.js";

export const MAX_BATCH_QUERIES = 10;
export const MAX_QUERY_CHARS = 1000;

/** `keys`: the option keys taken (run.explain also takes `detail`). */
export function checkSearchArgs(query: unknown, options: unknown, keys: readonly string[] = ["limit"]): { queries: string[]; limit: number | undefined } {
  const list = typeof query === "string" ? [query] : query;
  if (!Array.isArray(list) || list.length === 0 || list.length > MAX_BATCH_QUERIES || !list.every((q) => typeof q === "string" && q.trim() !== "")) {
    throw new InvalidArgsError(`search(query, { limit }) takes a non-blank query string or a list of 1 to ${MAX_BATCH_QUERIES} of them; got ${shown(query)}.`);
  }
  if (options !== undefined && options !== null && (typeof options !== "object" || Array.isArray(options))) {
    throw new InvalidArgsError(`search options must be an object like { limit: 5 }; got ${shown(options)}.`);
  }
  if (options !== undefined && options !== null) refuseUnknownKeys("search options", options as Record<string, unknown>, keys);
  const limit = (options as { limit?: unknown } | null | undefined)?.limit;
  if (limit !== undefined && (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1)) {
    throw new InvalidArgsError(`search limit must be a positive integer; got ${shown(limit)}.`);
  }
  return { queries: list.map((q: string) => q.slice(0, MAX_QUERY_CHARS)), limit };
}

/** run.explain's arguments: search's, and `detail` a boolean when given. */
export function checkExplainArgs(query: unknown, options: unknown): { query: string; limit: number | undefined; detail: boolean } {
  const { queries, limit } = checkSearchArgs(query, options, ["limit", "detail"]);
  const detail = (options as { detail?: unknown } | null | undefined)?.detail;
  if (detail !== undefined && typeof detail !== "boolean") throw new InvalidArgsError(`explain detail must be true or false; got ${shown(detail)}.`);
  return { query: queries[0]!, limit, detail: detail === true };
}

export function checkToolId(id: unknown): string {
  if (typeof id !== "string" || id.length === 0) throw new InvalidArgsError(`A tool id must be a non-empty string; got ${shown(id)}.`);
  return id;
}

function shown(value: unknown): string {
  return (JSON.stringify(value) ?? String(value)).slice(0, 100);
}
