/**
 * Bm25fIndex against plain BM25 (bench/lib/memory-bm25.ts) as an oracle, on random small
 * catalogs and queries, with the scorer set as close to BM25 as its options go: no
 * coordination, no name precision, no vocabulary rewrites, no expansion (each word is its own
 * only variant), field weights 1, and the docs' terms handed over as analysed (the analyzer is
 * tested on its own; the words here are ones it leaves as they are, checked below).
 *
 * What is compared, and why it is honest: BM25F with weight 1 scores a term
 * idf·n / (k1·norm + n), plain BM25 idf·n·(k1 + 1) / (n + k1·norm): the same up to the factor
 * k1 + 1, when the terms are in one field (any b), or spread over fields with b = 0 (the field
 * frequencies then simply add up). So the two must match the same docs, and each doc's score ×
 * (k1 + 1) must equal the oracle's. Ties are ordered by doc number in the scorer (insertion
 * order in the oracle's stable sort of a Map), so the order is checked through the scores.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { memoryBm25 } from "../../../bench/lib/memory-bm25.js";
import { analyzeText } from "../../../src/search/analysis/analyze.js";
import { Bm25fIndex, type Bm25fParams, type FieldTerms } from "../../../src/search/scoring/bm25f.js";
import type { Expander } from "../../../src/search/query/query-expansion.js";
import type { SearchDoc } from "../../../src/search/types.js";

/** Words the analyzer keeps as typed (no stopword, no stem change), so both sides see the same terms. */
const WORDS = ["alpha", "bravo", "delta", "kilo", "lima", "oscar", "sierra", "tango", "zulu", "quartz", "vortex", "nimbus"];
/** In no doc: both sides must ignore it. */
const ABSENT = "xylophon";

const noExpansion: Expander = (word) => [{ term: word, weight: 1 }];

interface Doc {
  name: readonly string[];
  description: readonly string[];
}

const word = fc.constantFrom(...WORDS);
const docArb = fc.record({ name: fc.array(word, { maxLength: 3 }), description: fc.array(word, { maxLength: 12 }) });
const catalogArb = fc.array(docArb, { minLength: 1, maxLength: 25 });
const queryArb = fc.array(fc.constantFrom(...WORDS, ABSENT), { minLength: 1, maxLength: 5 });
const k1Arb = fc.double({ min: 0.2, max: 3, noNaN: true });

function params(k1: number, b: number): Bm25fParams {
  const field = { weight: 1, b };
  return { k1, fields: [field, field, field, field], coord: 0, namePrecision: 0, vocabulary: false };
}

/** The oracle's view of the docs kept (ids t0, t1, … by position in the whole catalog). */
function searchDocs(docs: readonly Doc[], kept: (i: number) => boolean): SearchDoc[] {
  return docs.flatMap((d, i) =>
    kept(i) ? [{ id: `t${i}`, name: d.name.join("_"), source: "plugin", toolset: "t", description: d.description.join(" "), params: [] }] : [],
  );
}

/**
 * Scorer hits for every matching doc, and the oracle's scores, compared as the header says.
 * `removed`: docs added and then removed again (the oracle never sees them); `snapshot`: the
 * scorer searched is the index written to a snapshot and read back.
 */
function agree(
  docs: readonly Doc[],
  fields: (d: Doc) => FieldTerms,
  query: readonly string[],
  k1: number,
  b: number,
  { removed = new Set<number>(), snapshot = false }: { removed?: ReadonlySet<number>; snapshot?: boolean } = {},
): void {
  const built = new Bm25fIndex(params(k1, b), noExpansion);
  built.add(docs.map((d, i) => ({ id: `t${i}`, fields: fields(d) })));
  built.remove([...removed].map((i) => `t${i}`));
  const index = snapshot ? Bm25fIndex.fromSnapshot(built.toSnapshot(), params(k1, b), noExpansion) : built;
  const text = query.join(" ");
  const hits = index.search(text, { limit: docs.length });
  const oracle = new Map(
    memoryBm25(
      searchDocs(docs, (i) => !removed.has(i)),
      k1,
      b,
    )
      .scored(text)
      .map((h) => [h.id, h.score]),
  );

  expect(new Set(hits.map((h) => h.id))).toEqual(new Set(oracle.keys()));
  for (const hit of hits) {
    const expected = oracle.get(hit.id)!;
    expect(Math.abs(hit.score * (k1 + 1) - expected)).toBeLessThanOrEqual(1e-9 * Math.max(1, expected));
  }
  // Best first; equal scores in catalog order.
  const byRank = [...hits].sort((a, c) => c.score - a.score || Number(a.id.slice(1)) - Number(c.id.slice(1)));
  expect(hits.map((h) => h.id)).toEqual(byRank.map((h) => h.id));
}

describe("Bm25fIndex against plain BM25 (property)", () => {
  it("uses words the analyzer keeps as typed", () => {
    for (const w of [...WORDS, ABSENT]) expect(analyzeText(w)).toEqual([w]);
  });

  it("one field, any k1 and b: the same docs match, and each scores BM25's score ÷ (k1 + 1)", () => {
    fc.assert(
      fc.property(catalogArb, queryArb, k1Arb, fc.double({ min: 0, max: 1, noNaN: true }), (docs, query, k1, b) => {
        agree(docs, (d) => [[], [], [...d.name, ...d.description], []], query, k1, b);
      }),
      { numRuns: 300 },
    );
  });

  it("terms spread over name and description with b = 0: field frequencies add up as BM25's one count", () => {
    fc.assert(
      fc.property(catalogArb, queryArb, k1Arb, (docs, query, k1) => {
        agree(docs, (d) => [d.name, [], d.description, []], query, k1, 0);
      }),
      { numRuns: 300 },
    );
  });

  it("after removals, and read back from a snapshot: the statistics are those of the docs left", () => {
    const removedArb = fc.uniqueArray(fc.nat({ max: 24 }), { maxLength: 10 });
    const bArb = fc.double({ min: 0, max: 1, noNaN: true });
    fc.assert(
      fc.property(catalogArb, removedArb, fc.boolean(), queryArb, k1Arb, bArb, (docs, removed, snapshot, query, k1, b) => {
        agree(docs, (d) => [[], [], [...d.name, ...d.description], []], query, k1, b, { removed: new Set(removed.filter((i) => i < docs.length)), snapshot });
      }),
      { numRuns: 300 },
    );
  });
});
