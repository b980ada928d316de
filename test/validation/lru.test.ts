import { describe, expect, it } from "vitest";
import { LruMap } from "../../src/validation/lru.js";

describe("LruMap", () => {
  it("past its bound drops the least recently used entry and hands it to onEvict; get and set refresh, peek does not", () => {
    const evicted: Array<[string, number]> = [];
    const map = new LruMap<string, number>(2, (key, value) => evicted.push([key, value]));
    map.set("a", 1);
    map.set("b", 2);
    expect(map.peek("a")).toBe(1);
    map.set("c", 3);
    expect(evicted).toEqual([["a", 1]]);
    expect(map.get("b")).toBe(2);
    map.set("d", 4);
    expect(evicted).toEqual([
      ["a", 1],
      ["c", 3],
    ]);
    expect([...map.entries()]).toEqual([
      ["b", 2],
      ["d", 4],
    ]);
  });

  it("delete takes an entry out without calling onEvict; has, keys and values read without refreshing", () => {
    const evicted: string[] = [];
    const map = new LruMap<string, number>(3, (key) => evicted.push(key));
    map.set("a", 1);
    map.set("b", 2);
    expect(map.delete("a")).toBe(true);
    expect(map.delete("a")).toBe(false);
    expect(map.has("a")).toBe(false);
    expect(map.has("b")).toBe(true);
    map.set("c", 3);
    expect([...map.keys()]).toEqual(["b", "c"]);
    expect([...map.values()]).toEqual([2, 3]);
    expect(evicted).toEqual([]);
    expect(map.size).toBe(2);
  });
});
