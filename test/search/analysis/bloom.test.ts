/** BloomFilter: no false negatives, a bounded false-positive rate, and a filter restored from its bits. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BloomFilter } from "../../../src/search/analysis/bloom.js";

describe("BloomFilter", () => {
  it("never misses a word it holds, also after a restore from its bits (property)", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ maxLength: 12 }), { maxLength: 200 }), (words) => {
        const filter = new BloomFilter(words.length);
        for (const w of words) filter.add(w);
        const restored = new BloomFilter(words.length, filter.bits.slice());
        for (const w of words) {
          expect(filter.has(w)).toBe(true);
          expect(restored.has(w)).toBe(true);
        }
      }),
    );
  });

  it("answers about 1% false positives at its design load", () => {
    const filter = new BloomFilter(5000);
    for (let i = 0; i < 5000; i++) filter.add(`word${i}`);
    let falsePositives = 0;
    for (let i = 0; i < 20_000; i++) if (filter.has(`other${i}`)) falsePositives++;
    expect(falsePositives / 20_000).toBeLessThan(0.03);
  });

  it("an empty filter holds nothing; saved bits of another size are refused", () => {
    expect(new BloomFilter(10).has("anything")).toBe(false);
    expect(() => new BloomFilter(1000, new Uint32Array(3))).toThrow(/size mismatch/);
  });
});
