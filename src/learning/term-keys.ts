/**
 * How a request term is kept in the learned model and its store. By default as a keyed hash
 * (`#` + 16 base64url characters of an HMAC-SHA256): the store, its backups and exports hold no
 * request words ("jonathan", "cancer"), and ranking still works, since a request's terms are
 * hashed the same way before they are looked up. With `learning.recordTerms: true` the operator
 * keeps the words themselves (to read what was learned).
 *
 * The key is `indexCacheKey` when one is set; otherwise a fixed one, under which a word can be
 * found again by hashing a dictionary — set `indexCacheKey` (or `indexCacheKeyEnv`) to make the
 * hashes unreadable to whoever copies the store. Processes that exchange rows (a folder shared by
 * workers, export/import between replicas) must use the same key for the rows to match.
 */
import { createHmac } from "node:crypto";
import { LruMap } from "../validation/lru.js";

const HASH_PREFIX = "#";
const DEFAULT_KEY = "toolsearch learned terms v1";
/** Hashes remembered: a request's terms repeat across searches, and one HMAC costs microseconds. */
const CACHED_TERMS = 8_192;

/** Recorded in clear, or hashed with a key. */
export type TermMode = { recordTerms: true } | { recordTerms: false; key?: string };

function isHashedTerm(term: string): boolean {
  return term.startsWith(HASH_PREFIX);
}

/** The term → stored key function for a mode (the analyzer never makes a term that starts with "#"). */
export function termKeyer(mode: TermMode): (term: string) => string {
  if (mode.recordTerms) return (term) => term;
  const key = mode.key ?? DEFAULT_KEY;
  const cache = new LruMap<string, string>(CACHED_TERMS);
  return (term) => {
    if (isHashedTerm(term)) return term;
    let hashed = cache.get(term);
    if (hashed === undefined) {
      hashed = HASH_PREFIX + createHmac("sha256", key).update("term\u0000").update(term).digest().subarray(0, 12).toString("base64url");
      cache.set(term, hashed);
    }
    return hashed;
  };
}
