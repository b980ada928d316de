/** What search and describe hand to a model: compact hits and bounded full descriptions. */
import type { CatalogEntry } from "../catalog/types.js";
import { bounded, oneLine } from "../text/prompt-text.js";
import { signatureOf } from "./signature.js";
import type { SearchHit, ToolDescription, ToolListing } from "./types.js";
import { definedProps } from "../defined.js";

const MAX_SUMMARY_CHARS = 200;
const MAX_DESCRIPTION_CHARS = 4000;

/**
 * What a hit and a description show of an entry, worked out once per entry: every search shows
 * each hit's summary and signature again, and entries do not change (a catalog change makes new ones).
 */
interface Shown {
  summary?: string;
  signature?: string | undefined;
  signatureDone?: boolean;
  description?: string;
}
const shown = new WeakMap<CatalogEntry, Shown>();

function shownOf(entry: CatalogEntry): Shown {
  let s = shown.get(entry);
  if (s === undefined) shown.set(entry, (s = {}));
  return s;
}

/** `weak`: a partial match given because nothing matched the request (search/ranking/partial-match.ts). */
export function toHit(entry: CatalogEntry, score: number, weak?: boolean): SearchHit {
  const s = shownOf(entry);
  if (s.signatureDone !== true) {
    s.signature = signatureOf(entry.definition.inputSchema);
    s.signatureDone = true;
  }
  const signature = s.signature;
  return {
    id: entry.id,
    name: entry.name,
    source: entry.source,
    toolset: entry.toolset,
    summary: (s.summary ??= oneLine(entry.definition.description, MAX_SUMMARY_CHARS)),
    score: Math.min(1, Math.round(score * 1000) / 1000),
    ...definedProps({ signature }),
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
    description: (shownOf(entry).description ??= bounded(entry.definition.description, MAX_DESCRIPTION_CHARS)),
    inputSchema,
    ...definedProps({ outputSchema }),
  };
}
