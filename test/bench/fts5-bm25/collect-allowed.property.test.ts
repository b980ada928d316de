/**
 * collectAllowed against the brute-force oracle "rank everything, keep the allowed, take the
 * first `limit`": the widening top-n loop must give exactly that, whatever the allowed set.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { collectAllowed } from "../../../bench/lib/fts5-bm25/collect-allowed.js";
import type { BackendHit } from "../../../src/search/types.js";

/** A catalog of `size` ids of which the first `matching` (in rank order) match the query. */
const scenario = fc
  .record({
    size: fc.integer({ min: 0, max: 60 }),
    limit: fc.integer({ min: 1, max: 20 }),
  })
  .chain(({ size, limit }) =>
    fc.record({
      size: fc.constant(size),
      limit: fc.constant(limit),
      // Often every tool matches (the loop must then stop at `size`), otherwise any number.
      matching: fc.oneof(fc.constant(size), fc.integer({ min: 0, max: size })),
      // A mask over the ids plus five the backend never holds; dense masks make the first guess
      // fall short, so the loop has to widen.
      allowed: fc.option(
        fc.array(fc.boolean(), { minLength: size + 5, maxLength: size + 5 }).map((mask) => mask.flatMap((on, i) => (on ? [i] : []))),
        { nil: undefined },
      ),
    }),
  );

describe("collectAllowed (property)", () => {
  it("returns the first `limit` allowed hits of the full ranking, asking only for what the backend has", () => {
    fc.assert(
      fc.property(scenario, ({ size, limit, matching, allowed }) => {
        const ranking: BackendHit[] = Array.from({ length: matching }, (_, i) => ({ id: `t${i}`, score: matching - i }));
        const allowedIds = allowed === undefined ? undefined : new Set(allowed.map((i) => `t${i}`));
        const asked: number[] = [];
        const topN = (n: number): BackendHit[] => {
          asked.push(n);
          return ranking.slice(0, n);
        };
        const got = collectAllowed(limit, size, allowedIds, topN);
        const oracle = ranking.filter((hit) => allowedIds === undefined || allowedIds.has(hit.id)).slice(0, limit);
        expect(got).toEqual(oracle);
        for (const n of asked) expect(n).toBeLessThanOrEqual(Math.max(size, limit));
        // Each widening asks for more than the last, so the loop ends.
        for (let i = 1; i < asked.length; i++) expect(asked[i]).toBeGreaterThan(asked[i - 1]!);
      }),
    );
  });
});
