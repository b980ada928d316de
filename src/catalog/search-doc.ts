/** The compact descriptor of a tool that the search index holds. */
import type { CatalogEntry, ToolAnnotations, ToolIdentity } from "./types.js";

/** What gets indexed for one tool. Built from the catalog; never contains executable parts. */
export interface SearchDoc extends ToolIdentity {
  description: string;
  /** Top-level parameter names and descriptions from the input schema (indexed with a lower weight). */
  params: ReadonlyArray<{ name: string; description: string }>;
  /** The tool's behaviour hints (ToolDefinition.annotations): not indexed; ranking reads whether it is destructive. */
  annotations?: ToolAnnotations;
}

/** Untrusted text (MCP descriptions) is bounded before it is indexed. */
const MAX_DESCRIPTION_CHARS = 2000;
const MAX_PARAMS = 40;
const MAX_PARAM_DESCRIPTION_CHARS = 300;

/** A catalog entry's search doc (what it reads of the entry: a bench builds one from a bare definition). */
export function toSearchDoc(entry: Pick<CatalogEntry, "id" | "name" | "source" | "toolset" | "definition">): SearchDoc {
  return {
    id: entry.id,
    name: entry.name,
    source: entry.source,
    toolset: entry.toolset,
    description: entry.definition.description.slice(0, MAX_DESCRIPTION_CHARS),
    params: topLevelParams(entry.definition.inputSchema),
    ...(entry.definition.annotations ? { annotations: entry.definition.annotations } : {}),
  };
}

/** The params of every tool without any: one shared array, not one per doc (100k of them in a big catalog). */
const NO_PARAMS: SearchDoc["params"] = Object.freeze([]);

function topLevelParams(schema: Record<string, unknown>): SearchDoc["params"] {
  const properties = schema.properties;
  if (typeof properties !== "object" || properties === null) return NO_PARAMS;
  const names = Object.keys(properties);
  if (names.length === 0) return NO_PARAMS;
  return Object.entries(properties as Record<string, unknown>)
    .slice(0, MAX_PARAMS)
    .map(([name, property]) => ({ name, description: propertyDescription(property) }));
}

function propertyDescription(property: unknown): string {
  if (typeof property !== "object" || property === null) return "";
  const description = (property as Record<string, unknown>).description;
  return typeof description === "string" ? description.slice(0, MAX_PARAM_DESCRIPTION_CHARS) : "";
}
