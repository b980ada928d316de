/** What search and describe hand to a model: compact hits and bounded full descriptions. */
import type { CatalogEntry } from "../catalog/types.js";
import { bounded, oneLine } from "../text/prompt-text.js";
import { signatureOf } from "./signature.js";
import type { SearchHit, ToolDescription, ToolListing } from "./types.js";

const MAX_SUMMARY_CHARS = 200;
const MAX_DESCRIPTION_CHARS = 4000;

/** `weak`: a partial match given because nothing matched the request (search/partial-match.ts). */
export function toHit(entry: CatalogEntry, score: number, weak?: boolean): SearchHit {
  const signature = signatureOf(entry.definition.inputSchema);
  return {
    id: entry.id,
    name: entry.name,
    source: entry.source,
    toolset: entry.toolset,
    summary: oneLine(entry.definition.description, MAX_SUMMARY_CHARS),
    score: Math.min(1, Math.round(score * 1000) / 1000),
    ...(signature !== undefined ? { signature } : {}),
    ...(weak === true ? { weak: true as const } : {}),
  };
}

/** A catalog tool as operators list it (`toolsearch tools`, the admin API): a hit without a score, and whether it is owner-only. */
export function toListing(entry: CatalogEntry): ToolListing {
  const { score: _score, weak: _weak, ...hit } = toHit(entry, 0);
  return { ...hit, ownerOnly: entry.ownerOnly };
}

export function toDescription(entry: CatalogEntry): ToolDescription {
  const { inputSchema, outputSchema } = entry.definition;
  return {
    id: entry.id,
    name: entry.name,
    source: entry.source,
    toolset: entry.toolset,
    description: bounded(entry.definition.description, MAX_DESCRIPTION_CHARS),
    inputSchema,
    ...(outputSchema !== undefined ? { outputSchema } : {}),
  };
}
