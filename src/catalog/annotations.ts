/**
 * A tool's behaviour hints, as MCP tool annotations give them (`readOnlyHint`, `destructiveHint`,
 * `idempotentHint`, `openWorldHint`, `title`): carried from an MCP server's tool listing
 * (bounded: it is untrusted) or declared by a core, plugin or client tool (checked at
 * registration). Ranking reads them to keep a tool that deletes or overwrites from coming first
 * for a request that only asks to read (search/ranking/read-safety.ts).
 */
import { ConfigInvalidError } from "../errors.js";
import { stripControl, truncate } from "../text/prompt-text.js";

/** MCP's ToolAnnotations, each field optional; core and plugin tools may declare them too. */
export interface ToolAnnotations {
  /** A human-readable name. */
  title?: string;
  /** The tool does not modify its environment. */
  readOnlyHint?: boolean;
  /** The tool may delete or overwrite (meaningful when it is not read-only). */
  destructiveHint?: boolean;
  /** Calling it again with the same arguments has no further effect. */
  idempotentHint?: boolean;
  /** The tool reaches an open world of entities (the web), not a closed one (a local store). */
  openWorldHint?: boolean;
}

const HINTS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const;
/** A title is a label, not a second description. */
const MAX_TITLE_CHARS = 200;

/**
 * The annotations of an untrusted MCP tool, bounded: the four hints where they are booleans,
 * the title (MCP's `annotations.title`, else the tool's own `title`) without control characters
 * and cut to MAX_TITLE_CHARS. Undefined when nothing is left.
 */
export function boundAnnotations(raw: unknown, title?: unknown): ToolAnnotations | undefined {
  const out: ToolAnnotations = {};
  const given = isRecord(raw) ? raw : {};
  for (const hint of HINTS) if (typeof given[hint] === "boolean") out[hint] = given[hint];
  const label = typeof given["title"] === "string" ? given["title"] : title;
  if (typeof label === "string") {
    const clean = truncate(stripControl(label.slice(0, MAX_TITLE_CHARS * 4)).trim(), MAX_TITLE_CHARS);
    if (clean !== "") out.title = clean;
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

/** Registration check of a core, plugin or client tool's `annotations`: an object of booleans and a string title. */
export function checkAnnotations(annotations: unknown, label: string): void {
  if (annotations === undefined) return;
  if (!isRecord(annotations)) throw new ConfigInvalidError(`${label}: annotations must be an object when given`);
  for (const hint of HINTS) {
    if (annotations[hint] !== undefined && typeof annotations[hint] !== "boolean")
      throw new ConfigInvalidError(`${label}: annotations.${hint} must be a boolean`);
  }
  const title = annotations["title"];
  if (title !== undefined && (typeof title !== "string" || title.length > MAX_TITLE_CHARS)) {
    throw new ConfigInvalidError(`${label}: annotations.title must be a string of at most ${MAX_TITLE_CHARS} characters`);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
