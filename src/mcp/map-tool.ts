/**
 * One MCP tool → one ToolDefinition. Everything an MCP server sends is untrusted, so it is
 * bounded here, before it enters the catalog:
 *
 * - description (or, without one, the title): control, bidi-override and zero-width characters
 *   stripped, then cut to `maxDescriptionChars` on a word boundary;
 * - inputSchema: kept exactly as sent, unless its JSON is longer than `maxSchemaBytes` or it is
 *   not a valid JSON Schema for the catalog's ajv. Then it is replaced by the permissive
 *   `{ type: "object" }` and a note is appended to the description, so the model still learns
 *   the tool exists and that its arguments are described in words only. (A server must not be
 *   able to stall indexing with a huge schema, nor fail the engine's start with a bad one: the
 *   catalog rejects invalid schemas as configuration errors.) Arguments are still checked by the
 *   server itself;
 * - outputSchema: kept as sent when it fits those bounds, dropped otherwise;
 * - annotations (`readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`, `title`):
 *   the booleans kept, the title cleaned and cut (catalog/annotations.ts boundAnnotations).
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { boundAnnotations } from "../catalog/annotations.js";
import type { JsonSchema, ToolContext, ToolDefinition } from "../catalog/types.js";
import { inputSchemaProblem } from "../catalog/validate-definition.js";
import { stripControl, truncate } from "../text/prompt-text.js";
import { DEFAULT_SCHEMA_LIMITS } from "../validation/schema-limits.js";

export interface MapToolLimits {
  maxDescriptionChars: number;
  maxSchemaBytes: number;
}

/** What the source gives each definition: how to call the tool by its original MCP name. */
export type CallByName = (originalName: string, args: Record<string, unknown>, ctx: ToolContext) => Promise<unknown>;

const PERMISSIVE: JsonSchema = Object.freeze({ type: "object" }) as JsonSchema;

export function mapTool(tool: Tool, catalogName: string, limits: MapToolLimits, call: CallByName): ToolDefinition {
  const originalName = tool.name;
  const notes: string[] = [];
  const input = boundSchema(tool.inputSchema, limits.maxSchemaBytes);
  let inputSchema: JsonSchema;
  if (input.ok) {
    inputSchema = input.schema;
  } else {
    inputSchema = { ...PERMISSIVE };
    notes.push(`[toolsearch: this tool's input schema was left out (${input.why}); pass the arguments its description asks for.]`);
  }
  const output = tool.outputSchema === undefined ? undefined : boundSchema(tool.outputSchema, limits.maxSchemaBytes);
  const text = typeof tool.description === "string" && tool.description.trim() !== "" ? tool.description : (tool.title ?? "");
  const definition: ToolDefinition = {
    name: catalogName,
    description: boundDescription(text, limits.maxDescriptionChars, notes),
    inputSchema,
    execute: (args, ctx) => call(originalName, args, ctx),
  };
  if (output?.ok) definition.outputSchema = output.schema;
  const annotations = boundAnnotations(tool.annotations, tool.title);
  if (annotations !== undefined) definition.annotations = annotations;
  return definition;
}

/** Control characters out, then cut so that description plus notes fit `max`. */
function boundDescription(text: string, max: number, notes: readonly string[] = []): string {
  const note = notes.join(" ");
  const room = Math.max(16, max - (note ? note.length + 1 : 0));
  // Cut the raw text first so that stripping never scans a 100 MB description.
  const clean = stripControl(String(text).slice(0, room * 4)).trim();
  const body = truncate(clean, room);
  return note ? (body ? `${body} ${note}` : note) : body;
}

type Bounded = { ok: true; schema: JsonSchema } | { ok: false; why: string };

function boundSchema(schema: unknown, maxBytes: number): Bounded {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return { ok: false, why: "not a JSON object" };
  let json: string;
  try {
    json = JSON.stringify(schema);
  } catch {
    return { ok: false, why: "not serializable" };
  }
  const bytes = Buffer.byteLength(json);
  if (bytes > maxBytes) return { ok: false, why: `${bytes} bytes, over the ${maxBytes}-byte limit` };
  const problem = inputSchemaProblem(schema as JsonSchema, { ...DEFAULT_SCHEMA_LIMITS, maxBytes });
  if (problem?.kind === "invalid") return { ok: false, why: "not a valid JSON Schema" };
  if (problem) return { ok: false, why: truncate(problem.detail, 200) };
  return { ok: true, schema: schema as JsonSchema };
}
