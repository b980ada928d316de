/**
 * The plain baseline the ranking is measured against, as issue 22 defines it: one field of
 * name + server (toolset) + description + parameter names, identifiers split at camelCase and
 * snake_case (and any non-alphanumeric), lowercased; BM25 with k1 1.2, b 0.75. No stemming,
 * stopwords, field weights, expansion or fusion: what any tool search must at least match.
 * Ties keep catalog order.
 */
import type { SearchDoc } from "../../src/index.js";

/** camelCase / snake_case / kebab split, lowercase, ASCII letters and digits ("getHTTPResponse" → get, http, response). */
function plainTokens(text: string): string[] {
  const spaced = text.replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2");
  return spaced.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

export interface Baseline {
  search(query: string, limit: number): string[];
}

export function plainBm25(docs: readonly SearchDoc[], k1 = 1.2, b = 0.75): Baseline {
  const score = bm25OverCounts(
    docs.map((doc) => {
      const tf = new Map<string, number>();
      for (const t of plainTokens([doc.name, doc.toolset, doc.description, ...doc.params.map((p) => p.name)].join(" "))) tf.set(t, (tf.get(t) ?? 0) + 1);
      return tf;
    }),
    k1,
    b,
  );
  return {
    search: (query, limit) =>
      score(plainTokens(query))
        .slice(0, limit)
        .map((doc) => docs[doc]!.id),
  };
}

/**
 * BM25 over documents given as term counts (k1, b): for a request's terms, the matching
 * documents' indexes, best first, ties in document order. The baseline above and the learning
 * ceiling (bench/learning/ceiling.ts, over bags of learned words) both rank with it.
 */
export function bm25OverCounts(counts: readonly ReadonlyMap<string, number>[], k1 = 1.2, b = 0.75): (terms: readonly string[]) => number[] {
  const postings = new Map<string, Array<[number, number]>>();
  const lengths = counts.map((tf, i) => {
    let length = 0;
    for (const [t, n] of tf) {
      length += n;
      const list = postings.get(t);
      if (list === undefined) postings.set(t, [[i, n]]);
      else list.push([i, n]);
    }
    return length;
  });
  const avg = Math.max(lengths.reduce((a, n) => a + n, 0) / Math.max(1, counts.length), Number.EPSILON);
  return (terms) => {
    const scores = new Map<number, number>();
    for (const term of new Set(terms)) {
      const list = postings.get(term);
      if (list === undefined) continue;
      const idf = Math.log(1 + (counts.length - list.length + 0.5) / (list.length + 0.5));
      for (const [doc, tf] of list) {
        scores.set(doc, (scores.get(doc) ?? 0) + (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * lengths[doc]!) / avg)));
      }
    }
    return [...scores].sort((x, y) => y[1] - x[1] || x[0] - y[0]).map(([doc]) => doc);
  };
}
