import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { createToolAjv } from "../../src/validation/ajv.js";
import { canonical, firstDuplicate } from "../../src/validation/unique-items.js";

/** ajv's own (quadratic) uniqueItems: the oracle for small arrays. */
const oracle = new Ajv({ allErrors: true }).compile({ type: "array", uniqueItems: true });
const linear = createToolAjv().compile({ type: "array", uniqueItems: true });

function seeded(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
}

function randomValue(rand: () => number, depth = 0): unknown {
  const r = rand();
  if (depth > 2 || r < 0.3) return [null, true, false, 0, 1, 1.5, "", "a", "b"][Math.floor(rand() * 9)];
  if (r < 0.6) return Array.from({ length: Math.floor(rand() * 3) }, () => randomValue(rand, depth + 1));
  const object: Record<string, unknown> = {};
  for (const key of ["x", "y", "z"]) if (rand() < 0.5) object[key] = randomValue(rand, depth + 1);
  return object;
}

describe("linear uniqueItems", () => {
  it("agrees with ajv's pairwise comparison on 2,000 random arrays", () => {
    const rand = seeded(42);
    for (let n = 0; n < 2_000; n++) {
      const items = Array.from({ length: Math.floor(rand() * 6) }, () => randomValue(rand));
      expect(linear(items), JSON.stringify(items)).toBe(oracle(items));
    }
  });

  it("treats objects with the same members in another key order as equal", () => {
    expect(canonical({ b: 1, a: [2, { d: 1, c: 2 }] })).toBe(canonical({ a: [2, { c: 2, d: 1 }], b: 1 }));
    expect(firstDuplicate([{ a: 1, b: 2 }, { c: 3 }, { b: 2, a: 1 }])).toEqual([0, 2]);
    expect(
      linear([
        { a: 1, b: 2 },
        { b: 2, a: 1 },
      ]),
    ).toBe(false);
    expect(linear.errors?.[0]?.message).toBe("must NOT have duplicate items (items ## 1 and 0 are identical)");
  });

  it("checks 20,000 objects reading each item once, not once per pair", () => {
    // Every property read is counted: a pairwise comparison (ajv's own) reads each item ~n times.
    let reads = 0;
    const items = Array.from({ length: 20_000 }, (_, i) => ({
      get id() {
        reads += 1;
        return i;
      },
      get name() {
        reads += 1;
        return `item ${i}`;
      },
    }));
    expect([linear(items), linear([...items, { name: "item 7", id: 7 }])]).toEqual([true, false]);
    // Two checks, each reading the two properties of every item once.
    expect(reads).toBeLessThanOrEqual(2 * 2 * items.length);
  });
});
