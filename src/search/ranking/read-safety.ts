/**
 * Safety in ranking: a request that only asks to read, list, find or show never gets a tool
 * that deletes, overwrites or stops something for good above a non-destructive tool that matches
 * it comparably. "List everything in the knowledge graph" once ranked the memory server's
 * `delete_relations` first (its parameters say "array"); a model that calls the first hit then
 * deletes. A request that asks to change something keeps the ranking as it is.
 *
 * - A tool is destructive by its MCP annotations (`destructiveHint: true`), else by a word of
 *   its name (`delete_*`, `*_remove`, `force_terminate`); `readOnlyHint: true` clears the name.
 * - A request is a read request when its first content word (after "please", "can you", "I
 *   want to" …) is a reading verb or a question word, and no word of it asks to destroy.
 * - Then each destructive hit ranks as if its score were COMPARABLE times what it is: below
 *   every non-destructive hit that scores at least that, above the ones that match far worse
 *   (a read request that only a delete tool matches still gets it, further down).
 *
 * General English and the MCP spec's hints, not fitted to a query set. A ranking order is not an
 * access control: policy and approvals are what stop a call (annotations are untrusted hints).
 */
import type { ToolAnnotations } from "../../catalog/annotations.js";
import { splitIdentifier, stem } from "../analysis/analyze.js";
import type { BackendHit } from "../types.js";

/**
 * Verbs of a tool name that delete, overwrite or stop something for good: any word of the name
 * (`delete_relations`, `file_delete`, `force_terminate`) as split from the identifier. Past forms
 * (`list_deleted_items`) and nouns (`deletion_status`) are other words and do not count.
 */
const DESTRUCTIVE_VERBS: ReadonlySet<string> = new Set([
  "delete",
  "del",
  "remove",
  "rm",
  "rmdir",
  "unlink",
  "drop",
  "purge",
  "revoke",
  "reset",
  "destroy",
  "erase",
  "wipe",
  "clear",
  "truncate",
  "kill",
  "terminate",
  "uninstall",
  "flush",
  "discard",
  "overwrite",
  "cancel",
  "deprovision",
  "decommission",
  "evict",
  "expunge",
  "shred",
  "forget",
]);

/** A request word (stemmed) that asks to destroy: the verbs above in any form, and "get rid of". */
const DESTROYING_STEMS: ReadonlySet<string> = new Set([...DESTRUCTIVE_VERBS, "rid"].map(stem));

/** The first content word of a read request: a verb that reads, or a question. */
const READ_CUES: ReadonlySet<string> = new Set([
  "read",
  "list",
  "find",
  "show",
  "get",
  "search",
  "view",
  "display",
  "see",
  "look",
  "lookup",
  "fetch",
  "retrieve",
  "check",
  "count",
  "browse",
  "query",
  "tell",
  "give",
  "print",
  "explore",
  "inspect",
  "describe",
  "locate",
  "preview",
  "know",
  "review",
  "examine",
  "identify",
  "discover",
  "obtain",
  "download",
  "summarize",
  "summarise",
  "compare",
  "analyze",
  "analyse",
  "explain",
  "what",
  "whats",
  "which",
  "where",
  "who",
  "whos",
  "when",
  "how",
  "hows",
  "why",
  "whose",
  "whom",
  "is",
  "are",
  "am",
  "was",
  "were",
  "do",
  "does",
  "did",
  "have",
  "has",
  "any",
]);

/** Words before the verb of a request: politeness, modals, "I want to", "help me", "let's". */
const LEAD_FILLERS: ReadonlySet<string> = new Set([
  "please",
  "pls",
  "kindly",
  "hey",
  "hi",
  "hello",
  "ok",
  "okay",
  "so",
  "now",
  "just",
  "also",
  "then",
  "and",
  "can",
  "could",
  "would",
  "will",
  "shall",
  "may",
  "might",
  "you",
  "u",
  "i",
  "we",
  "me",
  "us",
  "let",
  "lets",
  "s",
  "d",
  "m",
  "want",
  "wanna",
  "need",
  "like",
  "help",
  "go",
  "ahead",
  "quickly",
  "first",
  "try",
  "to",
]);

/** How far a destructive hit falls for a read request: it ranks as if it scored this share of its score. */
export const COMPARABLE = 0.5;
/** Requests are read only this far for their lead word and cues (they are bounded before this anyway). */
const MAX_REQUEST_CHARS = 2_000;
const WORDS = /\p{L}+/gu;

/** A tool deletes, overwrites or stops something for good (see the header). */
export function isDestructive(tool: { readonly name: string; readonly annotations?: ToolAnnotations | undefined }): boolean {
  const hints = tool.annotations;
  if (hints?.destructiveHint === true) return true;
  if (hints?.readOnlyHint === true) return false;
  return splitIdentifier(tool.name).some((w) => DESTRUCTIVE_VERBS.has(w));
}

/** The request only asks to read: its first content word is a read cue and none of its words asks to destroy. */
export function isReadRequest(request: string): boolean {
  const words = request.slice(0, MAX_REQUEST_CHARS).toLowerCase().match(WORDS) ?? [];
  if (words.some((w) => DESTROYING_STEMS.has(stem(w)))) return false;
  const lead = words.find((w) => !LEAD_FILLERS.has(w));
  return lead !== undefined && READ_CUES.has(lead);
}

/** A destructive hit the safety order moved down: its 1-based rank before and after. */
export interface SafetyMove {
  id: string;
  from: number;
  to: number;
}

/** What the safety order asks of the ranking it reorders. */
export interface SafetyOrderOptions {
  /** Whether a hit's tool deletes, overwrites or stops something for good (isDestructive of its doc). */
  destructive: (id: string) => boolean;
  /** Told each hit that fell (explain mode). */
  moved?: ((move: SafetyMove) => void) | undefined;
}

/**
 * `hits` (best first) in the safety order of a read request: each destructive hit goes below
 * every non-destructive hit after it that scores at least COMPARABLE times its score, and is
 * given that lower score; the other hits keep their order and scores, and so do destructive hits
 * among themselves. `moved` hears each hit that fell, with its 1-based rank before and after.
 */
export function safeOrder<H extends BackendHit>(hits: readonly H[], { destructive, moved }: SafetyOrderOptions): H[] {
  const falls = hits.map((hit) => destructive(hit.id));
  if (!falls.includes(true)) return [...hits];
  const kept = hits.filter((_, i) => !falls[i]);
  // How many kept hits go before each destructive one: those before it, then those after it that score at least its lowered score.
  const out: H[] = [];
  let placed = 0;
  let keptBefore = 0;
  hits.forEach((hit, i) => {
    if (!falls[i]) {
      keptBefore++;
      return;
    }
    const lowered = hit.score * COMPARABLE;
    let slot = Math.max(keptBefore, placed);
    for (let j = kept.length - 1; j >= slot; j--) {
      if (kept[j]!.score >= lowered) {
        slot = j + 1;
        break;
      }
    }
    while (placed < slot) out.push(kept[placed++]!);
    const to = out.length + 1;
    out.push({ ...hit, score: lowered });
    if (to !== i + 1) moved?.({ id: hit.id, from: i + 1, to });
  });
  while (placed < kept.length) out.push(kept[placed++]!);
  return out;
}
