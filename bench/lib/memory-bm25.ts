/**
 * The speed yardstick for search: about the least a BM25 search can do in memory. Lowercase
 * words of name + description, one posting map per term, k1 1.2, b 0.75, a full sort of the
 * matches. No identifier splitting, stemming, fields or expansion: what any engine must beat
 * on latency to justify itself.
 */
import type { SearchDoc } from "../../src/index.js";

const words = (text: string): string[] => text.toLowerCase().match(/[a-z0-9]+/g) ?? [];

export function memoryBm25(
  docs: readonly SearchDoc[],
  k1 = 1.2,
  b = 0.75,
): { search(query: string, limit: number): string[]; scored(query: string): Array<{ id: string; score: number }> } {
  const postings = new Map<string, Map<number, number>>();
  const lengths = docs.map((doc, i) => {
    const terms = words(`${doc.name.replace(/[_-]/g, " ")} ${doc.description}`);
    for (const t of terms) {
      const p = postings.get(t) ?? new Map<number, number>();
      p.set(i, (p.get(i) ?? 0) + 1);
      postings.set(t, p);
    }
    return terms.length;
  });
  const avg = lengths.reduce((a, n) => a + n, 0) / Math.max(1, docs.length);
  const scoresOf = (query: string): Array<[number, number]> => {
    const scores = new Map<number, number>();
    for (const term of new Set(words(query))) {
      const p = postings.get(term);
      if (p === undefined) continue;
      const idf = Math.log(1 + (docs.length - p.size + 0.5) / (p.size + 0.5));
      for (const [doc, tf] of p) {
        const s = (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * lengths[doc]!) / avg));
        scores.set(doc, (scores.get(doc) ?? 0) + s);
      }
    }
    return [...scores].sort((x, y) => y[1] - x[1]);
  };
  return {
    search: (query, limit) =>
      scoresOf(query)
        .slice(0, limit)
        .map(([doc]) => docs[doc]!.id),
    /** Every matching doc with its score, best first: the oracle of test/search/scoring/bm25f.property.test.ts. */
    scored: (query) => scoresOf(query).map(([doc, score]) => ({ id: docs[doc]!.id, score })),
  };
}
