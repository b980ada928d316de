/**
 * Never empty: when no tool holds any word of a request that has content words, the best
 * partial matches instead, marked weak so that a model knows to rephrase rather than conclude
 * that no tool exists. "what do you know about Alice" over the memory server shares no word
 * with it, but "know" begins "knowledge" (its tools' descriptions): a query word that is a
 * prefix of a catalog word, or has one as its prefix, matches it with a weight that falls with
 * the letters not shared. When not even that matches ("forget everything about Bob"), the
 * allowed tools in catalog order: for a server's handful of tools, all of them.
 *
 * Built on the first miss of an index, never on the path of a query that matches: most indexes
 * never need it. Only the allowed ids are ever returned.
 */
import { analyzeIdentifier, analyzeQuery, analyzeText, splitIdentifier, stem } from "./analyze.js";
import { STOPWORDS } from "./stopwords.js";
import type { BackendHit, SearchDoc } from "./types.js";

/** Shortest query word tried as a prefix, and shortest catalog word a query word may start with. */
const MIN_PREFIX = 3;
const MIN_STEM = 4;
/** Description terms read per tool: what a one-line summary says, not a long manual. */
const MAX_DESCRIPTION_TERMS = 48;
/** Catalog words matched per query word (the closest first). */
const MAX_MATCHES_PER_WORD = 32;
/** Weight of a stopword ("know" of "what do you know"): a request of fluff may still hint at something. */
const STOPWORD_WEIGHT = 0.5;
/** Weak scores stay below this: they rank among themselves, never like a real match. */
export const WEAK_SCORE_CAP = 0.1;
const CONTENT = /^[\p{L}\p{N}]+$/u;

export interface WeakHit extends BackendHit {
  weak: true;
}

export class PartialMatcher {
  readonly #ids: string[] = [];
  /** Sorted distinct terms, for prefix lookups. */
  readonly #terms: string[];
  readonly #docsOf = new Map<string, number[]>();

  constructor(docs: Iterable<SearchDoc>) {
    for (const doc of docs) {
      const n = this.#ids.length;
      this.#ids.push(doc.id);
      const terms = new Set<string>([
        ...analyzeIdentifier(doc.name),
        ...analyzeIdentifier(doc.owner),
        ...analyzeText(doc.description).slice(0, MAX_DESCRIPTION_TERMS),
        ...doc.params.flatMap((p) => analyzeIdentifier(p.name)),
      ]);
      for (const term of terms) {
        if (!CONTENT.test(term)) continue;
        const list = this.#docsOf.get(term);
        if (list === undefined) this.#docsOf.set(term, [n]);
        else list.push(n);
      }
    }
    this.#terms = [...this.#docsOf.keys()].sort();
  }

  /** Whether a request has words a partial match can use (not only stopwords and punctuation). */
  static hasContent(query: string): boolean {
    return analyzeQuery(query).some((t) => CONTENT.test(t.term));
  }

  /**
   * Up to `limit` allowed tools for a request no tool matched: prefix matches first (best
   * first, then catalog order), then the other allowed tools in catalog order. [] for a
   * request without content words or an empty allowed catalog.
   */
  match(query: string, limit: number, allowed?: ReadonlySet<string>): WeakHit[] {
    if (!(limit > 0) || !PartialMatcher.hasContent(query)) return [];
    const scores = new Map<number, number>();
    const n = this.#ids.length;
    for (const [word, wordWeight] of partialWords(query)) {
      const best = new Map<number, number>();
      for (const [term, similarity] of this.#related(word)) {
        const docs = this.#docsOf.get(term) ?? [];
        // Rarer words say more, as in BM25's IDF.
        const weight = wordWeight * similarity * Math.log(1 + (n - docs.length + 0.5) / (docs.length + 0.5));
        for (const doc of docs) if (weight > (best.get(doc) ?? 0)) best.set(doc, weight);
      }
      for (const [doc, w] of best) scores.set(doc, (scores.get(doc) ?? 0) + w);
    }
    const ranked = [...scores]
      .filter(([doc]) => allowed === undefined || allowed.has(this.#ids[doc]!))
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, limit);
    const top = Math.max(ranked[0]?.[1] ?? 0, Number.EPSILON);
    const hits: WeakHit[] = ranked.map(([doc, s]) => ({ id: this.#ids[doc]!, score: (WEAK_SCORE_CAP * s) / top, weak: true }));
    if (hits.length >= limit) return hits;
    // Nothing (or too little) shares even a prefix: the allowed tools in catalog order, below the matches.
    const taken = new Set(ranked.map(([doc]) => doc));
    for (let doc = 0; doc < n && hits.length < limit; doc++) {
      const id = this.#ids[doc]!;
      if (taken.has(doc) || (allowed !== undefined && !allowed.has(id))) continue;
      hits.push({ id, score: 0, weak: true });
    }
    return hits;
  }

  /** Catalog terms that start with `word` or that `word` starts with, with the share of letters they have in common. */
  #related(word: string): Array<[string, number]> {
    const out: Array<[string, number]> = [];
    // Terms that begin with the word: a contiguous run of the sorted terms.
    let lo = 0;
    let hi = this.#terms.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.#terms[mid]! < word) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.#terms.length && out.length < MAX_MATCHES_PER_WORD; i++) {
      const term = this.#terms[i]!;
      if (!term.startsWith(word)) break;
      out.push([term, word.length / term.length]);
    }
    // Terms the word begins with ("knowledgebase" typed, "knowledg" indexed).
    for (let len = word.length - 1; len >= MIN_STEM; len--) {
      const head = word.slice(0, len);
      if (this.#docsOf.has(head)) out.push([head, len / word.length]);
    }
    return out;
  }
}

/**
 * The words a partial match tries, stemmed, each with its weight: every word of 3+ letters,
 * stopwords too at STOPWORD_WEIGHT (the analyzer drops "know", which is all that "what do you
 * know about Alice" says about the tools it wants). Distinct, in request order.
 */
function partialWords(query: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const chunk of query.split(/\s+/)) {
    for (const word of splitIdentifier(chunk)) {
      if (word.length < MIN_PREFIX || !CONTENT.test(word)) continue;
      const weight = STOPWORDS.has(word) ? STOPWORD_WEIGHT : 1;
      const term = stem(word);
      if (weight > (out.get(term) ?? 0)) out.set(term, weight);
    }
  }
  return out;
}
