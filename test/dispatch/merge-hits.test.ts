/** mergeHits: one ranked list from the catalog's and the run's client tools' hits. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mergeHits } from "../../src/dispatch/merge-hits.js";
import { EXACT_SCORE } from "../../src/search/tool-index.js";
import type { BackendHit } from "../../src/search/types.js";

const hits = (prefix: string, scores: number[]): BackendHit[] => scores.map((score, i) => ({ id: `${prefix}${i}`, score }));
/** Each list best first, as backends give them. */
const list = (prefix: string) =>
  fc.array(fc.oneof(fc.double({ min: 0.01, max: 50, noNaN: true }), fc.constant(EXACT_SCORE)), { maxLength: 8 }).map((s) =>
    hits(
      prefix,
      s.sort((a, b) => b - a),
    ),
  );

describe("mergeHits", () => {
  it("comparable scores: the oracle is one sort of both lists by score, catalog first on ties (property)", () => {
    fc.assert(
      fc.property(list("cat"), list("cli"), fc.integer({ min: 1, max: 20 }), (catalog, client, limit) => {
        const merged = mergeHits(catalog, client, limit, true);
        const oracle = [...catalog, ...client]
          .sort((x, y) => y.score - x.score || (x.id.startsWith("cat") ? 0 : 1) - (y.id.startsWith("cat") ? 0 : 1))
          .slice(0, limit);
        expect(merged.map((h) => h.id)).toEqual(oracle.map((h) => h.id));
        const best = Math.max(...oracle.filter((h) => h.score < EXACT_SCORE).map((h) => h.score), Number.EPSILON);
        for (const h of merged) expect(h.relative).toBe(h.score >= EXACT_SCORE ? 1 : h.score / best);
      }),
    );
  });

  it("scores of unknown scale: exact matches first, then each list by its own best, each list's order kept (property)", () => {
    fc.assert(
      fc.property(list("cat"), list("cli"), fc.integer({ min: 1, max: 20 }), (catalog, client, limit) => {
        const merged = mergeHits(catalog, client, limit, false);
        expect(merged).toHaveLength(Math.min(limit, catalog.length + client.length));
        const exact = merged.filter((h) => h.score >= EXACT_SCORE).length;
        expect(merged.slice(0, exact).every((h) => h.score >= EXACT_SCORE)).toBe(true);
        for (const prefix of ["cat", "cli"]) {
          const order = merged.filter((h) => h.id.startsWith(prefix)).map((h) => Number(h.id.slice(3)));
          expect(order).toEqual([...order].sort((a, b) => a - b));
        }
      }),
    );
  });

  it("a client tool that matches better outranks catalog tools only when scores compare", () => {
    const catalog = hits("cat", [4, 2]);
    const client = hits("cli", [9]);
    expect(mergeHits(catalog, client, 3, true).map((h) => [h.id, h.relative])).toEqual([
      ["cli0", 1],
      ["cat0", 4 / 9],
      ["cat1", 2 / 9],
    ]);
    // Each list's best is 1 on its own scale: the tie keeps the catalog's first.
    expect(mergeHits(catalog, client, 3, false).map((h) => h.id)).toEqual(["cat0", "cli0", "cat1"]);
    expect(mergeHits([], [], 5, true)).toEqual([]);
  });
});
