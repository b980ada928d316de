import { describe, expect, it } from "vitest";
import { LruMap } from "../../src/validation/lru.js";
import { schemaKey, ValidatorCache } from "../../src/validation/validator-cache.js";

describe("bounded validator cache", () => {
  it("shares one validator between equal schemas and drops the least recently used past its bound", () => {
    const cache = new ValidatorCache({ maxEntries: 3, compilesPerAjv: 2 });
    const schema = (n: number) => ({ type: "object", properties: { [`f${n}`]: { type: "integer" } }, required: [`f${n}`] });
    const first = cache.validator(schema(1));
    expect(cache.validator(schema(1))).toBe(first);
    expect(first({ f1: 2 })).toBe(true);
    expect(first({ f1: "x" })).toBe(false);
    for (let n = 2; n <= 10; n++) expect(cache.validator(schema(n))({ [`f${n}`]: 1 })).toBe(true);
    expect(cache.size).toBe(3);
    expect(cache.validator(schema(1))).not.toBe(first); // evicted, compiled again (by a newer ajv)
    expect(schemaKey(schema(1))).toBe(schemaKey(JSON.parse(JSON.stringify(schema(1)))));
  });

  it("LruMap refreshes on read and evicts the oldest", () => {
    const evicted: string[] = [];
    const map = new LruMap<string, number>(2, (key) => evicted.push(key));
    map.set("a", 1);
    map.set("b", 2);
    map.get("a");
    map.set("c", 3);
    expect(evicted).toEqual(["b"]);
    expect(map.get("a")).toBe(1);
    expect(map.get("b")).toBeUndefined();
  });
});
