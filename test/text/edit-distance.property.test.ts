/** editDistance against the textbook full-matrix Levenshtein, with and without the `max` early exit. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { editDistance } from "../../src/text/edit-distance.js";

/** The oracle: the whole (a+1)×(b+1) matrix, no early exit, by UTF-16 code unit. */
function levenshtein(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
    }
  }
  return d[a.length]![b.length]!;
}

// A small alphabet makes near strings (the interesting cases) common; "é" and an astral
// character check that the distance counts UTF-16 code units like the oracle does.
const text = fc.string({ unit: fc.constantFrom("a", "b", "c", "_", "é", "😀"), maxLength: 12 });

describe("editDistance (property)", () => {
  it("equals the full-matrix distance without a bound", () => {
    fc.assert(fc.property(text, text, (a, b) => editDistance(a, b) === levenshtein(a, b)));
  });

  it("with `max`: exact when the distance is at most max, above max otherwise (never a false near miss)", () => {
    fc.assert(
      fc.property(text, text, fc.nat({ max: 8 }), (a, b, max) => {
        const exact = levenshtein(a, b);
        const bounded = editDistance(a, b, max);
        // Exact within the bound; past it, any value above max (never a false near miss).
        expect(exact <= max ? bounded === exact : bounded > max).toBe(true);
      }),
    );
  });

  it("is a metric: zero only for equal strings, symmetric, triangle inequality", () => {
    fc.assert(
      fc.property(text, text, text, (a, b, c) => {
        expect(editDistance(a, b) === 0).toBe(a === b);
        expect(editDistance(a, b)).toBe(editDistance(b, a));
        expect(editDistance(a, c)).toBeLessThanOrEqual(editDistance(a, b) + editDistance(b, c));
      }),
    );
  });
});
