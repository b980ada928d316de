/**
 * Never empty: when no tool holds any word of a request that has content words, the best
 * partial matches instead, marked weak so that a model knows to rephrase rather than conclude
 * that no tool exists. "what do you know about Alice" over the memory server shares no word
 * with it, but "know" begins "knowledge" (its tools' descriptions): a query word that is a
 * prefix of a catalog word, or has one as its prefix, matches it with a weight that falls with
 * the letters not shared. When not even that matches ("forget everything about Bob"), the
 * allowed tools in catalog order: for a server's handful of tools, all of them.
 *
 * Reads the backend's own postings where it has them (BM25F: the sorted term list is made on the
 * first miss, as the typo index is on the first unknown word), never on the path of a query
 * that matches. Only the allowed ids are ever returned.
 */
import { analyzeIdentifier, analyzeQuery, analyzeText, splitIdentifier, stem } from "../analysis/analyze.js";
import { STOPWORDS } from "../analysis/stopwords.js";
import type { BackendHit, SearchDoc, Vocabulary } from "../types.js";

/** Shortest query word tried as a prefix, and shortest catalog word a query word may start with. */
const MIN_PREFIX = 3;
const MIN_STEM = 4;
/** Description terms read per tool: what a one-line summary says, not a long manual. */
const MAX_DESCRIPTION_TERMS = 48;
/** Catalog words a query word is a prefix of, at most (the first in sorted order: the shortest share most). */
const MAX_MATCHES_PER_WORD = 32;
/** Weight of a stopword ("know" of "what do you know"): a request of fluff may still hint at something. */
const STOPWORD_WEIGHT = 0.5;
/** Weak scores stay below this: they rank among themselves, never like a real match. */
const WEAK_SCORE_CAP = 0.1;
const CONTENT = /^[\p{L}\p{N}]+$/u;

export interface WeakHit extends BackendHit {
  weak: true;
}

/**
 * Partial matches over an index's vocabulary: the backend's own (CorpusStats.termDocs, the
 * BM25F postings: nothing more to build) or, for a backend without one, ownVocabulary.
 */
export class PartialMatcher {
  readonly #vocabulary: Vocabulary;
  /** Every doc id, in catalog order: the fallback when nothing shares a prefix. */
  readonly #ids: () => Iterable<string>;

  constructor(vocabulary: Vocabulary, ids: () => Iterable<string>) {
    this.#vocabulary = vocabulary;
    this.#ids = ids;
  }

  /** Whether a request has words a partial match can use (not only stopwords and punctuation). */
  static hasContent(query: string): boolean {
    return analyzeQuery(query).some((t) => CONTENT.test(t.term));
  }

  /**
   * Up to `limit` allowed tools for a request no tool matched: prefix matches first (best
   * first, then the vocabulary's order), then the other allowed tools in catalog order. [] for
   * a request without content words or an empty allowed catalog.
   */
  match(query: string, limit: number, allowed?: ReadonlySet<string>): WeakHit[] {
    if (!(limit > 0) || !PartialMatcher.hasContent(query)) return [];
    const scores = new Map<string, number>();
    const n = this.#vocabulary.size;
    for (const [word, wordWeight] of partialWords(query)) {
      const best = new Map<string, number>();
      for (const [term, similarity] of this.#related(word)) {
        const docs = this.#vocabulary.docs(term);
        // Rarer words say more, as in BM25's IDF.
        const weight = wordWeight * similarity * Math.log(1 + (n - docs.length + 0.5) / (docs.length + 0.5));
        for (const id of docs) if (weight > (best.get(id) ?? 0)) best.set(id, weight);
      }
      for (const [id, w] of best) scores.set(id, (scores.get(id) ?? 0) + w);
    }
    // Stable: equal scores keep the order the vocabulary gave them.
    const ranked = [...scores]
      .filter(([id]) => allowed === undefined || allowed.has(id))
      .sort((a, b) => b[1] - a[1])
      .slice(0, limit);
    const top = Math.max(ranked[0]?.[1] ?? 0, Number.EPSILON);
    const hits: WeakHit[] = ranked.map(([id, s]) => ({ id, score: (WEAK_SCORE_CAP * s) / top, weak: true }));
    if (hits.length >= limit) return hits;
    // Nothing (or too little) shares even a prefix: the allowed tools in catalog order, below the matches.
    const taken = new Set(ranked.map(([id]) => id));
    for (const id of this.#ids()) {
      if (hits.length >= limit) break;
      if (taken.has(id) || (allowed !== undefined && !allowed.has(id))) continue;
      hits.push({ id, score: 0, weak: true });
    }
    return hits;
  }

  /** Catalog terms that start with `word` or that `word` starts with, with the share of letters they have in common. */
  #related(word: string): Array<[string, number]> {
    const terms = this.#vocabulary.terms;
    const out: Array<[string, number]> = [];
    // Terms that begin with the word: a contiguous run of the sorted terms.
    let lo = 0;
    let hi = terms.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (terms[mid]! < word) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < terms.length && out.length < MAX_MATCHES_PER_WORD; i++) {
      const term = terms[i]!;
      if (!term.startsWith(word)) break;
      if (CONTENT.test(term)) out.push([term, word.length / term.length]);
    }
    // Terms the word begins with ("knowledgebase" typed, "knowledg" indexed).
    for (let len = word.length - 1; len >= MIN_STEM; len--) {
      const head = word.slice(0, len);
      if (this.#vocabulary.docs(head).length > 0) out.push([head, len / word.length]);
    }
    return out;
  }
}

/**
 * A vocabulary built from the docs, for a backend that exposes none (minisearch): names,
 * toolsets, parameter names and the first MAX_DESCRIPTION_TERMS of each description.
 */
export function ownVocabulary(docs: Iterable<SearchDoc>): Vocabulary {
  const byTerm = new Map<string, string[]>();
  let size = 0;
  for (const doc of docs) {
    size++;
    const terms = new Set<string>([
      ...analyzeIdentifier(doc.name),
      ...analyzeIdentifier(doc.toolset),
      ...analyzeText(doc.description).slice(0, MAX_DESCRIPTION_TERMS),
      ...doc.params.flatMap((p) => analyzeIdentifier(p.name)),
    ]);
    for (const term of terms) {
      if (!CONTENT.test(term)) continue;
      const list = byTerm.get(term);
      if (list === undefined) byTerm.set(term, [doc.id]);
      else list.push(doc.id);
    }
  }
  const terms = [...byTerm.keys()].sort();
  return { terms, size, docs: (term) => byTerm.get(term) ?? [] };
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
