/**
 * Explain mode of the BM25F scorer: the detail a search hands back is the scorer's own figures
 * (each hit's detail score is its ranked score exactly; the word scores add up to the sum, the
 * field shares to each word's score), on random catalogs and queries, for one search and for
 * a request's clauses ranked in one pass; and asking for it changes no hit.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Bm25fIndex, FIELD_NAMES, fieldTerms } from "../../../src/search/scoring/bm25f.js";
import type { BackendHit, ScoreDetail, SearchDoc } from "../../../src/search/types.js";

const WORDS = ["alpha", "bravo", "delta", "kilo", "lima", "oscar", "sierra", "tango", "zulu", "quartz", "vortex", "nimbus", "weather", "forecast"];
const word = fc.constantFrom(...WORDS);
const docArb = fc.record({
  name: fc.array(word, { minLength: 1, maxLength: 3 }),
  description: fc.array(word, { maxLength: 12 }),
  params: fc.array(word, { maxLength: 2 }),
});
const catalogArb = fc.array(docArb, { minLength: 1, maxLength: 25 });
// "wether" is a typo the index corrects to "weather", "zorp" a word no doc holds.
const queryArb = fc.array(fc.constantFrom(...WORDS, "wether", "zorp"), { minLength: 1, maxLength: 6 });

function index(docs: ReadonlyArray<{ name: readonly string[]; description: readonly string[]; params: readonly string[] }>): Bm25fIndex {
  const searchDocs: SearchDoc[] = docs.map((d, i) => ({
    id: `t${i}`,
    name: d.name.join("_"),
    source: "plugin",
    toolset: i % 2 === 0 ? "alpha" : "tango",
    description: d.description.join(" "),
    params: d.params.map((name) => ({ name, description: "" })),
  }));
  const out = new Bm25fIndex();
  out.add(searchDocs.map((doc) => ({ id: doc.id, fields: fieldTerms(doc) })));
  return out;
}

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

/** Every hit has a detail whose score is the hit's score bit for bit, and whose parts add up. */
function checkList(hits: readonly BackendHit[], details: ReadonlyMap<string, ScoreDetail> | undefined): void {
  expect(details?.size).toBe(hits.length);
  for (const hit of hits) {
    const detail = details?.get(hit.id);
    expect(detail?.score).toBe(hit.score);
    if (detail === undefined) continue;
    expect(detail.sum * detail.coordination * detail.namePrecision).toBe(detail.score);
    expect(
      close(
        detail.words.reduce((s, w) => s + w.score, 0),
        detail.sum,
      ),
    ).toBe(true);
    for (const w of detail.words) {
      expect(w.score).toBeGreaterThan(0);
      expect(
        close(
          FIELD_NAMES.reduce((s, f) => s + w.fields[f], 0),
          w.score,
        ),
      ).toBe(true);
      expect(w.via === "word").toBe(w.term === w.word);
    }
  }
}

describe("Bm25fIndex explain mode", () => {
  it("gives each hit the score the scorer ranked it by, split into words and fields that add up", () => {
    fc.assert(
      fc.property(catalogArb, queryArb, fc.integer({ min: 1, max: 30 }), (docs, query, limit) => {
        const scorer = index(docs);
        const text = query.join(" ");
        let lists: ReadonlyArray<ReadonlyMap<string, ScoreDetail>> = [];
        const hits = scorer.search(text, { limit, explain: (l) => (lists = l) });
        expect(hits).toEqual(scorer.search(text, { limit }));
        // One list for the query (none when it has no words), whenever there are hits.
        expect(lists.length).toBeLessThanOrEqual(1);
        expect(lists.length).toBeGreaterThanOrEqual(Math.min(1, hits.length));
        checkList(hits, lists[0] ?? new Map());
      }),
      { numRuns: 150 },
    );
  });

  it("does the same for the whole request and each clause ranked in one pass", () => {
    fc.assert(
      fc.property(catalogArb, fc.array(queryArb, { minLength: 2, maxLength: 3 }), (docs, clauses) => {
        const scorer = index(docs);
        const texts = clauses.map((c) => c.join(" "));
        let lists: ReadonlyArray<ReadonlyMap<string, ScoreDetail>> = [];
        const all = scorer.searchClauses(texts, { limit: 10, explain: (l) => (lists = l) });
        expect(all).toEqual(scorer.searchClauses(texts, { limit: 10 }));
        expect(lists).toHaveLength(texts.length + 1);
        all.forEach((hits, i) => checkList(hits, lists[i]));
      }),
      { numRuns: 100 },
    );
  });

  it("names the field a word scored in, and the correction a typo scored through (in the name and description only)", () => {
    const scorer = index([
      { name: ["weather"], description: ["forecast", "kilo"], params: [] },
      { name: ["lima"], description: ["oscar"], params: ["weather"] },
    ]);
    let lists: ReadonlyArray<ReadonlyMap<string, ScoreDetail>> = [];
    const hits = scorer.search("wether forecast", { limit: 5, explain: (l) => (lists = l) });
    expect(hits[0]?.id).toBe("t0");
    const words = lists[0]?.get("t0")?.words ?? [];
    expect(words.map((w) => [w.word, w.term, w.via])).toEqual([
      ["wether", "weather", "typo"],
      ["forecast", "forecast", "word"],
    ]);
    expect(words[0]?.fields.name).toBeGreaterThan(0);
    expect(words[0]?.fields.description).toBe(0);
    expect(words[1]?.fields).toMatchObject({ name: 0, toolset: 0, params: 0 });
    // The second doc holds "weather" in a parameter name only: a correction scores in the name
    // and description alone (bm25f.ts expansionFields), so the typo does not find it; the word typed does.
    expect(hits.map((h) => h.id)).toEqual(["t0"]);
    scorer.search("weather", { limit: 5, explain: (l) => (lists = l) });
    expect(lists[0]?.get("t1")?.words[0]?.fields).toMatchObject({ name: 0, description: 0 });
    expect(lists[0]?.get("t1")?.words[0]?.fields.params).toBeGreaterThan(0);
  });
});
